"""Lines of a rewritten text back to the original's, which reports speak of."""

from __future__ import annotations

import difflib
from bisect import bisect_right


class LineMap:
    """The lines of `rewritten` (1-based, counted at "\\n" as the parser counts them) as lines of
    `original`: a line kept is its own; a line the rewrite wrote is the first line of what it
    replaced."""

    def __init__(self, original: str, rewritten: str) -> None:
        opcodes = difflib.SequenceMatcher(
            None, original.split("\n"), rewritten.split("\n"), autojunk=False
        ).get_opcodes()
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
