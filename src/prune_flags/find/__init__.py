"""Discovery: names that hold one literal everywhere and are read in a condition, i.e. stale flags.

By stages, a module each (the facts they hand on are frozen types in `facts.py`):
- scan (`scan.py`, its handlers in `scan_*.py`): each file parsed once with the standard `ast`
  (in a process pool when the trees are large), recording per name its literal definitions,
  everything else that could give it a value, and its reads;
- merge and judge (`merge.py`, `candidates.py`): those facts merged across the repository; a
  name is kept only if nothing anywhere can give it another value (conservative by name, as the
  engine is: `node.x = y` in any file disqualifies every `x`); the flags the user named are
  decided by the engine's own run instead;
- estimate (`estimate.py`, the default) or measure (`measure.py`, `--exact`): each candidate's
  folds counted from the trees by the engine's rules (fast), or by running the engine with the
  name as the only flag (the cascade included, slow on big files); a candidate that folds
  nothing is dropped: a constant that is only inlined is no stale flag;
- render (`render.py`): JSON, the evidence line, the config `--config-out` writes.
`run.py` drives them.
"""

from prune_flags.find.candidates import discover
from prune_flags.find.estimate import count_folds
from prune_flags.find.facts import Candidate, Decided, FileFacts, FindResult, Override, Templates
from prune_flags.find.render import config_toml, evidence, to_json
from prune_flags.files import internal_module_names
from prune_flags.find.run import decide, find
from prune_flags.find.scan import scan_file

__all__ = [
    "Candidate", "Decided", "FileFacts", "FindResult", "Override", "Templates", "config_toml",
    "count_folds", "decide", "discover", "evidence", "find", "internal_module_names", "scan_file",
    "to_json",
]  # fmt: skip
