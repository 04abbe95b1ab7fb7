"""The part of a file a rewrite parses: the top-level definitions that name what it acts on.

LibCST costs about ten times what `ast` does per line, and the files a cleanup touches are
mostly long modules that mention the flag in one class. When every line the rewrite acts
on lies inside top-level `def`s and `class`es, only the lines from the first of those
definitions to the last are parsed and rewritten, and the result is spliced back between
the untouched text around them. What needs the module level (a flag bound there, a
definition that goes, a line break other than `\\n`) rewrites the whole file instead.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# Where a top-level definition's text may begin (a `@` decorator line, or the keyword itself).
_DEFINITION_START = re.compile(r"@|def\b|async\b|class\b")


@dataclass(frozen=True)
class View:
    """The text a rewrite parses and the file text around it."""

    text: str
    head: str = ""  # the file's text before the view
    tail: str = ""  # the file's text after it
    top_level: int | None = None  # how many top-level statements the view holds (None: whole file)

    @property
    def offset(self) -> int:
        """Lines of the file above the view: a view line plus this is a file line."""
        return self.head.count("\n")

    def splice(self, rewritten: str) -> str:
        return self.head + rewritten + self.tail


def view_of(text: str, tree: ast.Module, lines: frozenset[int]) -> View:
    """The smallest run of whole top-level statements holding `lines`, if they all lie inside
    top-level definitions; else the whole file."""
    whole = View(text)
    if "\r" in text or not lines:
        return whole
    spans = [(_first_line(statement), statement.end_lineno or statement.lineno, statement) for statement in tree.body]
    holding = [index for index, (start, end, _) in enumerate(spans) if any(start <= line <= end for line in lines)]
    covered = sum(1 for line in lines if any(spans[i][0] <= line <= spans[i][1] for i in holding))
    if not holding or covered < len(lines) or any(not isinstance(spans[i][2], _DEFINITIONS) for i in holding):
        return whole
    first, last = spans[holding[0]][0], spans[holding[-1]][1]
    starts = [0] + [match.end() for match in re.finditer("\n", text)]
    begin = starts[first - 1]
    end = starts[last] if last < len(starts) else len(text)
    if not _DEFINITION_START.match(text, begin) or (begin == 0 and end == len(text)):
        return whole
    return View(text[begin:end], text[:begin], text[end:], holding[-1] - holding[0] + 1)


def _first_line(statement: ast.stmt) -> int:
    decorators = getattr(statement, "decorator_list", [])
    return min([statement.lineno, *(decorator.lineno for decorator in decorators)])
