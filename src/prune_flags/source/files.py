"""Source files on disk: finding them, reading them byte-exactly, and writing them back safely."""

from __future__ import annotations

import io
import os
import re
import secrets
import stat
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass


class SourceError(Exception):
    """A file that cannot be processed; str(err) says what is wrong with it, err.path names it."""

    def __init__(self, path: Path, message: str) -> None:
        # The parts go to Exception.args so that the error pickles across worker processes.
        super().__init__(path, message)
        self.path = path
        self.message = message

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class SourceFile:
    path: Path
    text: str
    encoding: str

    def encode(self, text: str) -> bytes:
        """text in the file's own encoding; "utf-8-sig" writes the byte order mark back."""
        try:
            return text.encode(self.encoding)
        except UnicodeEncodeError as err:
            line = err.object[: err.start].count("\n") + 1
            raise SourceError(
                self.path, f"cannot encode as {self.encoding} (line {line}): {err.reason}"
            ) from None


def read_source(path: Path) -> SourceFile:
    return decode_source(path, read_bytes(path))


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except IsADirectoryError:
        raise SourceError(path, "is a directory, not a file") from None
    except OSError as err:
        if path.is_symlink():
            raise SourceError(
                path, f"is a symbolic link that leads nowhere: {err.strerror}"
            ) from None
        raise SourceError(path, f"cannot read: {err.strerror or err}") from None


def decode_source(path: Path, data: bytes) -> SourceFile:
    """A file's bytes as text, in the encoding its BOM or coding cookie declares."""
    encoding = _detect_encoding(path, data)
    try:
        # bytes.decode does no newline translation: "\r\n" stays "\r\n" in the text.
        text = data.decode(encoding)
    except UnicodeDecodeError as err:
        line = err.object[: err.start].count(b"\n") + 1
        raise SourceError(
            path, f"cannot decode as {encoding} (line {line}): {err.reason}"
        ) from None
    return SourceFile(path=path, text=text, encoding=encoding)


def _detect_encoding(path: Path, data: bytes) -> str:
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as err:
        raise SourceError(path, f"cannot detect the encoding: {err.msg}") from None
    return encoding


def write_atomic(path: Path, data: bytes) -> None:
    """Replace path's content all at once, so a crash or a full disk never leaves half a file."""
    # Through a symlink: the link stays a link and its target gets the new content.
    target = Path(os.path.realpath(path))
    mode = _permission_bits(target)
    if _write_unnamed_then_rename(target, data, mode):
        return
    descriptor, temporary = _create_beside(target)
    try:
        with open(descriptor, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _write_unnamed_then_rename(target: Path, data: bytes, mode: int | None) -> bool:
    """On Linux, write into an unnamed file (O_TMPFILE) and give it a name only to rename it
    into place: a process killed while writing leaves nothing behind. False where unsupported,
    and the caller falls back to a named temporary file."""
    flag = getattr(os, "O_TMPFILE", None)
    if flag is None:
        return False
    try:
        descriptor = os.open(target.parent, flag | os.O_WRONLY, 0o666)
    except OSError:
        return False  # a filesystem without O_TMPFILE
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(8)}.tmp")
    with open(descriptor, "wb") as stream:
        stream.write(data)
        stream.flush()
        if mode is not None:
            os.fchmod(stream.fileno(), mode)
        os.fsync(stream.fileno())
        if not _name_unnamed(stream.fileno(), temporary):
            return False
    try:
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return True


def _name_unnamed(descriptor: int, name: Path) -> bool:
    """linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH), else through /proc/self/fd."""
    import ctypes  # only where O_TMPFILE exists

    libc = ctypes.CDLL(None, use_errno=True)
    at_fdcwd, at_empty_path = -100, 0x1000
    if libc.linkat(descriptor, b"", at_fdcwd, os.fsencode(name), at_empty_path) == 0:
        return True
    try:
        os.link(f"/proc/self/fd/{descriptor}", name, follow_symlinks=True)
    except OSError:
        return False
    return True


STALE_TEMPORARY = re.compile(r"^\.(?P<name>.+\.py)\.[0-9a-f]{16}\.tmp$")


def remove_stale_temporaries(files: Iterable[Path]) -> None:
    """Temporary files a killed earlier run left beside these files (ours, by their name)."""
    for directory in {path.parent for path in files}:
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            if STALE_TEMPORARY.match(entry.name) and entry.is_file(follow_symlinks=False):
                try:
                    os.unlink(entry.path)
                except OSError:
                    pass  # not ours to insist on: a read-only directory keeps it


def _permission_bits(path: Path) -> int | None:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return None


def _create_beside(target: Path) -> tuple[int, Path]:
    # In the same directory so os.replace is a rename on one filesystem; dot-prefixed so
    # watchers and globs skip it. O_EXCL never reuses an existing file, and mode 0o666
    # lets the umask decide a new file's permissions as it would for any other write.
    # O_BINARY (Windows only) keeps "\n" from becoming "\r\n" on the way to disk.
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(8)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    return os.open(temporary, flags, 0o666), temporary
