"""The cascade's reasons and the context each rewrite gets, exactly.

A mutation run over `_Cascade._reason` and `_Cascade.context` in engine.py (now `Liveness.reason` in
cascade_liveness.py and `Contexts.context` in cascade_context.py) left mutants alive:
the reason texts, how many sites a reason shows and in which order, its singular and plural, the
reads a field counts (attribute reads) against those a module-level name counts (bare names too),
and the RewriteContext fields `path`, `writers`, `option_flags` and `removable_asserts`. Each test
below runs the whole cleanup over a small tree and checks the exact text, reason or context that
such a change alters; the mutants each one kills (mutmut 3.8's numbers) are named in its docstring.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

import prune_flags.rewrite.file
from prune_flags.cli import app
from prune_flags.config import Config, Flag
from prune_flags.engine.driver import run
from prune_flags.rewrite.context import RewriteContext

FIXED = "the flag is fixed at {} and every read of it was inlined"
LAST_READ = "its last read was in code this cleanup removed ({})"
LAST_READS = "its last reads were in code this cleanup removed ({})"


def write_tree(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(
        parents=True, exist_ok=True
    )  # the project root: no settings found above it
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text))
    return root


def prune(root: Path, files: dict[str, str], flags: dict[str, object], **options: object):
    """(new text of every file, every change as (path, line, flag, action, reason)) for one run."""
    write_tree(root, files)
    config = Config(
        flags=tuple(Flag(name, value, repr(value)) for name, value in flags.items()),
        format="none",
        root=root,
        **options,  # type: ignore[arg-type]
    )
    report = run(config, [root], root, jobs=1)
    assert report.skipped == [] and report.conflicts == []
    texts = {name: (root / name).read_text() for name in files}
    changes = []
    for result in report.changed_files:
        texts[result.display] = result.new_text
        changes += [(result.display, c.line, c.flag, c.action, c.reason) for c in result.changes]
    return texts, changes


def removed_writes(changes) -> dict[tuple[str, int], str]:
    return {
        (path, line): reason
        for path, line, _, action, reason in changes
        if action == "removed-write"
    }


# -- Liveness.reason ----------------------------------------------------------------------------
NODE = """\
    class Node:
        def __init__(self):
            self.fast = False
            self.total = 0
            self.count = 0

        def run(self):
            if self.fast:
                return self.total + self.count
            return 0

        def other(self):
            if self.fast:
                print(self.count)
            return 0
"""
REPORT = """\
    from metrics import total


    def summary(values):
        return total(values)
"""
LIMITS = """\
    LIMIT = 3
    STEP = 2
    fast = False


    def run(x):
        if fast:
            return x + LIMIT
        STEP = 5
        if fast:
            return STEP
        return x
"""


def test_each_reason_text_exactly(tmp_path: Path) -> None:
    """The flag's own reason, one last read, several, and none; a field counts attribute reads
    only (a bare `total` elsewhere is another name), a module-level name counts bare names.
    Kills _reason 1 (module_level defaulting to True), 2-4 (the flag's reason), 6 and 7 (global
    against field reads), 8-11 (`nothing reads it`), 23-30 (singular and plural)."""
    texts, changes = prune(
        tmp_path, {"node.py": NODE, "report.py": REPORT, "limits.py": LIMITS}, {"fast": False}
    )
    assert removed_writes(changes) == {
        ("node.py", 3): "fast has no reader left: " + FIXED.format("False"),
        # `from metrics import total` and `total(values)` in report.py read another `total`.
        ("node.py", 4): "total has no reader left: " + LAST_READ.format("node.py:9"),
        ("node.py", 5): "count has no reader left: " + LAST_READS.format("node.py:9, node.py:14"),
        ("limits.py", 1): "LIMIT has no reader left: " + LAST_READ.format("limits.py:8"),
        # Only the local `STEP` was read: the module's STEP had no reader even before.
        ("limits.py", 2): "STEP has no reader left: nothing reads it",
        ("limits.py", 3): "fast has no reader left: " + FIXED.format("False"),
        (
            "limits.py",
            9,
        ): "STEP has no reader left: its last read went with the code this cleanup removed",
    }
    assert texts["report.py"] == textwrap.dedent(REPORT)
    assert texts["limits.py"] == "def run(x):\n    return x\n"
    assert texts["node.py"] == textwrap.dedent("""\
        class Node:
            def run(self):
                return 0

            def other(self):
                return 0
        """)


def test_the_flags_value_is_spelled_as_python_source(tmp_path: Path) -> None:
    """Kills _reason 2-4 for a value other than a bool: the reason names `flag.source`."""
    _, changes = prune(
        tmp_path,
        {
            "mode.py": "MODE = 'eager'\n\n\ndef run(x):\n    if MODE == 'eager':\n"
            "        return x\n    return -x\n"
        },
        {"MODE": "eager"},
    )
    assert removed_writes(changes) == {
        ("mode.py", 1): "MODE has no reader left: " + FIXED.format("'eager'")
    }


SPREAD = {
    # Reads in beta.py come first by line, in alpha.py first by path: the order shown is
    # (path, line).
    "beta.py": """\
        def report(node, fast):
            if node.fast:
                print(node.width)
                print(node.width * 2)
    """,
    "alpha.py": """\
        class Node:
            def __init__(self):
                self.fast = False
                self.width = 1

            def run(self):
                if self.fast:
                    a = self.width
                    b = self.width + 1
                    c = self.width + 2
                    return a + b + c
                return 0
    """,
}


def test_at_most_four_sites_sorted_by_path_then_line(tmp_path: Path) -> None:
    """Five last reads in two files: the reason shows four, alpha.py's before beta.py's although
    beta.py's lines are smaller. Kills _reason 12-22 (the sites shown, their order, `[:4]`)."""
    texts, changes = prune(tmp_path, SPREAD, {"fast": False})
    shown = "alpha.py:8, alpha.py:9, alpha.py:10, beta.py:3"
    assert removed_writes(changes) == {
        ("alpha.py", 3): "fast has no reader left: " + FIXED.format("False"),
        ("alpha.py", 4): "width has no reader left: " + LAST_READS.format(shown),
    }
    assert texts["beta.py"] == "def report(node, fast):\n    pass\n"


def test_reasons_in_the_explain_lines_and_the_json_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same reasons through the command line, as a reviewer reads them."""
    monkeypatch.chdir(write_tree(tmp_path / "work", SPREAD))
    result = CliRunner().invoke(
        app,
        [
            "diff",
            "--no-color",
            "--explain",
            "--flag",
            "fast=False",
            "--report",
            str(tmp_path / "r.json"),
            ".",
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 1, result.output
    width = "width has no reader left: " + LAST_READS.format(
        "alpha.py:8, alpha.py:9, alpha.py:10, beta.py:3"
    )
    assert f"alpha.py:4  fast  removed-write  {width}" in result.stdout.splitlines()
    report = json.loads((tmp_path / "r.json").read_text())
    changes = {
        (entry["path"], c["line"], c["action"]): c["reason"]
        for entry in report["files"]
        for c in entry["changes"]
    }
    assert changes[("alpha.py", 4, "removed-write")] == width
    assert changes[("alpha.py", 3, "removed-write")] == "fast has no reader left: " + FIXED.format(
        "False"
    )


# -- Contexts.context ---------------------------------------------------------------------------
def test_a_setter_of_the_fixed_value_goes(tmp_path: Path) -> None:
    """The config's `writers` reach the rewrite: `set_config("use_x", False)` goes with the flag,
    a call setting another name stays. Kills context 5 and 15 (writers dropped)."""
    texts, changes = prune(
        tmp_path,
        {"trainer.py": """\
                from settings import set_config


                class Trainer:
                    def __init__(self):
                        self.use_x = False
                        set_config("use_x", False)
                        set_config("size", 3)

                    def step(self):
                        if self.use_x:
                            return 1
                        return 0
            """},
        {"use_x": False},
        writers=("set_config({name}, ...)",),
    )
    assert texts["trainer.py"] == textwrap.dedent("""\
        from settings import set_config


        class Trainer:
            def __init__(self):
                set_config("size", 3)

            def step(self):
                return 0
        """)
    assert (
        "trainer.py",
        7,
        "use_x",
        "removed-write",
        "it sets use_x to the value it is fixed at, False",
    ) in changes


OPTIONS = """\
    import argparse

    DEFAULTS = {"use_x": False, "mode": "eager", "size": 3}
    KNOWN = ["--use-x", "--mode", "--size"]


    def parse(argv):
        parser = argparse.ArgumentParser()
        parser.add_argument("--use-x", action="store_true")
        parser.add_argument("--mode", default="eager")
        parser.add_argument("--size", type=int)
        args = parser.parse_args(argv)
        if args.use_x:
            print("x")
        if args.mode != "eager":
            print("lazy")
        return args
"""
OPTIONS_PRUNED = """\
    import argparse

    DEFAULTS = {"size": 3}
    KNOWN = ["--size"]


    def parse(argv):
        parser = argparse.ArgumentParser()
        parser.add_argument("--size", type=int)
        args = parser.parse_args(argv)
        return args
"""


def test_option_names_go_for_a_dead_option_of_every_type(tmp_path: Path) -> None:
    """A dead option's names go from the option tables, a switch's and a valued option's alike
    (each dict entry, each name); a live option's (`--size`) stay."""
    texts, changes = prune(tmp_path, {"cli.py": OPTIONS}, {"use_x": False, "mode": "eager"})
    assert texts["cli.py"] == textwrap.dedent(OPTIONS_PRUNED)
    assert sorted(
        (line, action) for _, line, _, action, _ in changes if action.startswith("removed-option")
    ) == [
        (3, "removed-option-entry"),
        (3, "removed-option-entry"),
        (4, "removed-option-name"),
        (4, "removed-option-name"),
        (9, "removed-option"),
        (10, "removed-option"),
    ]


CHECKED = """\
    class Buffer:
        def __init__(self):
            self.fast = False
            self.seen = []
            self.size = 0

        def add(self, item):
            if self.fast:
                self.seen.append(item)
            self.size += 1

        def check(self):
            assert self.seen is not None
            assert self.size >= 0
"""


def test_an_assert_on_a_dead_field_goes_with_it(tmp_path: Path) -> None:
    """The rounds get the planned assert lines. Kills context 1 (`asserts` defaulting to False),
    11 and 32-35 (the lines looked up wrongly)."""
    texts, changes = prune(tmp_path, {"buffer.py": CHECKED}, {"fast": False})
    assert texts["buffer.py"] == textwrap.dedent("""\
        class Buffer:
            def __init__(self):
                self.size = 0

            def add(self, item):
                self.size += 1

            def check(self):
                assert self.size >= 0
        """)
    assert (
        "buffer.py",
        13,
        "fast",
        "removed-assert",
        "it only checks seen, which has no reader left",
    ) in changes
    assert removed_writes(changes)[
        ("buffer.py", 4)
    ] == "seen has no reader left: " + LAST_READS.format("buffer.py:9, buffer.py:13")


def test_each_rewrite_gets_its_path_and_the_safety_rerun_no_assert_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The context handed to each rewrite: the file's path as the report shows it; the planned
    assert lines in the rounds (which rewrite the original text) and none in the safety re-run
    (which rewrites the result, where those lines hold other statements). Neither is visible in
    the output of a correct run, so the contexts are looked at where the engine hands them over.
    Kills context 2 and 22 (path), 30 and 31 (assert lines in the re-run)."""
    seen: list[tuple[str, RewriteContext]] = []
    real = prune_flags.rewrite.file.rewrite

    def spy(text: str, context: RewriteContext, is_package_init: bool):
        seen.append((text, context))
        return real(text, context, is_package_init)

    monkeypatch.setattr(prune_flags.rewrite.file, "rewrite", spy)
    texts, _ = prune(tmp_path, {"pkg/buffer.py": CHECKED}, {"fast": False})
    original, result = textwrap.dedent(CHECKED), texts["pkg/buffer.py"]
    rounds = [context for text, context in seen if text == original]
    reruns = [context for text, context in seen if text == result]
    assert rounds and reruns and len(rounds) + len(reruns) == len(seen)
    assert {context.path for _, context in seen} == {"pkg/buffer.py"}
    assert rounds[-1].removable_asserts == frozenset({13})
    assert [context.removable_asserts for context in reruns] == [frozenset()]


# -- found while writing these ---------------------------------------------------------------------
def test_an_assert_that_checked_the_flag_too_does_not_outlive_its_field(tmp_path: Path) -> None:
    """`assert self.seen is not None or FAST` checks only `seen` once FAST is inlined: it goes
    with the field (it once stayed, and raised AttributeError)."""
    source = """\
        FAST = False


        class Node:
            def __init__(self):
                self.seen = []

            def run(self, x):
                if FAST:
                    self.seen.append(x)
                return x

            def check(self):
                assert self.seen is not None or FAST
    """
    texts, changes = prune(tmp_path, {"node.py": source}, {"FAST": False})
    assert "seen" not in texts["node.py"]
    assert (
        "node.py",
        14,
        "FAST",
        "removed-assert",
        "it only checks seen, which has no reader left",
    ) in changes
    namespace: dict[str, object] = {}
    exec(compile(texts["node.py"], "node.py", "exec"), namespace)
    namespace["Node"]().check()  # type: ignore[operator]
