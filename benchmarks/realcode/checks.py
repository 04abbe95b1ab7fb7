"""The checks of a rewritten tree against its pristine copy, file by file: does it compile, what
does pyflakes say, does the project's formatter pass it, which modules import, which tests pass.

Every check compares with the pristine file or tree: only what the rewrite made worse counts.
"""

from __future__ import annotations

import ast
import io
import json
import keyword
import os
import subprocess
import sys
import tokenize
import xml.etree.ElementTree as ElementTree
from collections import Counter
from pathlib import Path, PurePosixPath

import pyflakes.checker  # type: ignore[import-untyped]

from .prepare import _tail

PROBE = Path(__file__).resolve().parent / "probe.py"
UNDEFINED = frozenset({"UndefinedName", "UndefinedExport", "UndefinedLocal"})
SKIPPED_DIRECTORIES = frozenset({".git", "__pycache__", ".tox", ".nox", "build", "node_modules"})
Messages = Counter[tuple[str, tuple[str, ...]]]


def python_files(tree: Path) -> dict[str, bytes]:
    """Every .py file under `tree` by its relative posix path, with its bytes."""
    found: dict[str, bytes] = {}
    for directory, subdirectories, names in os.walk(tree):
        subdirectories[:] = sorted(d for d in subdirectories if d not in SKIPPED_DIRECTORIES)
        for name in names:
            path = Path(directory, name)
            if name.endswith(".py") and path.is_file() and not path.is_symlink():
                found[path.relative_to(tree).as_posix()] = path.read_bytes()
    return found


def changed(before: dict[str, bytes], after: dict[str, bytes]) -> list[str]:
    """The files that differ, deleted and added ones included."""
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


def text_of(source: bytes) -> str:
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        return source.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return source.decode("utf-8", "replace")


def compile_error(source: bytes, path: str) -> str | None:
    try:
        compile(source, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as error:
        return f"{type(error).__name__}: {error}"
    return None


def pyflakes_messages(source: bytes, path: str) -> tuple[Messages, dict[tuple[str, tuple], str]]:
    """pyflakes' messages by kind and the names they cite (not line numbers, which move), with
    one readable line for each; empty when the file does not parse."""
    try:
        tree = ast.parse(source, filename=path)
    except (SyntaxError, ValueError):
        return Counter(), {}
    checker = pyflakes.checker.Checker(tree, filename=path)
    counts: Messages = Counter()
    shown: dict[tuple[str, tuple], str] = {}
    for message in checker.messages:
        args = tuple(arg for arg in message.message_args if isinstance(arg, str))
        key = (type(message).__name__, args)
        counts[key] += 1
        shown.setdefault(key, f"line {message.lineno}: {message.message % message.message_args}")
    return counts, shown


def formatter_of(tree: Path) -> str | None:
    """ "black" or "ruff" where the project's config says it formats with it, as prune-flags reads
    it: a black hook or [tool.black], else a ruff-format hook or any ruff config."""
    hooks = _read(tree / ".pre-commit-config.yaml")
    pyproject = _read(tree / "pyproject.toml")
    if "id: black" in hooks or "[tool.black]" in pyproject:
        return "black"
    ruff_files = (tree / "ruff.toml").is_file() or (tree / ".ruff.toml").is_file()
    if "id: ruff-format" in hooks or ruff_files or "[tool.ruff" in pyproject:
        return "ruff"
    return None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def format_state(formatter: str, tree: Path, path: str) -> str:
    """ "ok", "reformat" (the formatter would change it) or "error: ..." (it cannot format it),
    the formatter run on that one file from the project's root, so it reads the project's
    config."""
    if formatter == "black":
        command = [sys.executable, "-m", "black", "--check", "--quiet", path]
    else:
        command = [sys.executable, "-m", "ruff", "format", "--check", "--quiet", path]
    try:
        done = subprocess.run(command, cwd=tree, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"error: {error}"
    if done.returncode == 0:
        return "ok"
    if done.returncode == 1 and (formatter == "black" or "rror" not in done.stderr):
        return "reformat"
    return f"error: {_tail(done.stderr or done.stdout, 1)}"


def module_of(tree: Path, path: str) -> tuple[str, str] | None:
    """(the directory to put on sys.path, the dotted name) to import `path` by, its packages
    read from `__init__.py` files; None for what is no importable module (a setup script, a
    `__main__`, a name that is no identifier)."""
    pure = PurePosixPath(path)
    if pure.suffix != ".py":
        return None
    parts = [] if pure.stem == "__init__" else [pure.stem]
    folder = pure.parent
    while folder != PurePosixPath(".") and (tree / folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    if not parts or any(not p.isidentifier() or keyword.iskeyword(p) for p in parts):
        return None
    if parts[-1] == "__main__" or parts == ["setup"]:
        return None
    return folder.as_posix(), ".".join(parts)


def imported_modules(source: bytes, name: str, is_package: bool) -> frozenset[str]:
    """The absolute names of the modules a module imports, relative imports resolved, and each
    `from m import x` as both `m` and `m.x` (x may be a submodule)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return frozenset()
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: max(0, package.count(".") + 2 - node.level)]
                base = ".".join([*anchor, *([base] if base else [])])
            if base:
                found.add(base)
                found.update(f"{base}.{alias.name}" for alias in node.names)
    return frozenset(found)


def imports_any(imported: frozenset[str], targets: set[str]) -> bool:
    """True when importing these names runs one of the target modules (a package runs when any
    of its submodules is imported)."""
    return any(name == t or name.startswith(t + ".") for name in imported for t in targets)


def probe(python: Path, tree: Path, modules: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """Import each (root, name) in a process of its own with the project's interpreter: "ok" or
    the exception's last line."""
    if not modules:
        return {}
    payload = json.dumps([[str(tree / root), name] for root, name in modules])
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    timeout = 60 * len(modules) + 60
    try:
        done = subprocess.run(
            [str(python), str(PROBE), "60"],
            input=payload,
            cwd=tree,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        results = json.loads(done.stdout)
    except (OSError, subprocess.TimeoutExpired, json.JSONDecodeError) as error:
        return {module: f"probe failed: {error}" for module in modules}
    return {(root, name): results[f"{tree / root}:{name}"] for root, name in modules}


def package_roots(tree: Path) -> list[Path]:
    """Where the project's packages live: `src/` for a src layout, else the tree itself."""
    src = tree / "src"
    if src.is_dir() and any(p.is_dir() and (p / "__init__.py").is_file() for p in src.iterdir()):
        return [src]
    return [tree]


def run_tests(
    python: Path, tree: Path, args: tuple[str, ...], report: Path
) -> tuple[dict[str, str] | None, str]:
    """Each test's outcome ("passed", "failed", "error", "skipped") from pytest's junit XML,
    the tree's own packages first on sys.path; (None, why) when pytest wrote no report."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(str(root) for root in package_roots(tree))
    report.unlink(missing_ok=True)
    command = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
    command += [f"--junitxml={report}", *args]
    try:
        done = subprocess.run(
            command, cwd=tree, env=env, capture_output=True, text=True, timeout=1800
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return None, str(error)
    summary = _tail(done.stdout, 1)
    if not report.is_file():
        return None, f"pytest exited {done.returncode} without a report: {summary}"
    outcomes: dict[str, str] = {}
    for case in ElementTree.parse(report).iter("testcase"):
        test = f"{case.get('classname', '')}::{case.get('name', '')}"
        kinds = {child.tag for child in case}
        outcome = "passed"
        for kind in ("error", "failure", "skipped"):
            if kind in kinds:
                outcome = "failed" if kind == "failure" else kind
                break
        outcomes[test] = outcome
    return outcomes, summary
