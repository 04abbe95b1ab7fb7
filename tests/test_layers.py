"""The layout's rules, computed from the source: the pipeline's packages import only downward,
the import graph has no cycle, only `rewrite/` imports LibCST, no module is over 500 lines, and
the command line's start-up loads nothing that only one command needs."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

SOURCE = Path(__file__).resolve().parent.parent / "src"
PACKAGE = SOURCE / "prune_flags"

# The pipeline, from the bottom: a module may import from its own part and from those before it.
# A part is a package of prune_flags or a top-level module.
LAYERS = (
    "vocabulary",
    "syntax",
    "report",
    "exits",
    "config",
    "config_files",
    "source",
    "semantic",
    "model",
    "rewrite",
    "cascade",
    "workers",
    "engine",
    "review",
    "find",
    "batch",
    "cli",
    "__main__",
)
MAX_LINES = 500
# Loaded by `prune-flags --help` and by a command's options being parsed: no rewrite machinery, no
# formatter, no process pools, no Dask, no terminal widgets; find's and batch's work only once
# they run.
NOT_AT_START_UP = (
    "libcst",
    "black",
    "dask",
    "distributed",
    "rich",
    "multiprocessing",
    "concurrent.futures",
    "prune_flags.rewrite",
    "prune_flags.cascade",
    "prune_flags.engine",
    "prune_flags.model",
    "prune_flags.semantic",
    "prune_flags.workers.pool",
    "prune_flags.find.run",
    "prune_flags.batch.launch",
)


def module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imports(path: Path) -> set[str]:
    """Every module an import in the file names, wherever it stands (in a function, under
    TYPE_CHECKING): `from a import b` names `a` and, when it is a module, `a.b`."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def graph() -> dict[str, set[str]]:
    """The import graph of prune_flags: each module -> the modules of prune_flags it imports."""
    known = modules()
    return {
        name: {n for n in imports(path) if n in known and n != name} for name, path in known.items()
    }


def layer(module: str) -> int:
    part = module.split(".")[1] if "." in module else "__init__"
    return LAYERS.index(part) if part in LAYERS else -1


def test_every_module_belongs_to_a_layer() -> None:
    assert [name for name in modules() if name != "prune_flags" and layer(name) < 0] == []


def test_no_module_imports_upward() -> None:
    upward = sorted(
        f"{name} -> {target}"
        for name, targets in graph().items()
        for target in targets
        if target != "prune_flags" and layer(target) > layer(name)
    )
    assert upward == []


def test_the_import_graph_has_no_cycle() -> None:
    edges = graph()
    done: set[str] = set()
    cycles = []

    def visit(name: str, path: list[str]) -> None:
        if name in path:
            cycles.append(" -> ".join(path[path.index(name) :] + [name]))
            return
        if name in done:
            return
        for target in sorted(edges[name]):
            visit(target, path + [name])
        done.add(name)

    for name in sorted(edges):
        visit(name, [])
    assert cycles == []


def test_only_the_rewrite_package_imports_libcst() -> None:
    importing = sorted(
        name
        for name, path in modules().items()
        if any(n == "libcst" or n.startswith("libcst.") for n in imports(path))
        and not name.startswith("prune_flags.rewrite.")
    )
    assert importing == []


def test_no_module_is_over_the_limit() -> None:
    long = {
        name: count
        for name, path in modules().items()
        if (count := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}


def test_start_up_loads_only_what_the_command_line_needs() -> None:
    """The modules every command loads before it runs (its options parsed, the app built): what
    only one command needs is imported when that command runs (test_cli checks a whole diff)."""
    code = (
        "import sys, prune_flags.__main__, prune_flags.cli\n"
        f"heavy = {NOT_AT_START_UP!r}\n"
        "print(sorted(m for m in sys.modules if m.startswith(tuple(heavy)) and"
        " (m in heavy or m.startswith(tuple(h + '.' for h in heavy)))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "[]\n"
