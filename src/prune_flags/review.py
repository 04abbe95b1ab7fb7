"""Interactive review: a changed file split into hunks, each accepted or not, and the text that
the accepted hunks make. The result must still be Python, or the file is left untouched."""

from __future__ import annotations

import ast
import difflib
from dataclasses import dataclass
from typing import Sequence

from prune_flags.report import Change, FileResult


@dataclass(frozen=True)
class Hunk:
    old_start: int  # 0-based index of the first old line replaced
    old_lines: tuple[str, ...]
    new_lines: tuple[str, ...]

    def reasons(self, changes: Sequence[Change]) -> list[Change]:
        """The changes reported on the lines this hunk touches (or right at its edge for an insertion)."""
        first, last = self.old_start + 1, self.old_start + max(len(self.old_lines), 1)
        return [change for change in changes if first <= change.line <= last]

    def render(self) -> str:
        header = f"@@ line {self.old_start + 1} @@\n"
        return header + "".join("-" + line for line in self.old_lines) + "".join("+" + line for line in self.new_lines)


def hunks(result: FileResult) -> list[Hunk]:
    old, new = result.old_text.splitlines(keepends=True), result.new_text.splitlines(keepends=True)
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [
        Hunk(i1, tuple(old[i1:i2]), tuple(new[j1:j2]))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def with_accepted(result: FileResult, all_hunks: Sequence[Hunk], accepted: Sequence[bool]) -> str:
    """The old text with only the accepted hunks applied."""
    old = result.old_text.splitlines(keepends=True)
    out: list[str] = []
    position = 0
    for hunk, take in zip(all_hunks, accepted):
        out += old[position : hunk.old_start]
        out += hunk.new_lines if take else hunk.old_lines
        position = hunk.old_start + len(hunk.old_lines)
    out += old[position:]
    return "".join(out)


def still_python(text: str) -> str | None:
    """None when the text parses, else the parser's complaint."""
    try:
        ast.parse(text)
    except SyntaxError as err:
        return f"{err.msg} (line {err.lineno})"
    return None
