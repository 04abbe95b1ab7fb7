"""The part of a file a rewrite parses: the top-level statements that name what it acts on.

LibCST costs about ten times what `ast` does per line, and the files a cleanup touches are
mostly long modules that mention a flag in a few places. So the rewrite parses a view: the
top-level statements holding a line it acts on, each with its neighbours, in file order,
one module made of runs of consecutive statements. A run never starts with a statement
that may go (its first statement is a neighbour, or the file's start), and a statement that
may go has the statement after it in its run (two, when the next is the string documenting
it), so every rule about the lines around a deleted statement sees what it would see in the
whole file. A comment line marks the seam between runs; the rewritten runs are put back
between the untouched text around them. Module-level bindings the passes look for (a flag
assigned or imported at top level, a constant holding its name) name the flag, so they are
in the view.
"""

from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass

from prune_flags.index import is_string_statement, statement_spans

# Marks where one run ends and the next begins; a file holding it is parsed whole.
SEAM = "# prune-flags: seam between runs of the view\n"


@dataclass(frozen=True)
class View:
    """The text a rewrite parses, and how its lines and its rewrite map back to the file."""

    text: str
    gaps: tuple[str, ...] = ("", "")  # the file's text before, between and after the runs
    runs: tuple[tuple[int, int, int], ...] = ((1, 1, 1 << 30),)  # (first line in the view, in the file, lines)

    @property
    def partial(self) -> bool:
        """Whether the view leaves some of the file out."""
        return any(self.gaps)

    def file_line(self, line: int) -> int:
        view_start, file_start, _ = self.runs[bisect.bisect_right(self.runs, (line, 1 << 30)) - 1]
        return file_start + line - view_start

    def view_lines(self, lines: frozenset[int]) -> frozenset[int]:
        """The view's lines for file lines; those outside the runs are left out."""
        return frozenset(
            line - file_start + view_start
            for view_start, file_start, size in self.runs
            for line in lines
            if 0 <= line - file_start < size
        )

    def holds(self, line: int) -> bool:
        """Whether a file line is in the view."""
        return any(0 <= line - file_start < size for _, file_start, size in self.runs)

    def splice(self, rewritten: str) -> str | None:
        """The file with the runs rewritten; None when a seam went (the rewrite reached past a run)."""
        if not self.partial:
            return rewritten
        runs = rewritten.split("\n" + SEAM)
        if len(runs) != len(self.runs):
            return None
        runs = [run + "\n" for run in runs[:-1]] + runs[-1:]
        return self.gaps[0] + "".join(run + gap for run, gap in zip(runs, self.gaps[1:]))


def view_of(text: str, tree: ast.Module, lines: frozenset[int]) -> View:
    """The runs of top-level statements holding `lines`, with their neighbours; the whole file
    when there is nothing to leave out or the file's line breaks are not all `\\n`."""
    whole = View(text)
    units = _units(tree)
    if "\r" in text or SEAM[:-1] in text or not units:
        return whole
    chosen: set[int] = set()
    for index, (start, end, last) in enumerate(units):
        if any(start <= line <= end for line in lines):
            chosen.update((index - 1, index, index + 1))
            if index + 1 < len(units) and is_string_statement(units[index + 1][2]):
                chosen.add(index + 2)  # the string documenting a field goes with it
    chosen &= set(range(len(units)))
    if not chosen or len(chosen) == len(units):
        return whole
    offsets = [0] + [match.end() for match in re.finditer("\n", text)] + [len(text)]
    runs: list[tuple[int, int, int]] = []  # (offset, end offset, first line)
    for index in sorted(chosen):
        start, end, _ = units[index]
        begin = 0 if index == 0 else offsets[start - 1]
        finish = len(text) if index == len(units) - 1 else offsets[min(end, len(offsets) - 1)]
        if runs and index - 1 in chosen:
            runs[-1] = (runs[-1][0], finish, runs[-1][2])
        else:
            runs.append((begin, finish, 1 if index == 0 else start))
    pieces, gaps, starts, position, view_line = [], [text[: runs[0][0]]], [], 0, 1
    for number, (begin, finish, first_line) in enumerate(runs):
        if number:
            pieces.append(SEAM)
            gaps.append(text[position:begin])
            view_line += 1
        size = text.count("\n", begin, finish) + (not text.endswith("\n", begin, finish))  # a last line without one
        starts.append((view_line, first_line, size))
        pieces.append(text[begin:finish])
        view_line += size
        position = finish
    gaps.append(text[position:])
    return View("".join(pieces), tuple(gaps), tuple(starts))


def _units(tree: ast.Module) -> list[tuple[int, int, ast.stmt]]:
    """Top-level statements as (first line, last line, last statement); statements sharing a
    line (`a = 1; b = 2`) are one unit, as they are one line to LibCST."""
    units: list[tuple[int, int, ast.stmt]] = []
    for start, end, statement in statement_spans(tree.body):
        if units and start <= units[-1][1]:
            units[-1] = (units[-1][0], max(end, units[-1][1]), statement)
        else:
            units.append((start, end, statement))
    return units
