"""Accessor and writer templates from the config (`features.has({name}, ...)`,
`set_config({name}, ...)`), parsed once with `ast` and matched against `ast` and LibCST nodes."""

# Accessor and writer templates from the config (`features.has({name}, ...)`, `config.{name}.value`,
# `set_config({name}, ...)`, `override_settings({name}=...)`), parsed once with `ast` when the
# config loads and matched against `ast` nodes here and LibCST nodes by the lookups pass. `{name}`
# stands for the flag's name (a string literal, or a constant holding one, in argument, subscript,
# keyword-value and membership positions; the keyword of a writer's keyword; an identifier in
# attribute positions); `...` for any further arguments.

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import cast

from prune_flags.syntax.expressions import ast_dotted
from prune_flags.syntax.spellings import FlagNames

_PLACEHOLDER = "__prune_flags_name__"


class ShapeError(ValueError):
    pass


@dataclass(frozen=True)
class Template:
    """An expression template from the config's `accessors` (`features.has({name}, ...)`,
    `config.{name}.value`, `options[{name}]`, `{name} in options.enabled`: parse_template) or
    `writers` (calls: parse_writer). Parsed once into an `ast` shape; a read or a write matches it
    by shape (see `match`, `written`), whether it is an `ast` node (the index, model/test_file.py)
    or a LibCST one (passes/lookups.py, prune.py): each side only says how its nodes unfold."""

    text: str
    tree: ast.expr = field(compare=False)

    @property
    def members(self) -> frozenset[str]:
        """The receivers the template reads the flag as a member of, the member an operand of a
        larger shape: `Feature` of `Feature.{name} in mode`. Outside the template's shape,
        `Feature.x` is that member (an enum's), not the flag's value. (In `config.{name}.value`
        the flag object is a receiver: another use of it reads the flag as an object.)"""
        receivers = {
            id(node.value if isinstance(node, ast.Attribute) else node.func)
            for node in ast.walk(self.tree)
            if isinstance(node, (ast.Attribute, ast.Call))
        }
        return frozenset(
            dotted
            for node in ast.walk(self.tree)
            if isinstance(node, ast.Attribute)
            and node.attr == _PLACEHOLDER
            and node is not self.tree
            and id(node) not in receivers
            and (dotted := ast_dotted(node.value))
        )

    def match(self, node: object, unfold: Unfold) -> TemplateMatch | None:
        """How `node` reads a flag through this template, or None when it does not have its
        shape."""
        found: dict[str, object] = {}
        if not _matches(self.tree, node, unfold, found, receiver=False):
            return None
        membership = isinstance(self.tree, ast.Compare)
        return TemplateMatch(
            found.get("identifier"),
            found.get("named"),
            membership,
            bool(found.get("negated")),
            found.get("node"),
        )

    def written(self, node: object, unfold: Unfold) -> Written | None:
        """How a call matching this writer template (see parse_writer) writes a flag, or None."""
        found = self.match(node, unfold)
        if found is None:
            return None
        _, _, positional, keywords, _ = unfold(node)
        return Written(
            found.identifier, found.named, found.node, self._value(found, positional, keywords)
        )

    def _value(
        self, found: TemplateMatch, positional: list[object], keywords: Mapping[str, object]
    ) -> object:
        """The expression a writer call writes: its keyword's value where the keyword is the flag
        (`override_settings(USE_X=True)`); else the positional argument after the name
        (`set_config("x", True)`, `flags.DEFINE_boolean("x", False, "...")`), the first where the
        name is in the callee (`config.use_x(True)`) and none where it is a keyword's value;
        else its `value=` or `default=` (`define_bool_state(name="x", default=False)`); else None.
        """
        call = self.tree
        assert isinstance(call, ast.Call)
        if any(keyword.arg == _PLACEHOLDER for keyword in call.keywords):
            return keywords[cast(str, found.identifier)]  # a keyword's name
        index = next((i for i, argument in enumerate(call.args) if _is_placeholder(argument)), None)
        named_by_keyword = any(_is_placeholder(keyword.value) for keyword in call.keywords)
        after = index + 1 if index is not None else len(positional) if named_by_keyword else 0
        if after < len(positional):
            return positional[after]
        return keywords.get("value", keywords.get("default"))

    def written_value(
        self, call: ast.Call, names: FlagNames
    ) -> tuple[str, ast.expr | None, ast.expr | None] | None:
        """For a writer template, with `ast`: the flag name a matching call writes, the node that
        names it (the string or constant, or the callee's attribute `config.use_x`; None for a
        keyword), and the expression written (None where the call gives none)."""
        written = self.written(call, ast_unfold)
        if written is None:
            return None
        # Matched with ast_unfold: its nodes are `ast` expressions.
        named = cast("ast.expr | None", written.named)
        node, value = cast("ast.expr | None", written.node), cast("ast.expr | None", written.value)
        name = names.of_ast(named) if named is not None else written.identifier
        return (name, node, value) if isinstance(name, str) else None


@dataclass(frozen=True)
class Written:
    """How a call writes a flag through a writer template."""

    identifier: object  # the flag's name where the template has it as an identifier or a keyword
    named: object  # the expression naming the flag (a string literal, or a constant holding one)
    node: object  # the node that names it: `named`, or the callee's attribute; None for a keyword
    value: object  # the expression written; None where the call gives none (a bare registration)


@dataclass(frozen=True)
class TemplateMatch:
    # the flag's name, where the template has it in an attribute position (or, for a writer, as the
    # keyword)
    identifier: object
    named: object  # the expression naming the flag (a string literal, or a constant holding one)
    membership: bool  # `{name} in ...`: the read is a bool, the flag's value taken as one
    negated: bool  # `{name} not in ...` against a template of `in` (or the reverse)
    node: object  # the node that carries the name: an identifier's Name or Attribute, or `named`


# A node unfolded one level, as the matcher sees it (see ast_unfold): ("name", id),
# ("attribute", receiver, attr), ("call", func, positional, {keyword: value}, starred),
# ("subscript", receiver, index or None), ("compare", left, "in" | "not in" | "", right),
# ("constant", value), ("other",).
Unfold = Callable[[object], tuple]


def _is_placeholder(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == _PLACEHOLDER


def _is_ellipsis(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def _dotted_chain(node: object, unfold: Unfold) -> bool:
    """Whether a receiver is a plain chain of attributes on a name (`self.config`), which
    reading has no side effect to keep."""
    shape = unfold(node)
    while shape[0] == "attribute":
        shape = unfold(shape[1])
    return shape[0] == "name"


def _matches(
    template: ast.expr, node: object, unfold: Unfold, found: dict[str, object], receiver: bool
) -> bool:
    """Whether `node` has the template's shape, filling `found`. In a receiver position (what an
    attribute, call or subscript acts on), a name matches the same name or a chain ending with it
    (`self.features` for `features`), and `{name}` is an identifier; elsewhere `{name}` is any
    expression, which the caller resolves to a flag's name (a string, or a constant holding one)."""
    shape = unfold(node)
    if _is_placeholder(template):
        if not receiver:
            found["named"] = found["node"] = node
            return True
        if shape[0] == "name":
            found["identifier"], found["node"] = shape[1], node
            return True
        if shape[0] == "attribute" and _dotted_chain(shape[1], unfold):
            found["identifier"], found["node"] = shape[2], node
            return True
        return False
    if isinstance(template, ast.Name):
        if shape[0] == "name":
            return bool(shape[1] == template.id)
        return (
            shape[0] == "attribute" and shape[2] == template.id and _dotted_chain(shape[1], unfold)
        )
    if isinstance(template, ast.Attribute):
        if shape[0] != "attribute":
            return False
        if template.attr == _PLACEHOLDER:
            found["identifier"], found["node"] = shape[2], node
        elif template.attr != shape[2]:
            return False
        return _matches(template.value, shape[1], unfold, found, receiver=True)
    if isinstance(template, ast.Subscript):
        return (
            shape[0] == "subscript"
            and shape[2] is not None
            and _matches(template.value, shape[1], unfold, found, receiver=True)
            and (
                _is_ellipsis(template.slice)
                or _matches(template.slice, shape[2], unfold, found, receiver=False)
            )
        )
    if isinstance(template, ast.Call):
        return shape[0] == "call" and _call_matches(template, shape, unfold, found)
    if isinstance(template, ast.Compare):
        if shape[0] != "compare" or not shape[2]:
            return False
        found["negated"] = isinstance(template.ops[0], ast.NotIn) != (shape[2] == "not in")
        return _matches(template.left, shape[1], unfold, found, receiver=False) and _matches(
            template.comparators[0], shape[3], unfold, found, receiver=False
        )
    if isinstance(template, ast.Constant):
        return (
            shape[0] == "constant"
            and shape[1] == template.value
            and type(shape[1]) is type(template.value)
        )
    return False


def _call_matches(
    template: ast.Call, shape: tuple, unfold: Unfold, found: dict[str, object]
) -> bool:
    """A call of the template's callee with its arguments: each of the template's positional
    ones in place, then any further ones (and any keywords) only where it has `...`."""
    _, func, positional, keywords, starred = shape
    if starred or not _matches(template.func, func, unfold, found, receiver=True):
        return False
    arguments = [argument for argument in template.args if not _is_ellipsis(argument)]
    more = len(arguments) < len(template.args) or any(
        _is_ellipsis(k.value) for k in template.keywords
    )
    if len(positional) < len(arguments) or (
        not more and (len(positional) > len(arguments) or keywords)
    ):
        return False
    for argument, given in zip(arguments, positional):
        if not _matches(argument, given, unfold, found, receiver=False):
            return False
    for keyword in template.keywords:
        if keyword.arg == _PLACEHOLDER:  # (writers only): the one keyword is the flag's
            if len(keywords) != 1:
                return False  # `override_settings(A=1, B=2)` writes more than the flag
            found["identifier"] = next(iter(keywords))
            continue
        if keyword.arg is not None and not _is_ellipsis(keyword.value):
            if keyword.arg not in keywords or not _matches(
                keyword.value, keywords[keyword.arg], unfold, found, False
            ):
                return False
    return True


def ast_unfold(node: object) -> tuple:
    """An `ast` node as the template matcher sees it (see Unfold)."""
    if isinstance(node, ast.Name):
        return ("name", node.id)
    if isinstance(node, ast.Attribute):
        return ("attribute", node.value, node.attr)
    if isinstance(node, ast.Call):
        positional = [argument for argument in node.args if not isinstance(argument, ast.Starred)]
        keywords = {
            keyword.arg: keyword.value for keyword in node.keywords if keyword.arg is not None
        }
        starred = len(positional) < len(node.args) or len(keywords) < len(node.keywords)
        return ("call", node.func, positional, keywords, starred)
    if isinstance(node, ast.Subscript):
        plain = not isinstance(node.slice, (ast.Slice, ast.Tuple, ast.Starred))
        return ("subscript", node.value, node.slice if plain else None)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        operator = {ast.In: "in", ast.NotIn: "not in"}.get(type(node.ops[0]), "")
        return ("compare", node.left, operator, node.comparators[0])
    if isinstance(node, ast.Constant):
        return ("constant", node.value)
    return ("other",)


_TRAILING_MORE = re.compile(r",\s*\.\.\.(\s*)\)$")


def _parsed(pattern: str) -> ast.expr | None:
    """A template's expression, `{name}` as a placeholder; `...` after keywords, which Python
    does not take (`define_bool_state(name={name}, ...)`), read as `**...`: further arguments."""
    text = pattern.replace("{name}", _PLACEHOLDER)
    for attempt in (text, _TRAILING_MORE.sub(r", **...\1)", text.strip())):
        try:
            return ast.parse(attempt, mode="eval").body
        except SyntaxError:
            continue
    return None


@functools.cache
def parse_template(pattern: str) -> Template:
    """The shape of an accessor template, parsed once a process (the config's check, then the
    run's); ShapeError says what is wrong."""
    tree = _parsed(pattern)
    if tree is None:
        raise ShapeError(
            f'{pattern!r} is not a Python expression such as "features.has({{name}}, ...)"'
            f' or "config.{{name}}.value"'
        )
    if isinstance(tree, ast.Compare) and (
        len(tree.ops) != 1 or not isinstance(tree.ops[0], (ast.In, ast.NotIn))
    ):
        raise ShapeError(
            f"{pattern!r}: a comparison reads a flag only as `{{name}} in ...` or `{{name}}"
            " not in ...`"
        )
    if not isinstance(tree, (ast.Call, ast.Attribute, ast.Subscript, ast.Compare)):
        raise ShapeError(
            f"{pattern!r} is not a call, attribute, subscript or membership test that reads"
            f" {{name}}"
        )
    if any(isinstance(node, ast.keyword) and node.arg == _PLACEHOLDER for node in ast.walk(tree)):
        raise ShapeError(
            f"{pattern!r}: a flag named by a keyword is written, not read; declare it in writers"
        )
    if not any(
        _is_placeholder(node) or getattr(node, "attr", None) == _PLACEHOLDER
        for node in ast.walk(tree)
    ):
        raise ShapeError(
            f"{pattern!r}: {{name}} must be an argument, attribute, subscript or membership operand"
        )
    return Template(pattern, tree)


@functools.cache
def parse_writer(pattern: str) -> Template:
    """The shape of a writer template: a call naming the flag by an argument, a keyword, a
    keyword's value or an attribute of its callee; ShapeError says what is wrong."""
    tree = _parsed(pattern)
    if tree is None:
        raise ShapeError(
            f'{pattern!r} is not a Python expression such as "set_config({{name}}, ...)"'
        )
    if not isinstance(tree, ast.Call):
        raise ShapeError(
            f'{pattern!r} is not a call such as "set_config({{name}}, ...)" or'
            f' "config.{{name}}(...)"'
        )
    naming = [
        node
        for node in ast.walk(tree)
        if _is_placeholder(node)
        or _PLACEHOLDER in (getattr(node, "attr", None), getattr(node, "arg", None))
    ]
    if len(naming) != 1:
        raise ShapeError(
            f"{pattern!r}: {{name}} must be once an argument, a keyword, a keyword's value"
            " or in the callee"
        )
    return Template(pattern, tree)


DJANGO_WRITER = "override_settings({name}=...)"  # after `from django.test import override_settings`


DJANGO_DOTTED_WRITERS = (
    "django.test.override_settings({name}=...)",
    "django.test.utils.override_settings({name}=...)",
)


def module_writers(tree: ast.Module, writers: tuple[Template, ...]) -> tuple[Template, ...]:
    """The writer templates in effect in a module: the config's, and Django's `override_settings`
    where the module imports it (a setter that needs no configuration): bare when imported from
    django.test (or django.test.utils), spelt `django.test.override_settings` after `import
    django.test`. A module that imports nothing of Django pays nothing for it."""
    builtin: list[str] = []
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom) and statement.module in (
            "django.test",
            "django.test.utils",
        ):
            if any(
                alias.name == "override_settings" and alias.asname is None
                for alias in statement.names
            ):
                builtin.append(DJANGO_WRITER)
        elif isinstance(statement, ast.Import):
            if any(
                alias.name.split(".")[0] == "django" and alias.asname is None
                for alias in statement.names
            ):
                builtin += DJANGO_DOTTED_WRITERS
    if not builtin:
        return writers
    return tuple(dict.fromkeys([*writers, *(parse_writer(pattern) for pattern in builtin)]))


def template_read(
    templates: tuple[Template, ...], node: ast.expr | None, names: FlagNames
) -> tuple[str, ast.expr, Template] | None:
    """The flag an expression reads through an accessor template (`extra_args.get("x", ...)`,
    `config.x.value`, `"x" in opts.enabled`), with the node that names it and the template; None
    for any other."""
    for template in templates:
        found = template.match(node, ast_unfold)
        if found is None:
            continue
        # Matched with ast_unfold: its nodes are `ast` expressions.
        named, node = cast("ast.expr | None", found.named), cast(ast.expr, found.node)
        name = found.identifier if named is None else names.of_ast(named)
        if isinstance(name, str):
            return name, node, template
    return None
