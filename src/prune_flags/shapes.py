"""Call shapes from the config: `features.has({name}, ...)`, `override_settings({name}=...)`.

A shape is parsed once, with `ast`, when the config loads; the passes match LibCST
calls against it (passes/lookups.py), the index `ast` calls (here), so that loading a
config never imports LibCST. `{name}` stands for the flag's name as a string literal (or, in
keyword position, as the keyword); `...` for any further arguments.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

_PLACEHOLDER = "__prune_flags_name__"


class ShapeError(ValueError):
    pass


@dataclass(frozen=True)
class CallShape:
    func: str  # dotted name; a call matches when its callee is this name or ends with "." + it
    name_index: int | None  # position of the flag's name among the positional arguments
    name_is_keyword: bool  # `f({name}=...)`: the flag's name is the keyword
    more: bool  # `...` allows further arguments

    def written_value(self, call: ast.Call, names: FlagNames) -> tuple[str, ast.expr | None, ast.expr] | None:
        """For a writer shape: the flag name a matching `ast` call writes, the argument that names
        it (None for a keyword), and the value written."""
        if not ast_dotted_matches(call.func, self.func):
            return None
        if self.name_is_keyword:
            keywords = [k for k in call.keywords if k.arg is not None]
            return (keywords[0].arg, None, keywords[0].value) if len(keywords) == 1 else None  # type: ignore[return-value]
        assert self.name_index is not None
        positional = [arg for arg in call.args if not isinstance(arg, ast.Starred)]
        if len(positional) <= self.name_index:
            return None
        argument = positional[self.name_index]
        name = names.of_ast(argument)
        rest = positional[self.name_index + 1 :]
        value = rest[0] if rest else next((k.value for k in call.keywords if k.arg == "value"), None)
        return (name, argument, value) if isinstance(name, str) and value is not None else None


@dataclass(frozen=True)
class FlagNames:
    """How a call of an accessor or a writer names a flag: a string literal, or a constant that
    holds one: a bare name as this module binds it (to a string; to anything else, which names no
    flag; as an alias of an imported constant), else (imported by name) as the repository's
    constants hold it; an attribute (`flag_names.EXPRESS`) only the latter. The one resolution
    of the index (for `ast`) and of the passes (for LibCST), so that a write and a read through
    the same constant are seen alike."""

    # The names this module assigns (see module_strings), and its aliases of the constants.
    module: Mapping[str, str | None]
    repository: Mapping[str, str]  # constants anywhere that hold a flag's name -> that name

    @classmethod
    def of_module(
        cls, assigned: Mapping[str, str | None], imported: Iterable[tuple[str, str]], repository: Mapping[str, str]
    ) -> FlagNames:
        """The names of a module with these top-level assignments and these imports (name,
        alias): `from keys import FAST_KEY as FK` makes FK name what FAST_KEY names."""
        module: dict[str, str | None] = {alias: repository[name] for name, alias in imported if name in repository}
        module.update(assigned)
        return cls(module, repository)

    def holding(self, names: Collection[str]) -> dict[str, str]:
        """The constants this module can see that hold one of the names -> that name."""
        visible = {**self.repository, **self.module}
        return {constant: name for constant, name in visible.items() if name in names}

    def of(self, bare: str | None = None, attribute: str | None = None) -> str | None:
        """The string a constant spelt `bare` or `….attribute` holds, if it is known."""
        if bare is not None:
            return self.module.get(bare, self.repository.get(bare))
        return self.repository.get(attribute) if attribute is not None else None

    def of_ast(self, node: ast.expr) -> object:
        if isinstance(node, ast.Name):
            return self.of(bare=node.id)
        if isinstance(node, ast.Attribute):
            return self.of(attribute=node.attr)
        return node.value if isinstance(node, ast.Constant) else None


def module_strings(tree: ast.Module) -> dict[str, str | None]:
    """The names a module assigns at top level: the string each holds (`NAME = "..."`), or None
    for anything else (`NAME = 3` shadows a constant of the same name elsewhere)."""
    found: dict[str, str | None] = {}
    for statement in tree.body:
        if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            value = statement.value.value if isinstance(statement.value, ast.Constant) else None
            found.update((t.id, value if isinstance(value, str) else None) for t in targets if isinstance(t, ast.Name))
    return found


def ast_dotted(node: ast.expr) -> str:
    """`a.b.c` for a chain of attributes; for a chain on something else (`f().b.c`), `b.c`."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def ast_dotted_matches(node: ast.expr, expected: str) -> bool:
    """Whether a callee is the shape's dotted name, or ends with it (`self.features.has`)."""
    base = node
    while isinstance(base, ast.Attribute):
        base = base.value
    dotted = ast_dotted(node)
    return isinstance(base, ast.Name) and (dotted == expected or dotted.endswith("." + expected))


def parse_shape(pattern: str) -> CallShape:
    """The shape of a pattern such as "features.has({name}, ...)"; ShapeError says what is wrong."""
    try:
        tree = ast.parse(pattern.replace("{name}", _PLACEHOLDER), mode="eval")
    except SyntaxError:
        raise ShapeError(f"{pattern!r} is not a call such as \"features.has({{name}}, ...)\"") from None
    call = tree.body
    if not isinstance(call, ast.Call) or not isinstance(call.func, (ast.Name, ast.Attribute)):
        raise ShapeError(f"{pattern!r} is not a call of a (dotted) name")
    func = ast.unparse(call.func)
    more = any(isinstance(a, ast.Constant) and a.value is Ellipsis for a in call.args) or any(
        isinstance(k.value, ast.Constant) and k.value.value is Ellipsis and k.arg != _PLACEHOLDER
        for k in call.keywords
    )
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Name) and arg.id == _PLACEHOLDER:
            return CallShape(func, index, False, more)
    if any(keyword.arg == _PLACEHOLDER for keyword in call.keywords):
        return CallShape(func, None, True, more)
    raise ShapeError(f"{pattern!r}: {{name}} must be an argument or a keyword of the call")


def spellings(name: str) -> tuple[str, ...]:
    """The words that spell a name in source text: the name, and for a command-line option its
    dashed form, which `--use-x` and `--no-use-x` hold as a whole word. Every search of text for
    names goes through this (files.names_in, files.lines_naming, the engine's byte index), so that
    a file naming a flag only as an option is never left out."""
    dashed = name.replace("_", "-")
    return (name,) if dashed == name else (name, dashed)


def spells_option(text: str, name: str, strings: Collection[str] = ()) -> bool:
    """Whether a string names the option of flag `name`: `use_x`, `--use-x`, `--use_x`,
    `--no-use-x` (argparse's BooleanOptionalAction), `--group.use_x`, or one of the option's own
    `strings` (`--turbo` with `dest="use_x"`)."""
    if text == name or text in strings:
        return True
    if not text.startswith("-"):
        return False
    bare = text.lstrip("-").rpartition(".")[2]
    words = spellings(name)
    return bare in words or (bare.startswith(("no-", "no_")) and bare[3:] in words)


OPTION_METHODS = ("add_argument", "add_option")  # argparse, optparse
CLICK_OPTIONS = ("click.option", "option", "click.argument")


def defines_option(func: str, wrappers: Collection[str]) -> bool:
    """Whether a statement call of the dotted `func` adds a command-line option as argparse's
    `add_argument` does: that, optparse's `add_option`, or a project's wrapper of them that the
    config's `option_calls` declares (`add_toggle`, `parser.add_flag`: a name matches a callee
    that is it or ends with "." + it, as accessors' callees do)."""
    return func.rsplit(".", 1)[-1] in OPTION_METHODS or any(func == w or func.endswith("." + w) for w in wrappers)


def option_dest(option_strings: list[str], explicit: str | None) -> str | None:
    """The attribute an argparse/click option fills: `dest=`, else the first long option
    (`--use-x` -> use_x), else the first short one, else a positional name."""
    if explicit:
        return explicit
    longs = [s for s in option_strings if s.startswith("--")]
    if longs:
        return longs[0][2:].replace("-", "_")
    shorts = [s for s in option_strings if s.startswith("-")]
    if shorts:
        return shorts[0][1:].replace("-", "_")
    plain = [s for s in option_strings if s.isidentifier()]
    return plain[0] if plain else None
