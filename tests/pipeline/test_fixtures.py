"""Golden fixtures: fixtures/<category>/<name>/{before,after} and the case's flags, the case
named `<category>_<name>` (fixtures/core/megatron_4511 is core_megatron_4511).

after/ holds only the files the run changes, each as the run leaves it; a file missing there is
unchanged, and a case that changes nothing has no after/. The expected tree is before/ overlaid
with after/ (`expected_tree`).

Each case runs three ways: `diff` (its exit code, and the patch applies with
`git apply` to give the expected tree), `apply` (files equal the expected tree), and `apply`
again on the result (nothing changes). A case's `case.toml` may set `args` (extra
command-line arguments), `recipe` (a config from codemods/ to pass with --config),
`exit` (the expected exit code of apply; diff's is derived from it) and `paths` (what the run is
given; the whole tree when not set).
`config.toml`, when present, is passed with --config.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.support import (
    CASES,
    case_options,
    case_paths,
    checkout,
    expected_tree,
    fixture_path,
    invoke_in,
    second_run_exit,
    tree_bytes,
    write_expected,
)


@pytest.mark.parametrize("name", CASES)
def test_apply(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case = fixture_path(name)
    args, expected_exit = case_options(case)
    work = checkout(case, tmp_path / "work")
    result = invoke_in(monkeypatch, work, "apply", *args, *case_paths(case))
    assert result.exit_code == expected_exit, result.output
    assert tree_bytes(work) == expected_tree(case)


@pytest.mark.parametrize("name", CASES)
def test_diff_applies(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case = fixture_path(name)
    args, expected_exit = case_options(case)
    work = checkout(case, tmp_path / "work")
    result = invoke_in(monkeypatch, work, "diff", "--no-color", *args, *case_paths(case))
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
    result = invoke_in(monkeypatch, work, "diff", "--no-color", *args, *case_paths(case))
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
    result = invoke_in(
        monkeypatch,
        work,
        "diff",
        "--no-color",
        "--explain",
        "--report",
        str(tmp_path / "r.json"),
        *args,
        *case_paths(case),
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
                f"{entry['path']}:{change['line']}  {change['flag']}  {change['action']}  "
                f"{change['reason']}" in explained
            )
    skipped_on_stderr = sorted(
        line.split(" ")[2].rstrip(":")
        for line in result.stderr.splitlines()
        if line.startswith("prune-flags: skipped ")
    )
    assert sorted(entry["path"] for entry in report["skipped"]) == skipped_on_stderr
    assert report["summary"]["files_changed"] == len(changed)
