"""Derived flags (derived.py): what the report says of them, and that one the cleanup would refuse
is left alone without a word. The rewrites themselves are the fixtures' (deep_derived_*)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from prune_flags.config import Config, Flag
from prune_flags.engine.driver import run
from prune_flags.report import Report


def cleanup(root: Path, files: dict[str, str], flags: dict[str, object]) -> Report:
    (root / ".git").mkdir(
        parents=True, exist_ok=True
    )  # the project root: no settings found above it
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text))
    config = Config(
        flags=tuple(Flag(name, value, repr(value)) for name, value in flags.items()),
        format="none",
        root=root,
    )
    return run(config, [root], root, jobs=1)


EXPORTER = """\
    STREAMING = False


    class Exporter:
        def __init__(self):
            self.verbose = True
            self.quiet = not self.verbose
            self.batched = False
            if STREAMING:
                self.batched = True

        def export(self, rows):
            if self.quiet or self.batched:
                return 0
            return len(rows)
    """


def test_changes_are_credited_to_the_flag_that_made_the_field_constant(tmp_path: Path) -> None:
    report = cleanup(tmp_path, {"exporter.py": EXPORTER}, {"verbose": True, "STREAMING": False})
    (result,) = report.changed_files
    assert "quiet" not in result.new_text and "batched" not in result.new_text
    assert report.flags == {"verbose": "True", "STREAMING": "False"}
    assert report.refused == [] and report.warnings == []
    writes = {(c.line, c.flag, c.reason) for c in result.changes if c.action == "removed-write"}
    assert (7, "verbose", "field quiet is always False after the cleanup") in writes
    assert (8, "STREAMING", "field batched is always False after the cleanup") in writes
    assert (
        10,
        "STREAMING",
        "field batched is always False after the cleanup",
    ) in writes  # not overridden
    assert {c.flag for c in result.changes} == {"verbose", "STREAMING"}


def test_a_derived_flag_the_cleanup_would_refuse_is_left_alone(tmp_path: Path) -> None:
    """`del self.quiet` (in the branch that folds) is a write no flag's cleanup removes: as a
    flag, quiet would be refused; derived, it stays a field, and nothing is refused."""
    files = {"node.py": """\
            FAST = False


            class Node:
                def __init__(self):
                    self.quiet = False
                    if FAST:
                        del self.quiet

                def run(self):
                    return 1 if self.quiet else 2
            """}
    report = cleanup(tmp_path, files, {"FAST": False})
    (result,) = report.changed_files
    assert report.refused == [] and report.skipped == []
    assert "self.quiet = False" in result.new_text and "1 if self.quiet else 2" in result.new_text


def test_a_parameter_the_calls_passed_one_literal_before_the_run_stays(tmp_path: Path) -> None:
    files = {"render.py": """\
            USE_GPU = False


            def _scale(layer, factor):
                return layer * factor if USE_GPU else layer + factor


            def render(layer):
                return _scale(layer, 2) + _scale(layer, factor=2)
            """}
    report = cleanup(tmp_path, files, {"USE_GPU": False})
    (result,) = report.changed_files
    assert "def _scale(layer, factor):" in result.new_text


def test_a_method_called_through_cls_or_its_class_takes_its_instance_among_the_arguments() -> None:
    """`cls.draw(canvas, layer, fast)` in a classmethod passes `canvas` as self: its arguments
    are not read by the places an instance's call fills, so nothing is derived from them."""
    import ast

    from prune_flags.engine.derived_flags import _instance

    receivers = {
        text: _instance(ast.parse(text, mode="eval").body)
        for text in (
            "cls",
            "Canvas",
            "self.__class__",
            "type(self)",
            "canvas",
            "self.canvas",
            "Canvas()",
        )
    }
    assert receivers == {
        "cls": False,
        "Canvas": False,
        "self.__class__": False,
        "type(self)": False,
        "canvas": True,
        "self.canvas": True,
        "Canvas()": True,
    }
