"""`prune-flags find`: the command-line face of prune_flags.find. Parses options, renders the result."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import List, Optional

import typer

from prune_flags import config as config_module
from prune_flags.config import Config, ConfigError
from prune_flags.find import Candidate, FindResult, config_toml, find as find_candidates, to_json

EXIT_USAGE = 2
EXIT_SKIPPED = 123
HEADER = ("lines", "branches", "reads", "name", "value", "defined at")

PathsArgument = typer.Argument(None, help="Files or directories to scan (default: .).", show_default=False)
ConfigOption = typer.Option(None, "--config", help="TOML file with exclude, format and other keys (flags are not needed).")
ConfigOutOption = typer.Option(
    None, "--config-out", help="Write the candidates as a config that `prune-flags apply --config FILE` takes."
)
JsonOption = typer.Option(False, "--json", help="Print the candidates as JSON instead of a table.")
ReportOption = typer.Option(None, "--report", help="Also write the JSON to this file.")
NoFormatOption = typer.Option(False, "--no-format", help="Count the lines without running black on the result.")
ColorOption = typer.Option(None, "--color/--no-color", help="Bold table header (default: on a terminal; NO_COLOR honoured).")
JobsOption = typer.Option(None, "-j", "--jobs", help="Processes to use (default: all cores).")


def find(
    paths: Optional[List[Path]] = PathsArgument,
    config: Optional[Path] = ConfigOption,
    config_out: Optional[Path] = ConfigOutOption,
    json_output: bool = JsonOption,
    report: Optional[Path] = ReportOption,
    no_format: bool = NoFormatOption,
    color: Optional[bool] = ColorOption,
    jobs: Optional[int] = JobsOption,
) -> None:
    """List stale-flag candidates: names that hold one literal everywhere and are read in a condition.

    Each is measured by running the cleanup with it as the only flag; the table is sorted by the
    lines that would go. Exit 0: done; 2: bad usage or config; 123: some files could not be read
    or parsed (named on stderr; every name they mention was ruled out).

    Example: prune-flags find --config-out stale.toml megatron/ && prune-flags diff --config stale.toml megatron/
    """
    targets = list(paths or [Path(".")])
    settings = _settings(targets, config)
    if no_format:
        settings = replace(settings, format="none")
    if jobs is not None and jobs < 1:
        raise _fail(f"-j/--jobs: expected a positive number, got {jobs}")
    result = find_candidates(targets, Path.cwd(), settings, jobs)
    if json_output:
        typer.echo(json.dumps(to_json(result), indent=2))
    else:
        typer.echo(render_table(result.candidates, _use_color(color)), nl=False)
    if report is not None:
        report.write_text(json.dumps(to_json(result), indent=2) + "\n", encoding="utf-8")
    if config_out is not None:
        config_out.write_text(config_toml(result), encoding="utf-8")
    raise typer.Exit(_finish(result))


def _fail(message: str) -> typer.Exit:
    typer.echo(f"prune-flags: error: {message}", err=True)
    return typer.Exit(EXIT_USAGE)


def _settings(targets: List[Path], config_file: Optional[Path]) -> Config:
    """The keys apply would use (exclude, format, keep_asserts, ...), without requiring any flag."""
    for target in targets:
        if not target.exists():
            raise _fail(f"{target}: no such file or directory")
    if config_file is not None and not config_file.is_file():
        raise _fail(f"{config_file}: --config: no such file")
    start = Path(os.path.abspath(targets[0]))
    start = start if start.is_dir() else start.parent
    try:
        # config.load_config insists on at least one flag; find needs only the other keys, read
        # and validated by the same functions. TODO(lead): a public config.load_settings.
        if config_file is not None:
            return config_module._parse_table(config_module._given_table(config_file), config_file)
        found = config_module._find_config(list(config_module._search_directories(start)))
    except ConfigError as err:
        raise _fail(str(err)) from None
    if found is None:
        return Config(flags=(), root=config_module.find_project_root(start))
    try:
        return config_module._parse_table(found[1], found[0])
    except ConfigError as err:
        raise _fail(str(err)) from None


def _use_color(color: Optional[bool]) -> bool:
    if color is not None:
        return color
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ


def render_table(candidates: tuple[Candidate, ...], color: bool = False) -> str:
    """One row per candidate, columns aligned; the numbers right-aligned."""
    rows = [HEADER] + [_row(candidate) for candidate in candidates]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADER) - 1)]
    lines = []
    for number, row in enumerate(rows):
        cells = [cell.rjust(w) if i < 3 else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths))]
        line = "  ".join([*cells, row[-1]])
        lines.append(f"\x1b[1m{line}\x1b[0m" if color and number == 0 else line)
    return "\n".join(lines) + "\n"


def _row(candidate: Candidate) -> tuple[str, ...]:
    value = candidate.source if len(candidate.source) <= 30 else candidate.source[:27] + "..."
    where = ", ".join(str(site) for site in candidate.definitions)
    return (str(candidate.lines), str(candidate.branches), str(candidate.reads), candidate.name, value, where)


def _finish(result: FindResult) -> int:
    for skipped in result.skipped:
        typer.echo(f"prune-flags: skipped {skipped.display}: {skipped.error}", err=True)
    count = len(result.candidates)
    typer.echo(f"{count} candidate{'s' if count != 1 else ''} in {result.files} files", err=True)
    return EXIT_SKIPPED if result.skipped else 0
