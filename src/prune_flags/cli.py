"""The command line: parses options, runs the engine, renders the Report. No logic of its own."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from prune_flags.batch.command import batch
from prune_flags.config import ConfigError
from prune_flags.config_files import load_config
from prune_flags.exits import EXIT_CHANGES, EXIT_SKIPPED, usage_error, use_color
from prune_flags.find.command import find
from prune_flags.report import Report, explain_lines, render_diff

if TYPE_CHECKING:
    from rich.console import Console

app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    no_args_is_help=True,
    help="Delete stale flags from Python code: inline the constant, fold dead branches, "
    "remove what only the dead code used.",
    context_settings={"help_option_names": ["-h", "--help"]},
)

PathsArgument = typer.Argument(
    None, help="Files or directories to clean up (default: .).", show_default=False
)
ConfigOption = typer.Option(
    None, "--config", help="TOML file with the flags and options at its top level."
)
FlagOption = typer.Option(
    None,
    "--flag",
    help="NAME=VALUE, repeatable; VALUE is a Python literal (True, None, 3, 'x'). Overrides"
    " the config. "
    "A qualified NAME (pkg.mod.Class.fast) scopes the flag to that definition.",
)
NoFormatOption = typer.Option(False, "--no-format", help="Do not run black on the changed lines.")
ReportOption = typer.Option(None, "--report", help="Also write the JSON report to this file.")
ColorOption = typer.Option(
    None,
    "--color/--no-color",
    help="Colour the output (default: on a terminal; NO_COLOR honoured).",
)
JobsOption = typer.Option(
    None,
    "-j",
    "--jobs",
    min=1,
    help="Processes for rewriting when many files change (default: all cores).",
)
ExplainOption = typer.Option(
    False, "--explain", help="Print one line per change: path:line  flag  action  reason."
)
QuietOption = typer.Option(False, "-q", "--quiet", help="No progress and no summary line.")


class ProgressKind(str, Enum):
    auto = "auto"  # a bar on a terminal, nothing elsewhere
    bar = "bar"
    plain = "plain"  # lines, as CI logs need
    none = "none"


ProgressOption = typer.Option(
    ProgressKind.auto,
    "--progress",
    help="How a long run shows it is alive: a bar on a terminal (auto), always a bar, plain"
    " lines on stderr (for CI logs), or nothing.",
)
StrictOption = typer.Option(
    False,
    "--strict",
    help="Refuse a flag that anything gives another value (exit 123, nothing of it written) "
    "instead of removing and reporting those writes as overridden. Same as strict = true in"
    " the config.",
)
PROGRESS_THRESHOLD = 200  # files: below this a run is too quick for a bar


def _check_report(report_file: Path | None) -> None:
    """A report that cannot be written is a usage error found before any file is touched."""
    if report_file is None:
        return
    folder = report_file.parent if str(report_file.parent) else Path(".")
    if not folder.is_dir():
        raise usage_error(f"{report_file}: --report: no directory {folder} to write it in")
    if not os.access(folder, os.W_OK) or (
        report_file.exists() and not os.access(report_file, os.W_OK)
    ):
        raise usage_error(f"{report_file}: --report: not writable")


def _run(
    paths: list[Path] | None,
    config_file: Path | None,
    flags: list[str] | None,
    no_format: bool,
    progress: ProgressKind,
    jobs: int | None = None,
    contents: Mapping[Path, bytes] | None = None,
    strict: bool = False,
) -> Report:
    from prune_flags.engine.driver import run
    from prune_flags.semantic.repository import NoPythonFiles

    targets = list(paths or [Path(".")])
    for target in targets:
        if not target.exists():
            raise usage_error(f"{target}: no such file or directory")
    if config_file is not None and config_file.is_dir():
        raise usage_error(f"{config_file}: --config: is a directory; give the TOML file itself")
    if config_file is not None and not config_file.is_file():
        raise usage_error(f"{config_file}: --config: no such file")
    try:
        config = load_config(targets, config_file, flags or [])
    except ConfigError as err:
        raise usage_error(str(err)) from None
    if no_format:
        config = replace(config, format="none")
    if strict:
        config = replace(config, strict=True)
    try:
        if progress is ProgressKind.auto:
            progress = ProgressKind.bar if sys.stderr.isatty() else ProgressKind.none
        if progress is ProgressKind.none:
            return run(config, targets, Path.cwd(), jobs=jobs, contents=contents)
        shown = _progress_bar() if progress is ProgressKind.bar else _progress_lines()
        with shown as (advance, say):
            return run(config, targets, Path.cwd(), advance, jobs, contents, say)
    except NoPythonFiles as err:
        raise usage_error(
            f"{err}: no Python files to clean up"
            " (none found, or all excluded by .gitignore or exclude)"
        ) from None
    except ConfigError as err:  # a qualified key that names nothing among the files
        raise usage_error(str(err)) from None


Shown = Iterator[tuple[Callable[[int, int], None], Callable[[str], None]]]


@contextlib.contextmanager
def _progress_bar() -> Shown:
    """A bar on stderr while files are read, shown only once the tree is large enough to wait
    for, and a line when a rewrite takes long."""
    from rich.progress import Progress  # only when asked for: rich costs start-up time

    with Progress(transient=True, console=_stderr_console()) as bar:
        task = None

        def advance(done: int, total: int) -> None:
            nonlocal task
            if total < PROGRESS_THRESHOLD:
                return
            if task is None:
                task = bar.add_task("reading", total=total)
            bar.update(task, completed=done)

        def say(message: str) -> None:
            bar.console.print(f"prune-flags: {message}", markup=False, highlight=False)

        yield advance, say


@contextlib.contextmanager
def _progress_lines() -> Shown:
    """Lines on stderr, for logs: the files read at each quarter of a large tree, and a line when
    a rewrite takes long."""
    shown = 0

    def advance(done: int, total: int) -> None:
        nonlocal shown
        quarter = done * 4 // total if total >= PROGRESS_THRESHOLD else 0
        if quarter > shown:
            shown = quarter
            typer.echo(f"prune-flags: read {done} of {total} files", err=True)

    yield advance, lambda message: typer.echo(f"prune-flags: {message}", err=True)


def _stderr_console() -> Console:
    from rich.console import Console

    return Console(stderr=True)


def _finish(report: Report, report_file: Path | None, explain: bool, quiet: bool) -> int:
    if explain:
        for line in explain_lines(report.changed_files, report.left):
            typer.echo(line)
    for override in report.overrides:  # the config's decision changed what the code said
        typer.echo(f"prune-flags: {override}", err=True)
    for conflict in report.conflicts:
        typer.echo(f"prune-flags: {conflict}", err=True)
    for site in report.left:
        typer.echo(f"prune-flags: {site.message}", err=True)
    for warning in report.warnings:  # a warning, not a refusal: the exit code stays
        typer.echo(f"prune-flags: warning: {warning.message}", err=True)
    for notice in report.notices:
        typer.echo(f"prune-flags: warning: {notice}", err=True)
    for skipped in report.skipped:
        typer.echo(f"prune-flags: skipped {skipped.display}: {skipped.error}", err=True)
    if report_file is not None:
        report.write_json(report_file)
    if not quiet:
        typer.echo(report.summary_line(), err=True)
    return EXIT_SKIPPED if report.skipped or report.conflicts or report.left else 0


DIFF_HELP = (
    "Dry run: print the unified diff the cleanup would make; write nothing.\n"
    "\n"
    "Exit 0: no changes; 1: changes shown; 2: bad usage or config; 123: some files skipped,"
    " a flag refused (ambiguous, read as an object, or given another value under --strict),"
    " or sites of a flag left as they were (a re-export; named on stderr).\n"
    "\n"
    "The config is the decision: a flag's definitions go whatever value they hold, and"
    " writes of another value are removed and reported as overridden (a warning line on"
    " stderr each).\n"
    "\n"
    "In test files, a test that exists only to exercise another value goes (removed-test, a"
    " warning line each); one that also checks other things loses only the write, reported"
    ' as possibly pinning. tests = "report" in the config deletes no test.\n'
    "\n"
    "A name that unrelated definitions carry is refused as ambiguous; a qualified key scopes"
    " it: --flag pkg.mod.Engine.fast=False.\n"
    "\n"
    "Example: prune-flags diff src/ --flag manual_release_grads=False | git apply"
)


@app.command(help=DIFF_HELP)
def diff(
    paths: list[Path] | None = PathsArgument,
    config: Path | None = ConfigOption,
    flag: list[str] | None = FlagOption,
    no_format: bool = NoFormatOption,
    report: Path | None = ReportOption,
    color: bool | None = ColorOption,
    jobs: int | None = JobsOption,
    explain: bool = ExplainOption,
    quiet: bool = QuietOption,
    strict: bool = StrictOption,
    progress: ProgressKind = ProgressOption,
) -> None:
    """The `diff` command (its help: DIFF_HELP)."""
    _check_report(report)
    shown = ProgressKind.none if quiet else progress
    result = _run(paths, config, flag, no_format, shown, jobs, strict=strict)
    sys.stdout.flush()
    sys.stdout.buffer.write(render_diff(result.changed_files, color=use_color(color)))
    sys.stdout.buffer.flush()
    code = _finish(result, report, explain, quiet)
    raise typer.Exit(code or (EXIT_CHANGES if result.changed_files else 0))


APPLY_HELP = (
    "Rewrite the files in place (each written whole or not at all).\n"
    "\n"
    "Exit 0: done, whether or not anything changed; 2: bad usage or config, nothing written;\n"
    "123: some files skipped (named on stderr), the rest written; a flag refused"
    " (ambiguous, read as an object, or given another value under --strict), nothing of it"
    " written; or sites of a flag left as they were (a re-export; named on stderr), the rest"
    " of it written.\n"
    "\n"
    "The config is the decision: a flag's definitions go whatever value they hold, and"
    " writes of another value are removed and reported as overridden (a warning line on"
    " stderr each).\n"
    "\n"
    "In test files, a test that exists only to exercise another value goes (removed-test, a"
    " warning line each); one that also checks other things loses only the write, reported"
    ' as possibly pinning. tests = "report" in the config deletes no test.\n'
    "\n"
    "A name that unrelated definitions carry is refused as ambiguous; a qualified key scopes"
    ' it: "pkg.mod.Engine.fast" = false in [flags].\n'
    "\n"
    "Example: prune-flags apply --config codemods/manual_release_grads.toml megatron/"
)


@app.command(help=APPLY_HELP)
def apply(
    paths: list[Path] | None = PathsArgument,
    config: Path | None = ConfigOption,
    flag: list[str] | None = FlagOption,
    no_format: bool = NoFormatOption,
    report: Path | None = ReportOption,
    color: bool | None = ColorOption,
    jobs: int | None = JobsOption,
    explain: bool = ExplainOption,
    quiet: bool = QuietOption,
    strict: bool = StrictOption,
    interactive: bool = typer.Option(
        False,
        "--interactive",
        "-i",
        help="Review each hunk as git add -p does: y apply, n skip, a/d the rest of the file,"
        " q stop, ? help.",
    ),
    progress: ProgressKind = ProgressOption,
) -> None:
    """The `apply` command (its help: APPLY_HELP)."""
    from prune_flags.engine.driver import write_changes

    _check_report(report)
    shown = ProgressKind.none if quiet else progress
    result = _run(paths, config, flag, no_format, shown, jobs, strict=strict)
    if interactive:
        quietly = ProgressKind.none  # (the plans between questions are quick, and unasked for)
        result = _review(
            result,
            lambda contents: _run(paths, config, flag, no_format, quietly, jobs, contents, strict),
        )
    write_changes(result)
    raise typer.Exit(_finish(result, report, explain, quiet))


app.command()(find)
app.command()(batch)


REVIEW_HELP = """\
y - apply this hunk
n - do not apply this hunk (its lines stay, and what they read)
a - apply this hunk and every later hunk of the file
d - do not apply this hunk or any later hunk of the file
q - quit: apply no hunk left; what was accepted is applied
? - print this help"""


def _review(report: Report, plan: Callable[[Mapping[Path, bytes]], Report]) -> Report:
    """Ask about every hunk; a declined one keeps its lines and what they read (see review.py)."""
    from prune_flags.report import FileResult
    from prune_flags.review import Hunk, review

    def ask(result: FileResult, hunk: Hunk) -> str:
        typer.echo(f"{result.display}\n{hunk.render(result.old_text)}", nl=False)
        for change in hunk.reasons(result.changes):
            typer.echo(f"  # {change.flag}  {change.action}  {change.reason}")
        while True:  # as `git add -p`: anything but a choice prints the choices and asks again
            typer.echo("apply this hunk [y,n,a,d,q,?]? ", nl=False)
            try:
                answer = input().strip().lower()
            except EOFError:  # the end of the answers is a quit: what was accepted is applied
                typer.echo("")
                return "q"
            if not sys.stdin.isatty():  # answers from a pipe: the transcript shows each
                typer.echo(answer)
            if answer in ("y", "n", "a", "d", "q"):
                return answer
            typer.echo(REVIEW_HELP, err=True)

    return review(report, plan, ask, lambda message: typer.echo(message, err=True))


def main() -> None:
    try:
        app()  # click exits for usage errors, Ctrl-C and each command's own code
    except Exception as err:  # what no stage expected: never an exit a script reads as success
        typer.echo(f"prune-flags: internal error: {type(err).__name__}: {err}", err=True)
        raise SystemExit(EXIT_SKIPPED) from None
