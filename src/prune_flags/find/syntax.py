"""The shapes of code find reads with `ast`: literals, parameter defaults, callees, the reads
that decide a test, names built at run time; shared by the scan and the fold counts."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable

from prune_flags.syntax.expressions import literal
from prune_flags.syntax.values import UNKNOWN, plain_value

# -- scanning one file -----------------------------------------------------------------------


def parameter_defaults(args: ast.arguments) -> list[tuple[int | None, ast.arg, ast.expr | None]]:
    """Each parameter that can have a default, with its position (None: keyword-only) and its
    default (None: it has none)."""
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    defaults += args.defaults
    return [
        *(
            (position, arg, default)
            for (position, arg), default in zip(enumerate(positional), defaults)
        ),
        *((None, arg, default) for arg, default in zip(args.kwonlyargs, args.kw_defaults)),
    ]


def plain_literal(node: ast.expr | None) -> object:
    value: object
    if node.__class__ is ast.Constant:
        value = node.value
    elif node.__class__ in (
        ast.UnaryOp,
        ast.Tuple,
        ast.BinOp,
    ):  # -1, (1, 2), "a" "b" is a Constant already
        value = literal(node)
    else:
        return UNKNOWN  # the common case, without literal_eval's exception
    return value if value is not UNKNOWN and plain_value(value) else UNKNOWN


def is_field_call(value: ast.expr | None) -> bool:
    """dataclasses.field(...), attr.ib(...), attrs.field(...)."""
    return isinstance(value, ast.Call) and called_name(value.func) in ("field", "ib", "attrib")


def field_default(value: ast.expr | None) -> object:
    """A field's literal default: `= False` or `= field(default=False, ...)`, else UNKNOWN."""
    if isinstance(value, ast.Call) and is_field_call(value):
        defaults = [keyword.value for keyword in value.keywords if keyword.arg == "default"]
        return plain_literal(defaults[0]) if defaults else UNKNOWN
    return plain_literal(value) if value is not None else UNKNOWN


def called_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def root_name(node: ast.expr) -> str | None:
    """The name an attribute chain starts from: `torch` in torch.cuda.current_device().x."""
    while True:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        else:
            return None


def option_destinations(option: str) -> list[str]:
    """The names an option string may set: "--fast/--no-fast" -> fast, no_fast (argparse, click)."""
    return [part.lstrip("-").replace("-", "_") for part in option.split("/")]


def deciding_reads(
    test: ast.expr,
    counted: set[int] | None = None,
    templated: Callable[[ast.expr], str | None] | None = None,
) -> Iterable[ast.Attribute | ast.Name | str]:
    """The reads whose value alone may decide the test once inlined: through `not`, `and`/`or`,
    bool() and comparisons with literals, as the engine simplifies. `f(FLAG)` and `x >= LIMIT`
    stay unknown whatever the flag holds, so a name read only like that folds nothing. The ids
    of the and/or nodes gone through are added to `counted`. A read through an accessor
    template (a membership test `"x" in opts.enabled` included) is the name `templated` gives."""
    name = templated(test) if templated is not None else None
    if name is not None:
        yield name
    elif isinstance(test, (ast.Attribute, ast.Name)):
        yield test
    elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        yield from deciding_reads(test.operand, counted, templated)
    elif isinstance(test, ast.BoolOp):
        if counted is not None:
            counted.add(id(test))
        for value in test.values:
            yield from deciding_reads(value, counted, templated)
    elif isinstance(test, ast.Call) and called_name(test.func) == "bool" and len(test.args) == 1:
        yield from deciding_reads(test.args[0], counted, templated)
    elif isinstance(test, ast.Compare):
        operands = [test.left, *test.comparators]
        unknown = [operand for operand in operands if plain_literal(operand) is UNKNOWN]
        if len(unknown) == 1:
            yield from deciding_reads(unknown[0], counted, templated)


def string_values(nodes: Iterable[ast.expr]) -> list[str]:
    return [
        node.value
        for node in nodes
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]


def computed_name(node: ast.expr) -> tuple[str, str] | None:
    """The fixed start and end of a name built at run time: `"visit_" + kind`, f"do_{cmd}", `"on_%s"
    % event`, `"{}_hook".format(x)` -> ("visit_", ""), ("do_", ""), ("on_", ""), ("", "_hook"). None
    for a literal or a name with nothing fixed."""
    parts: list[ast.expr]
    if isinstance(node, ast.JoinedStr):
        parts = list(node.values)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        parts = []
        stack: list[ast.expr] = [node]
        while stack:  # flatten a + b + c, left to right
            item = stack.pop()
            if isinstance(item, ast.BinOp) and isinstance(item.op, ast.Add):
                stack += [item.right, item.left]
            else:
                parts.append(item)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        template = node.left
        if not (isinstance(template, ast.Constant) and isinstance(template.value, str)):
            return None
        pieces = template.value.split("%")
        return (pieces[0], "") if pieces[0] else None
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and isinstance(node.func.value, ast.Constant)
        and isinstance(node.func.value.value, str)
    ):
        text = node.func.value.value
        prefix, suffix = text.split("{")[0], text.rsplit("}", 1)[-1]
        return (prefix, suffix) if "{" in text and (prefix or suffix) else None
    else:
        return None
    fixed = [
        part.value if isinstance(part, ast.Constant) and isinstance(part.value, str) else None
        for part in parts
    ]
    prefix, suffix = fixed[0] or "", fixed[-1] or ""
    return (prefix, suffix) if prefix or suffix else None


def reads_environ(func: ast.expr) -> bool:
    """os.environ.get(...), environ.setdefault(...)."""
    return isinstance(func, ast.Attribute) and called_name(func.value) == "environ"


def function_bindings(function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    arguments = function.args
    names = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    names.update(a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None)
    names.update(
        n.id
        for n in ast.walk(function)
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
    )
    return names
