"""Lines of a rewritten text back to the original's."""

from __future__ import annotations

import pytest

from prune_flags.syntax.lines import LineMap

ORIGINAL = "a\nb\nc\nd\ne\n"
REWRITTEN = "a\nx\ny\nd\ne\nf\n"  # b, c replaced by x, y; f added


@pytest.mark.parametrize(("line", "original"), [(1, 1), (2, 2), (3, 2), (4, 4), (5, 5), (6, 6)])
def test_a_rewritten_line_maps_to_its_original(line: int, original: int) -> None:
    assert LineMap(ORIGINAL, REWRITTEN).original(line) == original


def test_a_deleted_block_shifts_the_lines_after_it_back() -> None:
    lines = LineMap("a\nb\nc\nd\n", "a\nd\n")
    assert [lines.original(line) for line in (1, 2)] == [1, 4]


def test_the_kept_lines_are_those_the_rewrite_left_as_they_were() -> None:
    # (the empty last "line" after the final newline is kept too)
    assert LineMap(ORIGINAL, REWRITTEN).kept == {1: 1, 4: 4, 5: 5, 7: 6}


def test_lines_are_counted_at_newlines_as_the_parser_counts_them() -> None:
    # A form feed is no line break for Python, though str.splitlines() takes it for one.
    lines = LineMap("a\x0cb\nc\nd\n", "c\nd\n")
    assert [lines.original(line) for line in (1, 2)] == [2, 3]
