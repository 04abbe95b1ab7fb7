"""Golden fixtures: fixtures/<category>/<name>/{before,after} and the case's flags, the case
named `<category>_<name>` (fixtures/core/megatron_4511 is core_megatron_4511).

after/ holds only the files the run changes, each as the run leaves it; a file missing there is
unchanged, and a case that changes nothing has no after/. The expected tree is before/ overlaid
with after/ (`expected_tree`).

Each case runs three ways: `diff` (its exit code, and the patch applies with
`git apply` to give the expected tree), `apply` (files equal the expected tree), and `apply`
again on the result (nothing changes). A case's `case.toml` may set `args` (extra
command-line arguments), `recipe` (a config from codemods/ to pass with --config)
and `exit` (the expected exit code of apply; diff's is derived from it).
`config.toml`, when present, is passed with --config.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from prune_flags.cli import app

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
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
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
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


def invoke(monkeypatch: pytest.MonkeyPatch, cwd: Path, *args: str):
    monkeypatch.chdir(cwd)
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


@pytest.mark.parametrize("name", CASES)
def test_apply(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case = fixture_path(name)
    args, expected_exit = case_options(case)
    work = checkout(case, tmp_path / "work")
    result = invoke(monkeypatch, work, "apply", *args, ".")
    assert result.exit_code == expected_exit, result.output
    assert tree_bytes(work) == expected_tree(case)


@pytest.mark.parametrize("name", CASES)
def test_diff_applies(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case = fixture_path(name)
    args, expected_exit = case_options(case)
    work = checkout(case, tmp_path / "work")
    result = invoke(monkeypatch, work, "diff", "--no-color", *args, ".")
    changes = tree_bytes(case / "before") != expected_tree(case)
    assert result.exit_code == (expected_exit or (1 if changes else 0)), result.output
    assert tree_bytes(work) == tree_bytes(case / "before"), "diff must write nothing"
    patch = tmp_path / "changes.patch"
    patch.write_bytes(result.stdout_bytes)
    if changes:
        subprocess.run(["git", "apply", str(patch)], cwd=work, check=True)
    assert tree_bytes(work) == expected_tree(case)


@pytest.mark.parametrize("name", CASES)
def test_second_run_changes_nothing(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = fixture_path(name)
    args, expected_exit = case_options(case)
    work = tmp_path / "work"
    write_expected(case, work)
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    result = invoke(monkeypatch, work, "diff", "--no-color", *args, ".")
    assert result.stdout == ""
    assert result.exit_code == second_run_exit(case, expected_exit), result.output


@pytest.mark.parametrize("name", CASES)
def test_report_and_explain_cover_every_change(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every file the diff changes is in the JSON report with its changes, and each change has an
    explain line; every file named as skipped on stderr is in the report's `skipped`."""
    case = fixture_path(name)
    args, _ = case_options(case)
    work = checkout(case, tmp_path / "work")
    result = invoke(
        monkeypatch,
        work,
        "diff",
        "--no-color",
        "--explain",
        "--report",
        str(tmp_path / "r.json"),
        *args,
        ".",
    )
    report = json.loads((tmp_path / "r.json").read_text())
    before, after = tree_bytes(case / "before"), expected_tree(case)
    changed = sorted(path for path in after if before.get(path) != after[path])
    assert sorted(entry["path"] for entry in report["files"]) == changed
    explained = [
        line
        for line in result.stdout.splitlines()
        if ":" in line and "  " in line and not line.startswith(("+", "-", " ", "@", "diff "))
    ]
    for entry in report["files"]:
        assert entry["changes"], entry["path"]
        for change in entry["changes"]:
            assert (
                f"{entry['path']}:{change['line']}  {change['flag']}  {change['action']}  {change['reason']}"
                in explained
            )
    skipped_on_stderr = sorted(
        line.split(" ")[2].rstrip(":")
        for line in result.stderr.splitlines()
        if line.startswith("prune-flags: skipped ")
    )
    assert sorted(entry["path"] for entry in report["skipped"]) == skipped_on_stderr
    assert report["summary"]["files_changed"] == len(changed)
