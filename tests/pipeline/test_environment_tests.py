"""Differential check of the tests' environment writes and config dicts: each fixture's tests, run
with pytest on the original tree with the flag read at its configured value, and on the cleanup's
tree. A test the cleanup removed failed there (it pinned the removed value); every test that
passed there and is left passes after; where the report names no test, every outcome is the
same."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import checkout, fixture_path, run_report, write_expected

# Per fixture: (file, the read of the variable, the value the config fixes it at).
AT_CONFIGURED_VALUE = {
    **{
        name: ("hub/fetch.py", 'os.environ.get("HUB_OFFLINE", "0")', '"1"')
        for name in (
            "idiom_test_environment_writes",
            "idiom_test_environment_write_entangled",
            "idiom_test_environment_writes_noop",
        )
    },
    **{
        name: ("app/settings.py", 'features.get("use_v2", False)', "False")
        for name in ("idiom_test_config_dicts", "idiom_test_config_dicts_noop")
    },
    "idiom_test_environment_computed_flag": (
        "pkg/config.py",
        'os.environ.get("USE_V2", "0") == "1"',
        "False",
    ),
}
VARIABLES = ("HUB_", "USE_V2")  # the fixtures' variables, unset in the runs
_OUTCOME = re.compile(r"^(PASSED|FAILED) (\S+)", re.MULTILINE)


def outcomes(tree: Path) -> dict[str, str]:
    """Each test's outcome in the tree, by its pytest id, run without the variable set."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith(VARIABLES)}
    run = subprocess.run(
        [sys.executable, "-B", "-m", "pytest", "-rA", "-p", "no:cacheprovider", "tests"],
        cwd=tree,
        env=environment,
        capture_output=True,
        text=True,
    )
    found = {test: outcome for outcome, test in _OUTCOME.findall(run.stdout)}
    assert found, run.stdout + run.stderr
    return found


@pytest.mark.parametrize("name", sorted(AT_CONFIGURED_VALUE))
def test_the_tests_left_behave_as_at_the_configured_value(name: str, tmp_path: Path) -> None:
    case = fixture_path(name)
    file, read, value = AT_CONFIGURED_VALUE[name]
    at_value = tmp_path / "at_value"
    shutil.copytree(case / "before", at_value)
    text = (at_value / file).read_text()
    assert text.count(read) == 1
    (at_value / file).write_text(text.replace(read, value))
    before, after = outcomes(at_value), outcomes(write_expected(case, tmp_path / "result"))
    gone = set(before) - set(after)
    assert {test: before[test] for test in gone} == dict.fromkeys(gone, "FAILED")
    assert set(after) <= set(before)
    assert all(after[test] == "PASSED" for test in after if before[test] == "PASSED")
    if not (case / "after" / "tests").exists():
        assert before == after


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("idiom_test_environment_write_entangled", [(8, "overridden")]),
        ("idiom_test_environment_writes_noop", []),
    ],
)
def test_a_patch_dict_of_the_environment_is_one_write_no_table(
    name: str, expected: list, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = checkout(fixture_path(name), tmp_path / "work")
    _, report = run_report(name, work, monkeypatch)
    changes = {entry["path"]: entry["changes"] for entry in report["files"]}
    found = [(c["line"], c["action"]) for c in changes.get("tests/test_fetch.py", [])]
    assert found == expected
