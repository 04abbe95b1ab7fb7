"""What several test modules share: the golden fixture cases and their trees, the command line
run in-process, and small repositories to run it on.

The golden fixtures are fixtures/<category>/<name>/{before,after} and the case's flags, the case
named `<category>_<name>` (fixtures/core/megatron_4511 is core_megatron_4511). after/ holds only
the files the run changes, each as the run leaves it; a file missing there is unchanged, and a
case that changes nothing has no after/. The expected tree is before/ overlaid with after/
(`expected_tree`). A case's `case.toml` may set `args` (extra command-line arguments), `recipe`
(a config from codemods/ to pass with --config), `exit` (the expected exit code of apply),
`second_run_exit` and `paths` (the paths the run is given, relative to the tree; `.` when not
set); `config.toml`, when present, is passed with --config.

The differential fuzzer's program generator is tests/support/flag_programs.py.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from prune_flags.cli import app

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

# The repository's root: this file is tests/support/__init__.py.
ROOT = Path(__file__).resolve().parent.parent.parent
FIXTURES = ROOT / "fixtures"
RECIPES = FIXTURES.parent / "codemods"
# Each case's directory by the case's name: `<category>_<name>` for fixtures/<category>/<name>.
_CASE_PATHS = {
    f"{category.name}_{case.name}": case
    for category in FIXTURES.iterdir()
    if category.is_dir()
    for case in category.iterdir()
    if (case / "before").is_dir()
}
CASES = sorted(_CASE_PATHS)


def fixture_path(name: str) -> Path:
    """The directory of a case by its name: fixtures/core/megatron_4511 for core_megatron_4511."""
    return _CASE_PATHS[name]


def tree_bytes(root: Path) -> dict[str, bytes]:
    """The bytes of every file under `root` by its relative path, .git left out."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def python_tree_bytes(root: Path) -> dict[str, bytes]:
    """The bytes of every .py file under `root` by its relative path, .git left out (only the
    .py files, where `tree_bytes` takes every file)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*.py"))
        if ".git" not in p.relative_to(root).parts
    }


def expected_tree(case: Path) -> dict[str, bytes]:
    """The bytes of each file of the case's expected tree: before/ overlaid with after/, which
    holds only the files the run changes (a case with no after/ changes nothing)."""
    after = case / "after"
    return tree_bytes(case / "before") | (tree_bytes(after) if after.is_dir() else {})


def write_expected(case: Path, destination: Path) -> Path:
    """The case's expected tree written out at `destination` (a new directory)."""
    destination.mkdir(parents=True)
    for path, data in expected_tree(case).items():
        (destination / path).parent.mkdir(parents=True, exist_ok=True)
        (destination / path).write_bytes(data)
    return destination


def case_options(case: Path) -> tuple[list[str], int]:
    options = (
        tomllib.loads((case / "case.toml").read_text()) if (case / "case.toml").exists() else {}
    )
    args = list(options.get("args", []))
    if (case / "config.toml").exists():
        args += ["--config", str(case / "config.toml")]
    if "recipe" in options:
        args += ["--config", str(RECIPES / f"{options['recipe']}.toml")]
    return args, int(options.get("exit", 0))


def case_paths(case: Path) -> list[str]:
    """The paths a case's run is given: its case.toml's `paths`, else the whole tree."""
    options = (
        tomllib.loads((case / "case.toml").read_text()) if (case / "case.toml").exists() else {}
    )
    return [str(path) for path in options.get("paths", ["."])]


def second_run_exit(case: Path, first: int) -> int:
    """The exit of a run over the case's expected tree: the first run's, unless the case says
    otherwise (a qualified key naming a parameter the first run removed is a config error)."""
    options = (
        tomllib.loads((case / "case.toml").read_text()) if (case / "case.toml").exists() else {}
    )
    return int(options.get("second_run_exit", first))


def checkout(case: Path, destination: Path) -> Path:
    """The case's before/ tree as a git repository of its own, so settings are found there."""
    shutil.copytree(case / "before", destination, symlinks=True)
    subprocess.run(["git", "init", "-q", str(destination)], check=True)
    return destination


def program_output(tree: Path, program: str) -> str:
    """What `python -c program` prints, run in `tree` (writing no bytecode there): one side of a
    differential check of a fixture."""
    return subprocess.run(
        [sys.executable, "-B", "-c", program], cwd=tree, capture_output=True, text=True, check=True
    ).stdout


def invoke(*args: str, env: dict[str, str] | None = None):
    """The command line run in-process in the working directory, exceptions raised."""
    return CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)


def invoke_in(monkeypatch: pytest.MonkeyPatch, cwd: Path, *args: str):
    """`invoke` run in `cwd`: the working directory changed there first (for the test)."""
    monkeypatch.chdir(cwd)
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def run_report(name: str, work: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, dict]:
    """The diff of a fixture's before/ tree and the files and skipped files of its report."""
    args, _ = case_options(fixture_path(name))
    report_file = work.parent / f"{work.name}.json"
    result = invoke_in(
        monkeypatch, work, "diff", "--no-color", "--report", str(report_file), *args, "."
    )
    report = json.loads(report_file.read_text())
    return result.stdout, {key: report[key] for key in ("files", "skipped")}


def make_tree(root: Path, files: dict[str, str]) -> Path:
    """A repository at `root` (an empty .git marks it) holding `files`, path -> text."""
    (root / ".git").mkdir(parents=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")
