"""Scripts that print figures; nothing here asserts a time (docs/speed.md says how to run each).

A package so that `python -m benchmarks.fuzz` runs from the repository's root, beside `tests`.
"""
