"""The lines of a rewritten file that the formatter is given: what the edit touched."""

from __future__ import annotations

import io
import tokenize
from dataclasses import dataclass

from prune_flags.syntax.lines import line_opcodes
from prune_flags.syntax.statements import merged_spans

# A point of a deletion: the new line after which old lines went (0: before the first), and the
# first and last of those old lines (1-based, inclusive).
Deletion = tuple[int, int, int]


def touched_line_ranges(
    old: str, new: str, magic_trailing_comma: bool = True
) -> list[tuple[int, int]]:
    """1-based inclusive ranges of lines of `new` that the edit touched: those added or modified
    (see `changed_line_ranges`), and each statement that lost lines from within and stayed
    (`return (`, `    f"..."`, `)` once a folded ternary's other lines went). black formats
    every statement holding a line of its ranges, and only those: a statement that went whole
    leaves its neighbours untouched, so a pure deletion of whole statements formats nothing.

    Nor does the deletion of whole elements of a bracket written one a line with trailing commas
    (a parameter, an argument, a dict entry): the magic trailing comma keeps the rest as it was,
    in black's style and in ruff's, and formatting the statement anew would rewrite lines the
    edit never touched wherever the repository's formatter is not exactly black."""
    changed, deletions = _edits(_split_lines(old), _split_lines(new))
    if magic_trailing_comma and deletions:
        elements = _ElementLines(old)
        deletions = [point for point in deletions if not elements.whole(point[1], point[2])]
    if not deletions:
        return changed
    points = [point for point, _, _ in deletions]
    return merged_spans(changed + _statements_across(new, points), gap=1)


def changed_line_ranges(old: str, new: str) -> list[tuple[int, int]]:
    """1-based inclusive ranges of lines of `new` added or modified relative to `old`.

    The ranges come out sorted, disjoint and never adjacent, so they need no merging: difflib
    puts exactly one non-equal opcode between two runs of equal lines, so two 'replace'/'insert'
    opcodes are always separated by at least one unchanged line of `new`.
    """
    return _edits(_split_lines(old), _split_lines(new))[0]


def _edits(
    old_lines: list[str], new_lines: list[str]
) -> tuple[list[tuple[int, int]], list[Deletion]]:
    """The ranges of new lines added or modified, and the deletions. A pure deletion (most
    cleanups) needs no diff: each new line is the first old line equal to it, and the old lines
    skipped on the way went."""
    deletions: list[Deletion] = []
    position = 0
    for number, line in enumerate(new_lines):
        start = position
        while position < len(old_lines) and old_lines[position] != line:
            position += 1
        if position == len(old_lines):
            break  # a new line: not a pure deletion
        if position > start:
            deletions.append((number, start + 1, position))
        position += 1
    else:
        return [], deletions  # old lines gone after the last new one are past every statement
    opcodes = line_opcodes(old_lines, new_lines)
    changed = [(j1 + 1, j2) for tag, _, _, j1, j2 in opcodes if tag in ("replace", "insert")]
    return changed, [(j1, i1 + 1, i2) for tag, i1, i2, j1, _ in opcodes if tag == "delete"]


@dataclass
class _Line:
    """A line's tokens as a bracket sees them: the depth at its start and end, the lowest depth
    on it, and its first and last tokens (comments and line breaks aside)."""

    start: int
    end: int
    lowest: int
    first: str
    last: str


_OPENERS, _CLOSERS = frozenset("([{"), frozenset(")]}")


class _ElementLines:
    """The lines of a text, for telling whole elements of a bracket written one a line."""

    def __init__(self, text: str) -> None:
        self.lines: dict[int, _Line] = {}
        self.spanned: set[int] = set()  # the lines of tokens over lines (strings): no element's
        depth = 0
        try:
            for token in tokenize.generate_tokens(io.StringIO(text).readline):
                if token.type in _BETWEEN_STATEMENTS:
                    continue
                row = token.start[0]
                line = self.lines.setdefault(row, _Line(depth, depth, depth, token.string, ""))
                if token.end[0] != row:
                    self.spanned.update(range(row, token.end[0] + 1))
                if token.string in _OPENERS:
                    depth += 1
                elif token.string in _CLOSERS:
                    depth -= 1
                line.end, line.lowest, line.last = depth, min(line.lowest, depth), token.string
        except (tokenize.TokenError, SyntaxError):
            self.lines = {}

    def _nearest(self, rows: range) -> _Line | None:
        return next((self.lines[row] for row in rows if row in self.lines), None)

    def whole(self, first: int, last: int) -> bool:
        """Whether old lines `first`..`last` are whole elements (or comments) of one bracket, the
        last ending in its comma, after an element's comma or the bracket's opening, and not all
        the bracket's elements."""
        if not self.lines or self.spanned.intersection(range(first - 1, last + 2)):
            return False
        gone = [self.lines[row] for row in range(first, last + 1) if row in self.lines]
        before = self._nearest(range(first - 1, 0, -1))
        after = self._nearest(range(last + 1, max(self.lines) + 1))
        if before is None or after is None or before.last not in {",", *_OPENERS}:
            return False
        depth = before.end
        if depth <= 0 or after.start != depth:
            return False
        if gone and (
            gone[0].start != depth
            or gone[-1].end != depth
            or gone[-1].last != ","
            or any(line.lowest < depth for line in gone)
        ):
            return False
        return not (before.last in _OPENERS and after.first in _CLOSERS)


def _statements_across(text: str, points: list[int]) -> list[tuple[int, int]]:
    """The statements (logical lines: a simple statement, or a compound statement's header) of
    `text` that lost lines from within: they hold a line after which lines went, and the line
    after it. None when the text does not tokenize (black would not format it either)."""
    spans: list[tuple[int, int]] = []
    first: int | None = None  # the first line of the statement being read
    last_point = max(points)
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.NEWLINE and first is not None:
                if any(first <= point < token.start[0] for point in points):
                    spans.append((first, token.start[0]))
                first = None
                if token.start[0] > last_point:
                    break  # no later statement holds a point
            elif first is None and token.type not in _BETWEEN_STATEMENTS:
                first = token.start[0]
    except (tokenize.TokenError, SyntaxError):
        return []
    return spans


# Tokens outside any statement: line breaks, comments on lines of their own, indentation.
_BETWEEN_STATEMENTS = frozenset(
    (
        tokenize.NL,
        tokenize.NEWLINE,
        tokenize.COMMENT,
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.ENDMARKER,
    )
)


def _split_lines(text: str) -> list[str]:
    # Split on "\n" only, the way black numbers lines: str.splitlines() also breaks on form feeds,
    # \v, \x1c-\x1e, \x85, \u2028 and \u2029, which can appear in Python source and would shift the
    # line numbers. A final newline does not start another line.
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines
