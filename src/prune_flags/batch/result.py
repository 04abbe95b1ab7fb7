"""The outcome for one repository: a report line, and the record a later run resumes from."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Literal, get_args

Status = Literal["changed", "unchanged", "failed", "skipped"]
STATUSES: tuple[str, ...] = get_args(Status)
# A repository with one of these is done: a later run with the same config and head skips it.
DONE: frozenset[str] = frozenset({"changed", "unchanged", "skipped"})


_LISTS = ("warnings", "overridden", "left")  # the fields a report line holds as lists


@dataclass(frozen=True)
class RepoResult:
    repo: str  # the list's entry as git is given it (absolute path or URL): the key for resuming
    status: Status
    branch: str | None = None  # set when a commit was made on it
    commit: str | None = None
    files_changed: int = 0
    error: str | None = None
    lines_removed: int = 0
    lines_added: int = 0
    # files skipped, flags not pruned for a conflicting write, and the formatting's notices
    warnings: tuple[str, ...] = ()
    pushed: bool = False
    patch: str | None = None  # --dry-run: where the repository's patch was written
    head: str | None = None  # the default branch's head the cleanup started from
    config_hash: str | None = None
    # A skipped repository's outcome in the run that did the work ("changed" or "unchanged"), so
    # that a rerun's report still says what became of it; None for the others, and for a line
    # written before this field existed.
    previous: Status | None = None
    # Each flag's verdict in this repository (Report.verdicts): `pruned`, or why it was refused
    # or left as it is; empty for a failed repository, and for a line written before this field.
    flags: Mapping[str, str] = field(default_factory=dict)
    # `path:line: why` of each place where the cleanup changed what the code did (a write of
    # another value removed, a test of it deleted), and of each site left as it was.
    overridden: tuple[str, ...] = ()
    left: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        line = asdict(self)
        for key in _LISTS:
            line[key] = list(getattr(self, key))
        return line

    @classmethod
    def from_json(cls, line: Mapping[str, object]) -> RepoResult:
        """The result a report line records; ValueError names the first field that is wrong."""
        if not isinstance(line.get("repo"), str):
            raise ValueError('"repo" is missing or not a string')
        if line.get("status") not in STATUSES:
            raise ValueError(
                f'"status" is {line.get("status")!r}; expected one of {", ".join(STATUSES)}'
            )
        known = {field.name for field in fields(cls)}
        values = {key: value for key, value in line.items() if key in known}
        for key in ("files_changed", "lines_removed", "lines_added"):
            if not isinstance(values.get(key, 0), int):
                raise ValueError(f'"{key}" is {values[key]!r}; expected a whole number')
        if values.get("previous") not in (None, *DONE - {"skipped"}):
            raise ValueError(
                f'"previous" is {values["previous"]!r}; expected changed, unchanged or null'
            )
        for key in _LISTS:
            items = values.get(key, [])
            if not isinstance(items, list):
                raise ValueError(f'"{key}" is not a list')
            values[key] = tuple(str(item) for item in items)
        flags = values.get("flags", {})
        if not isinstance(flags, dict) or not all(isinstance(word, str) for word in flags.values()):
            raise ValueError('"flags" is not an object of flag names and verdicts')
        return cls(**values)  # type: ignore[arg-type]  # a report line as the tool wrote it

    def skipped(self) -> RepoResult:
        """This done result, as a later run that skips the repository reports it: the fields of
        the run that did the work, and its status as `previous` (kept across further reruns)."""
        return replace(
            self,
            status="skipped",
            previous=self.previous if self.status == "skipped" else self.status,
        )
