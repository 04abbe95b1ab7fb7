"""Option tables and strings (README: Option tables and strings): how many words an option takes
in an argument list (shapes.option_arity), when a keyword whose dict the cleanup emptied may go
(defaults.empty_dict_is_default), and a differential check of the fixtures' tests, which pass
before and after the cleanup."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from prune_flags.model.defaults import empty_dict_is_default
from prune_flags.semantic.trees import TreeFacts
from prune_flags.syntax.options import option_arity
from tests.support import fixture_path, write_expected


@pytest.mark.parametrize(
    ("func", "strings", "keywords", "arity"),
    [
        ("parser.add_argument", ["--use-x"], {"action": "store_true"}, 0),
        ("parser.add_argument", ["--use-x"], {"action": "argparse.BooleanOptionalAction"}, 0),
        ("parser.add_argument", ["--workers"], {"type": "int"}, 1),
        ("parser.add_argument", ["--cache"], {"type": "parse_bool", "default": True}, 1),
        ("parser.add_argument", ["--size"], {"nargs": 2}, 2),
        ("parser.add_argument", ["--size"], {"nargs": "?"}, None),
        ("parser.add_argument", ["--size"], {"action": "custom"}, None),
        ("click.option", ["--use-x/--no-use-x"], {}, 0),
        ("click.option", ["--use-x"], {"is_flag": True}, 0),
        ("click.option", ["--use-x"], {"default": False}, None),
        (
            "add_toggle",
            ["--use-x"],
            {"action": "store_true"},
            None,
        ),  # a wrapper: what it passes on is not seen
    ],
)
def test_an_option_takes_the_words_its_call_says(
    func: str, strings: list[str], keywords: dict, arity: int | None
) -> None:
    assert option_arity(func, strings, keywords) == arity


SAME = [
    "def init(config, extra=None):\n    for key in extra or {}:\n        print(key)\n",
    "def init(config, extra={}):\n    if extra:\n        print(1)\n",
    "def init(config, *, extra=None):\n    return bool(extra) and not extra\n",
    "class Loader:\n    @staticmethod\n    def init(extra=None):\n"
    "        return 1 if extra else 2\n",
]
NOT_SAME = [
    "def init(config, extra=None):\n    if extra is None:\n        return 1\n",
    "def init(config, extra=None):\n    return extra.get('a')\n",
    "def init(config, extra=None):\n    return config or extra\n",  # the value itself is the result
    "def init(config, extra=None):\n    extra = extra or {}\n",
    "@register\ndef init(config, extra=None):\n    pass\n",
    "def init(config, extra=()):\n    pass\n",
    "def init(config, extra):\n    pass\n",
    "def init(config, **kwargs):\n    pass\n",
    "class init:\n    def __init__(self, extra=None):\n        pass\n",
    "def other(extra=None):\n    pass\n",  # no function of that name: nothing says
    "def init(extra=None):\n    pass\n\n\nclass A:\n    def init(self, extra=None):\n"
    "        return extra\n",
]


@pytest.mark.parametrize("source", SAME)
def test_an_empty_dict_is_the_default_where_only_its_truth_is_read(source: str) -> None:
    assert empty_dict_is_default([TreeFacts(ast.parse(source))], "init", "extra")


@pytest.mark.parametrize("source", NOT_SAME)
def test_an_empty_dict_stays_where_the_callee_may_tell_it_apart(source: str) -> None:
    assert not empty_dict_is_default([TreeFacts(ast.parse(source))], "init", "extra")


@pytest.mark.parametrize(
    ("fixture", "tests"),
    [
        ("idiom_table_dict_entry", "tests/test_conf.py"),
        ("idiom_table_test_arguments", "tests/test_cli.py"),
    ],
)
def test_the_fixtures_tests_pass_before_and_after(tmp_path: Path, fixture: str, tests: str) -> None:
    """The tests the cleanup edited (dict entries and keywords gone, argument lists without the
    options) pass, as they did before it."""
    for side in ("before", "after"):
        tree = tmp_path / side
        if side == "before":
            shutil.copytree(fixture_path(fixture) / side, tree)
        else:
            write_expected(fixture_path(fixture), tree)
        (tree / "conftest.py").write_text("")  # the tree's root on sys.path
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", tests],
            cwd=tree,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, f"{side}: {done.stdout}{done.stderr}"
