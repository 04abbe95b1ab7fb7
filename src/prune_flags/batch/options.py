"""What the batch command's options name, shared by the command and the work it launches:
where the repositories run, and the report's default name."""

from __future__ import annotations

from enum import Enum


class ExecutorKind(str, Enum):
    local = "local"
    dask = "dask"


DEFAULT_REPORT_NAME = "batch-report.jsonl"
