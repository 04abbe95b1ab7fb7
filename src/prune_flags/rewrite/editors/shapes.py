"""Shapes of LibCST statements and blocks: what they name, how they end, empty ones filled."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

import libcst as cst

from prune_flags.rewrite.editors.lines import comment_words, merge_lines, name_words

Statements = Sequence[cst.BaseStatement]


COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef, *COMPREHENSIONS)


Element = TypeVar("Element", cst.Param, cst.Arg, cst.WithItem, cst.BaseElement, cst.BaseDictElement)
Decorated = TypeVar("Decorated", cst.FunctionDef, cst.ClassDef)


def descendants(node: cst.CSTNode, kinds: tuple[type[cst.CSTNode], ...]) -> list[cst.CSTNode]:
    """The nodes of these kinds in a piece of code, itself included: libcst.matchers.findall
    without the matchers' import, which costs most of a second of every run."""
    found, stack = [], [node]
    while stack:
        current = stack.pop()
        if isinstance(current, kinds):
            found.append(current)
        stack.extend(current.children)
    return found


def names(node: cst.CSTNode) -> set[str]:
    """The names (and attribute names) a piece of code spells."""
    return {cst.ensure_type(name, cst.Name).value for name in descendants(node, (cst.Name,))}


def speaks_of(lines: Sequence[cst.EmptyLine], gone: set[str], kept: set[str]) -> bool:
    """Whether comment lines speak of what went: a word of the `gone` names that none of the
    `kept` names has."""
    distinctive = {word for name in gone for word in name_words(name)} - {
        word for name in kept for word in name_words(name)
    }
    return bool(comment_words(lines) & distinctive)


def block_statements(block: cst.BaseSuite) -> list[cst.BaseStatement]:
    """A block's statements; a one-line suite becomes one simple statement line."""
    if isinstance(block, cst.IndentedBlock):
        return list(block.body)
    assert isinstance(block, cst.SimpleStatementSuite)
    if not block.body:
        return []
    return [cst.SimpleStatementLine(body=block.body, trailing_whitespace=block.trailing_whitespace)]


def block_footer(block: cst.BaseSuite) -> list[cst.EmptyLine]:
    return list(block.footer) if isinstance(block, cst.IndentedBlock) else []


def is_empty(block: cst.BaseSuite) -> bool:
    return not block.body


def ends_flow(statement: cst.BaseStatement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and isinstance(
        statement.body[-1], (cst.Return, cst.Raise, cst.Continue, cst.Break)
    )


def is_bare_return(statement: cst.BaseSmallStatement) -> bool:
    return isinstance(statement, cst.Return) and statement.value is None


def is_continue(statement: cst.BaseSmallStatement) -> bool:
    return isinstance(statement, cst.Continue)


def is_attribute_docstring(statement: cst.BaseStatement) -> bool:
    """A string right below a field, with no blank line between: the field's documentation."""
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and not statement.leading_lines
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def without_decorators(node: Decorated, kept: Sequence[cst.Decorator]) -> Decorated:
    """A function (or class) with only the `kept` of its decorators. The comments right above a
    removed one go with it; those above the first decorator stay (the function holds them), and
    without any decorator left, so do those between the decorators and the `def`."""
    if len(kept) == len(node.decorators):
        return node
    if kept:
        return node.with_changes(decorators=kept)
    leading = merge_lines(list(node.leading_lines), list(node.lines_after_decorators))
    return node.with_changes(decorators=(), leading_lines=leading, lines_after_decorators=())


def without_element(elements: Sequence[Element], index: int) -> list[Element]:
    """Drop one comma-separated element; the new last one takes the old last one's comma,
    so a trailing comma (and the line break before the closing bracket) stays as it was."""
    kept = [element for position, element in enumerate(elements) if position != index]
    if index == len(elements) - 1 and kept:
        dropped = elements[index]
        kept[-1] = kept[-1].with_changes(comma=_last_comma(kept[-1].comma, dropped.comma))
        # An argument's or parameter's own space after it holds the line break before the closing
        # bracket when it has no trailing comma: it moves to the new last one with the comma.
        for space in ("whitespace_after_arg", "whitespace_after_param"):
            if hasattr(dropped, space) and not isinstance(dropped.comma, cst.Comma):
                kept[-1] = kept[-1].with_changes(**{space: getattr(dropped, space)})
    return kept


def _last_comma(
    own: cst.Comma | cst.MaybeSentinel, last: cst.Comma | cst.MaybeSentinel
) -> cst.Comma | cst.MaybeSentinel:
    """The comma an element takes as the new last one: the old last one's, but for the comment
    its own comma held at the end of its line (`b=1,  # the b comment`), which stays with it."""
    if not (isinstance(own, cst.Comma) and isinstance(last, cst.Comma)):
        return last
    own_space, last_space = own.whitespace_after, last.whitespace_after
    if not (
        isinstance(own_space, cst.ParenthesizedWhitespace)
        and isinstance(last_space, cst.ParenthesizedWhitespace)
        and own_space.first_line.comment is not None
    ):
        return last
    return last.with_changes(
        whitespace_after=last_space.with_changes(
            first_line=own_space.first_line,
            empty_lines=[*own_space.empty_lines, *last_space.empty_lines],
        )
    )


def pass_block(block: cst.BaseSuite) -> cst.BaseSuite:
    if isinstance(block, cst.IndentedBlock):
        return block.with_changes(body=[cst.SimpleStatementLine(body=[cst.Pass()])])
    return block.with_changes(body=[cst.Pass()])


def fill_empty_blocks(statement: cst.BaseStatement) -> cst.BaseStatement:
    """Give `pass` to any block of `statement` that editing emptied; drop an emptied `else`."""
    if isinstance(statement, cst.SimpleStatementLine):
        return statement
    changes: dict[str, object] = {}
    body = getattr(statement, "body", None)
    if isinstance(body, cst.BaseSuite) and is_empty(body):
        changes["body"] = pass_block(body)
    orelse = getattr(statement, "orelse", None)
    if isinstance(orelse, cst.Else) and is_empty(orelse.body):
        changes["orelse"] = None
    elif isinstance(orelse, cst.If):
        changes["orelse"] = fill_empty_blocks(orelse)
    handlers = getattr(statement, "handlers", None)
    if handlers:
        changes["handlers"] = [
            h.with_changes(body=pass_block(h.body)) if is_empty(h.body) else h for h in handlers
        ]
    final = getattr(statement, "finalbody", None)
    if isinstance(final, cst.Finally) and is_empty(final.body):
        changes["finalbody"] = final.with_changes(body=pass_block(final.body))
    return statement.with_changes(**changes) if changes else statement


def module_level(body: Sequence[cst.BaseStatement]) -> Iterator[cst.SimpleStatementLine]:
    """The simple statements of a module's scope: its body's, and those inside `if`, `try`,
    `with`, `for` and `while` blocks at module level (not inside a def or a class)."""
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            yield statement
        elif isinstance(statement, cst.BaseCompoundStatement) and not isinstance(
            statement, (cst.FunctionDef, cst.ClassDef)
        ):
            for block in _blocks(statement):
                yield from module_level(block_statements(block))


def _blocks(statement: cst.BaseCompoundStatement) -> list[cst.BaseSuite]:
    """The blocks of a compound statement: its body, its `elif`s' and `else`, its handlers', its
    `finally`."""
    blocks = [statement.body]
    if isinstance(statement, cst.If) and isinstance(statement.orelse, cst.If):
        blocks += _blocks(statement.orelse)
    elif isinstance(statement, (cst.If, cst.For, cst.While)) and statement.orelse is not None:
        blocks.append(statement.orelse.body)
    if isinstance(statement, (cst.Try, cst.TryStar)):
        blocks += [handler.body for handler in statement.handlers]
        blocks += [
            part.body for part in (statement.orelse, statement.finalbody) if part is not None
        ]
    return blocks
