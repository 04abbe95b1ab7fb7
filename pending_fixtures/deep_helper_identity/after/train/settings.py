"""Training settings."""

learning_rate = 3e-4
