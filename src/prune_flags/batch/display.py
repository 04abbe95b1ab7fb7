"""What the batch shows while it runs and when it ends: progress on stderr, a table on stdout.

On a terminal a progress bar carries the count of each status; elsewhere (CI logs, scripts)
one line per finished repository. rich comes with typer; it is imported only here.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence

import typer

from prune_flags.batch.result import STATUSES, RepoResult

_STYLES = {"changed": "green", "unchanged": "dim", "failed": "bold red", "skipped": "cyan"}
# Outside a terminal rich would fold the table to 80 columns; a log reads better unfolded.
_LOG_WIDTH = 200


def track(results: Iterable[RepoResult], total: int) -> Iterator[RepoResult]:
    """Pass the results through, showing how far the batch is."""
    if sys.stderr.isatty():
        yield from _progress_bar(results, total)
        return
    for done, result in enumerate(results, start=1):
        typer.echo(f"[{done}/{total}] {result.status}: {result.repo}{_detail(result)}", err=True)
        yield result


def _progress_bar(results: Iterable[RepoResult], total: int) -> Iterator[RepoResult]:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    counts: Counter[str] = Counter()
    columns = (
        TextColumn("batch"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[counts]}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=Console(stderr=True)) as progress:
        task = progress.add_task("batch", total=total, counts=count_line(counts))
        for result in results:
            counts[result.status] += 1
            progress.update(task, advance=1, counts=count_line(counts, markup=True))
            yield result


def count_line(counts: Mapping[str, int], markup: bool = False) -> str:
    parts = (f"{counts.get(status, 0)} {status}" for status in STATUSES)
    if markup:
        parts = (f"[{_STYLES[status]}]{part}[/]" for status, part in zip(STATUSES, parts))
    return ", ".join(parts)


def _detail(result: RepoResult) -> str:
    if result.error:
        return f": {result.error}"
    if "changed" in (result.status, result.previous):
        files = "file" if result.files_changed == 1 else "files"
        counts = (
            f"{result.files_changed} {files} changed, "
            f"{result.lines_removed} lines removed, {result.lines_added} added"
        )
        return f" ({counts})" if result.status == "changed" else f" (done earlier: {counts})"
    return ""


def print_table(results: Sequence[RepoResult]) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console(width=None if sys.stdout.isatty() else _LOG_WIDTH)
    table = Table(
        "repository",
        "status",
        "files changed",
        "lines removed",
        "lines added",
        "overridden",  # places where the cleanup changed what the code did
        "left",  # sites left as they were
        "branch or error",
    )
    for result in results:
        table.add_row(
            escape(result.repo),
            _status(result),
            str(result.files_changed),
            str(result.lines_removed),
            str(result.lines_added),
            str(len(result.overridden)),
            str(len(result.left)),
            _outcome(result),
        )
    console.print(table)


def _status(result: RepoResult) -> str:
    """The status cell; a skipped repository's says what the run that did the work found."""
    shown = f"[{_STYLES[result.status]}]{result.status}[/]"
    return f"{shown} ({result.previous})" if result.previous else shown


def _outcome(result: RepoResult) -> str:
    from rich.markup import escape

    if result.error:
        lines = [escape(result.error)]
    elif result.patch:
        lines = [f"patch: {escape(result.patch)}"]
    elif result.branch:
        pushed = ", pushed" if result.pushed else ""
        lines = [f"{escape(result.branch)} ({(result.commit or '')[:10]}{pushed})"]
    else:
        lines = []
    lines.extend(f"[magenta]{escape(override)}[/]" for override in result.overridden)
    lines.extend(f"[yellow]{escape(warning)}[/]" for warning in result.warnings)
    return "\n".join(lines)
