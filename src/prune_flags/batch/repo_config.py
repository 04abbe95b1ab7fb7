"""The campaign's config with a repository's own `[tool.prune-flags]` keys on top.

The campaign decides which flags go and at which values; the repository knows its own layout
and style: its exclude globs, accessors, writers and kept names add to the campaign's, and its
`format` and `keep_asserts`, where it sets them, win.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

# The config module's own readers, so that a repository's table is validated, and its errors
# worded, exactly as for `apply`.
from prune_flags.config import PYPROJECT, Config, ConfigError, parse_table
from prune_flags.config_files import STANDALONE, find_table


def config_for(campaign: Config, clone: Path) -> Config:
    found = _own_table(clone)
    if found is None:
        return campaign
    file, table = found
    own = parse_table({key: value for key, value in table.items() if key != "flags"}, file)
    return replace(
        campaign,
        accessors=_union(campaign.accessors, own.accessors),
        writers=_union(campaign.writers, own.writers),
        option_calls=_union(campaign.option_calls, own.option_calls),
        keep=_union(campaign.keep, own.keep),
        exclude=_union(campaign.exclude, own.exclude),
        keep_asserts=own.keep_asserts if "keep_asserts" in table else campaign.keep_asserts,
        format=own.format if "format" in table else campaign.format,
        root=clone,
    )


def _own_table(clone: Path) -> tuple[Path, Mapping[str, object]] | None:
    """The repository's table: [tool.prune-flags] in its pyproject.toml, else its
    prune-flags.toml."""
    for name in (PYPROJECT, STANDALONE):
        if (clone / name).is_file():
            _refuse_link_out(clone / name, clone)
    return find_table([clone])


def _refuse_link_out(path: Path, clone: Path) -> None:
    real, root = os.path.realpath(path), os.path.realpath(clone)
    if os.path.commonpath([real, root]) != root:
        raise ConfigError(
            str(path), "(file)", "is a symlink leading out of the repository; not read"
        )


def _union(first: tuple[str, ...], second: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys((*first, *second)))
