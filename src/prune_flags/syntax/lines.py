"""Lines of a rewritten text back to the original's, which reports speak of; and the line diff
every stage shares."""

from __future__ import annotations

import difflib
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Literal

Tag = Literal["replace", "delete", "insert", "equal"]
Opcode = tuple[Tag, int, int, int, int]  # as difflib.SequenceMatcher.get_opcodes gives them

# Past this many cells (lines of one side times the other's) a stretch without a line unique to
# both sides is matched with difflib's junk heuristic: exact matching there is quadratic or worse.
_EXACT_CELLS = 1 << 20


def line_opcodes(a: Sequence[str], b: Sequence[str]) -> list[Opcode]:
    """difflib's opcodes from `a` to `b`, found in time near linear in the lines (difflib alone,
    without its junk heuristic, takes minutes on a generated module of a few thousand lines where
    most lines repeat): the common ends go first, lines that occur once on each side anchor
    the match in order (patience diff), and difflib matches only the stretches between anchors."""
    blocks: list[tuple[int, int, int]] = []
    work: list[tuple[int, int, int, int] | tuple[int, int, int]] = [(0, len(a), 0, len(b))]
    while work:
        item = work.pop()
        if len(item) == 3:
            blocks.append(item)
            continue
        alo, ahi, blo, bhi = item
        head = 0
        while alo + head < ahi and blo + head < bhi and a[alo + head] == b[blo + head]:
            head += 1
        tail = 0
        while (
            ahi - tail > alo + head
            and bhi - tail > blo + head
            and a[ahi - tail - 1] == b[bhi - tail - 1]
        ):
            tail += 1
        inner = (alo + head, ahi - tail, blo + head, bhi - tail)
        later: list[tuple[int, int, int, int] | tuple[int, int, int]] = []
        if head:
            later.append((alo, blo, head))
        later += _between_anchors(a, b, *inner)
        if tail:
            later.append((ahi - tail, bhi - tail, tail))
        work.extend(reversed(later))
    return _opcodes(_merged(blocks), len(a), len(b))


def _between_anchors(
    a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int
) -> list[tuple[int, int, int, int] | tuple[int, int, int]]:
    """The stretch's anchors as one-line blocks with the stretches between them to match in turn;
    with no anchor, difflib's blocks for it."""
    if alo == ahi or blo == bhi:
        return []
    in_a, in_b = Counter(a[alo:ahi]), Counter(b[blo:bhi])
    where_b = {b[j]: j for j in range(blo, bhi) if in_b[b[j]] == 1}
    pairs = [(i, where_b[a[i]]) for i in range(alo, ahi) if in_a[a[i]] == 1 and a[i] in where_b]
    anchors = _longest_increasing(pairs)
    if not anchors:
        junk = (ahi - alo) * (bhi - blo) > _EXACT_CELLS
        matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=junk)
        return [(alo + i, blo + j, n) for i, j, n in matcher.get_matching_blocks() if n]
    found: list[tuple[int, int, int, int] | tuple[int, int, int]] = []
    i0, j0 = alo, blo
    for i, j in anchors:
        found += [(i0, i, j0, j), (i, j, 1)]
        i0, j0 = i + 1, j + 1
    return [*found, (i0, ahi, j0, bhi)]


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest run of pairs (in order of their first) whose seconds increase."""
    tails: list[int] = []  # the least last second of a run of each length
    ends: list[int] = []  # the index in pairs of that run's last pair
    before = [-1] * len(pairs)
    for index, (_, j) in enumerate(pairs):
        length = bisect_left(tails, j)
        if length == len(tails):
            tails.append(j)
            ends.append(index)
        else:
            tails[length], ends[length] = j, index
        before[index] = ends[length - 1] if length else -1
    run, index = [], ends[-1] if ends else -1
    while index >= 0:
        run.append(pairs[index])
        index = before[index]
    return run[::-1]


def _merged(blocks: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    merged: list[tuple[int, int, int]] = []
    for i, j, n in blocks:
        if merged and merged[-1][0] + merged[-1][2] == i and merged[-1][1] + merged[-1][2] == j:
            merged[-1] = (merged[-1][0], merged[-1][1], merged[-1][2] + n)
        else:
            merged.append((i, j, n))
    return merged


def _opcodes(blocks: list[tuple[int, int, int]], a_end: int, b_end: int) -> list[Opcode]:
    """As difflib.SequenceMatcher.get_opcodes makes them from its matching blocks."""
    opcodes: list[Opcode] = []
    i = j = 0
    for ai, bj, size in [*blocks, (a_end, b_end, 0)]:
        tag: Tag | None = (
            "replace" if i < ai and j < bj else "delete" if i < ai else "insert" if j < bj else None
        )
        if tag is not None:
            opcodes.append((tag, i, ai, j, bj))
        i, j = ai + size, bj + size
        if size:
            opcodes.append(("equal", ai, i, bj, j))
    return opcodes


class LineMap:
    """The lines of `rewritten` (1-based, counted at "\\n" as the parser counts them) as lines of
    `original`: a line kept is its own; a line the rewrite wrote is the first line of what it
    replaced."""

    def __init__(self, original: str, rewritten: str) -> None:
        opcodes = line_opcodes(original.split("\n"), rewritten.split("\n"))
        # (first line of a block in the rewritten text, its first in the original, kept?)
        self._blocks = [(j1 + 1, i1 + 1, tag == "equal") for tag, i1, _, j1, _ in opcodes]
        self._starts = [block[0] for block in self._blocks]
        # The lines the rewrite kept as they were, by their line in `rewritten`.
        self.kept: dict[int, int] = {
            j1 + 1 + offset: i1 + 1 + offset
            for tag, i1, i2, j1, _ in opcodes
            if tag == "equal"
            for offset in range(i2 - i1)
        }

    def original(self, line: int) -> int:
        index = bisect_right(self._starts, line) - 1
        if index < 0:
            return line
        new_start, old_start, kept = self._blocks[index]
        return old_start + (line - new_start) if kept else old_start


class Spans:
    """Runs of lines (first, last, both included), asked in log time whether a span meets one:
    a walk asking of every node stays linear in the nodes, however many runs there are."""

    def __init__(self, runs: Iterable[tuple[int, int]]) -> None:
        merged: list[list[int]] = []
        for first, last in sorted(runs):
            if merged and first <= merged[-1][1] + 1:
                merged[-1][1] = max(merged[-1][1], last)
            else:
                merged.append([first, last])
        self._firsts = [first for first, _ in merged]
        self._lasts = [last for _, last in merged]

    @classmethod
    def of_lines(cls, lines: Iterable[int]) -> Spans:
        return cls((line, line) for line in lines)

    def meets(self, first: int, last: int) -> bool:
        """Whether some run shares a line with first..last."""
        index = bisect_right(self._firsts, last) - 1
        return index >= 0 and self._lasts[index] >= first


class _LineMatcher(difflib.SequenceMatcher[str]):
    """difflib's matcher with line_opcodes for its opcodes, so that its grouping holds."""

    def __init__(self, a: Sequence[str], b: Sequence[str]) -> None:
        super().__init__(None, a, b, autojunk=False)
        self._lines = (a, b)

    def get_opcodes(self) -> list[Opcode]:
        return line_opcodes(*self._lines)


def grouped_opcodes(
    a: Sequence[str], b: Sequence[str], context: int = 3
) -> list[list[tuple[str, int, int, int, int]]]:
    """The hunks of a unified diff from `a` to `b`, with `context` lines around each change, as
    difflib.unified_diff groups them."""
    return list(_LineMatcher(a, b).get_grouped_opcodes(context))
