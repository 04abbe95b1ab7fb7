"""The repository list: one local path or https:// URL a line, each checked before git sees it.

A line is handed to git as an argument, so anything git could read as an option, a transport
helper (`ext::`), an ssh address or a name that leaves the workdir is refused here, for that
line alone; the batch goes on with the others.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit

# Git's own address forms that are not a plain path: `ext::cmd`, `fd::3`, `ssh://`, `file://`.
_TRANSPORT_HELPER = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*::")
_URL_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")
_HOSTNAME = re.compile(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*")
_UNSAFE_URL_CHARACTERS = re.compile(r"[\s\\\x00-\x1f\x7f]")
_CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f]")
_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9._-]+")
# " #" starts a comment after an entry; a bare "#" may belong to a path.
_TRAILING_COMMENT = re.compile(r"\s+#.*$")


@dataclass(frozen=True)
class RepoSpec:
    """One repository of the batch."""

    source: str  # an https:// URL or an absolute local path: what git clones, and the report's key
    name: str  # the clone's directory in the workdir: a single safe path component
    line: int


@dataclass(frozen=True)
class RefusedLine:
    line: int
    text: str
    error: str


class RefusedError(ValueError):
    pass


def read_repo_list(path: Path) -> tuple[list[RepoSpec], list[RefusedLine]]:
    """Parse the list file; relative paths in it are taken from the file's own directory."""
    text = path.read_text(encoding="utf-8")
    return parse_repo_list(text, Path(os.path.abspath(path)).parent)


def parse_repo_list(text: str, base: Path) -> tuple[list[RepoSpec], list[RefusedLine]]:
    specs: list[RepoSpec] = []
    refused: list[RefusedLine] = []
    first_line: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        entry = _TRAILING_COMMENT.sub("", raw).strip()
        if not entry or entry.startswith("#"):
            continue
        try:
            source = _source(entry, base)
            name = _clone_name(source)
            if source in first_line:
                raise RefusedError(f"repeats line {first_line[source]}")
        except RefusedError as err:
            refused.append(RefusedLine(number, entry, f"line {number}: {entry!r}: {err}"))
            continue
        first_line[source] = number
        specs.append(RepoSpec(source, name, number))
    return _unique_names(specs), refused


def _source(entry: str, base: Path) -> str:
    if entry.startswith("-"):
        raise RefusedError("starts with '-', which git would read as an option")
    if _TRANSPORT_HELPER.match(entry):
        raise RefusedError("git transport helpers (such as ext::) run commands; not accepted")
    scheme = _URL_SCHEME.match(entry)
    if scheme and scheme.group(1) == "https":
        return _https_url(entry)
    if scheme:
        raise RefusedError(
            f"{scheme.group(1)}:// is not accepted; use an https:// URL or a local path"
        )
    if _scp_like(entry):
        raise RefusedError(
            "ssh addresses (host:path) are not accepted; use an https:// URL or a local path"
        )
    if _CONTROL_CHARACTERS.search(entry):
        raise RefusedError("contains control characters")
    return os.path.abspath(base / os.path.expanduser(entry))


def _scp_like(entry: str) -> bool:
    # git reads "host:path" as ssh when the colon comes before any slash.
    colon = entry.find(":")
    slash = entry.find("/")
    return colon > 0 and (slash < 0 or colon < slash)


def _https_url(entry: str) -> str:
    if _UNSAFE_URL_CHARACTERS.search(entry):
        raise RefusedError("URL contains whitespace, backslashes or control characters")
    parts = urlsplit(entry)
    if parts.username is not None or parts.password is not None:
        raise RefusedError(
            "credentials in the URL would be stored in the clone and the report; "
            "give them to git through GIT_ASKPASS instead"
        )
    host = parts.hostname or ""
    if not _HOSTNAME.fullmatch(host):
        raise RefusedError(f"{host!r} is not a host name")
    try:
        _ = parts.port  # reading it checks it: urllib raises on a port out of range
    except ValueError as err:
        raise RefusedError(str(err)) from None
    if parts.query or parts.fragment:
        raise RefusedError("a repository URL takes no ?query or #fragment")
    if not parts.path.strip("/"):
        raise RefusedError("the URL names no repository (it has no path)")
    segments = parts.path.split("/")
    if any(segment in (".", "..") for segment in segments):
        raise RefusedError("the path has '.' or '..' segments")
    return entry


def _clone_name(source: str) -> str:
    """The directory name the clone gets: the last path segment, minus .git, made safe."""
    last = source.rstrip("/").rsplit("/", 1)[-1]
    if last.endswith(".git"):
        last = last[: -len(".git")]
    name = _NOT_IN_NAME.sub("-", last).lstrip(".-")
    if not name:
        raise RefusedError("has no repository name to give its clone in the workdir")
    return name


def _unique_names(specs: list[RepoSpec]) -> list[RepoSpec]:
    # Two repositories called "app" from different places must not share a clone; the suffix
    # comes from the source, so each keeps its directory whatever the order of the list.
    counts = Counter(spec.name for spec in specs)
    return [
        (
            replace(
                spec, name=f"{spec.name}-{hashlib.sha256(spec.source.encode()).hexdigest()[:8]}"
            )
            if counts[spec.name] > 1
            else spec
        )
        for spec in specs
    ]
