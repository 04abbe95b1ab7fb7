"""Tests a run left that may now fail: an assert in a test file that checks a string the cleanup
removed from the code (`assert "deprecated" in caplog.text` for a warning that went)."""

from __future__ import annotations

import ast
import re
from collections import Counter

from prune_flags.model.pinned import is_test_path
from prune_flags.report import FileResult, FlagWarning, Report
from prune_flags.semantic.repository import Repository
from prune_flags.vocabulary import WarningReason

_SHORTEST = 4  # characters of a string an assert checks that is worth the warning
_WORD = re.compile(rf"\w{{{_SHORTEST},}}")


def tests_left_failing(repository: Repository, report: Report) -> list[FlagWarning]:
    """A warning for each assert, in the test files as the run leaves them, that checks a string
    the run removed from the code under test: the behaviour it expects may be gone."""
    removed: dict[str, str] = {}  # a string gone from the code -> the flag whose cleanup took it
    for result in report.changed_files:
        if not is_test_path(result.display):
            flag = _main_flag(result)
            removed.update(
                (text, flag) for text in _strings(result.old_text) - _strings(result.new_text)
            )
    if not removed:
        return []
    final = {result.path: result.new_text for result in report.files}
    # A string an assert checks is part of one removed: a test file worth parsing holds one of
    # their words.
    needles = {word.encode() for text in removed for word in _WORD.findall(text)}
    by_flag: dict[str, list[str]] = {}
    for path, data in repository.raw.items():
        display = repository.display(path)
        if not is_test_path(display) or path in repository.skipped:
            continue
        if not any(needle in data for needle in needles) and path not in final:
            continue
        source = repository.source(path)
        text = final.get(path, source.text if source is not None else None)
        if text is None:
            continue
        for line, flag in _asserts_checking(text, removed):
            by_flag.setdefault(flag, []).append(f"{display}:{line}")
    return [
        FlagWarning(
            flag,
            WarningReason.POSSIBLY_FAILING_TEST,
            tuple(places),
            None,
            f"{flag}: the cleanup removed strings that tests still assert, which may now fail:"
            f" {', '.join(places)}",
        )
        for flag, places in sorted(by_flag.items())
    ]


def _main_flag(result: FileResult) -> str:
    """The flag most of a file's changes are due to."""
    return Counter(change.flag for change in result.changes).most_common(1)[0][0]


def _strings(text: str) -> set[str]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and len(node.value.strip()) >= _SHORTEST
    }


def _asserts_checking(text: str, removed: dict[str, str]) -> list[tuple[int, str]]:
    """(line, flag) of each assert of the text holding a string that one removed contains."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            checks: ast.AST = node.test
        elif isinstance(node, ast.Call) and _callee(node.func).startswith("assert"):
            checks = node  # `self.assertIn("deprecated", out)`
        else:
            continue
        checked = [
            part.value
            for part in ast.walk(checks)
            if isinstance(part, ast.Constant)
            and isinstance(part.value, str)
            and len(part.value.strip()) >= _SHORTEST
        ]
        flag = next(
            (flag for string in checked for gone, flag in removed.items() if string in gone), None
        )
        if flag is not None:
            found.append((node.lineno, flag))
    return found


def _callee(func: ast.expr) -> str:
    """A call's callee's last name: `assertIn` of `self.assertIn`."""
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""
