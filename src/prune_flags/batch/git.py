"""git called so that nothing from a repository, or from the user's git config, runs.

Every call is an argument list (no shell) with `--` before positional arguments, hooks pointed
at an empty directory, fsmonitor, signing, submodules and LFS filters off, and the system and
global config files replaced by nothing; only the identity is passed in, explicitly.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

GIT_TIMEOUT_SECONDS = 15 * 60  # a clone of a large repository over a slow link, not a hang
# Only these of the caller's GIT_* variables reach git: GIT_ASKPASS is how --push gets
# credentials for https now that no credential helper is read from the global config.
_PASSED_GIT_VARIABLES = frozenset({"GIT_ASKPASS"})
# What `git clone` itself writes into a clone's .git/config. Any other key was put there by
# someone else and may name a command git would run (core.fsmonitor, filter drivers,
# url.*.insteadOf, remote.origin.uploadpack, include.path), so such a clone is not used.
_CLONE_CONFIG_KEYS = re.compile(
    r"core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode"
    r"|symlinks)|remote\.origin\.(url|fetch)|branch\..+\.(remote|merge)|extensions\.objectformat",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Identity:
    name: str
    email: str


DEFAULT_IDENTITY = Identity("prune-flags", "prune-flags@example.invalid")


class GitError(Exception):
    """A git call that failed; str(err) names the subcommand and git's own message."""

    def __init__(self, subcommand: str, message: str) -> None:
        super().__init__(subcommand, message)  # in args, so that it pickles across processes
        self.subcommand = subcommand
        self.message = message

    def __str__(self) -> str:
        return f"git {self.subcommand}: {self.message}"


@dataclass(frozen=True)
class Git:
    """Runs git for the clones under `ceiling` (the workdir), which git never searches above."""

    hooks_dir: Path  # an empty directory
    identity: Identity
    ceiling: Path

    def __call__(self, cwd: Path, *args: str) -> str:
        return _run(list(args), cwd, self._environment(), self._settings())

    def check_clone_config(self, clone: Path) -> None:
        """Refuse a clone whose .git/config holds keys `git clone` does not write."""
        names = self(clone, "config", "--local", "--name-only", "--list").splitlines()
        foreign = sorted({name for name in names if not _CLONE_CONFIG_KEYS.fullmatch(name)})
        if foreign:
            raise GitError(
                "config",
                f"{clone}/.git/config sets {', '.join(foreign)}, which batch does not write and "
                "which could run commands; delete the clone to start it afresh",
            )

    def _settings(self) -> list[str]:
        settings = {
            "core.hooksPath": str(self.hooks_dir),
            "core.fsmonitor": "false",
            "commit.gpgSign": "false",
            "submodule.recurse": "false",
            # An empty filter command is no filter: git keeps the file's bytes as they are.
            "filter.lfs.smudge": "",
            "filter.lfs.clean": "",
            "filter.lfs.process": "",
            "filter.lfs.required": "false",
            "user.name": self.identity.name,
            "user.email": self.identity.email,
        }
        return [option for key, value in settings.items() for option in ("-c", f"{key}={value}")]

    def _environment(self) -> dict[str, str]:
        environment = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith("GIT_") or key in _PASSED_GIT_VARIABLES
        }
        environment.update(
            GIT_TERMINAL_PROMPT="0",
            GIT_CONFIG_NOSYSTEM="1",
            GIT_CONFIG_GLOBAL=os.devnull,
            GIT_LFS_SKIP_SMUDGE="1",
            GIT_ALLOW_PROTOCOL="https:file",
            GIT_LITERAL_PATHSPECS="1",  # a file named ":(exclude)x" is a file, not pathspec magic
            GIT_CEILING_DIRECTORIES=str(self.ceiling),
        )
        return environment


def caller_identity(cwd: Path) -> Identity:
    """user.name and user.email from the caller's own git config, else the prune-flags default."""
    name = _caller_setting(cwd, "user.name")
    email = _caller_setting(cwd, "user.email")
    return Identity(name or DEFAULT_IDENTITY.name, email or DEFAULT_IDENTITY.email)


def is_branch_name(name: str) -> bool:
    # git would read "-x" as an option of `checkout -B`; check-ref-format --branch refuses HEAD.
    if name.startswith("-"):
        return False
    try:
        _run(["check-ref-format", "--branch", name], Path("/"), dict(os.environ))
    except GitError:
        return False
    return True


def _caller_setting(cwd: Path, key: str) -> str:
    try:
        return _run(["config", "--get", key], cwd, dict(os.environ))
    except GitError:
        return ""


def _run(
    args: list[str], cwd: Path, environment: dict[str, str], settings: list[str] | None = None
) -> str:
    subcommand = args[0]
    try:
        done = subprocess.run(
            ["git", *(settings or []), *args],
            cwd=cwd,
            env=environment,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            encoding="utf-8",
            errors="replace",
            timeout=GIT_TIMEOUT_SECONDS,
        )
    except subprocess.TimeoutExpired:
        raise GitError(subcommand, f"no answer after {GIT_TIMEOUT_SECONDS} seconds") from None
    except OSError as err:
        raise GitError(subcommand, f"cannot run git: {err.strerror or err}") from None
    if done.returncode:
        raise GitError(subcommand, _failure(done.stderr, done.returncode))
    return done.stdout.strip()


def _failure(stderr: str, returncode: int) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith(("fatal:", "error:"))]
    return " / ".join(errors or lines[-1:]) or f"exit status {returncode}"
