"""The part of a file a rewrite parses: the statements that name what it acts on."""

# LibCST costs about ten times what `ast` does per line, and the files a cleanup touches are mostly
# long modules that mention a flag in a few places. So the rewrite parses a view: the statements
# holding a line it acts on, in file order, one module made of runs of consecutive statements. A
# statement that may go comes with its neighbours: a run never starts with a statement that may go
# (its first statement is a neighbour, one that stays, a class header or the file's start), and a
# statement that may go has the statement after it in its run (two, when the next is the string
# documenting it), so every rule about the lines around a deleted statement sees what it would see
# in the whole file. Any statement holding a line may go, but a def or a class whose lines held are
# all in its body: it goes only when its name is dead, and its name is in its header; whatever
# becomes of its body, it stays.
#
# A class in the view that stays is cut one level down when that leaves out enough of it (CLASS_CUT
# lines): its header (decorators to the line before its first body statement), then the body
# statements holding a line, chosen by the same rules inside its body (what the last one leaves
# behind when it goes stays in the body's footer, as at the end of the file), and its last one when
# the statement after the class may go. A comment line at column 0 marks the seam between runs
# (legal inside a class body too); the rewritten runs are put back between the untouched text around
# them. Module-level bindings the passes look for (a flag assigned or imported at top level, a
# constant holding its name) name the flag, so they are in the view.

from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass

from prune_flags.syntax.statements import is_string_statement, statement_spans

# Marks where one run ends and the next begins; a file holding it is parsed whole.
SEAM = "# prune-flags: seam between runs of the view\n"


@dataclass(frozen=True)
class View:
    """The text a rewrite parses, and how its lines and its rewrite map back to the file."""

    text: str
    gaps: tuple[str, ...] = ("", "")  # the file's text before, between and after the runs
    runs: tuple[tuple[int, int, int], ...] = (
        (1, 1, 1 << 30),
    )  # (first line in the view, in the file, lines)

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
        """The file with the runs rewritten; None when a seam went (the rewrite reached past a
        run)."""
        if not self.partial:
            return rewritten
        runs = rewritten.split("\n" + SEAM)
        if len(runs) != len(self.runs):
            return None
        runs = [run + "\n" for run in runs[:-1]] + runs[-1:]
        return self.gaps[0] + "".join(run + gap for run, gap in zip(runs, self.gaps[1:]))


def view_of(text: str, tree: ast.Module, lines: frozenset[int]) -> View:
    """The runs of statements holding `lines`, with the neighbours of those that may go; the whole
    file when there is nothing to leave out or the file's line breaks are not all `\\n`."""
    whole = View(text)
    if "\r" in text or SEAM[:-1] in text or not tree.body:
        return whole
    offsets = [0] + [match.end() for match in re.finditer("\n", text)] + [len(text)]
    pieces = _Chooser(text, offsets, sorted(lines)).pieces(tree.body)
    if all(chosen for _, _, chosen in pieces) or not any(chosen for _, _, chosen in pieces):
        return whole
    runs: list[tuple[int, int, int]] = []  # (offset, end offset, first line)
    for index, (start, end, chosen) in enumerate(pieces):
        if not chosen:
            continue
        begin = 0 if index == 0 else offsets[start - 1]
        finish = len(text) if index == len(pieces) - 1 else offsets[min(end, len(offsets) - 1)]
        if runs and pieces[index - 1][2]:
            runs[-1] = (runs[-1][0], finish, runs[-1][2])
        else:
            runs.append((begin, finish, 1 if index == 0 else start))
    pieces_of_text, gaps, starts, position, view_line = [], [text[: runs[0][0]]], [], 0, 1
    for number, (begin, finish, first_line) in enumerate(runs):
        if number:
            pieces_of_text.append(SEAM)
            gaps.append(text[position:begin])
            view_line += 1
        size = text.count("\n", begin, finish) + (
            not text.endswith("\n", begin, finish)
        )  # a last line without one
        starts.append((view_line, first_line, size))
        pieces_of_text.append(text[begin:finish])
        view_line += size
        position = finish
    gaps.append(text[position:])
    return View("".join(pieces_of_text), tuple(gaps), tuple(starts))


# A class in the view is cut only when that leaves out at least this many lines of its body.
# LibCST takes about 0.13 ms a line: a smaller cut saves a few milliseconds at most, and makes
# the view depend on which methods hold a line (a later round whose lines fall in another
# method parses again instead of reusing the tree). On megatron-core, one rare attribute as the
# flag in each of 291 files, LibCST parses 33.6k lines with no threshold, 34.7k with 40, 36.4k
# with 80 and 68.2k without cutting classes; times differ by less than their noise below 80.
CLASS_CUT = 40

DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass(frozen=True)
class _Chooser:
    """Chooses the pieces of a file a view holds, for the (sorted) lines a round acts on."""

    text: str
    offsets: list[int]  # where each line starts
    lines: list[int]

    def pieces(self, body: list[ast.stmt]) -> list[tuple[int, int, bool]]:
        """The module as (first line, last line, in the view) pieces in file order: its top-level
        statements, a class in the view cut into its header and its body statements when worth it.
        """
        units = _units(body)
        chosen = self.chosen(units)
        pieces: list[tuple[int, int, bool]] = []
        for index, (start, end, statement) in enumerate(units):
            parts = None
            if index in chosen and isinstance(statement, ast.ClassDef):
                after = units[index + 1] if index + 1 < len(units) else None
                after_may_go = after is not None and self.holds(*after[:2]) and self.may_go(after)
                parts = self.class_pieces(start, statement, after_may_go)
            pieces.extend(parts or [(start, end, index in chosen)])
        return pieces

    def class_pieces(
        self, start: int, statement: ast.ClassDef, keep_last: bool
    ) -> list[tuple[int, int, bool]] | None:
        """A class as its header and its body statements, those holding a line in the view with
        their neighbours, its last one too when the statement after the class may go (that one's
        run starts before it); None when the class may go, or cutting would leave out fewer than
        CLASS_CUT lines."""
        header_end = self.header_end(statement)
        if header_end is None or self.holds(start, header_end):
            return None
        body = _units(statement.body)
        chosen = self.chosen(body)
        if keep_last:
            chosen.add(len(body) - 1)
        if not chosen:
            chosen.add(0)  # a class in the view needs a body
        pieces = [(begin, end, index in chosen) for index, (begin, end, _) in enumerate(body)]
        if sum(end - begin + 1 for begin, end, kept in pieces if not kept) < CLASS_CUT:
            return None
        return [(start, header_end, True), *pieces]

    def chosen(self, units: list[tuple[int, int, ast.stmt]]) -> set[int]:
        """The units holding a line and, around each that may go, the one before and the one after
        it (and the one after that when it is the string documenting a field)."""
        chosen: set[int] = set()
        for index, unit in enumerate(units):
            if self.holds(*unit[:2]):
                chosen.add(index)
                if self.may_go(unit):
                    chosen.update((index - 1, index + 1))
                    if index + 1 < len(units) and is_string_statement(units[index + 1][2]):
                        chosen.add(index + 2)  # the string documenting a field goes with it
        return chosen & set(range(len(units)))

    def may_go(self, unit: tuple[int, int, ast.stmt]) -> bool:
        """Whether a unit holding a line may go, or be replaced by other statements. A def or a
        class goes only when its name is dead, and the line naming it is in its header; one that
        holds lines only in its body stays, whatever becomes of its body (`pass`, when all goes)."""
        start, _, statement = unit
        if not isinstance(statement, DEFINITIONS):
            return True
        header_end = self.header_end(statement)
        return header_end is None or self.holds(start, header_end)

    def header_end(
        self, statement: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    ) -> int | None:
        """The line before a definition's first body statement; None when that statement begins on
        the header's line (`class A: x = 1`), or after a backslash continuing it."""
        first = statement.body[0]
        if not getattr(first, "decorator_list", None):
            line = self.text[self.offsets[first.lineno - 1] : self.offsets[first.lineno]].encode()
            if line[: first.col_offset].strip() or self.text.endswith(
                "\\\n", 0, self.offsets[first.lineno - 1]
            ):
                return None
        return statement_spans(statement.body[:1])[0][0] - 1

    def holds(self, first: int, last: int) -> bool:
        """Whether one of the lines is in the span from `first` to `last`."""
        index = bisect.bisect_left(self.lines, first)
        return index < len(self.lines) and self.lines[index] <= last


def _units(body: list[ast.stmt]) -> list[tuple[int, int, ast.stmt]]:
    """The statements of a body as (first line, last line, last statement); statements sharing a
    line (`a = 1; b = 2`) are one unit, as they are one line to LibCST."""
    units: list[tuple[int, int, ast.stmt]] = []
    for start, end, statement in statement_spans(body):
        if units and start <= units[-1][1]:
            units[-1] = (units[-1][0], max(end, units[-1][1]), statement)
        else:
            units.append((start, end, statement))
    return units
