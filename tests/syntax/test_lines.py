"""Lines of a rewritten text back to the original's, and the line diff every stage shares: any
two texts give opcodes that turn one into the other, and a module whose lines mostly repeat is
matched in time near linear."""

from __future__ import annotations

import difflib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prune_flags.syntax.lines import LineMap, Spans, grouped_opcodes, line_opcodes

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


# Few distinct lines, so that most repeat: where exact matching is slowest and anchors rarest.
LINES = st.lists(st.sampled_from(["", "    return x", "def f():", "x = 1", "y = 2", "# c"]))


@settings(max_examples=300, deadline=None)
@given(LINES, LINES)
def test_the_opcodes_turn_one_side_into_the_other(a: list[str], b: list[str]) -> None:
    opcodes = line_opcodes(a, b)
    rebuilt: list[str] = []
    i = j = 0
    for tag, i1, i2, j1, j2 in opcodes:
        assert (i1, j1) == (i, j)  # contiguous, in order, as difflib gives them
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2] and i2 > i1
        rebuilt += b[j1:j2]
        i, j = i2, j2
    assert (i, j) == (len(a), len(b)) and rebuilt == b
    kinds = [tag for tag, *_ in opcodes]
    assert all(first != second for first, second in zip(kinds, kinds[1:]) if "equal" in first)


@settings(max_examples=200, deadline=None)
@given(LINES, LINES)
def test_without_repeats_the_match_keeps_the_most_lines(a: list[str], b: list[str]) -> None:
    """Lines unique on each side are all anchors: the match is a longest common subsequence,
    never shorter than difflib's (which takes the longest contiguous run first)."""
    a, b = list(dict.fromkeys(a)), list(dict.fromkeys(b))
    exact = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    equal = sum(i2 - i1 for tag, i1, i2, *_ in exact if tag == "equal")
    assert sum(i2 - i1 for tag, i1, i2, *_ in line_opcodes(a, b) if tag == "equal") >= equal


def test_a_generated_module_of_repeated_lines_keeps_what_it_kept() -> None:
    """4,000 functions whose bodies repeat: each loses its `if`, the rest is kept line for line."""
    before, after = [], []
    for index in range(4000):
        before += [f"def f{index}(x):", "    if FAST:", "        return 1", "    return x", ""]
        after += [f"def f{index}(x):", "    return x", ""]
    opcodes = line_opcodes(before, after)
    assert sum(i2 - i1 for tag, i1, i2, *_ in opcodes if tag == "equal") == len(after)
    assert [tag for tag, *_ in opcodes].count("delete") == 4000


def test_the_unified_groups_are_difflibs() -> None:
    a = [f"line {n}\n" for n in range(40)]
    b = a[:5] + ["new\n"] + a[6:30] + a[31:]
    assert grouped_opcodes(a, b) == list(difflib.SequenceMatcher(None, a, b).get_grouped_opcodes(3))


def test_spans_meet_what_shares_a_line() -> None:
    spans = Spans([(10, 12), (3, 4), (5, 5), (20, 20)])
    assert [spans.meets(first, last) for first, last in [(1, 2), (2, 3), (6, 9), (12, 19)]] == [
        False,
        True,
        False,
        True,
    ]
    assert Spans.of_lines([7, 8, 9]).meets(9, 30) and not Spans(()).meets(1, 100)
