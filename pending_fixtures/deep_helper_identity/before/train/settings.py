"""Training settings."""

enable_fp8 = False
learning_rate = 3e-4
