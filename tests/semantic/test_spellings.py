"""Every way code may reach a flag: its spellings, the constants naming it, the arguments that
fill its parameter.

A flag's name is searched for in text (the pre-filter that spares files their parse, the lines a
view holds), and matched as an option string in argument lists: all of them take the spellings
from one place, shapes.spellings. A call fills a flag parameter by position only with arguments
that reach its place.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from typer.testing import CliRunner

from prune_flags.cli import app
from prune_flags.semantic.scan import scan
from prune_flags.source.words import lines_naming, mentions_any, names_in
from prune_flags.syntax.options import spells_option
from prune_flags.syntax.spellings import spellings


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


SEARCH = """\
def search(index, query, fuzzy=False):
    if fuzzy:
        return index.near(query)
    return index.exact(query)


def similar(word, other, fuzzy=0.8):
    return word[:3] == other[:3] or fuzzy < 0.1
"""
SEARCH_ONLY = (
    SEARCH.split("\n\n\n")[0] + "\n"
)  # without `similar`, whose `fuzzy` is ambiguous unless strict


def diff(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str], *args: str):
    (tmp_path / ".git").mkdir(parents=True)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    return CliRunner().invoke(app, ["diff", "--no-color", *args, "."], catch_exceptions=False)


@pytest.mark.parametrize(
    ("call", "search", "strict"),
    [
        (
            "similar(index, query, 0.5)",
            SEARCH,
            ["--strict"],
        ),  # another function's `fuzzy`, another variable
        ("search(*rows)", SEARCH_ONLY, []),  # a sequence of unknown length
        ("search(*(index, query))", SEARCH_ONLY, []),  # a starred literal too short to reach it
        ("search(index, *rest)", SEARCH_ONLY, []),
        ("search(index, *rest)", SEARCH_ONLY, ["--strict"]),
    ],
)
def test_arguments_that_cannot_reach_the_flag_parameter_are_no_conflict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, call: str, search: str, strict: list[str]
) -> None:
    api = (
        "from search import search, similar\n\n\ndef endpoint(index, query, rows, rest):\n"
        f"    return {call}\n"
    )
    result = diff(
        tmp_path,
        monkeypatch,
        {"search.py": search, "api.py": api},
        "--flag",
        "fuzzy=False",
        *strict,
    )
    assert result.exit_code == 1, result.output
    assert "-def search(index, query, fuzzy=False):\n" in result.stdout
    assert "+def search(index, query):\n" in result.stdout


@pytest.mark.parametrize(
    ("call", "where", "strict"),
    [
        (
            "search(index, query, False)",
            "api.py:5 (passes search's parameter by position)",
            ["--strict"],
        ),
        ("search(*(index, query, False))", "api.py:5 (passes search's parameter by position)", []),
        (
            "timed(index, query, True)",
            "api.py:9 (passes search's parameter by position through timed's *args)",
            [],
        ),
        (
            "search(index, query, False, True)",
            "api.py:5 (passes search's parameter by position)",
            [],
        ),
    ],
)
def test_arguments_that_reach_the_flag_parameter_by_position_are_a_conflict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, call: str, where: str, strict: list[str]
) -> None:
    """An argument that cannot be seen to go alone: inside a starred literal, through a forwarder's
    *args, or followed by one that would shift onto the next parameter."""
    api = (
        "from search import search\n\n\ndef endpoint(index, query):\n"
        f"    return {call}\n\n\ndef timed(*args):\n    return search(*args)\n"
    )
    search = SEARCH_ONLY.replace("fuzzy=False)", "fuzzy=False, limit=9)")
    result = diff(
        tmp_path,
        monkeypatch,
        {"search.py": search, "api.py": api},
        "--flag",
        "fuzzy=False",
        *strict,
    )
    assert result.exit_code == 123
    assert result.stdout == ""
    assert f"fuzzy: not pruned: it is given another value at {where}" in result.stderr


@pytest.mark.parametrize("call", ["search(index, query, True)", "search(index, query, False)"])
def test_the_last_positional_argument_goes_with_the_flag_parameter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, call: str
) -> None:
    """Nothing after it shifts: it goes, overridden when it gives another value."""
    api = f"from search import search\n\n\ndef endpoint(index, query):\n    return {call}\n"
    result = diff(
        tmp_path, monkeypatch, {"search.py": SEARCH_ONLY, "api.py": api}, "--flag", "fuzzy=False"
    )
    assert result.exit_code == 1, result.output
    assert f"+    return {call.replace(', True', '').replace(', False', '')}\n" in result.stdout
    assert ("overrode fuzzy = True" in result.stderr) == ("True" in call)


def test_every_call_passing_the_flag_at_its_place_loses_that_argument(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not the last argument, but every call passes it there: all shift alike, with the
    parameters."""
    search = SEARCH_ONLY.replace("fuzzy=False)", "fuzzy=False, limit=9)")
    api = (
        "from search import search\n\n\ndef endpoint(index, query):\n"
        "    return search(index, query, False, 3), search(index, query, True, 4)\n"
    )
    result = diff(
        tmp_path, monkeypatch, {"search.py": search, "api.py": api}, "--flag", "fuzzy=False"
    )
    assert result.exit_code == 1, result.output
    assert "+    return search(index, query, 3), search(index, query, 4)\n" in result.stdout
    assert "+def search(index, query, limit=9):\n" in result.stdout


def test_a_positional_argument_to_another_function_of_the_same_name_stays_a_conflict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Calls are matched by last name: `search` of another module, without the flag, may be the one
    called."""
    other = "def search(a, b, c):\n    return a + b + c\n"
    api = (
        "from search import search\n\n\ndef endpoint(index, query):\n"
        "    return search(index, query, True)\n"
    )
    files = {"search.py": SEARCH_ONLY, "other.py": other, "api.py": api}
    result = diff(tmp_path, monkeypatch, files, "--flag", "fuzzy=False")
    assert result.exit_code == 123
    assert (
        "fuzzy: not pruned: it is given another value at api.py:5 (passes search's parameter "
        "by position)" in result.stderr
    )


SETTINGS_CONFIG = """\
accessors = ["get_config({name}, ...)"]
writers = ["set_config({name}, ...)"]
[flags]
enable_fast = 0
"""
ENGINE = """\
from keys import FAST_KEY
from store import get_config


def speed():
    if get_config(FAST_KEY, 0):
        return "fast"
    return "slow"
"""
# How a test may name the flag it writes: a constant of its own, one imported by name, one read
# from its module. Each line is (the test module's set-up, the name it writes through).
WRITER_SPELLINGS = [
    ('LOCAL_KEY = "enable_fast"\n', "LOCAL_KEY"),
    ("from keys import FAST_KEY\n", "FAST_KEY"),
    ("import keys\n", "keys.FAST_KEY"),
    ("from keys import FAST_KEY as FK\n", "FK"),
]


@pytest.mark.parametrize(("setup", "name"), WRITER_SPELLINGS)
def test_a_write_of_another_value_through_a_constant_is_a_conflict_under_strict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setup: str, name: str
) -> None:
    test = (
        f"{setup}from store import set_config\n\n\ndef fast_checkout():\n"
        f"    set_config({name}, 1)\n"
    )
    files = {
        "keys.py": 'FAST_KEY = "enable_fast"\n',
        "engine.py": ENGINE,
        "test_engine.py": test,
        "c.toml": SETTINGS_CONFIG,
    }
    result = diff(tmp_path, monkeypatch, files, "--config", "c.toml", "--strict")
    assert result.exit_code == 123
    assert result.stdout == ""
    assert "enable_fast: not pruned: it is given another value at test_engine.py:6" in result.stderr


@pytest.mark.parametrize(("setup", "name"), WRITER_SPELLINGS[:3])
def test_a_write_of_another_value_through_a_constant_is_overridden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setup: str, name: str
) -> None:
    test = (
        f"{setup}from store import set_config\n\n\ndef fast_checkout():\n"
        f"    set_config({name}, 1)\n"
    )
    files = {
        "keys.py": 'FAST_KEY = "enable_fast"\n',
        "engine.py": ENGINE,
        "test_engine.py": test,
        "c.toml": SETTINGS_CONFIG,
    }
    result = diff(tmp_path, monkeypatch, files, "--config", "c.toml")
    assert result.exit_code == 1, result.output
    assert f"-    set_config({name}, 1)\n" in result.stdout
    assert "-    if get_config(FAST_KEY, 0):\n" in result.stdout
    assert (
        "prune-flags: test_engine.py:6: overrode enable_fast = 1 (the config fixes it at 0)"
        in result.stderr
    )


def test_a_write_of_another_value_the_rewrite_cannot_remove_refuses_the_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A setter naming the flag through an alias imported at module level is not removed (nor is
    one of the fixed value): the flag is refused rather than left written another value."""
    setup, name = WRITER_SPELLINGS[3]
    test = (
        f"{setup}from store import set_config\n\n\ndef fast_checkout():\n"
        f"    set_config({name}, 1)\n"
    )
    files = {
        "keys.py": 'FAST_KEY = "enable_fast"\n',
        "engine.py": ENGINE,
        "test_engine.py": test,
        "c.toml": SETTINGS_CONFIG,
    }
    result = diff(tmp_path, monkeypatch, files, "--config", "c.toml")
    assert result.exit_code == 123, result.output
    assert result.stdout == ""
    assert (
        "enable_fast: not pruned: it is given another value at test_engine.py:6, and not every"
        in result.stderr
    )


@pytest.mark.parametrize(
    ("setup", "name"), [*WRITER_SPELLINGS[:3], ("    from keys import FAST_KEY as FK\n", "FK")]
)
def test_a_write_of_the_fixed_value_through_a_constant_goes_with_the_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setup: str, name: str
) -> None:
    test = "from store import set_config\n\n\ndef test_slow():\n"
    test = (
        f"{setup}{test}" if not setup.startswith(" ") else f"{test}{setup}"
    )  # module level, or in the test
    test += f"    set_config({name}, 0)\n    assert True\n"
    files = {
        "keys.py": 'FAST_KEY = "enable_fast"\nOTHER = "x"\n',
        "engine.py": ENGINE,
        "test_engine.py": test,
        "c.toml": SETTINGS_CONFIG,
    }
    result = diff(tmp_path, monkeypatch, files, "--config", "c.toml")
    assert result.exit_code == 1, result.output
    assert f"-    set_config({name}, 0)\n" in result.stdout
    assert "-    if get_config(FAST_KEY, 0):\n" in result.stdout


def test_a_constant_used_otherwise_keeps_the_flag_and_its_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """FAST_KEY handed to code no accessor describes may read the flag: the same-value write
    stays."""
    test = (
        "from keys import FAST_KEY\nfrom store import set_config\n\n\ndef test_slow():\n"
        "    set_config(FAST_KEY, 0)\n"
    )
    report = "from keys import FAST_KEY\n\nprint(FAST_KEY)\n"
    files = {
        "keys.py": 'FAST_KEY = "enable_fast"\n',
        "engine.py": ENGINE,
        "test_engine.py": test,
        "report.py": report,
        "c.toml": SETTINGS_CONFIG,
    }
    result = diff(tmp_path, monkeypatch, files, "--config", "c.toml")
    assert result.exit_code == 1, result.output
    assert "-    if get_config(FAST_KEY, 0):\n" in result.stdout
    assert "test_engine.py" not in result.stdout and "keys.py" not in result.stdout


def test_a_module_binding_shadows_the_repository_constant_of_the_same_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """FAST_KEY holds the flag's name in keys.py, something else in other.py: the write there is
    not the flag's (no conflict), and as a name two modules bind differently, FAST_KEY is never
    taken for the flag by a pass: engine.py's read through it stays."""
    for shadow in ('"other"', "3"):
        other = (
            f"from store import set_config\n\nFAST_KEY = {shadow}\n\n\ndef f():\n"
            "    set_config(FAST_KEY, 1)\n"
        )
        files = {
            "keys.py": 'FAST_KEY = "enable_fast"\n',
            "engine.py": ENGINE,
            "other.py": other,
            "c.toml": SETTINGS_CONFIG,
        }
        result = diff(tmp_path / shadow.strip('"'), monkeypatch, files, "--config", "c.toml")
        assert (result.exit_code, result.stdout) == (0, ""), result.output


def test_a_constant_that_modules_bind_to_different_names_is_never_taken_for_the_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MODE holds the flag's name in a.py and another name in b.py: a read through MODE is not
    inlined (it may be b's), and no constant goes."""
    reader = (
        "from b import MODE\nfrom store import get_config\n\n\ndef speed():\n"
        "    return get_config(MODE, 0)\n"
    )
    files = {
        "a.py": 'MODE = "enable_fast"\n',
        "b.py": 'MODE = "other"\n',
        "c.py": reader,
        "c.toml": SETTINGS_CONFIG,
    }
    result = diff(tmp_path, monkeypatch, files, "--config", "c.toml")
    assert (result.exit_code, result.stdout) == (0, "")


def test_a_write_through_a_constant_that_may_name_the_flag_is_a_conflict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = (
        "from a import MODE\nfrom store import set_config\n\n\ndef test_fast():\n"
        "    set_config(MODE, 1)\n"
    )
    files = {
        "a.py": 'MODE = "enable_fast"\n',
        "b.py": 'MODE = "other"\n',
        "engine.py": ENGINE.replace("keys", "a").replace("FAST_KEY", "MODE"),
        "test_c.py": writer,
        "c.toml": SETTINGS_CONFIG,
    }
    result = diff(tmp_path, monkeypatch, files, "--config", "c.toml")
    assert result.exit_code == 123
    assert "enable_fast: not pruned: it is given another value at test_c.py:6" in result.stderr


def test_a_keyword_another_function_binds_to_its_own_parameter_is_no_conflict_under_strict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`similar(..., fuzzy=0.5)` fills similar's own threshold: it never reaches search's flag."""
    api = (
        "from search import similar\n\n\ndef endpoint(word, query):\n"
        "    return similar(word, query, fuzzy=0.5)\n"
    )
    result = diff(
        tmp_path,
        monkeypatch,
        {"search.py": SEARCH, "api.py": api},
        "--strict",
        "--flag",
        "fuzzy=False",
    )
    assert result.exit_code == 1, result.output
    assert "+def search(index, query):\n" in result.stdout and "api.py" not in result.stdout


def test_another_functions_parameter_of_another_default_makes_the_flag_ambiguous(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Unless strict, `similar`'s `fuzzy` may be the flag (its code default the old value) or a
    threshold: nothing is guessed."""
    api = (
        "from search import similar\n\n\ndef endpoint(word, query):\n"
        "    return similar(word, query, fuzzy=0.5)\n"
    )
    result = diff(
        tmp_path, monkeypatch, {"search.py": SEARCH, "api.py": api}, "--flag", "fuzzy=False"
    )
    assert result.exit_code == 123
    assert result.stdout == ""
    assert (
        "fuzzy: not pruned: the name is ambiguous: parameters that no chain of calls links to the "
        "flag carry it (search.similar.fuzzy, at search.py:7)" in result.stderr
    )


@pytest.mark.parametrize("strict", [[], ["--strict"]])
def test_a_keyword_a_function_passes_on_through_kwargs_to_others_too_is_a_conflict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, strict: list[str]
) -> None:
    api = (
        "from search import search\n\n\ndef timed(*args, **kwargs):\n    log(**kwargs)\n"
        "    return search(*args, **kwargs)\n\n\n"
        "def endpoint(index, query):\n    return timed(index, query, fuzzy=True)\n"
    )
    result = diff(
        tmp_path,
        monkeypatch,
        {"search.py": SEARCH_ONLY, "api.py": api},
        "--flag",
        "fuzzy=False",
        *strict,
    )
    assert result.exit_code == 123
    assert "api.py:10 (passed to timed, which does not take it as the flag)" in result.stderr


def test_a_keyword_a_function_passes_on_through_kwargs_only_to_the_flags_function_goes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    api = (
        "from search import search\n\n\ndef timed(*args, **kwargs):\n"
        "    return search(*args, **kwargs)\n\n\n"
        "def endpoint(index, query):\n    return timed(index, query, fuzzy=True)\n"
    )
    result = diff(
        tmp_path, monkeypatch, {"search.py": SEARCH_ONLY, "api.py": api}, "--flag", "fuzzy=False"
    )
    assert result.exit_code == 1, result.output
    assert "+    return timed(index, query)\n" in result.stdout
    assert (
        "prune-flags: api.py:9: overrode fuzzy = True (the config fixes it at False)\n"
        in result.stderr
    )
