"""The Python files in scope under some paths: `.gitignore` rules and the config's excludes."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathspec.pattern import Pattern


GITIGNORE = ".gitignore"


SKIPPED_DIRECTORIES = frozenset({".git"})


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
    """The .py files under paths, minus .git, .gitignored files and exclude globs (relative to
    root).

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
    inherited: tuple[_IgnoreRules, ...]
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
    """The file's real path, or None for what is not taken: symlinked directories, links leaving
    root. A link that leads nowhere (broken, or a loop) is taken as itself, so that reading it
    skips it with the reason."""
    own = os.path.join(real_directory, entry.name)
    if entry.is_file(follow_symlinks=False):
        return own
    if not entry.is_symlink():
        return None
    try:
        os.path.realpath(entry.path, strict=True)
    except OSError:
        return own
    if not entry.is_file():
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
