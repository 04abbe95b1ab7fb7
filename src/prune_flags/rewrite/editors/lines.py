"""The lines around LibCST statements: blank lines, comments, paragraph headings, pragmas."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import cast

import libcst as cst

from prune_flags.syntax.statements import KEEP_PRAGMA


def is_blank(line: cst.EmptyLine) -> bool:
    return line.comment is None


def leading_lines(statement: cst.BaseStatement) -> Sequence[cst.EmptyLine]:
    """The lines above a statement, which every statement has: each is a SimpleStatementLine or a
    BaseCompoundStatement, though LibCST's BaseStatement does not declare them."""
    return cast("cst.SimpleStatementLine | cst.BaseCompoundStatement", statement).leading_lines


def merge_lines(first: list[cst.EmptyLine], second: list[cst.EmptyLine]) -> list[cst.EmptyLine]:
    """Concatenate two runs of lines; the blank lines meeting at the seam count once, not twice."""
    trailing = len(first) - len(strip_trailing_blanks(first))
    leading = len(second) - len(strip_leading_blanks(second))
    if trailing and leading:
        return first[: len(first) - min(trailing, leading)] + second
    return first + second


def strip_leading_blanks(lines: list[cst.EmptyLine]) -> list[cst.EmptyLine]:
    index = 0
    while index < len(lines) and is_blank(lines[index]):
        index += 1
    return lines[index:]


def strip_trailing_blanks(lines: list[cst.EmptyLine]) -> list[cst.EmptyLine]:
    end = len(lines)
    while end and is_blank(lines[end - 1]):
        end -= 1
    return lines[:end]


def detached_lines(lines: Sequence[cst.EmptyLine]) -> list[cst.EmptyLine]:
    """The lines above a statement minus the comment block attached directly to it."""
    kept = list(lines)
    while kept and not is_blank(kept[-1]):
        kept.pop()
    return kept


def heading_comment(lines: Sequence[cst.EmptyLine], first: bool) -> list[cst.EmptyLine]:
    """The comment block attached above a statement when it heads a paragraph: a blank line above
    it, or nothing when the statement is the block's `first`."""
    detached = detached_lines(lines)
    attached = list(lines[len(detached) :])
    return attached if attached and (detached or first) else []


def name_words(name: str) -> set[str]:
    """A name as a comment may speak of it: the name, and the longer words it joins
    (`delay_grads_release`: also `delay`, `grads`, `release`), all lower case."""
    lowered = name.lower()
    return {lowered, *(part for part in lowered.split("_") if len(part) >= 4)}


def comment_words(lines: Sequence[cst.EmptyLine]) -> set[str]:
    return {
        word
        for line in lines
        if line.comment is not None
        for token in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", line.comment.value)
        for word in name_words(token)
    }


# Comments that speak for the whole file and must stay at its top whatever goes below them: an
# encoding declaration (PEP 263), and the file-level directives of type checkers and linters.
FILE_DIRECTIVE = re.compile(
    r"#(.*?coding[:=][ \t]*[-\w.]+| *(type:"
    r" *ignore|mypy:|pyright:|pylint:|flake8:|isort:|ruff:|fmt:))"
)


def has_keep_pragma(statement: cst.BaseStatement) -> bool:
    """`# prune-flags: keep` on a statement's line, or on a block's header line."""
    if isinstance(statement, cst.SimpleStatementLine):
        comment = statement.trailing_whitespace.comment
    else:
        body = getattr(statement, "body", None)
        header = (
            body.header
            if isinstance(body, cst.IndentedBlock)
            else getattr(body, "trailing_whitespace", None)
        )
        comment = header.comment if header is not None else None
    return comment is not None and comment.value.replace(" ", "").startswith(
        KEEP_PRAGMA.replace(" ", "")
    )
