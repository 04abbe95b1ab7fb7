"""Scoped flags of one name in one run: stages, and one report at the original's lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prune_flags.config import Config, Flag
from prune_flags.engine.stages import stages
from tests.support import dedent, invoke_in, make_tree


def test_each_stage_holds_one_flag_of_each_name_in_the_configs_order() -> None:
    flags = (
        Flag("fast", True, "True", scope="a.A"),
        Flag("eco", False, "False"),
        Flag("fast", True, "True", scope="b.B"),
        Flag("fast", False, "False", scope="c.C"),
    )
    split = stages(Config(flags=flags))
    assert [[flag.key for flag in stage.flags] for stage in split] == [
        ["a.A.fast", "eco"],
        ["b.B.fast"],
        ["c.C.fast"],
    ]


def test_the_report_of_two_stages_speaks_of_the_original_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = dedent("""
        def a(x, fast=True):
            if fast:
                return x
            return -x


        def b(y, fast=True):
            if not fast:
                y = -y
            return y
        """)
    work = make_tree(tmp_path / "work", {"m.py": source})
    report = tmp_path / "report.json"
    args = ["--flag", "m.a.fast=True", "--flag", "m.b.fast=True", "--report", str(report)]
    result = invoke_in(monkeypatch, work, "apply", *args, ".")

    assert result.exit_code == 0, result.output
    assert (work / "m.py").read_text() == "def a(x):\n    return x\n\n\ndef b(y):\n    return y\n"
    (changed,) = json.loads(report.read_text())["files"]
    # b's changes, made on the text the first stage left two lines shorter, at b's own lines
    assert [(c["line"], c["action"]) for c in changed["changes"] if c["line"] > 5] == [
        (7, "removed-parameter"),
        (8, "inlined"),
        (8, "removed-branch"),
    ]


def test_a_later_stages_key_naming_nothing_is_an_error_before_anything_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = "def a(x, fast=True):\n    return x if fast else -x\n"
    work = make_tree(tmp_path / "work", {"m.py": source})
    args = ["--flag", "m.a.fast=True", "--flag", "m.b.fast=True"]
    result = invoke_in(monkeypatch, work, "apply", *args, ".")

    assert result.exit_code == 2
    assert result.stderr == (
        "prune-flags: error: --flag: flags.m.b.fast: m has no class or function b\n"
    )
    assert (work / "m.py").read_text() == source
