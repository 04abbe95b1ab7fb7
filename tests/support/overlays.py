"""The settings_overlay idiom of the fuzzer's programs: one setting at two stages.

`program_base.py` defines the setting (maybe beside another one); `program_settings.py` takes all
of it (`from program_base import *`) and sets the setting again; the program reads it through
`settings.` (the overlay imported under that name) or through `program_base.`. Both
assignments are the flag's definitions (issue 27's settings overlays): the config's value is what
the program must behave as, whatever either stage holds.
"""

from __future__ import annotations

import contextlib
import sys
import types
from collections.abc import Iterator, Mapping
from pathlib import Path

OVERLAY_FLAG = "NEW_ROUTER"
BASE, OVERLAY = "program_base", "program_settings"
ALIAS = "settings"  # what the program imports the overlay as
IMPORTS = (f"import {OVERLAY} as {ALIAS}", f"import {BASE}")
# The program's reads, `{stage}` being `settings` or `program_base`.
READS = (
    "    if {stage}.NEW_ROUTER:\n        x = -x",
    "    x = (x, {stage}.NEW_ROUTER)",
    "    x = 'new' if not {stage}.NEW_ROUTER else x",
    "    x = [x] * ({stage}.NEW_ROUTER == 1)",
)
DEFINITION = f"{OVERLAY_FLAG} = "

# (module name, source or None for a module the run deleted), in the order they import
Modules = tuple[tuple[str, str | None], ...]


def stages(base_value: object, overlay_value: object, neighbour: bool) -> Modules:
    """The two stages' modules: the base holding `base_value` (beside `TIMEOUT = 30` if
    `neighbour`), the overlay taking the base's settings and setting `overlay_value`."""
    base = ['"""What every stage shares."""', ""]
    base += ["TIMEOUT = 30"] if neighbour else []
    base += [f"{DEFINITION}{base_value!r}  # the old router, until the rollout ends"]
    overlay = ['"""Production."""', "", f"from {BASE} import *  # noqa: F403", ""]
    overlay += ["# On in production.", f"{DEFINITION}{overlay_value!r}"]
    return (BASE, "\n".join(base) + "\n"), (OVERLAY, "\n".join(overlay) + "\n")


def decided(modules: Modules, flags: Mapping[str, object]) -> Modules:
    """The modules as the config decides them: every stage's definition holds the flag's value."""
    if OVERLAY_FLAG not in flags:
        return modules
    value = repr(flags[OVERLAY_FLAG])
    return tuple(
        (
            name,
            source
            and "\n".join(
                f"{DEFINITION}{value}" if line.startswith(DEFINITION) else line
                for line in source.split("\n")
            ),
        )
        for name, source in modules
    )


@contextlib.contextmanager
def installed(modules: Modules) -> Iterator[None]:
    """The modules importable by name meanwhile, each run in order (a missing one, None, is not
    there); sys.modules as it was afterwards."""
    saved = {name: sys.modules.get(name) for name, _ in modules}
    try:
        for name, source in modules:
            sys.modules.pop(name, None)
            if source is None:
                continue
            module = types.ModuleType(name)
            sys.modules[name] = module
            exec(compile(source, f"{name}.py", "exec"), module.__dict__)
        yield
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def written(root: Path, modules: Modules) -> Modules:
    """The modules as they are in `root` now: None for one the run deleted."""
    return tuple(
        (name, path.read_text() if (path := root / f"{name}.py").exists() else None)
        for name, _ in modules
    )


def shown(modules: Modules) -> str:
    """The modules after a program's source, as a finding shows them."""
    return "".join(
        f"\n# --- {name}.py ---\n{'(deleted)' if source is None else source}"
        for name, source in modules
    )
