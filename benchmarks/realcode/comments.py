"""Trailing comments a rewrite dropped from lines it kept: the harness's comment check, read with
tokenize alone (the test suite runs it without the harness's requirements)."""

from __future__ import annotations

import io
import tokenize
from collections import Counter


def comments_by_line(text: str) -> tuple[Counter[str], Counter[str], list[tuple[str, str]]]:
    """(each comment's text, each line's code without its comment, (code, comment) of every line
    that has both), read with tokenize; empty when the text does not tokenize."""
    comments: Counter[str] = Counter()
    trailing: dict[int, str] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                comments[token.string] += 1
                if token.line[: token.start[1]].strip():
                    trailing[token.start[0]] = token.string
    except (tokenize.TokenError, SyntaxError):
        return Counter(), Counter(), []
    codes: Counter[str] = Counter()
    pairs: list[tuple[str, str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        code = line.split("#", 1)[0] if number in trailing else line
        code = " ".join(code.split())
        codes[code] += 1
        if number in trailing:
            pairs.append((code, trailing[number]))
    return comments, codes, pairs


def dropped_comments(before: str, after: str) -> list[str]:
    """Trailing comments the rewrite dropped from lines it kept: more copies of a comment are
    gone than the deleted lines (and comment lines) that held it account for, and a line that
    held it is still there as often as before."""
    old_comments, old_codes, pairs = comments_by_line(before)
    new_comments, new_codes, _ = comments_by_line(after)
    found = []
    for comment, lost in (old_comments - new_comments).items():
        holders = [code for code, c in pairs if c == comment]
        kept = [code for code in holders if new_codes[code] >= old_codes[code]]
        unexplained = max(0, lost - (old_comments[comment] - len(kept)))
        specific = [code for code in kept if len(code) >= 8 and any(c.isalnum() for c in code)]
        found += [f"{comment!r} dropped from the line `{code}`" for code in specific[:unexplained]]
    return found
