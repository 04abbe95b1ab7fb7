"""The model of the flags: verdicts, scoping, plumbing, pinned tests, folded helpers."""
