"""What every command shares at its edge: the exit codes (CONTRACT.md), the usage error, and
whether to colour what goes to a terminal."""

from __future__ import annotations

import os
import sys

import typer

EXIT_CHANGES = 1  # diff: changes shown
EXIT_FAILED = 1  # batch: some repository failed
EXIT_USAGE = 2
EXIT_SKIPPED = 123  # some files skipped, or a flag refused


def usage_error(message: str) -> typer.Exit:
    """Say what is wrong on stderr; the command raises what this returns (exit 2)."""
    typer.echo(f"prune-flags: error: {message}", err=True)
    return typer.Exit(EXIT_USAGE)


def use_color(color: bool | None) -> bool:
    """--color/--no-color when given; otherwise colour on a terminal, unless NO_COLOR is set."""
    if color is not None:
        return color
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ
