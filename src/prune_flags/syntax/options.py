"""Command-line options that define a flag: argparse, optparse and click calls, their strings and
arity."""

from __future__ import annotations

import ast
from collections.abc import Collection, Mapping

from prune_flags.syntax.expressions import ast_dotted, literal
from prune_flags.syntax.spellings import spellings
from prune_flags.syntax.values import UNKNOWN


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


def _option(
    call: ast.Call, wrappers: tuple[str, ...]
) -> tuple[str | None, tuple[str, ...], int | None]:
    """The flag an option call defines (argparse's, click's, or a declared wrapper's), its long
    option strings (`--turbo` may fill `dest="fast_path"`: tables spell the option so) and the
    words it takes after them (options.option_arity). (None, (), None) for any other call."""
    func = ast_dotted(call.func)
    if not (defines_option(func, wrappers) or func in CLICK_OPTIONS):
        return None, (), None
    strings = [
        arg.value
        for arg in call.args
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
    ]
    explicit = next((literal(k.value) for k in call.keywords if k.arg == "dest"), None)
    dest = option_dest(strings, explicit if isinstance(explicit, str) else None)
    keywords = {k.arg: _option_keyword(k.value) for k in call.keywords if k.arg is not None}
    arity = option_arity(func, strings, keywords) if len(keywords) == len(call.keywords) else None
    return dest, tuple(string for string in strings if string.startswith("--")), arity


def _option_keyword(value: ast.expr) -> object:
    """An option call's keyword as options.option_arity reads it: a literal, or a dotted name
    (`action=argparse.BooleanOptionalAction`)."""
    found = literal(value)
    return ast_dotted(value) or found if found is UNKNOWN else found
