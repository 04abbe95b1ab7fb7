"""Flags a run did nothing with: where their names appear, and the accessor template that would
read them there, so that a config that cannot match is said instead of a silent "0 files changed".

A name spelt only as `opts["use_x"]`, `get_flag("use_x")` or `"use_x" in enabled` is no form the
tool acts on until a template declares it; the shape of each place suggests the template.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeGuard

from prune_flags.report import FlagWarning
from prune_flags.semantic.facts import Site
from prune_flags.syntax.expressions import ast_dotted
from prune_flags.syntax.options import spells_option
from prune_flags.syntax.purity import pure_expression
from prune_flags.vocabulary import WarningReason

SHOWN_PLACES = 3  # places named in a warning; the rest are counted
_SHOWN_SOURCE = 50  # characters of a place's expression shown


@dataclass(frozen=True)
class Appearance:
    """One place a flag's name is spelt: the expression around it, and the template that would
    read the flag there (None where no accessor fits: a list element, a keyword, a bare name)."""

    site: Site
    expression: ast.expr
    template: str | None
    # The dotted callee of a call given the flag's option string (`add_switch(p, "--use-x")`): a
    # wrapper of add_argument that `option_calls` would declare.
    option_call: str | None = None
    # A lookup whose other operands have effects (`os.environ.get("X", compute())`): the cleanup
    # keeps it whatever the config declares.
    effects: bool = False


def appearances(tree: ast.Module, display: str, name: str) -> list[Appearance]:
    """Where `name` is spelt in a module, as a string literal or an attribute or a name, in
    order."""
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value == name:
            expression, template = _in_string_position(node, parents)
            if isinstance(expression, ast.Call) and _impure_operands(expression, node):
                found.append(
                    Appearance(Site(display, node.lineno), expression, template, effects=True)
                )
                continue
        elif isinstance(node, ast.Attribute) and node.attr == name:
            expression, template = _attribute_chain(node, ast_dotted(node.value) or "...", parents)
        elif isinstance(node, ast.Name) and node.id == name:
            expression, template = _attribute_chain(node, "", parents)
        elif _spells_option(node, name) and isinstance(call := parents.get(node), ast.Call):
            found.append(
                Appearance(Site(display, node.lineno), call, None, ast_dotted(call.func) or None)
            )
            continue
        else:
            continue
        found.append(Appearance(Site(display, node.lineno), expression, template))
    return sorted(found, key=lambda appearance: appearance.site.line)


def _spells_option(node: ast.AST, name: str) -> TypeGuard[ast.Constant]:
    """`"--use-x"`, `"--no-use-x"`: the string of the flag's command-line option."""
    text = node.value if isinstance(node, ast.Constant) else None
    return isinstance(text, str) and text.startswith("-") and spells_option(text, name)


def _in_string_position(
    node: ast.Constant, parents: dict[ast.AST, ast.AST]
) -> tuple[ast.expr, str | None]:
    """The name as a string: a subscript's key (`opts[{name}]`), a call's argument or keyword
    value (`get_flag({name}, ...)`), a membership test's member (`{name} in opts.enabled`)."""
    parent = parents.get(node)
    if isinstance(parent, ast.Subscript) and parent.slice is node:
        return parent, f"{ast_dotted(parent.value) or '...'}[{{name}}]"
    if isinstance(parent, ast.keyword) and isinstance(call := parents.get(parent), ast.Call):
        return call, _call_template(
            call, f"{parent.arg}={{name}}", len(call.args) + len(call.keywords) > 1
        )
    if isinstance(parent, ast.Call) and node in parent.args:
        before = ["..."] * parent.args.index(node)
        more = len(parent.args) + len(parent.keywords) > len(before) + 1
        return parent, _call_template(parent, ", ".join([*before, "{name}"]), more)
    if (
        isinstance(parent, ast.Compare)
        and parent.left is node
        and isinstance(parent.ops[0], (ast.In, ast.NotIn))
    ):
        return parent, f"{{name}} in {ast_dotted(parent.comparators[0]) or '...'}"
    return node, None


def _impure_operands(call: ast.Call, naming: ast.expr) -> bool:
    """Whether a call's operands other than the one naming the flag have effects."""
    operands = [
        *(a for a in call.args if a is not naming),
        *(k.value for k in call.keywords if k.value is not naming),
    ]
    return not all(pure_expression(operand) for operand in operands)


def _call_template(call: ast.Call, naming: str, more: bool) -> str | None:
    callee = ast_dotted(call.func)
    return f"{callee}({naming}{', ...' if more else ''})" if callee else None


def _attribute_chain(
    node: ast.Attribute | ast.Name, base: str, parents: dict[ast.AST, ast.AST]
) -> tuple[ast.expr, str | None]:
    """The name in an attribute chain: the template names the whole chain (`config.{name}.value`);
    a plain `obj.name` or a bare name is read as itself, which no template adds to."""
    top: ast.expr = node
    rest = ""
    while isinstance(parent := parents.get(top), ast.Attribute) and parent.value is top:
        top, rest = parent, f"{rest}.{parent.attr}"
    if not rest and isinstance(node, ast.Name):
        return top, None
    return top, f"{base}.{{name}}{rest}" if base else f"{{name}}{rest}"


def unmatched(
    name: str,
    places: list[tuple[Appearance, str]],
    mentioned: bool,
    local_keys: Sequence[str] = (),
    value: str = "",
) -> FlagWarning:
    """The warning for a flag the run did nothing with, given where its name appears (each with its
    file's text) and whether any file spells it at all (in a comment, a longer string): the first
    few places, and the template the first fitting one suggests; or, where functions' locals carry
    the name (`local_keys`, qualified), the key that would name one (`value` as TOML spells it)."""
    if not places:
        where = "only in comments or longer strings of" if mentioned else "nowhere in"
        return FlagWarning(
            name, WarningReason.NOWHERE, (), None, f"{name}: appears {where} the files in scope"
        )
    shown = ", ".join(
        f"{appearance.site} ({_source(appearance, text)})"
        for appearance, text in places[:SHOWN_PLACES]
    )
    if len(places) > SHOWN_PLACES:
        shown += f" and {len(places) - SHOWN_PLACES} more"
    locations = tuple(dict.fromkeys(str(appearance.site) for appearance, _ in places))
    if all(appearance.effects for appearance, _ in places):
        return FlagWarning(
            name,
            WarningReason.EFFECTS,
            locations,
            None,
            f"{name}: left as it is: {lookups_with_effects(shown)}",
        )
    template = next((appearance.template for appearance, _ in places if appearance.template), None)
    option_call = next(
        (appearance.option_call for appearance, _ in places if appearance.option_call), None
    )
    if local_keys:
        advice = (
            f"it is a local of {', '.join(key.rpartition('.')[0] for key in local_keys)};"
            f' to prune one, name it by its qualified key, e.g. "{local_keys[0]}" = {value}'
        )
    elif template:
        advice = f'declare how it is read, e.g. accessors = ["{template}"]'
    elif option_call:
        advice = (
            f"if {option_call} adds the option as add_argument does, declare it:"
            f' option_calls = ["{option_call}"]'
        )
    else:
        advice = "check the flag's name"
    message = (
        f"{name}: nothing read it in a form the config declares; it appears at {shown}; {advice}"
    )
    return FlagWarning(name, WarningReason.UNMATCHED, locations, template, message)


def lookups_with_effects(where: str) -> str:
    """Why lookups of a flag (at `where`) stay as they are: their other operands have effects."""
    return (
        f"a lookup of it has operands with side effects at {where}, which its constant would drop; "
        "compute them apart (`d = compute()`, then the lookup) to let it go"
    )


def _source(appearance: Appearance, text: str) -> str:
    """The place's expression as written, on one line and cut short."""
    shown = " ".join((ast.get_source_segment(text, appearance.expression) or "").split())
    return shown if len(shown) <= _SHOWN_SOURCE else shown[: _SHOWN_SOURCE - 3] + "..."
