"""One repository of the batch, start to end: clone or fetch, branch, clean up, commit, push.

`process_repo` depends only on its arguments and the workdir, and returns every failure as a
value, so it runs the same in this process, in a worker process or on a Dask worker.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeGuard

from prune_flags import __version__
from prune_flags.batch.git import Git, GitError, Identity
from prune_flags.batch.repo_config import config_for
from prune_flags.batch.repos import RepoSpec
from prune_flags.batch.result import DONE, RepoResult
from prune_flags.config import Config, ConfigError
from prune_flags.report import PRUNED, Report, render_diff


class RepoError(Exception):
    """A repository batch cannot work on; str(err) says what is wrong with it."""


@dataclass(frozen=True)
class Campaign:
    """What every repository of the batch gets done to it."""

    config: Config
    workdir: Path  # absolute, and a path every worker sees
    branch: str
    message: str | None  # None: one listing the flags and counts
    push: bool
    dry_run: bool
    identity: Identity
    # A repository where the cleanup changes what the code did (--fail-on-override) fails, with
    # nothing committed or written, so that scripts stop on it.
    fail_on_override: bool = False

    @property
    def config_hash(self) -> str:
        """Equal for two runs that would make the same change from the same head."""
        config = self.config
        material = {
            "prune-flags": __version__,
            "flags": [[flag.name, flag.source] for flag in config.flags],
            "accessors": config.accessors,
            "writers": config.writers,
            "option_calls": config.option_calls,
            "keep": config.keep,
            "keep_asserts": config.keep_asserts,
            "format": config.format,
            "exclude": config.exclude,
            "branch": self.branch,
            "message": self.message,
            "push": self.push,
            "dry_run": self.dry_run,
            "fail_on_override": self.fail_on_override,
        }
        return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()[:16]


def process_repo(
    spec: RepoSpec, campaign: Campaign, previous: RepoResult | None = None
) -> RepoResult:
    """Do the campaign to one repository; `previous` is its last result, to skip it when done."""
    try:
        with tempfile.TemporaryDirectory(prefix="prune-flags-no-hooks-") as hooks:
            git = Git(Path(hooks), campaign.identity, campaign.workdir)
            return _Job(spec, campaign, git).run(previous)
    except (RepoError, GitError, ConfigError, OSError) as err:
        return failed(spec.source, campaign, str(err))
    # A fault on one repository's code (an engine bug) must not end the batch.
    except Exception as err:  # noqa: BLE001
        return failed(spec.source, campaign, f"internal error: {type(err).__name__}: {err}")


def failed(repo: str, campaign: Campaign, error: str) -> RepoResult:
    return RepoResult(repo, "failed", error=error, config_hash=campaign.config_hash)


@dataclass(frozen=True)
class _Job:
    spec: RepoSpec
    campaign: Campaign
    git: Git

    @property
    def clone(self) -> Path:
        return self.campaign.workdir / self.spec.name

    @property
    def patch(self) -> Path:
        return self.campaign.workdir / f"{self.spec.name}.patch"

    def run(self, previous: RepoResult | None) -> RepoResult:
        default_branch, head = self._sync()
        if _done(previous, self.campaign.config_hash, head):
            return previous.skipped()
        result = RepoResult(
            self.spec.source, "unchanged", head=head, config_hash=self.campaign.config_hash
        )
        self._check_out(default_branch, head)
        from prune_flags.engine.driver import run

        report = run(config_for(self.campaign.config, self.clone), [self.clone], self.clone)
        result = replace(
            result,
            flags=report.verdicts,
            overridden=tuple(report.overrides),
            left=tuple(site.message for site in report.left),
        )
        if self.campaign.fail_on_override and result.overridden:
            count = len(result.overridden)
            return replace(
                result,
                status="failed",
                error=f"--fail-on-override: the cleanup changes what the code did at {count}"
                f" place{'' if count == 1 else 's'} (see overridden); nothing committed",
            )
        if self.campaign.dry_run:
            return self._write_patch(report, result)
        return self._commit(report, result)

    def _sync(self) -> tuple[str, str]:
        """Clone, or fetch into the clone already there; the default branch's name and head."""
        clone, git, source = self.clone, self.git, self.spec.source
        if not clone.exists():
            git(self.campaign.workdir, "clone", "-q", "--no-checkout", "--", source, str(clone))
        else:
            self._check_existing_clone()
            git(clone, "fetch", "-q", "--prune", "--", "origin")
            git(clone, "remote", "set-head", "origin", "--auto")
        try:
            ref = git(clone, "symbolic-ref", "-q", "refs/remotes/origin/HEAD")
        except GitError:
            raise RepoError("origin has no default branch (is it empty?)") from None
        head = git(clone, "rev-parse", "--verify", "-q", f"{ref}^{{commit}}")
        return ref.removeprefix("refs/remotes/origin/"), head

    def _check_existing_clone(self) -> None:
        clone = self.clone
        dot_git = clone / ".git"
        # A .git file or link would send git to a repository outside the workdir.
        if clone.is_symlink() or dot_git.is_symlink() or not dot_git.is_dir():
            raise RepoError(f"{clone} is in the way: it is not a clone batch made; move it away")
        self.git.check_clone_config(clone)
        origin = self.git(clone, "config", "--get", "remote.origin.url")
        if origin != self.spec.source:
            raise RepoError(
                f"{clone} is a clone of {origin}, not of {self.spec.source}; move it away"
            )

    def _check_out(self, default_branch: str, head: str) -> None:
        git, branch = self.git, self.campaign.branch
        if self.campaign.dry_run:
            git(self.clone, "checkout", "-q", "-f", "--detach", head, "--")
        elif branch == default_branch:
            raise RepoError(
                f"--branch {branch} is this repository's default branch; choose another"
            )
        else:
            git(self.clone, "checkout", "-q", "-f", "-B", branch, head, "--")
        # Leftovers of an interrupted run (a temporary file beside a rewritten one) must not
        # become part of the cleanup.
        git(self.clone, "clean", "-q", "-ffdx", "--")

    def _write_patch(self, report: Report, result: RepoResult) -> RepoResult:
        self.patch.unlink(missing_ok=True)  # a stale patch, or a link planted in its place
        if not report.changed_files:
            return replace(result, warnings=_warnings(report))
        self._paths_inside(report)
        self.patch.write_bytes(render_diff(report.changed_files))
        return replace(_counted(result, report), patch=str(self.patch))

    def _commit(self, report: Report, result: RepoResult) -> RepoResult:
        if not report.changed_files:
            return replace(result, warnings=_warnings(report))
        self._paths_inside(report)
        from prune_flags.engine.driver import write_changes

        write_changes(report)  # a file it cannot write moves to report.skipped
        if not report.changed_files:
            raise RepoError("no changed file could be written: " + "; ".join(_warnings(report)))
        git, campaign = self.git, self.campaign
        git(self.clone, "add", "--", *self._paths_inside(report))
        message = campaign.message or commit_message(report, campaign.config)
        git(self.clone, "commit", "-q", "--no-verify", "--no-gpg-sign", "-m", message)
        commit = git(self.clone, "rev-parse", "--verify", "HEAD")
        if campaign.push:
            ref = f"refs/heads/{campaign.branch}"
            # The branch restarts from the default head on every redo, so it is replaced; the
            # lease refuses when someone pushed to it since the fetch.
            lease = f"--force-with-lease={ref}"
            git(self.clone, "push", "-q", "--no-verify", lease, "--", "origin", f"{ref}:{ref}")
        counted = _counted(result, report)
        return replace(counted, branch=campaign.branch, commit=commit, pushed=campaign.push)

    def _paths_inside(self, report: Report) -> list[str]:
        """The changed files relative to the clone; a file resolving outside it stops the
        repository."""
        root = os.path.realpath(self.clone)
        paths = []
        for changed in report.changed_files:
            real = os.path.realpath(changed.path)
            if os.path.commonpath([real, root]) != root:
                raise RepoError(f"{changed.display} resolves to {real}, outside the repository")
            paths.append(Path(os.path.relpath(real, root)).as_posix())
        return paths


def _done(previous: RepoResult | None, config_hash: str, head: str) -> TypeGuard[RepoResult]:
    """Whether an earlier run did this campaign to this head; a failed one is retried."""
    return (
        previous is not None
        and previous.status in DONE
        and previous.config_hash == config_hash
        and previous.head == head
    )


def _counted(result: RepoResult, report: Report) -> RepoResult:
    removed, added = report.line_counts()
    return replace(
        result,
        status="changed",
        files_changed=len(report.changed_files),
        lines_removed=removed,
        lines_added=added,
        warnings=_warnings(report),
    )


def _warnings(report: Report) -> tuple[str, ...]:
    skipped = (f"skipped {item.display}: {item.error}" for item in report.skipped)
    return (*report.conflicts, *(site.message for site in report.left), *skipped, *report.notices)


def commit_message(report: Report, config: Config) -> str:
    """A subject naming the flags, then each flag's value and how much its removal changed."""
    names = [flag.name for flag in config.flags]
    plural = "s" if len(names) > 1 else ""
    subject = (
        f"Remove stale flag{plural} {', '.join(names)}"
        if len(names) <= 3
        else f"Remove {len(names)} stale flags"
    )
    changes: Counter[str] = Counter()
    files: dict[str, set[str]] = {name: set() for name in names}
    for result in report.changed_files:
        for change in result.changes:
            changes[change.flag] += 1
            files.setdefault(change.flag, set()).add(result.display)
    verdicts = report.verdicts
    lines = [
        (
            f"- {flag.name} = {flag.source}: {_count(changes[flag.name], 'change')} "
            f"in {_count(len(files[flag.name]), 'file')}"
            if verdicts.get(flag.name, PRUNED) == PRUNED
            else f"- {flag.name} = {flag.source}: left as it is ({verdicts[flag.name]})"
        )
        for flag in config.flags
    ]
    lines += [f"- left as it is: {site.message}" for site in report.left]
    lines += [f"- changes what the code did: {override}" for override in report.overrides]
    body = "\n".join(lines)
    return f"{subject}\n\n{body}\n\n{report.summary_line()}\n\nMade by prune-flags {__version__}.\n"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
