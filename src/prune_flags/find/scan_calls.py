"""The scanner's handlers of calls: keywords, positional reach, setattr/getattr, options, env."""

from __future__ import annotations

import ast

from prune_flags.find.scan_reads import Reads
from prune_flags.find.syntax import (
    computed_name,
    option_destinations,
    plain_literal,
    reads_environ,
    string_values,
)
from prune_flags.syntax.values import UNKNOWN

# Calls that write an attribute named by a string argument: setattr(obj, "x", v),
# monkeypatch.setattr(obj, "x", v), mock.patch("pkg.mod.x"), patch.object(obj, "x").
WRITER_CALLS = frozenset(
    {"setattr", "delattr", "__setattr__", "__delattr__", "patch", "object", "setitem"}
)
# Command-line options whose destination becomes a name: argparse, optparse, click, typer.
OPTION_CALLS = frozenset({"add_argument", "add_option", "option", "Option", "argument", "Argument"})
READER_CALLS = frozenset({"getattr", "hasattr"})
ENVIRONMENT_CALLS = frozenset({"getenv", "putenv", "unsetenv", "get", "pop", "setdefault"})
SPECIAL_CALLS = WRITER_CALLS | OPTION_CALLS | READER_CALLS | ENVIRONMENT_CALLS
_NAME, _CONSTANT, _ATTRIBUTE, _STARRED = ast.Name, ast.Constant, ast.Attribute, ast.Starred


class Calls(Reads):
    """Calls: what they pass and to whom, and the reads through templates they make."""

    def call(self, node: ast.Call) -> None:
        func = node.func
        if self.accessors:
            self.template_use(node)
            self.acted_on(func)
        if self.writers:
            self.writer_call(node)
        kind = func.__class__
        callee = (
            func.id if kind is _NAME else func.attr if kind is _ATTRIBUTE else None  # type: ignore[attr-defined]  # mypy cannot narrow by `kind`
        )
        double_star = False
        visit = self.visit
        for keyword in node.keywords:
            if keyword.arg is None:
                double_star = True
            else:
                self.keyword(keyword.arg, keyword.value, callee)
            visit(keyword.value)
        if callee is None:
            visit(func)
        else:
            self.record_call(node, callee, double_star)
            if kind is _NAME:
                self.read_name(func)  # type: ignore[arg-type]  # a Name (as above)
            else:
                self.read_attribute(func)  # type: ignore[arg-type]  # an Attribute (as above)
        args = node.args
        if kind is _NAME and callee in READER_CALLS and len(args) > 1:
            # getattr(obj, "x") only reads x: its string is counted as a read, not a writer.
            for number, arg in enumerate(args):
                if not (number == 1 and arg.__class__ is _CONSTANT):
                    visit(arg)
        else:
            for arg in args:
                visit(arg)

    def keyword(self, name: str, value: ast.expr, callee: str | None) -> None:
        """Node(fast=True), replace(c, fast=x): a keyword passes another value unless it is the same
        literal. `f(fast=fast)` inside a function whose parameter `fast` defaults to a literal
        passes that literal (a caller that gives `fast` another value rules the name out anyway)."""
        literal_value = plain_literal(value)
        if literal_value is UNKNOWN and value.__class__ is ast.Name and value.id == name:
            literal_value = self.parameter_value(name)
        if literal_value is UNKNOWN:
            self.disqualified.add(name)
        else:
            self.keyword_values.setdefault(name, set()).add(repr(literal_value))
            if callee is not None:
                self.keyword_callees.add((name, callee))

    def record_call(self, node: ast.Call, callee: str, double_star: bool) -> None:
        positional = len(node.args)
        for arg in node.args:
            if arg.__class__ is _STARRED:
                positional -= 1
                double_star = True
        # Every callee is listed, with no positional argument too: one never called is an entry
        # point.
        if positional >= self.calls.get(callee, 0):
            self.calls[callee] = positional
        if double_star:
            self.splat_calls.add(callee)
        if callee in SPECIAL_CALLS:
            self.special_call(node, callee)

    def special_call(self, node: ast.Call, callee: str) -> None:
        strings = string_values(node.args)
        if callee in WRITER_CALLS:
            self.disqualified.update(string.rsplit(".", 1)[-1] for string in strings)
        elif callee in OPTION_CALLS:
            self.disqualified.update(
                name for string in strings for name in option_destinations(string)
            )
            self.disqualified.update(
                string_values(k.value for k in node.keywords if k.arg == "dest")
            )
        elif callee in READER_CALLS and len(node.args) >= 2:
            for name in string_values([node.args[1]]):  # getattr(obj, "x") reads x
                self.mentions.add(name)
                self.spelled.add(name)
                self.attribute_reads[name] = self.attribute_reads.get(name, 0) + 1
            pattern = computed_name(node.args[1])
            if pattern is not None:
                self.computed_names.add(pattern)
        elif callee.endswith("env") or reads_environ(node.func):
            self.environment.update(strings)
