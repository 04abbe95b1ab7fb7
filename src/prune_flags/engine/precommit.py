"""The hooks a repository's `.pre-commit-config.yaml` runs, read without a YAML library."""

# prune-flags depends on no YAML parser, and a pre-commit config is a small, regular document: a
# `repos:` list of mappings (`repo`, `rev`, `hooks:` a list of mappings with `id` and `args`). This
# reader understands the block style such files are written in (nested mappings and `-` lists by
# indentation), flow lists (`args: [--line-length=100, "-S"]`), quoted and plain scalars and
# comments; anything else (anchors, flow mappings, multi-line scalars) is skipped rather than
# misread. A file it cannot make sense of gives no hooks, never an error: it only decides how the
# touched lines are formatted.

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CONFIG_NAME", "Hook", "hooks"]

CONFIG_NAME = ".pre-commit-config.yaml"


@dataclass(frozen=True)
class Hook:
    """One hook of one repository entry of the config."""

    repo: str  # the entry's `repo`: a URL, or `local` / `meta`
    rev: str  # the entry's `rev` as written ("23.1.0", "v0.4.4"); "" when absent
    id: str
    args: tuple[str, ...] = ()

    def from_repository(self, *names: str) -> bool:
        """Whether the hook comes from a repository whose URL ends with one of `names`
        ("psf/black"), with or without `.git` or a final slash, over https or ssh."""
        url = self.repo.rstrip("/").removesuffix(".git").lower()
        return any(url == name or url.endswith(("/" + name, ":" + name)) for name in names)


def hooks(path: Path) -> list[Hook]:
    """The hooks of the config at `path`; none when it is missing, unreadable or not a config."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    document = _document(text)
    repos = document.get("repos") if isinstance(document, dict) else None
    return [
        hook for entry in _list(repos) if isinstance(entry, dict) for hook in _entry_hooks(entry)
    ]


def _entry_hooks(entry: dict[str, object]) -> list[Hook]:
    """The hooks of one entry of `repos`; none when it names no repository."""
    repo, rev = entry.get("repo"), entry.get("rev")
    if not isinstance(repo, str):
        return []
    return [
        Hook(
            repo, rev if isinstance(rev, str) else "", hook["id"], tuple(_strings(hook.get("args")))
        )
        for hook in _list(entry.get("hooks"))
        if isinstance(hook, dict) and isinstance(hook.get("id"), str)
    ]


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _strings(value: object) -> list[str]:
    return [item for item in _list(value) if isinstance(item, str)]


# A line: its indentation and its text without the comment.
_Line = tuple[int, str]

_KEY = re.compile(r"(?P<key>[A-Za-z_][\w.-]*)\s*:(?:\s+(?P<value>.*))?$")


def _document(text: str) -> object:
    """The document's value: mappings as dicts, lists as lists, scalars as strings."""
    lines = [
        (len(line) - len(line.lstrip(" ")), line.strip())
        for line in map(_without_comment, text.splitlines())
    ]
    lines = [line for line in lines if line[1] and line[1] not in ("---", "...")]
    if not lines:
        return None
    return _block(lines, 0, lines[0][0])[0]


def _without_comment(line: str) -> str:
    """The line up to a `#` that starts a comment: at the start or after a blank, outside quotes."""
    for column, character in _outside_quotes(line):
        if character == "#" and (column == 0 or line[column - 1] in " \t"):
            return line[:column]
    return line


def _outside_quotes(text: str) -> Iterator[tuple[int, str]]:
    """Each character of `text` outside quoted scalars, with its column. A quote opens a scalar
    only where one can start (so the apostrophe of `don't` opens nothing)."""
    quote, escaped = "", False
    for column, character in enumerate(text):
        if quote:
            # Only a double-quoted scalar has escapes: `\"` does not close it.
            quote = "" if character == quote and not escaped else quote
            escaped = quote == '"' and character == "\\" and not escaped
        elif character in "\"'" and (column == 0 or text[column - 1] in " \t[,{"):
            quote = character
        else:
            yield column, character


def _is_item(text: str) -> bool:
    return text == "-" or text.startswith("- ")


def _block(lines: list[_Line], index: int, indent: int) -> tuple[object, int]:
    """The list or mapping whose lines start at `index`, indented by `indent`, and the index after
    it."""
    if _is_item(lines[index][1]):
        return _sequence(lines, index, indent)
    return _mapping(lines, index, indent)


def _sequence(lines: list[_Line], index: int, indent: int) -> tuple[list[object], int]:
    items: list[object] = []
    while index < len(lines) and lines[index][0] == indent and _is_item(lines[index][1]):
        rest = lines[index][1][1:]
        content = rest.lstrip(" ")
        if not content:  # the item's value starts on the next line
            index += 1
            if index < len(lines) and lines[index][0] > indent:
                value, index = _block(lines, index, lines[index][0])
            else:
                value = None
        elif _KEY.match(content) or _is_item(content):
            # `- id: black`: a mapping (or list) whose first line is the item's rest, at its column.
            column = indent + 1 + len(rest) - len(content)
            lines[index] = (column, content)
            value, index = _block(lines, index, column)
        else:
            value, index = _inline(content, lines, index + 1, indent)
        items.append(value)
    return items, index


def _mapping(lines: list[_Line], index: int, indent: int) -> tuple[dict[str, object], int]:
    mapping: dict[str, object] = {}
    while index < len(lines) and lines[index][0] == indent:
        match = _KEY.match(lines[index][1])
        if match is None:
            break
        value = (match["value"] or "").strip()
        index += 1
        if value:
            mapping[match["key"]], index = _inline(value, lines, index, indent)
        elif index < len(lines) and (
            lines[index][0] > indent or (lines[index][0] == indent and _is_item(lines[index][1]))
        ):
            # The value's lines are deeper, or a list at the key's own indentation (YAML allows it).
            mapping[match["key"]], index = _block(lines, index, lines[index][0])
        else:
            mapping[match["key"]] = None
    return mapping, index


def _inline(value: str, lines: list[_Line], index: int, indent: int) -> tuple[object, int]:
    """A value written after its key or dash, and the index after the lines it continues on."""
    if value.startswith("["):
        while not _closed(value) and index < len(lines) and lines[index][0] > indent:
            value += " " + lines[index][1]
            index += 1
        parsed: object = _flow_list(value)
    elif value[0] in "|>{&*!":
        parsed = None  # block scalars, flow mappings, anchors, tags: nothing a hook's args need
    else:
        parsed = _scalar(value)
    while index < len(lines) and lines[index][0] > indent:
        index += 1  # the continuation of a multi-line value
    return parsed, index


def _closed(text: str) -> bool:
    return any(character == "]" for _, character in _outside_quotes(text))


def _flow_list(text: str) -> list[object]:
    inner = _split_outside_quotes(text[1:], "]")[0]
    return [_scalar(item) for item in _split_outside_quotes(inner, ",") if item.strip()]


def _split_outside_quotes(text: str, separator: str) -> list[str]:
    parts, start = [], 0
    for column, character in _outside_quotes(text):
        if character == separator:
            parts.append(text[start:column])
            start = column + 1
    parts.append(text[start:])
    return parts


def _scalar(text: str) -> str:
    """A scalar as a string: quotes taken off (YAML's `''` and `\\"` escapes undone)."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    return text
