"""The driver of a cleanup: model, cascade, formatting, safety gate, derived flags."""
