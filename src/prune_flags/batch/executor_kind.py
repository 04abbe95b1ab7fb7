"""Where a batch runs its repositories: named by the command's options, acted on by the executors."""

from __future__ import annotations

from enum import Enum


class ExecutorKind(str, Enum):
    local = "local"
    dask = "dask"
