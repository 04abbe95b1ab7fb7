"""Removing a parameter's entry from a docstring: Google, NumPy and Sphinx styles.

Works on the docstring's source lines. An entry is its first line and every following line
indented deeper; a section left without entries goes with its header and the blank line
that separated it from what came before.
"""

from __future__ import annotations

import re

_GOOGLE_HEADERS = ("Args:", "Arguments:", "Parameters:", "Params:", "Keyword Args:", "Keyword Arguments:")
_NUMPY_HEADERS = ("Parameters", "Other Parameters")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _entry_end(lines: list[str], start: int) -> int:
    """The line after the entry starting at `start`: its continuation lines are indented deeper."""
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) > _indent(lines[start])):
        if not lines[end].strip() and (end + 1 >= len(lines) or _indent(lines[end + 1]) <= _indent(lines[start])):
            break
        end += 1
    return end


def without_parameter(docstring: str, name: str) -> str:
    lines = docstring.split("\n")
    escaped = re.escape(name)
    patterns = (
        re.compile(rf"^\s*\**{escaped}\s*(\([^)]*\))?\s*:(?!:)"),  # Google: name (type): text
        re.compile(rf"^\s*{escaped}\s*:\s*\S"),  # NumPy: name : type
        re.compile(rf"^\s*{escaped}\s*$"),  # NumPy without a type
        re.compile(rf"^\s*:(param|parameter|arg|argument|key|keyword)\s+(\S+\s+)?{escaped}\s*:"),  # Sphinx
        re.compile(rf"^\s*:type\s+{escaped}\s*:"),
    )
    index = 0
    while index < len(lines):
        if any(pattern.match(lines[index]) for pattern in patterns) and _in_parameters(lines, index):
            end = _entry_end(lines, index)
            del lines[index:end]
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
        if text and set(text) == {"-"} and previous > 0 and lines[previous - 1].strip() in _NUMPY_HEADERS:
            return True
        if text and _indent(lines[previous]) < _indent(lines[index]):
            return False
    return False


def _drop_empty_section(lines: list[str], index: int) -> None:
    """If the entry removed at `index` was its section's last, the header goes too."""
    header = index - 1
    if header >= 0 and set(lines[header].strip()) == {"-"}:
        header -= 1  # NumPy underline
    if header < 0 or lines[header].strip() not in (*_GOOGLE_HEADERS, *_NUMPY_HEADERS):
        return
    following = lines[index].strip() if index < len(lines) else ""
    if following and _indent(lines[index]) > _indent(lines[header]):
        return  # entries remain
    start = header
    if start > 0 and not lines[start - 1].strip():
        start -= 1  # the blank line that set the section apart
    elif index < len(lines) and not lines[index].strip():
        index += 1
    del lines[start:index]
