"""Source files on disk: finding them, reading them byte-exactly, and writing them back safely."""

from __future__ import annotations

import bisect
import functools
import io
import os
import re
import secrets
import stat
import tokenize
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from prune_flags.syntax.spellings import spellings

if TYPE_CHECKING:
    from pathspec.pattern import Pattern


GITIGNORE = ".gitignore"
SKIPPED_DIRECTORIES = frozenset({".git"})


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


def internal_module_names(files: Iterable[Path], root: Path) -> frozenset[str]:
    """Every directory and module name in the tree: an import whose first part is one of them
    comes from the repository."""
    names: set[str] = set()
    for path in files:
        relative = Path(os.path.relpath(path, root))
        names.update(part for part in relative.parent.parts if part not in ("..", "."))
        names.add(path.stem)
    return frozenset(names)


def mentions_any(data: str, names: Iterable[str], words: frozenset[str] | None = None) -> bool:
    """Whether any name occurs in data as a whole word: files that fail this are left unparsed."""
    return bool(names_in(data, names, words))


def names_in(
    text: str, names: Iterable[str], words: frozenset[str] | None = None
) -> frozenset[str]:
    """The names that occur in text as whole words, in any of their spellings (`use_x`, or
    `use-x` as in `--use-x`: see shapes.spellings). An identifier does exactly when it is one of
    the text's words (`text_words`), a set worked out once per text, or given by a caller that
    keeps it: a run asks about thousands of names at once, and one pattern of all of them would
    cost a pass per name over every text."""
    return frozenset(name for name, _ in _spellings_in(text, names, words))


def _spellings_in(
    text: str, names: Iterable[str], words: frozenset[str] | None = None
) -> set[tuple[str, str]]:
    """(name, spelling) for each spelling of the names that occurs in text as a whole word."""
    words = _words(text) if words is None else words
    plain, others = _split_names(names if isinstance(names, frozenset) else frozenset(names))
    found = {(name, name) for name in words & plain}
    for name, spelling in others:
        if all(part in words for part in _word_parts(spelling)) and spelling in text:  # `use-x`
            pattern = _whole_word_pattern(frozenset([spelling]))
            if pattern is not None and pattern.search(text):
                found.add((name, spelling))
    return found


@functools.lru_cache(maxsize=64)
def _split_names(names: frozenset[str]) -> tuple[frozenset[str], tuple[tuple[str, str], ...]]:
    """The names that are one word each (found by a set intersection with a text's words), and
    the other spellings (`use-x`, "new-ui-") with their names, looked for one by one."""
    plain = frozenset(name for name in names if _word_parts(name) == (name,))
    others = tuple(
        (name, spelling)
        for name in names
        for spelling in spellings(name)
        if not (spelling == name and name in plain)
    )
    return plain, others


def lines_naming(text: str, names: Iterable[str]) -> frozenset[int]:
    """The lines (1-based) on which any of the names occurs as a whole word, in any of its
    spellings: not preceded or followed by a word character (so that "new-ui-", read through an
    accessor, counts too, and `use-x` in `"--use-x"`). Found with `str.find`, not a pattern of
    the names: every file has its own few, and compiling a pattern for each cost more than the
    search."""
    lines = set()
    for _, spelling in _spellings_in(text, names):
        position = text.find(spelling)
        while position != -1:
            end = position + len(spelling)
            if not _is_word_character(text, position - 1) and not _is_word_character(text, end):
                lines.add(bisect.bisect_right(_line_starts(text), position))
            position = text.find(spelling, position + 1)
    return frozenset(lines)


def _is_word_character(text: str, index: int) -> bool:
    """What `\\w` matches, at an index of the text (nothing outside it)."""
    return 0 <= index < len(text) and (text[index].isalnum() or text[index] == "_")


@functools.lru_cache(maxsize=64)
def _line_starts(text: str) -> list[int]:
    return [0] + [match.end() for match in re.finditer("\n", text)]


_WORD = re.compile(r"\w+")


def text_words(text: str) -> frozenset[str]:
    """The words of a text (runs of word characters)."""
    return frozenset(_WORD.findall(text))


_words = functools.lru_cache(maxsize=256)(text_words)


@functools.lru_cache(maxsize=4096)
def _word_parts(name: str) -> tuple[str, ...]:
    return tuple(_WORD.findall(name))


@functools.lru_cache(maxsize=32)
def _whole_word_pattern(names: frozenset[str]) -> re.Pattern[str] | None:
    if not names:
        return None
    alternatives = "|".join(re.escape(name) for name in sorted(names))
    # Lookarounds rather than \b: same result for identifiers, but a name that starts or
    # ends with a non-word character ("new-ui-", read through an accessor) still matches.
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)")


@dataclass(frozen=True)
class _IgnoreRules:
    base: str  # the rules' directory relative to the walk's anchor: "" or "a/b/"
    patterns: tuple[Pattern, ...]

    def verdict(self, relative: str) -> bool | None:
        """True: ignored, False: re-included by a "!" pattern, None: no pattern matches."""
        local = relative[len(self.base) :]
        # As in git, the last matching pattern decides.
        for pattern in reversed(self.patterns):
            if pattern.match_file(local) is not None:
                return bool(pattern.include)
        return None


def discover_python_files(
    paths: Sequence[Path], root: Path, exclude: Sequence[str] = ()
) -> list[Path]:
    """The .py files under paths, minus .git, .gitignored files and exclude globs (relative to root).

    A file named explicitly is always taken. Paths keep the form they were given in.
    """
    real_root = os.path.realpath(root)
    excluded = _IgnoreRules("", _compile_patterns(exclude))
    found: dict[str, Path] = {}
    for path in paths:
        if path.is_dir():
            candidates: Iterable[tuple[Path, str]] = _walk(path, root, real_root, excluded)
        elif path.exists():
            candidates = [(path, os.path.realpath(path))]
        else:
            raise FileNotFoundError(2, "No such file or directory", str(path))
        for candidate, real in candidates:
            found[real] = _preferred(found.get(real), candidate)
    return sorted(found.values())


def _preferred(known: Path | None, candidate: Path) -> Path:
    # Two paths reaching one file would rewrite it twice; keep the one that is not a symlink,
    # since a diff against a symlink's path does not apply in git.
    if known is None:
        return candidate
    return min(known, candidate, key=lambda path: (path.is_symlink(), path))


def _walk(
    top: Path, root: Path, real_root: str, excluded: _IgnoreRules
) -> Iterator[tuple[Path, str]]:
    """(path, real path) of the .py files under top, pruning ignored directories as it goes."""
    prefix = _relative_to(top, root)
    if prefix is None:
        # Outside the root neither the root's .gitignore nor the exclude globs apply.
        prefix, inherited, excluded = "", (), _IgnoreRules("", ())
    else:
        inherited = _ancestor_rules(root, prefix)
    stack = [(str(top), os.path.realpath(top), prefix, inherited)]
    while stack:
        directory, real_directory, relative, rules = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue  # as os.walk does: an unreadable directory has no file we could rewrite
        if any(entry.name == GITIGNORE for entry in entries):
            rules = (
                *rules,
                _IgnoreRules(relative, _read_gitignore(os.path.join(directory, GITIGNORE))),
            )
        for entry in entries:
            entry_relative = relative + entry.name
            if entry.is_dir(follow_symlinks=False):
                child = entry_relative + "/"  # the slash lets "build/" patterns match
                if entry.name not in SKIPPED_DIRECTORIES and not _ignored(child, rules, excluded):
                    stack.append(
                        (entry.path, os.path.join(real_directory, entry.name), child, rules)
                    )
            elif entry.name.endswith(".py") and not _ignored(entry_relative, rules, excluded):
                real = _real_python_file(entry, real_directory, real_root)
                if real is not None:
                    yield Path(top, entry_relative[len(prefix) :]), real


def _real_python_file(entry: os.DirEntry[str], real_directory: str, real_root: str) -> str | None:
    """The file's real path, or None for what is not taken: symlinked directories, links leaving root."""
    if entry.is_file(follow_symlinks=False):
        return os.path.join(real_directory, entry.name)
    if not entry.is_symlink() or not entry.is_file():
        return None
    real = os.path.realpath(entry.path)
    return real if _is_within(real, real_root) else None


def _is_within(path: str, directory: str) -> bool:
    return os.path.commonpath([path, directory]) == directory


def _relative_to(path: Path, root: Path) -> str | None:
    """path relative to root as "" or "a/b/", or None when path is not inside root."""
    for resolve in (os.path.abspath, os.path.realpath):
        directory, inner = resolve(root), resolve(path)
        if _is_within(inner, directory):
            relative = os.path.relpath(inner, directory)
            return "" if relative == "." else Path(relative).as_posix() + "/"
    return None


def _ancestor_rules(root: Path, prefix: str) -> tuple[_IgnoreRules, ...]:
    """The .gitignore rules of root and of each directory between it and the walk's top."""
    parts = prefix.split("/")[:-1]
    bases = ["/".join(parts[:depth]) + "/" if depth else "" for depth in range(len(parts))]
    files = ((base, root / base / GITIGNORE) for base in bases)
    return tuple(
        _IgnoreRules(base, _read_gitignore(str(file))) for base, file in files if file.is_file()
    )


def _read_gitignore(path: str) -> tuple[Pattern, ...]:
    try:
        with open(path, encoding="utf-8", errors="replace") as stream:
            return _compile_patterns(stream.read().splitlines())
    except OSError:
        return ()  # git, too, goes on without a .gitignore it cannot read


def _compile_patterns(lines: Iterable[str]) -> tuple[Pattern, ...]:
    return tuple(pattern for line in lines for pattern in _compile_line(line))


def _compile_line(line: str) -> tuple[Pattern, ...]:
    """The line's pattern, or nothing for blanks, comments and lines git would reject."""
    # Imported on first need: a tree with no .gitignore and no exclude never pays for it (up to
    # 60 ms where typing_extensions is installed, as pathspec then imports asyncio).
    import pathspec

    try:
        patterns = pathspec.GitIgnoreSpec.from_lines([line]).patterns
    except ValueError:
        return ()
    return tuple(pattern for pattern in patterns if pattern.include is not None)


def _ignored(relative: str, rules: Sequence[_IgnoreRules], excluded: _IgnoreRules) -> bool:
    if excluded.verdict(relative):
        return True
    # The deepest .gitignore with a matching pattern decides, as in git.
    for rule in reversed(rules):
        verdict = rule.verdict(relative)
        if verdict is not None:
            return verdict
    return False
