"""Statements with `ast`: their spans, the blocks they nest, docstrings, the keep pragma."""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Iterable, Iterator, Sequence

KEEP_PRAGMA = "# prune-flags: keep"


# The rewrite honours the pragma whatever spaces it holds (rewrite/editors/lines.py:
# has_keep_pragma).
_KEEP_PRAGMA_TEXT = re.compile(" *".join(map(re.escape, KEEP_PRAGMA.replace(" ", ""))))


FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
# What defines a name in a scope of its own: its statements are its own.
DefinitionNode = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def kept_by_pragma(body: list[ast.stmt], text: str) -> Iterator[ast.stmt]:
    """The statements a `# prune-flags: keep` protects: a simple statement with the pragma on one
    of its lines, a compound one with the pragma on its header (up to its first nested statement).
    Taken wider than the rewrite honours it (which reads only the comment that ends the statement
    or the header): a name kept alive for nothing costs a cleanup, a name deleted under a kept
    statement breaks the code."""
    if not _KEEP_PRAGMA_TEXT.search(text):
        return
    lines = text.splitlines()
    for start, end, statement in statement_spans(body):
        blocks = nested_blocks(statement)
        nested_start = min(
            (spans[0][0] for spans in map(statement_spans, blocks) if spans), default=end + 1
        )
        header_end = nested_start - 1 if nested_start > statement.lineno else end
        if any(_KEEP_PRAGMA_TEXT.search(line) for line in lines[start - 1 : header_end]):
            yield statement
        else:
            for block in blocks:
                yield from kept_by_pragma(block, text)


def nested_blocks(statement: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists nested in a statement: bodies, `else`, `finally`, handlers, cases."""
    blocks = [
        value
        for _, value in ast.iter_fields(statement)
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt)
    ]
    clauses = [*getattr(statement, "handlers", []), *getattr(statement, "cases", [])]
    return blocks + [clause.body for clause in clauses]


def statements_holding(
    body: list[ast.stmt], lines: Iterable[int]
) -> Iterator[tuple[int, int, ast.stmt]]:
    """The statements of a body (a module's, a class's) that hold one of the lines, with their
    spans."""
    return statements_holding_sorted(body, sorted(lines))


def statements_holding_sorted(
    body: list[ast.stmt], ordered: Sequence[int]
) -> Iterator[tuple[int, int, ast.stmt]]:
    """statements_holding for lines already in order: a walk into nested blocks sorts them once."""
    for start, end, statement in statement_spans(body):
        index = bisect.bisect_left(ordered, start)
        if index < len(ordered) and ordered[index] <= end:
            yield start, end, statement


def statement_spans(body: list[ast.stmt]) -> list[tuple[int, int, ast.stmt]]:
    """Each statement of a body with its first line (decorators included) and last line."""
    return [
        (first_line(statement), statement.end_lineno or statement.lineno, statement)
        for statement in body
    ]


def merged_spans(spans: Iterable[tuple[int, int]], gap: int = 0) -> list[tuple[int, int]]:
    """Line spans, sorted, with those that share a line (or are at most `gap` lines apart)
    joined: statements either nest or follow one another, but two simple ones may share a line
    (`a = 1; b = 2`); ranges that touch are joined with a gap of 1."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1] + gap:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def first_line(statement: ast.stmt) -> int:
    """A statement's first line, its decorators included."""
    decorators = getattr(statement, "decorator_list", None)
    return (
        min(statement.lineno, *(decorator.lineno for decorator in decorators))
        if decorators
        else statement.lineno
    )


def is_string_statement(statement: ast.stmt) -> bool:
    """A bare string: a docstring, or the string documenting the field above it."""
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )
