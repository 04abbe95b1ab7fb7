"""The rewrite parses only the top-level definitions that name what it acts on (window.py).

A window must never change the result: every golden fixture gives the same diff and the same
report with windows as when each file is parsed whole."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import prune_flags.rewrite
from prune_flags.window import View, view_of
from test_fixtures import CASES, FIXTURES, case_options, checkout, invoke

MODULE = '''\
import os

FAST = os.environ.get("FAST")


# About A.
class A:
    def f(self):
        return self.use_x

    # footer of A

# About g.
@decorate
def g():
    return 1


def h():
    return 2
'''


def lines_naming(text: str, word: str) -> frozenset[int]:
    return frozenset(number for number, line in enumerate(text.split("\n"), 1) if word in line)


def test_a_read_inside_a_class_parses_that_class_alone() -> None:
    view = view_of(MODULE, ast.parse(MODULE), lines_naming(MODULE, "use_x"))
    assert view.text == "class A:\n    def f(self):\n        return self.use_x\n"
    assert view.offset == 6 and view.top_level == 1
    assert view.splice(view.text) == MODULE


def test_the_window_runs_from_the_first_definition_to_the_last_with_decorators() -> None:
    view = view_of(MODULE, ast.parse(MODULE), lines_naming(MODULE, "use_x") | lines_naming(MODULE, "return 1"))
    assert view.text.startswith("class A:") and view.text.endswith("@decorate\ndef g():\n    return 1\n")
    assert view.top_level == 2
    assert view.splice(view.text.replace("1", "0")) == MODULE.replace("return 1", "return 0")


@pytest.mark.parametrize(
    "text, word",
    [
        (MODULE, "FAST"),  # a module-level line: the module's own rules apply
        (MODULE, "A."),  # a comment above a definition belongs to the module level
        (MODULE.replace("\n", "\r\n"), "use_x"),  # a line break LibCST would infer otherwise
        (MODULE, "no such word"),
        ("def f():\n    return use_x\n", "use_x"),  # the window would be the whole file anyway
    ],
)
def test_whole_file_noop(text: str, word: str) -> None:
    assert view_of(text, ast.parse(text), lines_naming(text, word)) == View(text)


def run_report(name: str, work: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, dict]:
    args, _ = case_options(FIXTURES / name)
    report_file = work.parent / f"{work.name}.json"
    result = invoke(monkeypatch, work, "diff", "--no-color", "--report", str(report_file), *args, ".")
    report = json.loads(report_file.read_text())
    return result.stdout, {key: report[key] for key in ("files", "skipped")}


@pytest.mark.parametrize("name", CASES)
def test_windows_give_what_the_whole_file_gives(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case = FIXTURES / name
    windowed = run_report(name, checkout(case, tmp_path / "windowed"), monkeypatch)
    monkeypatch.setattr(prune_flags.rewrite, "view_of", lambda text, tree, lines: View(text))
    whole = run_report(name, checkout(case, tmp_path / "whole"), monkeypatch)
    assert windowed == whole


def test_the_seed_parses_only_the_definitions_naming_its_fields(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison above is not vacuous: the seed's rewrites all go through windows, the
    two classes and the two functions of a module that only shares a field's name."""
    views: list[tuple[str, int | None]] = []

    def recording_view_of(text: str, tree: ast.Module, lines: frozenset[int]) -> View:
        view = view_of(text, tree, lines)
        views.append((view.text.split("\n", 1)[0], view.top_level))
        return view

    monkeypatch.setattr(prune_flags.rewrite, "view_of", recording_view_of)
    run_report("seed_schedule_node", checkout(FIXTURES / "seed_schedule_node", tmp_path / "seed"), monkeypatch)
    assert set(views) == {
        ("class ScheduleNode:", 1),
        ("class TransformerLayerNode(ScheduleNode):", 1),
        ("def accumulate(output_grads, scale=1.0):", 2),
    }
