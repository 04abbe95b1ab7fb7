"""Run black on just the lines a codemod changed, with the target repository's black settings.

`black` is imported inside the functions that format, never at module level: most runs format
nothing, and importing black costs about 0.3 s.
"""

from __future__ import annotations

import difflib
import io
import sys
import tokenize
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

if TYPE_CHECKING:
    import black

__all__ = [
    "BlackSettings",
    "changed_line_ranges",
    "format_lines",
    "load_black_settings",
    "touched_line_ranges",
]


@dataclass(frozen=True)
class BlackSettings:
    line_length: int = 88
    string_normalization: bool = True  # False when skip-string-normalization = true
    magic_trailing_comma: bool = True  # False when skip-magic-trailing-comma = true
    target_versions: tuple[str, ...] = ()  # as written in the config, e.g. ("py310", "py311")
    preview: bool = False
    is_pyi: bool = False
    configured: bool = False  # True when the repository has a [tool.black] table


def load_black_settings(project_root: Path) -> BlackSettings:
    """Read [tool.black] from project_root/pyproject.toml; defaults when it is absent or broken."""
    table = _black_table(project_root / "pyproject.toml")
    if table is None:
        return BlackSettings()
    # black accepts both spellings because it normalizes dashes to underscores; later keys win,
    # as in black's own loader.
    options = {key.replace("-", "_"): value for key, value in table.items()}
    defaults = BlackSettings()
    return BlackSettings(
        line_length=_line_length(options.get("line_length"), defaults.line_length),
        string_normalization=not _flag(options.get("skip_string_normalization")),
        magic_trailing_comma=not _flag(options.get("skip_magic_trailing_comma")),
        target_versions=_target_versions(options.get("target_version")),
        preview=_flag(options.get("preview")),
        configured=True,
    )


def _black_table(pyproject: Path) -> Mapping[str, Any] | None:
    """The [tool.black] table, or None when the file, the table, or valid TOML is missing."""
    try:
        with pyproject.open("rb") as stream:
            data = tomllib.load(stream)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        # A missing file means "not configured"; unreadable or malformed files are reported by the
        # config loader, so formatting just falls back to black's defaults.
        return None
    tool = data.get("tool")
    table = tool.get("black") if isinstance(tool, dict) else None
    return table if isinstance(table, dict) else None


def _line_length(value: object, default: int) -> int:
    # bool is a subclass of int, and `line-length = true` is a mistake, not a width of 1.
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return default


def _flag(value: object) -> bool:
    # Only a real TOML `true` enables an option; anything else leaves black's default.
    return value is True


def _target_versions(value: object) -> tuple[str, ...]:
    # Names are kept as written; versions this black does not know are dropped later, by
    # `_known_target_versions`, because checking them here would mean importing black.
    if not isinstance(value, list):
        return ()
    return tuple(item for item in value if isinstance(item, str))


def format_lines(
    source: str, line_ranges: Sequence[tuple[int, int]], settings: BlackSettings
) -> str:
    """Format only `line_ranges` (1-based, inclusive) of `source`; return `source` on any failure."""
    if not line_ranges:
        return source
    crlf = "\r\n" in source
    if crlf and source.count("\n") != source.count("\r\n"):
        # Mixed line endings cannot round-trip through black's "\n"-only text without rewriting
        # the endings of lines outside the ranges, which would put unrelated lines in the diff.
        return source
    text = source.replace("\r\n", "\n") if crlf else source
    formatted = _run_black(text, line_ranges, settings)
    if formatted is None:
        return source
    if not text.endswith("\n") and formatted.endswith("\n"):
        # black always ends the file with a newline; adding one the file never had is not cleanup.
        formatted = formatted[:-1]
    return formatted.replace("\n", "\r\n") if crlf else formatted


def _run_black(
    text: str, line_ranges: Sequence[tuple[int, int]], settings: BlackSettings
) -> str | None:
    """black's output for `text`, or None when black fails."""
    import black

    try:
        return black.format_str(text, mode=_black_mode(settings), lines=list(line_ranges))
    except Exception:
        # Formatting is a nicety and never a reason to lose the edit: whatever black raises
        # (InvalidInput on unparseable code, an internal error, ...) means "keep the source".
        # format_str never raises NothingChanged (only format_file_contents does); it returns
        # the text unchanged instead, which needs no special case.
        return None


def _black_mode(settings: BlackSettings) -> black.Mode:
    import black

    return black.Mode(
        target_versions=_known_target_versions(settings.target_versions),
        line_length=settings.line_length,
        string_normalization=settings.string_normalization,
        magic_trailing_comma=settings.magic_trailing_comma,
        preview=settings.preview,
        is_pyi=settings.is_pyi,
    )


def _known_target_versions(names: Sequence[str]) -> set[black.TargetVersion]:
    import black

    # The repository may target a Python this black predates (or has dropped); skipping the name
    # beats failing, since black still formats correctly without that hint.
    known = black.TargetVersion.__members__
    return {known[name.upper()] for name in names if name.upper() in known}


def touched_line_ranges(old: str, new: str) -> list[tuple[int, int]]:
    """1-based inclusive ranges of lines of `new` that the edit touched: those added or modified
    (see `changed_line_ranges`), and each statement that lost lines from within and stayed
    (`return (`, `    f"..."`, `)` once a folded ternary's other lines went). black formats
    every statement holding a line of its ranges, and only those: a statement that went whole
    leaves its neighbours untouched, so a pure deletion of whole statements formats nothing."""
    changed, points = _edits(_split_lines(old), _split_lines(new))
    if not points:
        return changed
    return _merged(changed + _statements_across(new, points))


def changed_line_ranges(old: str, new: str) -> list[tuple[int, int]]:
    """1-based inclusive ranges of lines of `new` added or modified relative to `old`.

    The ranges come out sorted, disjoint and never adjacent, so they need no merging: difflib
    puts exactly one non-equal opcode between two runs of equal lines, so two 'replace'/'insert'
    opcodes are always separated by at least one unchanged line of `new`.
    """
    return _edits(_split_lines(old), _split_lines(new))[0]


def _edits(old_lines: list[str], new_lines: list[str]) -> tuple[list[tuple[int, int]], list[int]]:
    """The ranges of new lines added or modified, and the new lines after which old lines went
    (0: before the first). A pure deletion (most cleanups) needs no diff: each new line is the
    first old line equal to it, and the old lines skipped on the way went."""
    points: list[int] = []
    position = 0
    for number, line in enumerate(new_lines):
        start = position
        while position < len(old_lines) and old_lines[position] != line:
            position += 1
        if position == len(old_lines):
            break  # a new line: not a pure deletion
        if position > start:
            points.append(number)
        position += 1
    else:
        return [], points  # old lines gone after the last new one are past every statement
    # autojunk would treat frequent lines (blank lines, closing brackets) as junk in files over
    # 200 lines and report spurious changes around them.
    opcodes = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False).get_opcodes()
    changed = [(j1 + 1, j2) for tag, _, _, j1, j2 in opcodes if tag in ("replace", "insert")]
    return changed, [j1 for tag, _, _, j1, _ in opcodes if tag == "delete"]


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
    (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)
)


def _merged(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted ranges with those that overlap or touch joined."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _split_lines(text: str) -> list[str]:
    # Split on "\n" only, the way black numbers lines: str.splitlines() also breaks on form feeds,
    # \v, \x1c-\x1e, \x85, \u2028 and \u2029, which can appear in Python source and would shift the
    # line numbers. A final newline does not start another line.
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines
