"""Where a run's config comes from: `--config FILE`, else `[tool.prune-flags]` in the nearest
`pyproject.toml` at or above the first path (up to the repository root), else a
`prune-flags.toml` there; and the project root the run formats and resolves keys against."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib
from prune_flags.config import (
    PYPROJECT,
    TOOL_TABLE,
    Config,
    ConfigError,
    apply_overrides,
    parse_flag_options,
    parse_table,
)

STANDALONE = "prune-flags.toml"


def load_config(
    paths: Sequence[Path], config_file: Path | None = None, flag_options: Sequence[str] = ()
) -> Config:
    """Read the config (--config FILE, or the one found above the first path) and apply --flag."""
    overrides = parse_flag_options(flag_options)
    if config_file is not None:
        config = parse_table(_given_table(config_file), config_file)
    else:
        config = _discovered_config(_search_start(paths), has_overrides=bool(overrides))
    return apply_overrides(config, overrides)


def find_project_root(start: Path) -> Path:
    """The nearest directory at or above start holding .git; start's own directory if none does."""
    directory = _directory_of(start)
    return next((d for d in (directory, *directory.parents) if _is_repository_root(d)), directory)


def _directory_of(path: Path) -> Path:
    # abspath, not resolve: the user's view of the tree (symlinked checkouts) decides what is
    # "above".
    absolute = Path(os.path.abspath(path))
    return absolute if absolute.is_dir() else absolute.parent


def _is_repository_root(directory: Path) -> bool:
    return (directory / ".git").exists()  # a file in worktrees and submodules


def _search_start(paths: Sequence[Path]) -> Path:
    return _directory_of(paths[0]) if paths else Path.cwd()


def _search_directories(start: Path) -> Iterator[Path]:
    """start and its parents up to the repository root; outside a repository, up to the filesystem
    root."""
    for directory in (start, *start.parents):
        yield directory
        if _is_repository_root(directory):
            return


def _given_table(config_file: Path) -> Mapping[str, object]:
    # --config FILE has the keys at its top level, but pointing it at a pyproject.toml
    # should read that file's [tool.prune-flags] rather than reject [project] as unknown.
    if config_file.name != PYPROJECT:
        return _read_toml(config_file)
    table = _tool_table(config_file)
    if table is None:
        raise ConfigError(str(config_file), f"tool.{TOOL_TABLE}", f"no [tool.{TOOL_TABLE}] table")
    return table


def _discovered_config(start: Path, has_overrides: bool) -> Config:
    searched = list(_search_directories(start))
    found = find_table(searched)
    if found is not None:
        file, table = found
        return parse_table(table, file)
    if not has_overrides:
        raise ConfigError(str(start), "flags", _nothing_found_message(searched[-1]))
    return Config(flags=(), root=find_project_root(start))


def find_table(directories: Sequence[Path]) -> tuple[Path, Mapping[str, object]] | None:
    """The first [tool.prune-flags] table (or prune-flags.toml) in these directories, with its
    file."""
    for directory in directories:
        pyproject = directory / PYPROJECT
        if pyproject.is_file():
            table = _tool_table(pyproject)
            if table is not None:
                return pyproject, table
        standalone = directory / STANDALONE
        if standalone.is_file():
            return standalone, _read_toml(standalone)
    return None


def _nothing_found_message(last_searched: Path) -> str:
    return (
        f"no config found: no {PYPROJECT} with [tool.{TOOL_TABLE}] and no {STANDALONE} here or "
        f"above (searched up to {last_searched}); add [tool.{TOOL_TABLE}.flags] to {PYPROJECT}, "
        f"or pass --config FILE or --flag NAME=VALUE"
    )


def _tool_table(pyproject: Path) -> Mapping[str, object] | None:
    tool = _read_toml(pyproject).get("tool")
    table = tool.get(TOOL_TABLE) if isinstance(tool, dict) else None
    if table is not None and not isinstance(table, dict):
        raise ConfigError(
            str(pyproject), f"tool.{TOOL_TABLE}", f"expected a table [tool.{TOOL_TABLE}]"
        )
    return table


def _read_toml(path: Path) -> dict[str, object]:
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise ConfigError(str(path), "(file)", f"cannot read: {err.strerror or err}") from None
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as err:
        message = f"not valid UTF-8 at byte {err.start}; TOML files must be UTF-8"
        raise ConfigError(str(path), "(file)", message) from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(str(path), "(toml)", f"invalid TOML: {err}") from None
