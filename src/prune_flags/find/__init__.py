"""Discovery: names that hold one literal everywhere and are read in a condition, i.e. stale
flags."""

# By stages, a module each (the facts they hand on are frozen types in `facts.py`):
# - scan (`scan.py`, its handlers in `scan_*.py`): each file parsed once with the standard `ast` (in
#   a process pool when the trees are large), recording per name its literal definitions, everything
#   else that could give it a value, and its reads;
# - merge and judge (`merge.py`, `candidates.py`): those facts merged across the repository; a name
#   is kept only if nothing anywhere can give it another value (conservative by name, as the engine
#   is: `node.x = y` in any file disqualifies every `x`); the flags the user named are decided by
#   the engine's own run instead;
# - estimate (`estimate.py`, the default) or measure (`measure.py`, `--exact`): each candidate's
#   folds counted from the trees by the engine's rules (fast), or by running the engine with the
#   name as the only flag (the cascade included, slow on big files); a candidate that folds nothing
#   is dropped: a constant that is only inlined is no stale flag;
# - render (`render.py`): JSON, the evidence line, the config `--config-out` writes. `run.py` drives
#   them.
