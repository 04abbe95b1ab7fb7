"""Properties every golden fixture must have, whatever its case.

- The rewrite's view never changes the result: each fixture gives the same diff and the same
  report when LibCST parses only the statements naming what a round acts on and walks only the
  blocks naming it (the default), as when it parses every file whole and walks every block.
- Where the run formats with black, the cleanup gives black nothing to do that it did not have
  before: every line black would change in a changed file is a line the cleanup left as it
  was, and black changes it in the original too (the fixtures keep badly formatted lines beside
  the edits, which must stay as they are).
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

import pytest

import prune_flags.rewrite.file
from prune_flags.engine.formatting import (
    BlackSettings,
    detect_formatting,
    format_lines,
    formats_as,
)
from prune_flags.rewrite.editors.statements import BodyEditor
from prune_flags.rewrite.view import View
from tests.support import (
    CASES,
    case_options,
    checkout,
    expected_tree,
    fixture_path,
    run_report,
    tree_bytes,
)

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib


def parse_whole_and_walk_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    """Switch the rewrite's view off: every file parsed whole, every block walked."""
    monkeypatch.setattr(prune_flags.rewrite.file, "view_of", lambda text, tree, lines: View(text))
    monkeypatch.setattr(BodyEditor, "_relevant", lambda self, node: True)


@pytest.mark.parametrize("name", CASES)
def test_the_view_never_changes_the_result(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = fixture_path(name)
    viewed = run_report(name, checkout(case, tmp_path / "viewed"), monkeypatch)
    parse_whole_and_walk_everything(monkeypatch)
    whole = run_report(name, checkout(case, tmp_path / "whole"), monkeypatch)
    assert viewed == whole


def black_settings_of(name: str) -> BlackSettings | None:
    """The black settings a fixture's run formats with; None when it formats nothing (settings
    that format only files already in their style, where a file the run changes is not)."""
    settings = _detected_settings(name)
    if settings is None or not settings.if_formatted:
        return settings
    case = fixture_path(name)
    before, after = tree_bytes(case / "before"), expected_tree(case)
    changed = [path for path in after if path.endswith(".py") and before.get(path) != after[path]]
    in_style = all(
        formats_as(before[path].decode(), settings) for path in changed if path in before
    )
    return settings if in_style else None


def _detected_settings(name: str) -> BlackSettings | None:
    case = fixture_path(name)
    args, _ = case_options(case)
    if "--no-format" in args:
        return None
    tables = [
        tomllib.loads(Path(args[i + 1]).read_text())
        for i, arg in enumerate(args)
        if arg == "--config"
    ]
    pyproject = case / "before" / "pyproject.toml"
    if pyproject.exists():
        tables.append(tomllib.loads(pyproject.read_text()).get("tool", {}).get("prune-flags", {}))
    chosen = next((table["format"] for table in tables if "format" in table), "auto")
    return detect_formatting(case / "before", chosen).settings


def lines_black_changes(text: str, settings: BlackSettings) -> set[int]:
    """The lines of `text` (1-based) black rewrites, and those around where it adds lines."""
    lines = text.split("\n")
    formatted = format_lines(text, [(1, len(lines))], settings).split("\n")
    changed: set[int] = set()
    for tag, i1, i2, _, _ in difflib.SequenceMatcher(
        None, lines, formatted, autojunk=False
    ).get_opcodes():
        if tag != "equal":
            changed.update(range(i1 + 1, i2 + 1) if i2 > i1 else (i1, i1 + 1))
    return changed


FORMATTED = [name for name in CASES if black_settings_of(name) is not None]


def test_fixtures_formatting_with_black_exist() -> None:
    assert "core_black_stable_fstring_return" in FORMATTED and "core_no_format" not in FORMATTED
    assert {"core_format_pre_commit_black", "core_format_ruff_toml"} <= set(FORMATTED)
    assert "core_format_ruff_single_quotes" not in FORMATTED
    assert "core_format_ruff_lint_only_formatted_file" in FORMATTED
    assert "core_format_ruff_lint_only" not in FORMATTED


@pytest.mark.parametrize("name", FORMATTED)
def test_black_has_nothing_to_do_on_what_the_cleanup_touched(name: str) -> None:
    settings = black_settings_of(name)
    assert settings is not None
    case = fixture_path(name)
    before, after = tree_bytes(case / "before"), expected_tree(case)
    for path in sorted(
        path for path in after if path.endswith(".py") and before.get(path) != after[path]
    ):
        old, new = before.get(path, b"").decode(), after[path].decode()
        # Each line of the original black changes, at its place in the result when it is still
        # there.
        kept = difflib.SequenceMatcher(None, old.split("\n"), new.split("\n"), autojunk=False)
        moved = {
            b.a + offset + 1: b.b + offset + 1
            for b in kept.get_matching_blocks()
            for offset in range(b.size)
        }
        already = {moved[line] for line in lines_black_changes(old, settings) if line in moved}
        new_work = sorted(lines_black_changes(new, settings) - already)
        assert not new_work, f"{path}: black would change lines {new_work} the cleanup touched"
