"""Interactive review: each changed file split into hunks, each accepted or declined."""

# Hunks are not independent: removing `self.fast = False` is right only because the `if self.fast:`
# of another hunk goes too. So a declined hunk means "keep these lines, and what they read": the
# cleanup runs again from the original texts with the statements the hunk touches protected, as a `#
# prune-flags: keep` pragma on them would (a virtual one: the marker is put into the texts the
# engine reads and taken out of what it gives back; nothing of it is written), before the next
# question. Hunks accepted earlier that the new plan no longer holds are withdrawn, and said so;
# what takes their place is asked about. A declined hunk that its own statements cannot keep (they
# stay, but a branch flattened around them dedents them) keeps the block around it, else its whole
# file; when even that does not hold, nothing is written. In the end every hunk of the last plan is
# accepted, except declined ones that run nothing (comments, blank lines, lines deleted inside a
# string), so the result is the cleanup's own output for the lines kept.

from __future__ import annotations

import ast
import functools
import io
import tokenize
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from prune_flags.report import Change, FileResult, Report
from prune_flags.syntax.lines import line_opcodes
from prune_flags.syntax.statements import KEEP_PRAGMA, nested_blocks, statement_spans
from prune_flags.vocabulary import Action

# The virtual pragma on each statement a declined hunk keeps; taken out of the engine's output.
DECLINED = f"  {KEEP_PRAGMA} (declined in review)"


@dataclass(frozen=True)
class Hunk:
    old_start: int  # 0-based index of the first old line replaced
    old_lines: tuple[str, ...]
    new_lines: tuple[str, ...]

    def reasons(self, changes: Sequence[Change]) -> list[Change]:
        """The changes reported on the lines this hunk touches (or right at its edge for an
        insertion)."""
        first, last = self.old_start + 1, self.old_start + max(len(self.old_lines), 1)
        return [change for change in changes if first <= change.line <= last]

    def render(self, old_text: str = "") -> str:
        """The hunk as a diff shows it, with up to three unchanged lines of `old_text` (the file
        it is a hunk of) on each side, as `git add -p` does."""
        source = old_text.splitlines(keepends=True)
        end = self.old_start + len(self.old_lines)
        before = source[max(0, self.old_start - CONTEXT) : self.old_start]
        after = source[end : end + CONTEXT]
        return (
            f"@@ line {self.old_start + 1} @@\n"
            + "".join(" " + _ended(line) for line in before)
            + "".join("-" + _ended(line) for line in self.old_lines)
            + "".join("+" + _ended(line) for line in self.new_lines)
            + "".join(" " + _ended(line) for line in after)
        )

    def follows(self, changes: Sequence[Change]) -> bool:
        """Whether the hunk only removes what other changes left unused (an import, a helper, a
        definition whose reads went): asked after what causes it, as its answer depends on
        theirs."""
        reasons = self.reasons(changes)
        return bool(reasons) and all(change.action in CONSEQUENCES for change in reasons)

    @property
    def lines(self) -> range:
        """The old lines (1-based) this hunk replaces."""
        return range(self.old_start + 1, self.old_start + 1 + len(self.old_lines))


CONTEXT = 3  # unchanged lines shown around a hunk

# What a change removes because others left it without readers.
CONSEQUENCES = frozenset(
    {
        Action.REMOVED_IMPORT,
        Action.REMOVED_WRITE,
        Action.REMOVED_DEAD_STORE,
        Action.REMOVED_FUNCTION,
        Action.REMOVED_METHOD,
        Action.REMOVED_CLASS,
        Action.REMOVED_FIXTURE,
    }
)


def _ended(line: str) -> str:
    return line if line.endswith("\n") else line + "\n"


def hunks(result: FileResult) -> list[Hunk]:
    old, new = result.old_text.splitlines(keepends=True), result.new_text.splitlines(keepends=True)
    return [
        Hunk(i1, tuple(old[i1:i2]), tuple(new[j1:j2]))
        for tag, i1, i2, j1, j2 in line_opcodes(old, new)
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


# -- keeping declined lines ----------------------------------------------------------------------
def runs_code(old_text: str, hunk: Hunk) -> bool:
    """Whether keeping the hunk's old lines needs other lines kept: it changes code, not only
    comments and blank lines, nor only deletes lines inside a string (a docstring's entry for a
    parameter that goes), which run nothing."""
    if not any(_is_code(line) for line in hunk.old_lines + hunk.new_lines):
        return False
    return bool(hunk.new_lines) or not set(hunk.lines) <= _inside_strings(old_text)


def _is_code(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


@functools.lru_cache(maxsize=16)
def _inside_strings(text: str) -> frozenset[int]:
    """The lines strictly inside a multi-line string, an f-string's excepted (it holds code)."""
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if (
            token.type == tokenize.STRING
            and "f" not in token.string.split(token.string[-1])[0].lower()
        ):
            lines.update(range(token.start[0] + 1, token.end[0]))
    return frozenset(lines)


def kept_statements(text: str, lines: Iterable[int]) -> list[ast.stmt]:
    """The statements to protect so that `lines` stay as they are: each statement with a line of
    its own code among them (a compound statement's own lines are its headers: `if`, `elif`,
    `else`, `except`..., not its nested statements), as the rewrite edits statements."""
    source = text.splitlines()
    code = {line for line in lines if 0 < line <= len(source) and _is_code(source[line - 1])}
    return list(_keeping(ast.parse(text).body, code, source)) if code else []


def _keeping(body: list[ast.stmt], lines: set[int], source: list[str]) -> Iterator[ast.stmt]:
    for start, end, statement in statement_spans(body):
        held = {line for line in lines if start <= line <= end}
        if not held:
            continue
        blocks = _clauses(statement, source)
        spans = [(first, last) for block in blocks for first, last, _ in statement_spans(block)]
        if any(not any(first <= line <= last for first, last in spans) for line in held):
            yield statement
        else:
            for block in blocks:
                yield from _keeping(block, held, source)


def enclosing(text: str, lines: Iterable[int]) -> set[int]:
    """The first lines of the innermost compound statements whose blocks hold the lines."""
    source = text.splitlines()

    def parent(body: list[ast.stmt], line: int, start: int | None) -> int | None:
        for first, last, statement in statement_spans(body):
            if first <= line <= last:
                inner = (parent(block, line, first) for block in _clauses(statement, source))
                return next((found for found in inner if found is not None), start)
        return None

    tree = ast.parse(text)
    found = {parent(tree.body, line, None) for line in lines}
    return {line for line in found if line is not None}


def _clauses(statement: ast.stmt, source: list[str]) -> list[list[ast.stmt]]:
    """The statement lists nested in a statement; an `elif` is a clause of its `if`, whose header
    the rewrite reads (the `elif` is no statement of a body there)."""
    blocks = []
    for block in nested_blocks(statement):
        if (
            block is getattr(statement, "orelse", None)
            and len(block) == 1
            and _is_elif(block[0], source)
        ):
            blocks += _clauses(block[0], source)
        else:
            blocks.append(block)
    return blocks


def _is_elif(statement: ast.stmt, source: list[str]) -> bool:
    return isinstance(statement, ast.If) and source[statement.lineno - 1][
        statement.col_offset :
    ].startswith("elif")


def marked(text: str, statements: Sequence[ast.stmt]) -> str:
    """The text with the virtual pragma where the rewrite reads one: after the code of the
    statement's line (of its header, for a compound statement), before any comment there."""
    ends = _code_ends(text)
    points = sorted({ends[statement.lineno] for statement in statements}, reverse=True)
    lines = text.splitlines(keepends=True)
    for line, column in points:
        lines[line - 1] = lines[line - 1][:column] + DECLINED + lines[line - 1][column:]
    return "".join(lines)


def _code_ends(text: str) -> dict[int, tuple[int, int]]:
    """For each line of a logical line, where that logical line's code ends (line, column)."""
    ends: dict[int, tuple[int, int]] = {}
    first: int | None = None
    end = (0, 0)
    skipped = (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING)
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type in skipped:
            continue
        if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            if first is not None:
                ends.update(dict.fromkeys(range(first, end[0] + 1), end))
            first = None
            continue
        if first is None:
            first = token.start[0]
        end = token.end
    return ends


def unmarked(
    result: FileResult, original: FileResult | None, kept_at: Iterable[int] = ()
) -> FileResult:
    """An engine result over marked text, as over the file's own text; what the virtual pragma
    kept at the lines `kept_at` is reported as declined in review."""
    if original is None:
        return result
    kept_at = frozenset(kept_at)
    changes = tuple(
        (
            replace(
                change,
                action=Action.KEPT_IN_REVIEW,
                reason="declined in review: kept as it is, with what it reads",
            )
            if change.action == Action.KEPT_BY_PRAGMA and change.line in kept_at
            else change
        )
        for change in result.changes
    )
    new_text = result.new_text.replace(DECLINED, "")
    return replace(result, old_text=original.old_text, new_text=new_text, changes=changes)


# -- the dialogue --------------------------------------------------------------------------------
Answer = (
    str  # "y" apply, "n" skip, "a"/"d" apply/skip the rest of the file, "q" skip everything left
)
Plan = Callable[
    [Mapping[Path, bytes]], Report
]  # the cleanup run with these texts in place of the files'


def review(
    report: Report,
    plan: Plan,
    ask: Callable[[FileResult, Hunk], Answer],
    say: Callable[[str], None],
) -> Report:
    """Ask about every hunk and return the report of what was accepted: a cleanup's own output for
    the lines declined (see the module's docstring), or nothing changed when that cannot be made."""
    return _Review(report, plan, ask, say).run()


class _Review:
    def __init__(
        self,
        report: Report,
        plan: Plan,
        ask: Callable[[FileResult, Hunk], Answer],
        say: Callable[[str], None],
    ) -> None:
        self.report = report
        self.plan = plan
        self.ask = ask
        self.say = say
        self.originals = {result.path: result for result in report.files}
        self.kept: dict[Path, set[int]] = {}  # declined lines, in the original texts
        self.whole: set[Path] = set()  # files kept as they are: a declined hunk no statement keeps
        self.answers: dict[tuple[Path, Hunk], bool] = {}
        self.rest: dict[Path, bool] = {}  # files whose every hunk left is applied ("a") or not
        self.stopped = False

    def run(self) -> Report:
        while self._ask_until_declined():
            if not self._replan():
                self.say(
                    "prune-flags: what was declined cannot be kept apart from the rest;"
                    " nothing written"
                )
                self.report.files = [replace(r, new_text=r.old_text) for r in self.report.files]
                return self.report
        for index, result in enumerate(self.report.files):
            file_hunks = hunks(result)
            accepted = [self.answers.get((result.path, hunk), False) for hunk in file_hunks]
            text = with_accepted(result, file_hunks, accepted)
            problem = still_python(text) if not all(accepted) else None
            if problem:
                self.say(
                    f"prune-flags: {result.display}: the hunks kept would not parse"
                    f" ({problem}); left untouched"
                )
                text = result.old_text
            self.report.files[index] = replace(result, new_text=text)
        return self.report

    def _ask_until_declined(self) -> bool:
        """Ask about the hunks not answered yet, causes first and then what follows from them (see
        Hunk.follows), each in file order; True as soon as a declined one holds code (then the rest
        depends on what it keeps), False when every hunk has its answer."""
        replan = False
        for consequences in (False, True):
            for result in self.report.changed_files:
                for hunk in hunks(result):
                    key = (result.path, hunk)
                    if key in self.answers or hunk.follows(result.changes) != consequences:
                        continue
                    rest = False if self.stopped else self.rest.get(result.path)
                    answer = "y" if rest else "n" if rest is False else self.ask(result, hunk)
                    if answer in ("a", "d", "q"):
                        self.rest[result.path] = answer == "a"
                        self.stopped = self.stopped or answer == "q"
                    self.answers[key] = answer in ("y", "a")
                    old_text = self.originals[result.path].old_text
                    if not self.answers[key] and runs_code(old_text, hunk):
                        self.kept.setdefault(result.path, set()).update(hunk.lines)
                        replan = True
                        if rest is None and answer not in ("d", "q"):
                            return True  # the next question is one of the new plan
                if replan and not self.stopped:
                    return True  # "d": the rest of the file is declined, and planned again at once
        return replan  # "q": every file's rest is declined, and planned again once

    def _replan(self) -> bool:
        """Run the cleanup again with the declined lines kept; False when a declined hunk stays in
        the plan even with its whole file kept."""
        while True:
            contents: dict[Path, bytes] = {}
            kept_at: dict[Path, list[int]] = (
                {}
            )  # where the virtual pragma went: its statements' first lines
            for path, lines in self.kept.items():
                original = self.originals[path]
                whole = path in self.whole
                keep = range(1, original.old_text.count("\n") + 2) if whole else lines
                statements = kept_statements(original.old_text, keep)
                contents[path] = marked(original.old_text, statements).encode(original.encoding)
                kept_at[path] = [start for start, _, _ in statement_spans(statements)]
            report = self.plan(contents)
            report.files = [
                unmarked(result, self.originals.get(result.path), kept_at.get(result.path, ()))
                for result in report.files
            ]
            for result in report.files:  # a file the first plan left alone may change now
                self.originals.setdefault(result.path, result)
            planned = {
                (result.path, hunk) for result in report.changed_files for hunk in hunks(result)
            }
            self._withdraw(planned)
            declined = [
                (path, hunk)
                for (path, hunk), taken in self.answers.items()
                if not taken and runs_code(self.originals[path].old_text, hunk)
            ]
            stuck = [(path, hunk) for path, hunk in declined if (path, hunk) in planned]
            if not stuck:
                # What the user declined is kept, not unmatched: the first plan's warnings stand.
                report.warnings = self.report.warnings
                self.report = report
                return True
            if {path for path, _ in stuck} <= self.whole:
                return False
            for path, hunk in stuck:
                # Its statements are not what changes them (a branch around them is flattened):
                # the block around them is kept, else the whole file.
                original = self.originals[path]
                around = enclosing(original.old_text, hunk.lines) - self.kept[path]
                self.kept[path] |= around
                if around:
                    self.say(
                        f"prune-flags: {original.display}: the hunk at line"
                        f" {hunk.old_start + 1} cannot be kept on its"
                        " own (the block around it changes it); the block at line"
                        f" {min(around)} is kept with it"
                    )
                elif path not in self.whole:
                    self.whole.add(path)
                    self.say(
                        f"prune-flags: {original.display}: a declined hunk cannot be kept"
                        " on its own"
                        " (no statement of it can be); the whole file is kept as it is"
                    )

    def _withdraw(self, planned: set[tuple[Path, Hunk]]) -> None:
        for (path, hunk), taken in list(self.answers.items()):
            if taken and (path, hunk) not in planned:
                del self.answers[(path, hunk)]
                again = "" if self.stopped else " (what is left of it is asked again)"
                self.say(
                    f"prune-flags: {self.originals[path].display}: the hunk at line"
                    f" {hunk.old_start + 1} you accepted is withdrawn: it depended on lines you"
                    f" kept{again}"
                )
