"""Where repositories are processed: a process pool on this machine, or a Dask cluster.

Both run the same `process_repo` and yield results as they finish. A worker that dies
becomes a failed result for its repository; the batch goes on.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from typing import TYPE_CHECKING

from prune_flags.batch.job import Campaign, failed, process_repo
from prune_flags.batch.options import ExecutorKind
from prune_flags.batch.repos import RepoSpec
from prune_flags.batch.result import RepoResult
from prune_flags.workers.pool import process_pool

if TYPE_CHECKING:
    from distributed import Client
    from distributed import Future as DaskFuture

Task = tuple[RepoSpec, RepoResult | None]  # a repository and its result from an earlier run
Runner = Callable[[Sequence[Task], Campaign], Iterator[RepoResult]]
DASK_CONNECT_TIMEOUT = "20s"


class ExecutorError(Exception):
    """The executor cannot be started; nothing was processed."""


@contextmanager
def open_executor(kind: ExecutorKind, jobs: int, scheduler: str | None) -> Iterator[Runner]:
    """A runner for the batch's tasks; ExecutorError when the executor cannot start."""
    if kind is ExecutorKind.local:
        with process_pool(jobs) as pool:  # its workers end with the batch, even a killed one
            yield lambda tasks, campaign: _pool_results(pool, tasks, campaign)
    else:
        with _dask_client(jobs, scheduler) as client:
            yield lambda tasks, campaign: _dask_results(client, tasks, campaign)


def _pool_results(
    pool: ProcessPoolExecutor, tasks: Sequence[Task], campaign: Campaign
) -> Iterator[RepoResult]:
    # Everything is submitted before the first result is taken, so the workers are forked
    # before the caller starts a progress display's thread.
    futures = {
        pool.submit(process_repo, spec, campaign, previous): spec for spec, previous in tasks
    }
    return _pool_completed(futures, campaign)


def _pool_completed(
    futures: dict[Future[RepoResult], RepoSpec], campaign: Campaign
) -> Iterator[RepoResult]:
    for future in as_completed(futures):
        try:
            yield future.result()
        except Exception as err:  # noqa: BLE001 - a dead worker fails its repository only
            yield failed(
                futures[future].source, campaign, f"worker lost: {type(err).__name__}: {err}"
            )


@contextmanager
def _dask_client(jobs: int, scheduler: str | None) -> Iterator[Client]:
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ExecutorError("--executor dask needs Dask: pip install 'prune-flags[dask]'") from None
    if scheduler is None:
        cluster = LocalCluster(
            n_workers=jobs,
            threads_per_worker=1,  # the engine is CPU-bound Python: processes, not threads
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
        with cluster, Client(cluster) as client:
            yield client
        return
    try:
        client = Client(scheduler, timeout=DASK_CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as err:
        raise ExecutorError(f"--scheduler {scheduler}: cannot connect: {err}") from None
    with client:
        yield client


def _dask_results(
    client: Client, tasks: Sequence[Task], campaign: Campaign
) -> Iterator[RepoResult]:
    from distributed import as_completed as dask_completed

    specs: dict[object, RepoSpec] = {}
    futures = []
    for spec, previous in tasks:
        future = client.submit(process_repo, spec, campaign, previous, pure=False)
        specs[future.key] = spec
        futures.append(future)
    return _dask_completed(dask_completed(futures), specs, campaign)


def _dask_completed(
    completed: Iterable[DaskFuture[RepoResult]], specs: dict[object, RepoSpec], campaign: Campaign
) -> Iterator[RepoResult]:
    for future in completed:
        try:
            yield future.result()
        except Exception as err:  # noqa: BLE001 - a lost worker or task fails its repository only
            yield failed(
                specs[future.key].source, campaign, f"worker lost: {type(err).__name__}: {err}"
            )
