"""`prune-flags batch` run: the options checked before any repository is touched, the
executor, the report as results arrive, and the table.
"""

from __future__ import annotations

import os
from collections import Counter
from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass
from pathlib import Path

import typer

from prune_flags.batch.display import count_line, print_table, track
from prune_flags.batch.executors import ExecutorError, Runner, open_executor
from prune_flags.batch.git import caller_identity, is_branch_name
from prune_flags.batch.job import Campaign, failed
from prune_flags.batch.options import DEFAULT_REPORT_NAME, ExecutorKind
from prune_flags.batch.repos import RefusedLine, RepoSpec, read_repo_list
from prune_flags.batch.result import RepoResult
from prune_flags.batch.state import ReportLog, StateError, load_results
from prune_flags.config import ConfigError
from prune_flags.config_files import load_config
from prune_flags.exits import EXIT_FAILED, usage_error


@dataclass(frozen=True)
class BatchOptions:
    """What the command line says to do to each repository, beside the flags."""

    branch: str
    message: str | None
    push: bool
    dry_run: bool
    fail_on_override: bool = False


def run_batch(
    repos: Path,
    config: Path,
    workdir: Path,
    options: BatchOptions,
    jobs: int | None,
    executor: ExecutorKind,
    scheduler: str | None,
    report: Path | None,
) -> int:
    """The batch's exit code: 0 every repository succeeded, 1 some failed (typer.Exit(2) on bad
    usage)."""
    campaign, specs, refused = _prepare(repos, config, workdir, options, executor, scheduler)
    report_file = report or campaign.workdir / DEFAULT_REPORT_NAME
    previous = _previous(report_file)
    if not specs and not refused:
        typer.echo(f"prune-flags: {repos}: lists no repositories", err=True)
        return 0
    workers = min(jobs or os.cpu_count() or 1, max(len(specs), 1))
    try:
        executor_context = open_executor(executor, workers, scheduler) if specs else None
        results = _run(campaign, specs, refused, previous, report_file, executor_context)
    except ExecutorError as err:
        raise usage_error(str(err)) from None
    print_table(results)
    counts: Counter[str] = Counter(result.status for result in results)
    typer.echo(f"{len(results)} repositories: {count_line(counts)}", err=True)
    return EXIT_FAILED if counts["failed"] else 0


def _run(
    campaign: Campaign,
    specs: list[RepoSpec],
    refused: list[RefusedLine],
    previous: dict[str, RepoResult],
    report_file: Path,
    executor: AbstractContextManager[Runner] | None,
) -> list[RepoResult]:
    """Every line's result, in the list's order; each goes into the report as it arrives."""
    results: dict[int, RepoResult] = {}  # by line in the list
    with ExitStack() as stack:
        # The executor starts first: when it cannot (exit 2), the report is left as it was.
        runner = stack.enter_context(executor) if executor is not None else None
        log = stack.enter_context(ReportLog(report_file, previous))
        for line in refused:
            results[line.line] = failed(line.text, campaign, line.error)
            log.add(results[line.line])
        if runner is not None:
            lines = {spec.source: spec.line for spec in specs}
            tasks = [(spec, previous.get(spec.source)) for spec in specs]
            for result in track(runner(tasks, campaign), len(tasks)):
                results[lines[result.repo]] = result
                log.add(result)
        ordered = [results[line] for line in sorted(results)]
        log.close([result.repo for result in ordered])
    return ordered


def _prepare(
    repos: Path,
    config: Path,
    workdir: Path,
    options: BatchOptions,
    executor: ExecutorKind,
    scheduler: str | None,
) -> tuple[Campaign, list[RepoSpec], list[RefusedLine]]:
    """The campaign and the list, or a usage error (exit 2) before any repository is touched."""
    branch, message, push, dry_run = options.branch, options.message, options.push, options.dry_run
    if scheduler is not None and executor is not ExecutorKind.dask:
        raise usage_error("--scheduler needs --executor dask")
    if push and dry_run:
        raise usage_error(
            "--push and --dry-run exclude each other: a dry run commits nothing to push"
        )
    if not is_branch_name(branch):
        raise usage_error(f"--branch {branch!r} is not a valid git branch name")
    if message is not None and not message.strip():
        raise usage_error("--message is empty; git refuses an empty commit message")
    if not config.is_file():
        raise usage_error(f"{config}: --config: no such file")
    try:
        campaign_config = load_config([], config)
    except ConfigError as err:
        raise usage_error(str(err)) from None
    try:
        specs, refused = read_repo_list(repos)
    except OSError as err:
        raise usage_error(f"{repos}: --repos: cannot read: {err.strerror or err}") from None
    except UnicodeDecodeError as err:
        raise usage_error(f"{repos}: --repos: not UTF-8 at byte {err.start}") from None
    absolute_workdir = Path(os.path.abspath(workdir))
    try:
        absolute_workdir.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise usage_error(f"{workdir}: --workdir: cannot create: {err.strerror or err}") from None
    campaign = Campaign(
        config=campaign_config,
        workdir=absolute_workdir,
        branch=branch,
        message=message,
        push=push,
        dry_run=dry_run,
        identity=caller_identity(Path.cwd()),
        fail_on_override=options.fail_on_override,
    )
    return campaign, specs, refused


def _previous(report_file: Path) -> dict[str, RepoResult]:
    try:
        return load_results(report_file)
    except StateError as err:
        raise usage_error(f"--report: {err}") from None
