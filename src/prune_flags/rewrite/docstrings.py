"""Removing a parameter's entry from a docstring: Google, NumPy and Sphinx styles."""

# Works on the docstring's source lines, quotes included. An entry is its first line and every
# following line indented deeper; entries set apart by blank lines (or the first, flush with its
# header, set apart from the next) go with the blank lines after them, so no double blank line is
# left, and a last entry set apart from the one before goes with the blank lines above it, so none
# is left dangling before the closing quotes. A section left without entries goes with its header
# and the blank line that separated it from what came before.

from __future__ import annotations

import re

_GOOGLE_HEADERS = (
    "Args:",
    "Arguments:",
    "Parameters:",
    "Params:",
    "Keyword Args:",
    "Keyword Arguments:",
)
_NUMPY_HEADERS = ("Parameters", "Other Parameters")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _entry_end(lines: list[str], start: int) -> int:
    """The line after the entry starting at `start`: its continuation lines are indented deeper."""
    end = start + 1
    while end < len(lines) and (
        not lines[end].strip() or _indent(lines[end]) > _indent(lines[start])
    ):
        if not lines[end].strip() and (
            end + 1 >= len(lines) or _indent(lines[end + 1]) <= _indent(lines[start])
        ):
            break
        end += 1
    return end


def _entry_span(lines: list[str], start: int) -> tuple[int, int]:
    """The lines the entry at `start` takes with it: the entry, and the blank lines separating
    it from its neighbours when they would otherwise double or dangle."""
    end = _entry_end(lines, start)
    after = _next_text(lines, end)
    blank_before = start > 0 and not lines[start - 1].strip()
    flush = start > 0 and (
        _is_underline(lines[start - 1]) or lines[start - 1].strip() in _GOOGLE_HEADERS
    )
    entry_follows = _starts_entry(lines, after, _indent(lines[start]))
    if after > end and (blank_before or (flush and entry_follows)):
        return start, after
    if after == end and blank_before and after < len(lines) and _closes(lines[after]):
        while start > 0 and not lines[start - 1].strip():
            start -= 1
    return start, end


def _closes(line: str) -> bool:
    """The docstring's last line holding nothing but its closing quotes."""
    return line.strip() in ('"""', "'''")


def _is_underline(line: str) -> bool:
    """The dashes under a NumPy section's header."""
    text = line.strip()
    return bool(text) and set(text) == {"-"}


def _next_text(lines: list[str], index: int) -> int:
    """The first line from `index` on that is not blank (len(lines) if none)."""
    while index < len(lines) and not lines[index].strip():
        index += 1
    return index


def _starts_entry(lines: list[str], index: int, indent: int) -> bool:
    """Whether line `index` starts an entry indented `indent` or deeper: neither the closing
    quotes nor the header of a NumPy section (which is as deep as its entries)."""
    return (
        index < len(lines)
        and _indent(lines[index]) >= indent
        and not _closes(lines[index])
        and not (index + 1 < len(lines) and _is_underline(lines[index + 1]))
    )


def without_parameter(docstring: str, name: str) -> str:
    lines = docstring.split("\n")
    escaped = re.escape(name)
    patterns = (
        re.compile(rf"^\s*\**{escaped}\s*(\([^)]*\))?\s*:(?!:)"),  # Google: name (type): text
        re.compile(rf"^\s*{escaped}\s*:\s*\S"),  # NumPy: name : type
        re.compile(rf"^\s*{escaped}\s*$"),  # NumPy without a type
        re.compile(
            rf"^\s*:(param|parameter|arg|argument|key|keyword)\s+(\S+\s+)?{escaped}\s*:"
        ),  # Sphinx
        re.compile(rf"^\s*:type\s+{escaped}\s*:"),
    )
    index = 0
    while index < len(lines):
        if any(pattern.match(lines[index]) for pattern in patterns) and _in_parameters(
            lines, index
        ):
            del lines[slice(*_entry_span(lines, index))]
            _drop_empty_section(lines, index)
            continue
        index += 1
    return "\n".join(lines)


def _in_parameters(lines: list[str], index: int) -> bool:
    """Whether line `index` sits in a parameters section (Sphinx field lines stand anywhere)."""
    if lines[index].lstrip().startswith(":"):
        return True
    for previous in range(index - 1, -1, -1):
        text = lines[previous].strip()
        if text in _GOOGLE_HEADERS and _indent(lines[previous]) < _indent(lines[index]):
            return True
        if (
            text
            and set(text) == {"-"}
            and previous > 0
            and lines[previous - 1].strip() in _NUMPY_HEADERS
        ):
            return True
        if text and _indent(lines[previous]) < _indent(lines[index]):
            return False
    return False


def _drop_empty_section(lines: list[str], index: int) -> None:
    """If the entry removed at `index` was its section's last, the header goes too."""
    header = index - 1
    numpy = header >= 0 and _is_underline(lines[header])
    if numpy:
        header -= 1
    if header < 0 or lines[header].strip() not in (*_GOOGLE_HEADERS, *_NUMPY_HEADERS):
        return
    if _starts_entry(lines, _next_text(lines, index), _indent(lines[header]) + (0 if numpy else 1)):
        return  # entries remain
    start = header
    if start > 0 and not lines[start - 1].strip():
        start -= 1  # the blank line that set the section apart
    elif index < len(lines) and not lines[index].strip():
        index += 1
    del lines[start:index]
