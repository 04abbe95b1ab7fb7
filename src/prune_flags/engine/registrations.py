"""Options a run left registered: a flag cleaned up whose definition it never found, while a string
that registers its option (`"--use-x"`) is still in the code, which now does nothing with it."""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from pathlib import Path

from prune_flags.config import Flag
from prune_flags.report import FlagWarning, Report
from prune_flags.semantic.facts import NameFacts
from prune_flags.semantic.repository import Repository
from prune_flags.syntax.options import option_like, spells_option
from prune_flags.syntax.spellings import spellings
from prune_flags.vocabulary import WarningReason

_SHOWN = 3  # places named in a warning


def registrations_left(
    repository: Repository, flags: Sequence[Flag], facts: Mapping[str, NameFacts], report: Report
) -> list[FlagWarning]:
    """A warning for each flag the run changed code of but found no definition of, where option
    strings spelling it stay: whatever registers them (a table, a wrapper the config does not
    declare) still offers an option nothing reads."""
    acted = {change.flag for result in report.files for change in result.changes}
    final: dict[Path, str] = {result.path: result.new_text for result in report.files}
    found = []
    for flag in flags:
        if flag.name not in acted or facts[flag.name].writes:
            continue  # (a definition found goes with its option: the option and table passes)
        places = _option_strings(repository, final, flag.name)
        if places:
            shown = ", ".join(places[:_SHOWN]) + (
                f" and {len(places) - _SHOWN} more" if len(places) > _SHOWN else ""
            )
            message = (
                f"{flag.name}: its reads were folded, but its option is still registered at"
                f" {shown}, and now does nothing; remove it, or declare the call that adds it"
                ' (option_calls = ["..."]) so that it goes with the flag'
            )
            found.append(
                FlagWarning(
                    flag.name, WarningReason.REGISTRATION_LEFT, tuple(places), None, message
                )
            )
    return found


def _option_strings(repository: Repository, final: Mapping[Path, str], name: str) -> list[str]:
    """Where the texts the run leaves hold an option string of the name (`--use-x`)."""
    needles = [f"-{spelling}".encode() for spelling in spellings(name)]
    places = []
    for path, data in repository.raw.items():
        if path in repository.skipped or not any(needle in data for needle in needles):
            continue
        text = final.get(path)
        if text is None:
            source = repository.source(path)
            if source is None:
                continue
            text = source.text
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        display = repository.display(path)
        places += [
            f"{display}:{node.lineno} ({node.value})"
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and option_like(node.value)
            and spells_option(node.value, name)
        ]
    return sorted(places)
