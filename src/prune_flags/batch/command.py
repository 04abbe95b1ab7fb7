"""`prune-flags batch`: its options and help.

Registering the command costs the other commands nothing more than typer: the work (git, the
executors, multiprocessing, Dask, rich) is in `launch`, imported only when a batch runs.
"""

from __future__ import annotations

from pathlib import Path

import typer

from prune_flags.batch.options import DEFAULT_REPORT_NAME, ExecutorKind

DEFAULT_WORKDIR = Path("prune-flags-batch")


def batch(
    repos: Path = typer.Option(
        ...,
        "--repos",
        help="File with one repository a line: a local path or an https:// URL; # comments.",
    ),
    config: Path = typer.Option(
        ..., "--config", help="TOML with the flags, as `apply --config` takes it."
    ),
    workdir: Path = typer.Option(
        DEFAULT_WORKDIR,
        "--workdir",
        help="Where the clones and dry-run patches go; Dask workers must see it.",
    ),
    branch: str = typer.Option(
        "prune-flags", "--branch", help="The branch made from each default branch's head."
    ),
    message: str | None = typer.Option(
        None,
        "--message",
        help="Commit message (default: the flags and what removing each changed).",
    ),
    push: bool = typer.Option(
        False, "--push", help="Push the branch to origin (replacing it when it exists)."
    ),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Commit nothing; write each repository's patch into the workdir."
    ),
    jobs: int | None = typer.Option(
        None,
        "-j",
        "--jobs",
        min=1,
        help="Repositories at a time (default: all cores; Dask: workers started).",
    ),
    executor: ExecutorKind = typer.Option(
        ExecutorKind.local, "--executor", help="local: a process pool here; dask: a Dask cluster."
    ),
    scheduler: str | None = typer.Option(
        None,
        "--scheduler",
        help="Address of a running Dask scheduler (default: start a local cluster).",
    ),
    fail_on_override: bool = typer.Option(
        False,
        "--fail-on-override",
        help="A repository where the cleanup removes a write of another value, or a test of"
        " it, fails (nothing committed): exit 1.",
    ),
    report: Path | None = typer.Option(
        None,
        "--report",
        help="JSON Lines report, also the state to resume from (default:"
        f" WORKDIR/{DEFAULT_REPORT_NAME}).",
    ),
) -> None:
    """The same cleanup over many git repositories: clone, branch, prune, commit, push.

    Running it again resumes: done repositories are skipped, failed ones retried.

    Exit 0: every repository succeeded; 1: some failed (with --fail-on-override, also one whose
    cleanup changes what its code did); 2: bad usage or config.

    Example: prune-flags batch --repos repos.txt --config flags.toml --push -j 4
    """
    from prune_flags.batch.launch import BatchOptions, run_batch

    options = BatchOptions(branch, message, push, dry_run, fail_on_override)
    code = run_batch(repos, config, workdir, options, jobs, executor, scheduler, report)
    raise typer.Exit(code)
