"""benchmarks/realcode.toml read into Projects: each a PyPI sdist pinned at an exact version, with
the flags named for it by hand and how to run its tests, if they run."""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prune_flags.syntax.values import literal_value

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

FORMATTERS = ("black", "ruff", "none")
PROJECT_KEYS = {"name", "version", "package", "why", "flags", "exclude", "formatter"}
PROJECT_KEYS |= {"tests", "test_deps"}
FLAG_KEYS = {"name", "value", "note"}


class ConfigError(Exception):
    """The project list is not as this harness reads it."""


@dataclass(frozen=True)
class Flag:
    name: str
    value: str  # Python source, as `--flag NAME=VALUE` takes it
    source: str  # "named" (in the project list) or "find" (proposed by `prune-flags find`)
    note: str = ""

    @property
    def label(self) -> str:
        return f"{self.name}={self.value}"


@dataclass(frozen=True)
class Project:
    name: str
    version: str
    package: str  # the name on PyPI
    flags: tuple[Flag, ...]
    why: str = ""
    exclude: tuple[str, ...] = ()  # prune-flags `exclude` globs, for files no user would prune
    formatter: str | None = None  # "black", "ruff" or "none"; None: read from its config
    tests: tuple[str, ...] | None = None  # pytest's arguments; None: the suite is not run
    test_deps: tuple[str, ...] = ()

    @property
    def slug(self) -> str:
        return f"{self.name}-{self.version}"


@dataclass(frozen=True)
class Settings:
    max_find: int
    projects: tuple[Project, ...]


def load(path: Path) -> Settings:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{path}: {error}") from error
    max_find = data.get("max_find", 4)
    if not isinstance(max_find, int) or max_find < 0:
        raise ConfigError(f"{path}: max_find: expected a non-negative integer")
    entries = data.get("project", [])
    if not isinstance(entries, list) or not entries:
        raise ConfigError(f"{path}: expected [[project]] tables")
    projects = tuple(_project(path, index, entry) for index, entry in enumerate(entries))
    names = [project.name for project in projects]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ConfigError(f"{path}: projects named twice: {', '.join(duplicates)}")
    return Settings(max_find, projects)


def _project(path: Path, index: int, entry: Any) -> Project:
    where = f"{path}: project {index + 1}"
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: expected a table")
    unknown = sorted(set(entry) - PROJECT_KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown keys {', '.join(unknown)}")
    name, version = _string(where, entry, "name"), _string(where, entry, "version")
    where = f"{path}: {name}"
    formatter = entry.get("formatter")
    if formatter is not None and formatter not in FORMATTERS:
        raise ConfigError(f"{where}: formatter: expected one of {', '.join(FORMATTERS)}")
    tests = entry.get("tests")
    return Project(
        name=name,
        version=version,
        package=entry.get("package", name),
        flags=tuple(_flag(where, flag) for flag in entry.get("flags", [])),
        why=entry.get("why", ""),
        exclude=tuple(_strings(where, entry, "exclude")),
        formatter=formatter,
        tests=None if tests is None else tuple(_strings(where, entry, "tests")),
        test_deps=tuple(_strings(where, entry, "test_deps")),
    )


def _flag(where: str, entry: Any) -> Flag:
    if not isinstance(entry, dict) or set(entry) - FLAG_KEYS:
        raise ConfigError(f"{where}: flags: expected {{ name, value, note }} tables, got {entry!r}")
    name, value = _string(where, entry, "name"), _string(where, entry, "value")
    try:  # a literal as `--flag` takes it
        literal_value(ast.parse(value, mode="eval").body)
    except (ValueError, SyntaxError) as error:
        raise ConfigError(f"{where}: {name}: {value!r} is not a Python literal") from error
    return Flag(name, value, "named", entry.get("note", ""))


def _string(where: str, entry: dict[str, Any], key: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where}: {key}: expected a string")
    return value


def _strings(where: str, entry: dict[str, Any], key: str) -> list[str]:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{where}: {key}: expected a list of strings")
    return value
