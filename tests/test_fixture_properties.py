"""Properties every golden fixture must have, whatever its case.

- The rewrite's view never changes the result: each fixture gives the same diff and the same
  report when LibCST parses only the statements naming what a round acts on and walks only the
  blocks naming it (the default), as when it parses every file whole and walks every block.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import prune_flags.rewrite
from prune_flags.passes.body import BodyEditor
from prune_flags.window import View
from test_fixtures import CASES, FIXTURES, case_options, checkout, invoke


def run_report(name: str, work: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, dict]:
    """The diff of a fixture's before/ tree and the files and skipped files of its report."""
    args, _ = case_options(FIXTURES / name)
    report_file = work.parent / f"{work.name}.json"
    result = invoke(monkeypatch, work, "diff", "--no-color", "--report", str(report_file), *args, ".")
    report = json.loads(report_file.read_text())
    return result.stdout, {key: report[key] for key in ("files", "skipped")}


def parse_whole_and_walk_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    """Switch the rewrite's view off: every file parsed whole, every block walked."""
    monkeypatch.setattr(prune_flags.rewrite, "view_of", lambda text, tree, lines: View(text))
    monkeypatch.setattr(BodyEditor, "_relevant", lambda self, node: True)


@pytest.mark.parametrize("name", CASES)
def test_the_view_never_changes_the_result(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case = FIXTURES / name
    viewed = run_report(name, checkout(case, tmp_path / "viewed"), monkeypatch)
    parse_whole_and_walk_everything(monkeypatch)
    whole = run_report(name, checkout(case, tmp_path / "whole"), monkeypatch)
    assert viewed == whole
