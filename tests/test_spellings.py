"""Every spelling of a flag, and every name a flag may be reached through (issue 14, items 5 and 6).

A flag's name is searched for in text (the pre-filter that spares files their parse, the lines a
view holds), and matched as an option string in argument lists: all of them take the spellings
from one place, shapes.spellings.
"""

from __future__ import annotations

import ast

import pytest

from prune_flags.files import lines_naming, mentions_any, names_in
from prune_flags.index import scan
from prune_flags.shapes import spellings, spells_option


def test_a_name_is_spelt_as_itself_and_dashed() -> None:
    assert spellings("use_x") == ("use_x", "use-x")
    assert spellings("fast") == ("fast",)
    assert spellings("new-ui-") == ("new-ui-",)


@pytest.mark.parametrize(
    "text",
    ['parser.add_argument("--use-x")', 'ARGS = ["--no-use-x"]', "run('--use-x=1')", "args.use_x"],
)
def test_a_file_that_spells_the_flag_only_as_an_option_mentions_it(text: str) -> None:
    assert mentions_any(text, ["use_x"])
    assert names_in(text, ["use_x", "other"]) == {"use_x"}
    assert lines_naming("a = 1\n" + text + "\n", ["use_x"]) == {2}


@pytest.mark.parametrize("text", ['"--use-xy"', '"--reuse-x"', "use_xy = 1"])
def test_a_longer_word_is_not_a_spelling(text: str) -> None:
    assert not mentions_any(text, ["use_x"])
    assert lines_naming(text, ["use_x"]) == frozenset()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("use_x", True),
        ("--use-x", True),
        ("--use_x", True),
        ("--no-use-x", True),
        ("--group.use_x", True),
        ("--turbo", True),  # the option's own string, `dest="use_x"`
        ("use-x", False),  # a bare word, not an option string
        ("--use-xy", False),
        ("--no-turbo", False),
        ("--other", False),
    ],
)
def test_option_strings_of_a_flag(text: str, expected: bool) -> None:
    assert spells_option(text, "use_x", frozenset({"--turbo"})) is expected


def test_the_index_finds_an_option_spelt_only_with_dashes_and_its_own_strings() -> None:
    text = (
        "import argparse\n"
        "parser = argparse.ArgumentParser()\n"
        'parser.add_argument("-u", "--use-x", action="store_true")\n'
        'parser.add_argument("--turbo", dest="fast_path", action="store_true")\n'
    )
    facts = scan(ast.parse(text), "cli.py", ["use_x", "fast_path"], text=text)
    assert facts["use_x"].is_option and facts["use_x"].option_strings == {"--use-x"}
    assert facts["fast_path"].option_strings == {"--turbo"}
