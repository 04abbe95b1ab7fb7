"""The text pre-filter: which files, lines and names a text mentions, by whole words, before
anything is parsed."""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from prune_flags.syntax.spellings import spellings

if TYPE_CHECKING:
    pass


def mentions_any(data: str, names: Iterable[str], words: frozenset[str] | None = None) -> bool:
    """Whether any name occurs in data as a whole word: files that fail this are left unparsed."""
    return bool(names_in(data, names, words))


def names_in(
    text: str, names: Iterable[str], words: frozenset[str] | None = None
) -> frozenset[str]:
    """The names that occur in text as whole words, in any of their spellings (`use_x`, or
    `use-x` as in `--use-x`: see spellings.spellings). An identifier does exactly when it is one of
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
