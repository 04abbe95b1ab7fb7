"""Typed results of a run: changes with reasons, per-file outcomes, the report, diffs and JSON."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from prune_flags.syntax.lines import grouped_opcodes
from prune_flags.vocabulary import Action, LeftReason, RefusalReason, WarningReason

PRUNED = "pruned"  # a flag's verdict when nothing refused it (Report.verdicts)
_SHOWN_VALUE = 60  # characters of an overridden value's source shown in its reason


def overrode(flag: str, value: str, configured: str) -> str:
    """The reason of a removed write that gave a flag another value (`value`, its source) than
    the configured one."""
    shown = " ".join(value.split())
    if len(shown) > _SHOWN_VALUE:
        shown = shown[: _SHOWN_VALUE - 3] + "..."
    return f"overrode {flag} = {shown} (the config fixes it at {configured})"


@dataclass(frozen=True)
class Change:
    """One edit a reviewer can check: where, for which flag, what was done and why."""

    line: int  # in the original file
    flag: str
    action: Action  # short kebab-case word
    reason: str


@dataclass(frozen=True)
class FileResult:
    """The outcome for one file: new text when it changed, or the error that left it untouched."""

    path: Path
    display: str  # path as shown to the user (relative to the working directory)
    old_text: str
    new_text: str
    changes: tuple[Change, ...] = ()
    encoding: str = "utf-8"  # the file's own: a patch must carry the file's bytes to apply

    @property
    def changed(self) -> bool:
        return self.old_text != self.new_text


# The changes that alter what the program did where they ran, not only how it reads.
OVERRIDING = frozenset({Action.OVERRIDDEN, Action.REMOVED_TEST})


@dataclass(frozen=True)
class Skipped:
    display: str
    error: str


@dataclass(frozen=True)
class Refusal:
    """A flag left alone everywhere, why (a kebab-case word), and where (`path:line`)."""

    flag: str
    why: RefusalReason
    locations: tuple[str, ...]
    message: str  # the sentence on stderr, naming the locations
    scope_with: tuple[str, ...] = ()  # qualified keys that would scope an ambiguous flag

    def to_json(self) -> dict[str, object]:
        """The entry of the JSON report's `refused` list (find's too)."""
        locations, scope_with = list(self.locations), list(self.scope_with)
        return {
            "flag": self.flag,
            "why": self.why,
            "locations": locations,
            "scope_with": scope_with,
        }


@dataclass(frozen=True)
class Left:
    """A site of a pruned flag the run left exactly as it was, with everything it needs kept alive
    (a definition an import reads): where (`line` in the original file), why (a kebab-case word),
    and what the user could declare or do."""

    flag: str
    path: str
    line: int
    why: LeftReason
    hint: str

    @property
    def message(self) -> str:
        """The line on stderr."""
        return f"{self.path}:{self.line}: left {self.flag} as it is ({self.why}): {self.hint}"

    def to_json(self) -> dict[str, object]:
        """The entry of the JSON report's `left` list."""
        return {
            "flag": self.flag,
            "path": self.path,
            "line": self.line,
            "why": self.why,
            "hint": self.hint,
        }


@dataclass(frozen=True)
class FlagWarning:
    """A flag the run did nothing with (not refused: nothing of it matched), said on stderr without
    changing the exit code (`why`: see vocabulary.WarningReason): its name appears only in forms
    the config does not declare (`locations`, and the accessor `template` the first fitting one
    suggests), no file in scope names it, its only reads are lookups kept for the side effects of
    their other operands; or, of a flag the run pruned, what it left that may now be wrong."""

    flag: str
    why: WarningReason
    locations: tuple[str, ...]
    template: str | None
    message: str

    def to_json(self) -> dict[str, object]:
        """The entry of the JSON report's `warnings` list."""
        return {
            "flag": self.flag,
            "why": self.why,
            "locations": list(self.locations),
            "template": self.template,
        }


@dataclass
class Report:
    flags: dict[str, str]  # name -> value source
    files: list[FileResult] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    left: list[Left] = field(default_factory=list)  # sites of pruned flags left as they were
    warnings: list[FlagWarning] = field(default_factory=list)
    # What the user should know about the run as a whole, not about one flag: the formatting
    # could only approximate the repository's formatter (another pinned black, a ruff style).
    notices: list[str] = field(default_factory=list)

    @property
    def conflicts(self) -> list[str]:
        """Each refused flag's message."""
        return [refusal.message for refusal in self.refused]

    @property
    def overrides(self) -> list[str]:
        """Each place where the config's decision changed what the code said, `path:line: why`:
        a write of another value removed, a test of another value deleted."""
        return [
            f"{result.display}:{change.line}: {change.reason}"
            for result in self.changed_files
            for change in sorted(result.changes, key=lambda change: change.line)
            if change.action in OVERRIDING
        ]

    @property
    def verdicts(self) -> dict[str, str]:
        """Each flag's outcome in one word, in the config's order: why it was refused (its first
        refusal's word), else why nothing of it matched (its warning's), else `pruned`."""
        words: dict[str, str] = {
            warning.flag: warning.why for warning in self.warnings if warning.why.untouched
        }
        words.update((refusal.flag, refusal.why) for refusal in reversed(self.refused))
        return {name: words.get(name, PRUNED) for name in self.flags}

    @property
    def changed_files(self) -> list[FileResult]:
        return [result for result in self.files if result.changed]

    def line_counts(self) -> tuple[int, int]:
        removed = added = 0
        for result in self.changed_files:
            for line in unified_diff(result):
                if line.startswith("-") and not line.startswith("---"):
                    removed += 1
                elif line.startswith("+") and not line.startswith("+++"):
                    added += 1
        return removed, added

    def summary_line(self) -> str:
        removed, added = self.line_counts()
        files = len(self.changed_files)
        text = (
            f"{files} file{'s' if files != 1 else ''} changed, {removed} lines removed,"
            f" {added} added"
        )
        if self.skipped:
            text += f"; {len(self.skipped)} skipped"
        return text

    def to_json(self) -> dict[str, object]:
        removed, added = self.line_counts()
        return {
            "version": 1,
            "flags": self.flags,
            "files": [
                {
                    "path": result.display,
                    "changes": [
                        {"line": c.line, "flag": c.flag, "action": c.action, "reason": c.reason}
                        for c in sorted(result.changes, key=lambda c: c.line)
                    ],
                }
                for result in self.changed_files
            ],
            "skipped": [{"path": s.display, "error": s.error} for s in self.skipped],
            "refused": [refusal.to_json() for refusal in self.refused],
            "left": [left.to_json() for left in self.left],
            "warnings": [warning.to_json() for warning in self.warnings],
            "notices": list(self.notices),
            "summary": {
                "files_changed": len(self.changed_files),
                "lines_removed": removed,
                "lines_added": added,
            },
        }

    def write_json(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")


def _diff_lines(text: str) -> list[str]:
    # Diff on "\n"-split lines but keep any "\r" so a CRLF file's patch applies to it byte for byte.
    return text.splitlines(keepends=True)


def unified_diff(result: FileResult) -> list[str]:
    """A git-style unified diff (a/ and b/ prefixes) that `git apply` and `patch -p1` take."""
    old, new = _diff_lines(result.old_text), _diff_lines(result.new_text)
    groups = grouped_opcodes(old, new)
    lines = [f"--- a/{result.display}\n", f"+++ b/{result.display}\n"] if groups else []
    for group in groups:  # as difflib.unified_diff writes them
        first, last = group[0], group[-1]
        lines.append(
            f"@@ -{_unified_range(first[1], last[2])} +{_unified_range(first[3], last[4])} @@\n"
        )
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [" " + line for line in old[i1:i2]]
                continue
            lines += ["-" + line for line in old[i1:i2]] if tag != "insert" else []
            lines += ["+" + line for line in new[j1:j2]] if tag != "delete" else []
    out: list[str] = []
    for line in lines:
        if not line.endswith("\n"):
            out.append(line + "\n")
            out.append("\\ No newline at end of file\n")
        else:
            out.append(line)
    return out


def _unified_range(start: int, stop: int) -> str:
    """A hunk header's range, as difflib writes it: `3`, `3,2`, or `2,0` for none after line 2."""
    length = stop - start
    if length == 1:
        return f"{start + 1}"
    return f"{start + 1 if length else start},{length}"


_STYLES = {"+": "\x1b[32m", "-": "\x1b[31m", "@": "\x1b[36m"}


def _styled(line: str) -> str:
    style = "\x1b[1m" if line.startswith(("+++", "---", "diff ")) else _STYLES.get(line[:1])
    return f"{style}{line.rstrip(chr(10))}\x1b[0m\n" if style else line


def render_diff(results: Sequence[FileResult], color: bool = False) -> bytes:
    """Every changed file's diff, each in the file's own encoding so that `git apply` takes it."""
    out = bytearray()
    for result in results:
        if not result.changed:
            continue
        encoding = "utf-8" if result.encoding == "utf-8-sig" else result.encoding
        header = f"diff --git a/{result.display} b/{result.display}\n"
        for line in [header, *unified_diff(result)]:
            out += (_styled(line) if color else line).encode(encoding, errors="surrogateescape")
    return bytes(out)


def explain_lines(results: Sequence[FileResult], left: Sequence[Left] = ()) -> list[str]:
    """`path:line  flag  action  reason`, grouped by file; then each site left as it was, as
    `path:line  flag  left  why: hint`."""
    out = []
    for result in results:
        for change in sorted(result.changes, key=lambda c: c.line):
            out.append(
                f"{result.display}:{change.line}  {change.flag}  {change.action}  {change.reason}"
            )
    out += [f"{site.path}:{site.line}  {site.flag}  left  {site.why}: {site.hint}" for site in left]
    return out
