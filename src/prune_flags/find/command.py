"""`prune-flags find`: the command-line face of prune_flags.find. Parses options, renders the
result."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

from prune_flags.config import Config, ConfigError, apply_overrides, parse_flag_options, parse_table
from prune_flags.config_files import find_project_root, find_table
from prune_flags.exits import EXIT_SKIPPED, usage_error, use_color

if TYPE_CHECKING:
    from prune_flags.find.facts import Candidate, FindResult

HEADER = ("lines", "branches", "reads", "name", "value", "defined at")

PathsArgument = typer.Argument(
    None, help="Files or directories to scan (default: .).", show_default=False
)
ConfigOption = typer.Option(
    None,
    "--config",
    help="TOML file with exclude, accessors, writers and other keys as apply takes them; its "
    "flags, if any, are named (see --flag).",
)
FlagOption = typer.Option(
    None,
    "--flag",
    help="NAME=VALUE, repeatable, as apply takes it: a named flag is reported as apply would "
    "treat it (its overridden writes listed, or refused), whatever find's own rules say.",
)
ConfigOutOption = typer.Option(
    None,
    "--config-out",
    help="Write the candidates as a config that `prune-flags apply --config FILE` takes.",
)
JsonOption = typer.Option(False, "--json", help="Print the candidates as JSON instead of a table.")
ReportOption = typer.Option(None, "--report", help="Also write the JSON to this file.")
ExactOption = typer.Option(
    False,
    "--exact",
    help="Count with the cleanup itself, one run per candidate: the cascade included, slow"
    " on big files.",
)
NoFormatOption = typer.Option(
    False, "--no-format", help="With --exact: count the lines without running black."
)
ColorOption = typer.Option(
    None,
    "--color/--no-color",
    help="Bold table header (default: on a terminal; NO_COLOR honoured).",
)
JobsOption = typer.Option(None, "-j", "--jobs", help="Processes to use (default: all cores).")


def find(
    paths: list[Path] | None = PathsArgument,
    config: Path | None = ConfigOption,
    flag: list[str] | None = FlagOption,
    config_out: Path | None = ConfigOutOption,
    json_output: bool = JsonOption,
    report: Path | None = ReportOption,
    exact: bool = ExactOption,
    no_format: bool = NoFormatOption,
    color: bool | None = ColorOption,
    jobs: int | None = JobsOption,
) -> None:
    """List stale-flag candidates: names that hold one literal everywhere and are read in a
    condition.

    For each: the branches that fold once it is inlined and the lines that would go (the folds,
    their comments and the definitions: at least what the cleanup does; --exact runs the cleanup
    itself to count what it cascades into as well); the table is sorted by lines. Exit 0: done; 2:
    bad usage or config; 123: some files could not be read or parsed (named on stderr; every name
    they mention was ruled out), or a named flag was refused.

    With the config's accessors and writers, flags read through them (`config.use_x.value`,
    `"x" in opts.enabled`) and defined by a writer call with a literal or as a flag object
    with a literal `default=` are found too; --config-out carries those keys over.

    Flags you name (in the config's flags table, or with --flag) are decided as apply decides
    them, by the cleanup's own run: listed at your value with the writes of another value apply
    would override, "(named; overrides path:line)", or refused with apply's message (stderr,
    and `refused` in the JSON). Names nobody named are proposed by find's own, stricter rules,
    and only where apply would prune them: one the model of a flag refuses is held back, with
    apply's message (stderr, and `held_back` in the JSON).

    Example: prune-flags find --config-out stale.toml megatron/ && prune-flags diff --config
    stale.toml megatron/
    """
    targets = list(paths or [Path(".")])
    settings = _settings(targets, config, flag or [])
    if no_format:
        settings = replace(settings, format="none")
    if jobs is not None and jobs < 1:
        raise usage_error(f"-j/--jobs: expected a positive number, got {jobs}")
    # Imported here, as cli.py imports the engine: LibCST loads only once the options are valid.
    from prune_flags.find.render import config_toml, to_json
    from prune_flags.find.run import find as find_candidates

    try:
        result = find_candidates(targets, Path.cwd(), settings, jobs, exact)
    except ConfigError as err:  # a qualified key that names nothing among the files
        raise usage_error(str(err)) from None
    if json_output:
        typer.echo(json.dumps(to_json(result), indent=2))
    else:
        typer.echo(render_table(result.candidates, use_color(color)), nl=False)
    if report is not None:
        report.write_text(json.dumps(to_json(result), indent=2) + "\n", encoding="utf-8")
    if config_out is not None:
        config_out.write_text(config_toml(result), encoding="utf-8")
    raise typer.Exit(_finish(result))


def _settings(targets: list[Path], config_file: Path | None, flag_options: list[str]) -> Config:
    """The keys apply would use (exclude, format, keep_asserts, ...), found as apply finds them,
    with the flags named there and by --flag, none being required."""
    for target in targets:
        if not target.exists():
            raise usage_error(f"{target}: no such file or directory")
    if config_file is not None and not config_file.is_file():
        raise usage_error(f"{config_file}: --config: no such file")
    start = Path(os.path.abspath(targets[0]))
    start = start if start.is_dir() else start.parent
    root = find_project_root(start)
    try:
        overrides = parse_flag_options(flag_options)
        if config_file is not None:
            found = (
                find_table([config_file.parent]) if config_file.name == "pyproject.toml" else None
            )
            table = found[1] if found else tomllib.loads(config_file.read_text(encoding="utf-8"))
            return apply_overrides(parse_table(table, config_file), overrides, required=False)
        searched = [start, *start.parents[: len(start.parents) - len(root.parents)]]
        found = find_table(searched)
        settings = parse_table(found[1], found[0]) if found else Config(flags=(), root=root)
        return apply_overrides(settings, overrides, required=False)
    except ConfigError as err:
        raise usage_error(str(err)) from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise usage_error(f"{config_file}: {err}") from None


def render_table(candidates: tuple[Candidate, ...], color: bool = False) -> str:
    """One row per candidate, columns aligned; the numbers right-aligned."""
    rows = [HEADER] + [_row(candidate) for candidate in candidates]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADER) - 1)]
    lines = []
    for number, row in enumerate(rows):
        cells = [
            cell.rjust(w) if i < 3 else cell.ljust(w)
            for i, (cell, w) in enumerate(zip(row, widths))
        ]
        line = "  ".join([*cells, row[-1]])
        lines.append(f"\x1b[1m{line}\x1b[0m" if color and number == 0 else line)
    return "\n".join(lines) + "\n"


def _row(candidate: Candidate) -> tuple[str, ...]:
    value = candidate.source if len(candidate.source) <= 30 else candidate.source[:27] + "..."
    where = ", ".join(str(site) for site in candidate.definitions) or "-"
    if candidate.functions:
        where += f" (parameter of {', '.join(f'{name}()' for name in candidate.functions)})"
    if candidate.named:
        overrides = ", ".join(str(write.site) for write in candidate.overridden)
        where += f" (named; overrides {overrides})" if overrides else " (named)"
    return (
        str(candidate.lines),
        str(candidate.branches),
        str(candidate.reads),
        candidate.key,
        value,
        where,
    )


def _finish(result: FindResult) -> int:
    """Refused named flags and skipped files on stderr, as apply names them, and a summary line."""
    for refusal in result.refused:
        typer.echo(f"prune-flags: {refusal.message}", err=True)
    for refusal in result.held_back:
        typer.echo(
            f"prune-flags: not proposed, as apply would refuse it: {refusal.message}", err=True
        )
    for skipped in result.skipped:
        typer.echo(f"prune-flags: skipped {skipped.display}: {skipped.error}", err=True)
    count = len(result.candidates)
    named = sum(candidate.named for candidate in result.candidates)
    summary = f"{count} candidate{'s' if count != 1 else ''}"
    summary += f" ({named} named) in {result.files} files" if named else f" in {result.files} files"
    refused = len({refusal.flag for refusal in result.refused})
    if refused:
        summary += f"; {refused} named flag{'s' if refused != 1 else ''} refused"
    held = len({refusal.flag for refusal in result.held_back})
    if held:
        summary += f"; {held} name{'s' if held != 1 else ''} held back"
    if count and not result.exact:
        summary += (
            "; counted from the folds alone, at least what the cleanup does"
            " (--exact: the cleanup's own counts)"
        )
    typer.echo(summary, err=True)
    return EXIT_SKIPPED if result.skipped or result.refused else 0
