"""Tests that pin a value the config rules out, found with `ast`."""

# In a test file (`test_*.py`, `*_test.py`, `conftest.py`, or under a `tests/` directory), a test (a
# `test*` function, or a `test*` method of a `Test*` class) that sets a flag to another value for
# its whole body exists only to exercise what the cleanup removes. It sets it so with a decorator
# (`@mock.patch("pkg.FAST", True)`, `@override_settings(FAST=True)`), a `with` around its whole
# body, a write before its first other statement (`monkeypatch.setattr(cfg, "fast", True)`,
# `cfg.fast = True`, `setattr`, a writer call, a write of the environment variable a flag is named
# as: `monkeypatch.setenv("X", "1")`, `mock.patch.dict(os.environ, {"X": "1"})`), or a keyword
# passed to one of the flag's owners in its first statement (`run(fast=True)`); a test class that a
# decorator of the class sets so. With `tests = "delete"` such a test (or class) goes, with the
# fixtures of its file that only deleted tests used and a test class it leaves empty; a
# parametrized one whose write takes a parameter loses only the entries that give another value
# (and goes when none is left). Any other write of another value in a test goes alone, and the test
# is reported as possibly pinning the removed behaviour; so does every such write with
# `tests = "report"`. A test double or an environment write of the configured value goes alone
# too: once the flag is gone, the double would have nothing to patch, the variable no reader. An
# environment write that also sets other variables (`mock.patch.dict` of several) never goes alone.
#
# The tests pass (passes/tests.py) carries the plan out by the original file's lines and columns.

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath
from typing import Any

from prune_flags.semantic.facts import NameFacts, Write
from prune_flags.vocabulary import Action, WriteKind

# The index's kinds of the writes a test makes that a plan can carry out.
TEST_WRITES = (
    WriteKind.PATCH,
    WriteKind.WRITER,
    WriteKind.SETATTR,
    WriteKind.ATTRIBUTE,
    WriteKind.KEYWORD,
    WriteKind.ENVIRON,
)


Position = tuple[int, int]  # (line, column in characters) of a node in the original text


def is_test_path(path: str) -> bool:
    """pytest's default test files, by the path the run shows: `test_*.py`, `*_test.py`,
    `conftest.py`, and any file under a directory named `tests`."""
    parts = PurePosixPath(path).parts
    name = parts[-1] if parts else ""
    return (
        name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
        or "tests" in parts[:-1]
    )


@dataclass(frozen=True)
class Removal:
    """Something the tests pass removes, and the change it records at `line`."""

    line: int
    flag: str
    action: Action
    reason: str


@dataclass(frozen=True)
class TestEdits:
    """What the tests pass does in one file: each removal keyed by its place and where that is
    in the original text: ("deleted", `def`/`class` line) for a test, fixture or class that goes
    whole; ("block", `with` line) for a `with` of another value that goes whole inside a test;
    ("statement", (line, column)), ("decorator", line), ("with", (`with` line, item index)),
    ("keyword", (line, column)) for a write that goes alone; ("environ-key", (line, column) of the
    key) for the entry of a `mock.patch.dict` of the environment that sets other variables too;
    ("entry", (parametrize line, entry index)) for a parametrize entry."""

    removals: Mapping[tuple[str, Any], Removal]
    tests: frozenset[int] = (
        frozenset()
    )  # the `def` lines of the tests concerned: their blocks are walked
    # Where the dicts of `mock.patch.dict(os.environ, {...})` writing a flag start: the tests'
    # writes, which no table pass may take for a table's entries.
    environment_dicts: frozenset[Position] = frozenset()

    def lines(self) -> frozenset[int]:
        """The lines the pass acts on (and the tests holding them), which the rewrite walks."""
        return frozenset(removal.line for removal in self.removals.values()) | self.tests


@dataclass
class TestPlan:
    """The tests' edits of a run, by file, and the flags' writes they remove."""

    files: dict[str, TestEdits] = field(default_factory=dict)
    # (flag, path, line of a write as the index sees it) -> the line of the change removing it
    handled: dict[tuple[str, str, int], int] = field(default_factory=dict)

    def handles(self, name: str, write: Write) -> bool:
        return (
            write.kind in TEST_WRITES and (name, write.site.path, write.site.line) in self.handled
        )

    def change_line(self, name: str, write: Write) -> int:
        """Where the change removing a write is recorded: its own line, or its deleted test's."""
        key = (name, write.site.path, write.site.line)
        return (
            self.handled.get(key, write.site.line) if write.kind in TEST_WRITES else write.site.line
        )

    def writes(self, name: str, facts: NameFacts) -> list[Write]:
        return [write for write in facts.writes if self.handles(name, write)]

    def without_handled(self, facts: Mapping[str, NameFacts]) -> dict[str, NameFacts]:
        """The facts without the writes the plan removes: they conflict with nothing."""
        return {
            name: replace(found, writes=[w for w in found.writes if not self.handles(name, w)])
            for name, found in facts.items()
        }

    def edits(self, path: str, flags: Collection[str]) -> TestEdits | None:
        """A file's edits, while every flag they are for is still pruned."""
        edits = self.files.get(path)
        return (
            edits
            if edits is not None
            and all(removal.flag in flags for removal in edits.removals.values())
            else None
        )
