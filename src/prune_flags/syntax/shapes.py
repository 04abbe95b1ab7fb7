"""Templates from the config: accessors (`features.has({name}, ...)`, `config.{name}.value`,
`options[{name}]`, `{name} in opts.enabled`) and writers (`set_config({name}, ...)`,
`override_settings({name}=...)`, `config.define_bool_state(name={name}, ...)`, `config.{name}(...)`),
both `Template`.

A template is parsed once, with `ast`, when the config loads; the passes match LibCST nodes against
it (passes/lookups.py, prune.py), the index `ast` nodes (here), so that loading a config never
imports LibCST. `{name}` stands for the flag's name: a string literal (or a constant holding one)
in argument, subscript, keyword-value and membership positions, the keyword of a writer's keyword,
an identifier in attribute positions; `...` for any further arguments.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field

_PLACEHOLDER = "__prune_flags_name__"


class ShapeError(ValueError):
    pass


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
        cls,
        assigned: Mapping[str, str | None],
        imported: Iterable[tuple[str, str]],
        repository: Mapping[str, str],
    ) -> FlagNames:
        """The names of a module with these top-level assignments and these imports (name,
        alias): `from keys import FAST_KEY as FK` makes FK name what FAST_KEY names."""
        module: dict[str, str | None] = {
            alias: repository[name] for name, alias in imported if name in repository
        }
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
            found.update(
                (t.id, value if isinstance(value, str) else None)
                for t in targets
                if isinstance(t, ast.Name)
            )
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


@dataclass(frozen=True)
class Template:
    """An expression template from the config's `accessors` (`features.has({name}, ...)`,
    `config.{name}.value`, `options[{name}]`, `{name} in options.enabled`: parse_template) or
    `writers` (calls: parse_writer). Parsed once into an `ast` shape; a read or a write matches it
    by shape (see `match`, `written`), whether it is an `ast` node (the index, pinned.py) or a
    LibCST one (passes/lookups.py, prune.py): each side only says how its nodes unfold."""

    text: str
    tree: ast.expr = field(compare=False)

    def match(self, node: object, unfold: Unfold) -> TemplateMatch | None:
        """How `node` reads a flag through this template, or None when it does not have its shape."""
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
            return keywords[found.identifier]  # type: ignore[index]
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
        name = names.of_ast(written.named) if written.named is not None else written.identifier  # type: ignore[arg-type]
        return (name, written.node, written.value) if isinstance(name, str) else None  # type: ignore[return-value]


@dataclass(frozen=True)
class Written:
    """How a call writes a flag through a writer template."""

    identifier: object  # the flag's name where the template has it as an identifier or a keyword
    named: object  # the expression naming the flag (a string literal, or a constant holding one)
    node: object  # the node that names it: `named`, or the callee's attribute; None for a keyword
    value: object  # the expression written; None where the call gives none (a bare registration)


@dataclass(frozen=True)
class TemplateMatch:
    identifier: object  # the flag's name, where the template has it in an attribute position (or, for a writer, as the keyword)
    named: object  # the expression naming the flag (a string literal, or a constant holding one)
    membership: bool  # `{name} in ...`: the read is a bool, the flag's value taken as one
    negated: bool  # `{name} not in ...` against a template of `in` (or the reverse)
    node: object  # the node that carries the name: an identifier's Name or Attribute, or `named`


# A node unfolded one level, as the matcher sees it (see ast_unfold): ("name", id),
# ("attribute", receiver, attr), ("call", func, positional, {keyword: value}, starred),
# ("subscript", receiver, index or None), ("compare", left, "in" | "not in" | "", right),
# ("constant", value), ("other",).
Unfold = Callable[[object], tuple]


def _is_placeholder(node: ast.expr) -> bool:
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


@functools.lru_cache(maxsize=None)
def parse_template(pattern: str) -> Template:
    """The shape of an accessor template, parsed once a process (the config's check, then the
    run's); ShapeError says what is wrong."""
    tree = _parsed(pattern)
    if tree is None:
        raise ShapeError(
            f'{pattern!r} is not a Python expression such as "features.has({{name}}, ...)" or "config.{{name}}.value"'
        )
    if isinstance(tree, ast.Compare) and (
        len(tree.ops) != 1 or not isinstance(tree.ops[0], (ast.In, ast.NotIn))
    ):
        raise ShapeError(
            f"{pattern!r}: a comparison reads a flag only as `{{name}} in ...` or `{{name}} not in ...`"
        )
    if not isinstance(tree, (ast.Call, ast.Attribute, ast.Subscript, ast.Compare)):
        raise ShapeError(
            f"{pattern!r} is not a call, attribute, subscript or membership test that reads {{name}}"
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


@functools.lru_cache(maxsize=None)
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
            f'{pattern!r} is not a call such as "set_config({{name}}, ...)" or "config.{{name}}(...)"'
        )
    naming = [
        node
        for node in ast.walk(tree)
        if _is_placeholder(node)
        or _PLACEHOLDER in (getattr(node, "attr", None), getattr(node, "arg", None))
    ]
    if len(naming) != 1:
        raise ShapeError(
            f"{pattern!r}: {{name}} must be once an argument, a keyword, a keyword's value or in the callee"
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


def option_like(text: object) -> bool:
    """A word argparse takes for an option string, not for a value: `-x`, `--size`, not `-1`."""
    if not isinstance(text, str) or not text.startswith("-"):
        return False
    try:
        float(text)
    except ValueError:
        return True
    return False


# Calls whose arguments declare types, not tables of names: `TypedDict("Extra", {"use_x": bool})`.
TYPE_DECLARATIONS = ("TypedDict", "NamedTuple", "namedtuple", "make_dataclass")

OPTION_METHODS = ("add_argument", "add_option")  # argparse, optparse
CLICK_OPTIONS = ("click.option", "option", "click.argument")


def defines_option(func: str, wrappers: Collection[str]) -> bool:
    """Whether a statement call of the dotted `func` adds a command-line option as argparse's
    `add_argument` does: that, optparse's `add_option`, or a project's wrapper of them that the
    config's `option_calls` declares (`add_toggle`, `parser.add_flag`: a name matches a callee
    that is it or ends with "." + it, as accessors' callees do)."""
    return func.rsplit(".", 1)[-1] in OPTION_METHODS or any(
        func == w or func.endswith("." + w) for w in wrappers
    )


# argparse actions that take no value on the command line (`argparse.BooleanOptionalAction` by its
# last name), and those that take `nargs` of them.
_SWITCH_ACTIONS = (
    "store_true",
    "store_false",
    "store_const",
    "append_const",
    "count",
    "help",
    "version",
    "BooleanOptionalAction",
)
_VALUE_ACTIONS = ("store", "append", "extend")


def option_arity(
    func: str, option_strings: Collection[str], keywords: Mapping[str, object]
) -> int | None:
    """How many command-line words follow an option's string in an argument list (`--size 3`: 1,
    `--use-x`: 0), from the option call's keywords (literals, or an action's dotted name); None
    when the call does not say it plainly (a variable `nargs`, `"?"`, a wrapper, a click option
    that is not plainly a flag): argument lists are then left as they are."""
    if func in CLICK_OPTIONS:
        switch = (
            any("/" in s for s in option_strings)
            or keywords.get("is_flag") is True
            or keywords.get("count") is True
        )
        return 0 if switch else None
    if func.rsplit(".", 1)[-1] not in OPTION_METHODS:
        return None  # a project's wrapper: what it passes on is not seen
    action = keywords.get("action", "store")
    if isinstance(action, str) and action.rsplit(".", 1)[-1] in _SWITCH_ACTIONS:
        return 0
    if action not in _VALUE_ACTIONS:
        return None
    nargs = keywords.get("nargs", 1)
    return nargs if isinstance(nargs, int) and not isinstance(nargs, bool) else None


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
