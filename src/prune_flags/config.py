"""The configuration: which flags are stale, at which values, and how the tool behaves.

Everything is validated here, at load time, so that a bad config stops the run before any
file is read (exit code 2) with a message naming the file and the key.
"""

from __future__ import annotations

import ast
import difflib
import keyword
import math
import os
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from prune_flags.syntax.templates import ShapeError, parse_template, parse_writer
from prune_flags.syntax.values import MUTABLE_TYPES, literal_value

if sys.version_info >= (3, 11):
    pass
else:  # pragma: no cover - exercised on Python 3.10 only
    pass


FORMATS = ("auto", "black", "none")


# What becomes of a test that exists only to exercise a value the config rules out (see
# model/pinned.py).
TESTS = ("delete", "report")


KNOWN_KEYS = (
    "flags", "accessors", "writers", "option_calls", "strict", "tests", "keep", "keep_asserts",
    "format", "exclude", "library_keywords", "library_python",
)  # fmt: skip


FLAG_TABLE_KEYS = ("python",)


PYPROJECT = "pyproject.toml"
TOOL_TABLE = "prune-flags"
FLAG_OPTION = "--flag"


_PLAIN_TYPES = (bool, int, float, str, type(None))


_PLAIN_EXPECTED = (
    "expected None, a bool, int, float or string, or a tuple, list, dict, set or frozenset of those"
)


# A value a user most likely meant as a string but forgot to quote (the shell ate the quotes).
_BARE_WORD = re.compile(r"[A-Za-z_][\w.:/-]*")


class _NotALiteral(ValueError):
    pass


class ConfigError(Exception):
    """A bad config or option. str(err) == f"{file}: {key}: {message}"."""

    def __init__(self, file: str, key: str, message: str) -> None:
        # The parts go to Exception.args so that the error pickles across worker processes.
        super().__init__(file, key, message)
        self.file = file
        self.key = key
        self.message = message

    def __str__(self) -> str:
        return f"{self.file}: {self.key}: {self.message}"


@dataclass(frozen=True)
class Flag:
    name: str
    value: object
    source: str  # repr(value): the Python source the rewrite puts where the flag was read
    # A qualified key's module and owner (`pkg.mod.Class` of "pkg.mod.Class.fast"): the flag is
    # that definition's name only; same-named definitions elsewhere are left alone (see scoping).
    scope: str = ""
    origin: str = field(
        default="", compare=False
    )  # where the key was given, for errors: a file or --flag

    @property
    def key(self) -> str:
        """The key as the user wrote it."""
        return f"{self.scope}.{self.name}" if self.scope else self.name


@dataclass(frozen=True)
class Config:
    flags: tuple[Flag, ...]
    accessors: tuple[str, ...] = ()
    writers: tuple[str, ...] = ()
    # Dotted names of calls that add an option as argparse's add_argument does (`add_toggle`)
    option_calls: tuple[str, ...] = ()
    keep: tuple[str, ...] = ()
    keep_asserts: bool = False
    # true: a flag anything gives another value is refused, as before the config became the decision
    strict: bool = False
    # "delete": such a test goes; "report": it only loses its write, reported as possibly pinning
    tests: str = "delete"
    format: str = "auto"
    exclude: tuple[str, ...] = ()
    # true: a keyword the cleanup made a constant goes from a call of an installed library whose
    # signature default is that value (see model/library.py)
    library_keywords: bool = False
    # The interpreter whose installed libraries are asked; "" is the one running prune-flags.
    library_python: str = ""
    source: Path | None = None
    root: Path = Path(".")

    def flag(self, name: str) -> Flag | None:
        return next((flag for flag in self.flags if flag.name == name), None)

    @property
    def flag_names(self) -> frozenset[str]:
        return frozenset(flag.name for flag in self.flags)


def parse_flag_option(text: str) -> Flag:
    """Parse one `--flag NAME=VALUE`; the name is checked by load_config, which knows the
    accessors."""
    name, equals, value_text = (part.strip() for part in text.partition("="))
    if not equals or not name:
        raise ConfigError(FLAG_OPTION, text, "expected NAME=VALUE, e.g. --flag my_flag=False")
    if not value_text:
        raise ConfigError(FLAG_OPTION, name, f"missing value after '=', e.g. --flag {name}=False")
    if value_text.lower() in ("true", "false"):
        return _make_flag(name, value_text.lower() == "true")
    try:
        return _make_flag(name, _plain_literal(value_text))
    except _NotALiteral as err:
        hint = _flag_option_hint(name, value_text)
        raise ConfigError(FLAG_OPTION, name, f"{err}; {hint}") from None
    except ValueError as err:
        raise ConfigError(FLAG_OPTION, name, str(err)) from None


def _make_flag(key: str, value: object, origin: str = FLAG_OPTION) -> Flag:
    """A flag from its key: a dotted key of identifiers (`pkg.mod.Class.fast`) is qualified."""
    scope, name = _split_key(key)
    return Flag(name=name, value=value, source=repr(value), scope=scope, origin=origin)


def _split_key(key: str) -> tuple[str, str]:
    parts = key.split(".")
    if len(parts) > 1 and all(part.isidentifier() for part in parts):
        return ".".join(parts[:-1]), parts[-1]
    return "", key


def parse_flag_options(flag_options: Sequence[str]) -> list[Flag]:
    """Every `--flag NAME=VALUE`; a flag given twice with two values is an error."""
    overrides = [parse_flag_option(option) for option in flag_options]
    seen: dict[str, Flag] = {}
    for flag in overrides:
        if flag.key in seen and seen[flag.key] != flag:
            message = (
                f"given twice, as {seen[flag.key].source} and {flag.source}; give"
                " each flag one value"
            )
            raise ConfigError(FLAG_OPTION, flag.key, message)
        _check_scopes(seen.values(), flag, FLAG_OPTION, flag.key)
        seen[flag.key] = flag
    return overrides


def parse_table(table: Mapping[str, object], file: Path) -> Config:
    shown = str(file)
    for key in table:
        if key not in KNOWN_KEYS:
            raise ConfigError(shown, key, _unknown_key_message(key, KNOWN_KEYS))
    accessors = _name_patterns(table, "accessors", shown)
    return Config(
        flags=_config_flags(table.get("flags", {}), shown, any_name=bool(accessors)),
        accessors=accessors,
        writers=_name_patterns(table, "writers", shown),
        option_calls=_qualified_names(table, "option_calls", shown, like="parser.add_flag"),
        keep=_qualified_names(table, "keep", shown),
        keep_asserts=_boolean(table, "keep_asserts", shown),
        strict=_boolean(table, "strict", shown),
        tests=_choice(table, "tests", TESTS, shown),
        format=_choice(table, "format", FORMATS, shown),
        exclude=_globs(table, "exclude", shown),
        library_keywords=_boolean(table, "library_keywords", shown),
        library_python=_interpreter(table, "library_python", file),
        source=file,
        root=Path(os.path.abspath(file)).parent,
    )


def _unknown_key_message(key: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(key, known, n=1)
    guess = f"did you mean {close[0]!r}? " if close else ""
    return f"unknown key; {guess}known keys: {', '.join(known)}"


def _strings(table: Mapping[str, object], key: str, file: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list):
        raise ConfigError(file, key, f'expected an array of strings, e.g. {key} = ["..."]')
    for index, item in enumerate(value):
        if not isinstance(item, str) or not item:
            raise ConfigError(file, f"{key}[{index}]", "expected a non-empty string")
    return tuple(value)


def _name_patterns(table: Mapping[str, object], key: str, file: str) -> tuple[str, ...]:
    """Templates naming a flag: accessors (any expression that reads one, templates.parse_template)
    and writers (calls that write one, templates.parse_writer)."""
    patterns = _strings(table, key, file)
    for index, pattern in enumerate(patterns):
        if "{name}" not in pattern:
            message = (
                f"{pattern!r} has no {{name}}; write {{name}} where the flag's name goes, "
                'e.g. "features.has({name}, ...)"'
            )
            raise ConfigError(file, f"{key}[{index}]", message)
        try:
            parse_template(pattern) if key == "accessors" else parse_writer(pattern)
        except ShapeError as err:
            raise ConfigError(file, f"{key}[{index}]", str(err)) from None
    return patterns


def _qualified_names(
    table: Mapping[str, object], key: str, file: str, like: str = "pkg.module.helper"
) -> tuple[str, ...]:
    names = _strings(table, key, file)
    for index, name in enumerate(names):
        if not all(part.isidentifier() for part in name.split(".")):
            message = f'{name!r} is not a qualified name like "{like}"'
            raise ConfigError(file, f"{key}[{index}]", message)
    return names


def _globs(table: Mapping[str, object], key: str, file: str) -> tuple[str, ...]:
    globs = _strings(table, key, file)
    if globs:
        import pathspec  # only for a config that has globs (see files._compile_line)
    for index, glob in enumerate(globs):
        try:
            pathspec.GitIgnoreSpec.from_lines([glob])
        except ValueError as err:
            raise ConfigError(file, f"{key}[{index}]", f"not a valid glob: {err}") from None
    return globs


def _boolean(table: Mapping[str, object], key: str, file: str) -> bool:
    value = table.get(key, False)
    if not isinstance(value, bool):
        raise ConfigError(file, key, f"expected true or false, got {value!r}")
    return value


def _interpreter(table: Mapping[str, object], key: str, file: Path) -> str:
    """A path to a Python executable, relative to the config file's directory; "" when not given."""
    value = table.get(key, "")
    if not isinstance(value, str):
        raise ConfigError(
            str(file),
            key,
            f'expected a path to a Python executable, e.g. {key} = ".venv/bin/python"',
        )
    if not value:
        return ""
    path = Path(os.path.abspath(Path(file).parent / Path(value).expanduser()))
    if not path.is_file():
        raise ConfigError(str(file), key, f"no such file: {path}")
    return str(path)


def _choice(table: Mapping[str, object], key: str, choices: Sequence[str], file: str) -> str:
    """A key that takes one of a few words; the first is the default."""
    value = table.get(key, choices[0])
    if value not in choices:
        expected = ", ".join(f'"{choice}"' for choice in choices)
        raise ConfigError(file, key, f"expected one of {expected}, got {value!r}")
    return str(value)


def _config_flags(flags: object, file: str, any_name: bool) -> tuple[Flag, ...]:
    if not isinstance(flags, dict):
        raise ConfigError(
            file, "flags", "expected a table of NAME = VALUE, e.g. [flags] my_flag = false"
        )
    for name in flags:
        _check_flag_name(name, any_name, file, f"flags.{name}")
    parsed = tuple(_toml_flag(name, value, file) for name, value in flags.items())
    for index, flag in enumerate(parsed):
        _check_scopes(parsed[:index], flag, file, f"flags.{flag.key}")
    return parsed


def _check_scopes(others: Iterable[Flag], flag: Flag, file: str, key: str) -> None:
    """Qualified keys of one name are flags of their own (each of one definition, pruned in
    turn); a bare name is every definition of it, so it cannot stand beside a key of its name."""
    for other in others:
        if other.name == flag.name and not (other.scope and flag.scope):
            message = (
                f"{other.key} and {flag.key} are the same flag name, and the bare name is every"
                " definition of it; give one, or a qualified key for each definition"
            )
            raise ConfigError(file, key, message)


def _check_flag_name(name: str, any_name: bool, file: str, key: str) -> None:
    if _split_key(name)[0]:
        _check_flag_name(_split_key(name)[1], False, file, key)  # qualified: a Python name
        return
    # With accessors, flags are read by name as strings (features.has("new-ui")), so any
    # name is possible; without them a flag is a Python name and must be spelt like one.
    if any_name:
        if not name or any(char.isspace() for char in name):
            raise ConfigError(file, key, "expected a non-empty name without whitespace")
    elif keyword.iskeyword(name):
        raise ConfigError(file, key, f"{name!r} is a Python keyword, not a flag name")
    elif not name.isidentifier():
        message = (
            f"{name!r} is not a Python identifier; flags read by a string name need "
            "`accessors` that say how they are read"
        )
        raise ConfigError(file, key, message)


def _toml_flag(name: str, value: object, file: str) -> Flag:
    key = f"flags.{name}"
    if isinstance(value, dict):
        return _make_flag(name, _python_table_value(value, file, key), file)
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(file, key, f"{value!r} is not a finite number")
    if isinstance(value, (bool, int, float, str)):
        return _make_flag(name, value, file)
    if isinstance(value, list):  # an array is the list it reads as
        try:
            _require_plain(value, repr(value))
        except ValueError as err:
            raise ConfigError(file, key, str(err)) from None
        return _make_flag(name, value, file)
    message = (
        'expected a bool, int, float, string or array, or a table {python = "..."},'
        f" got a {type(value).__name__}"
    )
    raise ConfigError(file, key, message)


def _python_table_value(table: Mapping[str, object], file: str, key: str) -> object:
    for table_key in table:
        if table_key not in FLAG_TABLE_KEYS:
            known = ", ".join(FLAG_TABLE_KEYS)
            raise ConfigError(
                file, f"{key}.{table_key}", f"unknown key; a flag table takes: {known}"
            )
    source = table.get("python")
    if not isinstance(source, str):
        message = 'expected the value as a string of Python source, e.g. {python = "None"}'
        raise ConfigError(file, f"{key}.python", message)
    try:
        return _plain_literal(source)
    except _NotALiteral as err:
        hint = 'write Python source such as "None", "(1, 2)" or "\'text\'"'
        raise ConfigError(file, f"{key}.python", f"{err}; {hint}") from None
    except ValueError as err:
        raise ConfigError(file, f"{key}.python", str(err)) from None


def _plain_literal(source: str) -> object:
    try:
        value = literal_value(ast.parse(source.strip(), mode="eval").body)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise _NotALiteral(f"{source!r} is not a Python literal") from None
    _require_plain(value, source)
    return value


def _require_plain(value: object, source: str, inside: type | None = None) -> None:
    # Only values whose repr() is Python source that reads back as the same value can be
    # written into the code in place of the flag. A list, dict or set stands only outermost:
    # within another value each read would share it where the definition made one.
    if isinstance(value, MUTABLE_TYPES) and inside is not None:
        raise ValueError(
            f"{source!r} holds a {type(value).__name__} inside a {inside.__name__}; only the"
            " outermost value may be a list, dict or set"
        )
    if isinstance(value, (tuple, list, set, frozenset)):
        for item in value:
            _require_plain(item, source, type(value))
    elif isinstance(value, dict):
        for item in (*value.keys(), *value.values()):
            _require_plain(item, source, dict)
    elif isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{source!r} is not a finite number")
    elif not isinstance(value, _PLAIN_TYPES):
        raise ValueError(f"{source!r} holds a {type(value).__name__}; {_PLAIN_EXPECTED}")


def _flag_option_hint(name: str, value_text: str) -> str:
    if _BARE_WORD.fullmatch(value_text):
        return f"quote strings, e.g. --flag {name}=\"'{value_text}'\""
    return (
        "write True, False, None, a number, a quoted string, or a tuple, list, dict or set of those"
    )


def apply_overrides(config: Config, overrides: Sequence[Flag], required: bool = True) -> Config:
    """The config's flags with --flag's on top; `required`: no flag at all is an error (apply,
    diff), which `find` does not need."""
    flags = list(config.flags)
    for flag in overrides:
        _check_flag_name(flag.key, bool(config.accessors), FLAG_OPTION, flag.key)
        # It replaces the entry of its key, and, where either is a bare name, every entry of its
        # name; the first replaced keeps its place.
        replaced = [
            index
            for index, entry in enumerate(flags)
            if entry.key == flag.key
            or (entry.name == flag.name and not (entry.scope and flag.scope))
        ]
        if replaced:
            flags[replaced[0]] = flag
            flags = [entry for index, entry in enumerate(flags) if index not in replaced[1:]]
        else:
            flags.append(flag)
    if not flags and required:
        raise ConfigError(str(config.source), "flags", _no_flags_message(config.source))
    return replace(config, flags=tuple(flags))


def _no_flags_message(source: Path | None) -> str:
    in_pyproject = source is not None and source.name == PYPROJECT
    table = f"[tool.{TOOL_TABLE}.flags]" if in_pyproject else "[flags]"
    return f"no flags to prune; add them under {table} or pass --flag NAME=VALUE"
