"""prune-flags: delete stale flags from Python codebases."""

__version__ = "0.1.0"
