"""The JSON Lines report, which is also the batch's state.

Each result is appended the moment it arrives, so a batch that is stopped half-way resumes
from what it finished. When the run ends the file is rewritten with one line per repository
(the latest), in the order of the list.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import IO

from prune_flags.batch.result import RepoResult


class StateError(Exception):
    """A report file that cannot be read back; str(err) names the file, the line and the fault."""


def load_results(path: Path) -> dict[str, RepoResult]:
    """The latest result for each repository in the report, or nothing when there is no report."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as err:
        raise StateError(f"{path}: cannot read the report: {err}") from None
    results: dict[str, RepoResult] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            result = RepoResult.from_json(data)
        except ValueError as err:  # json.JSONDecodeError is one
            raise StateError(
                f"{path}:{number}: {err}; fix or delete the line (that repository is then redone)"
            ) from None
        results[result.repo] = result
    return results


class ReportLog:
    """Appends results to the report as they come, and leaves it compacted when closed."""

    def __init__(self, path: Path, previous: dict[str, RepoResult]) -> None:
        self._path = path
        self._latest = dict(previous)
        path.parent.mkdir(parents=True, exist_ok=True)
        self._stream: IO[str] = path.open("a", encoding="utf-8")

    def add(self, result: RepoResult) -> None:
        self._latest[result.repo] = result
        self._stream.write(_line(result))
        self._stream.flush()

    def close(self, order: Sequence[str]) -> None:
        """Rewrite the report: repositories no longer listed first, then the list's, in its
        order."""
        self._stream.close()
        listed = dict.fromkeys(repo for repo in order if repo in self._latest)
        others = [repo for repo in self._latest if repo not in listed]
        text = "".join(_line(self._latest[repo]) for repo in (*others, *listed))
        descriptor, temporary = tempfile.mkstemp(
            prefix=f".{self._path.name}.", dir=self._path.parent
        )
        with os.fdopen(descriptor, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, self._path)

    def __enter__(self) -> ReportLog:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        # On an interrupted run the appended lines stay as they are: they are the state to resume.
        self._stream.close()


def _line(result: RepoResult) -> str:
    return json.dumps(result.to_json()) + "\n"
