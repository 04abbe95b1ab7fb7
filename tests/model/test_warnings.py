"""A flag the run did nothing with is said on stderr (and in the JSON report), with where its name
appears and the accessor template that would read it there; the exit code stays."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from prune_flags.model.unmatched import appearances
from tests.support import invoke

SUMMARY = "0 files changed, 0 lines removed, 0 added\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "pkg").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    "line, shown, template",
    [
        ('if opts["use_x"]:', 'opts["use_x"]', "opts[{name}]"),
        ('if ctx.options["use_x"]:', 'ctx.options["use_x"]', "ctx.options[{name}]"),
        (
            'if get_flag("use_x", default=False):',
            'get_flag("use_x", default=False)',
            "get_flag({name}, ...)",
        ),
        (
            'if features.has(user, "use_x"):',
            'features.has(user, "use_x")',
            "features.has(..., {name})",
        ),
        ('if lookup(key="use_x"):', 'lookup(key="use_x")', "lookup(key={name})"),
        (
            'if "use_x" not in opts.enabled:',
            '"use_x" not in opts.enabled',
            "{name} in opts.enabled",
        ),
        ('if opts.get("use_x"):', 'opts.get("use_x")', "opts.get({name})"),
    ],
)
def test_a_name_read_in_an_undeclared_form_is_warned_with_a_template(
    repo: Path, line: str, shown: str, template: str
) -> None:
    (repo / "pkg" / "a.py").write_text(
        f"def f(opts, ctx, user):\n    {line}\n        return 1\n    return 2\n"
    )
    result = invoke("diff", "--flag", "use_x=False", ".")
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr == (
        "prune-flags: warning: use_x: nothing read it in a form the config declares; it appears at "
        f'pkg/a.py:2 ({shown}); declare how it is read, e.g. accessors = ["{template}"]\n' + SUMMARY
    )


def test_the_first_three_places_are_named_and_the_rest_counted(repo: Path) -> None:
    (repo / "pkg" / "a.py").write_text("".join(f'X{i} = opts["use_x"]\n' for i in range(3)))
    (repo / "pkg" / "b.py").write_text('TABLE = ["use_x"]\nY = opts["use_x"]\n')
    result = invoke("apply", "--flag", "use_x=False", "--report", "report.json", ".")
    assert result.exit_code == 0
    places = (
        'pkg/a.py:1 (opts["use_x"]), pkg/a.py:2 (opts["use_x"]), pkg/a.py:3 '
        '(opts["use_x"]) and 2 more'
    )
    assert result.stderr == (
        "prune-flags: warning: use_x: nothing read it in a form the config declares; it appears "
        f"at {places}; "
        'declare how it is read, e.g. accessors = ["opts[{name}]"]\n' + SUMMARY
    )
    warnings = json.loads((repo / "report.json").read_text())["warnings"]
    locations = ["pkg/a.py:1", "pkg/a.py:2", "pkg/a.py:3", "pkg/b.py:1", "pkg/b.py:2"]
    assert warnings == [
        {"flag": "use_x", "why": "unmatched", "locations": locations, "template": "opts[{name}]"}
    ]


def test_a_name_in_no_template_shape_asks_to_check_the_name(repo: Path) -> None:
    (repo / "pkg" / "a.py").write_text('TABLE = ["use_x"]\n')
    result = invoke("diff", "--flag", "use_x=False", ".")
    assert result.exit_code == 0
    assert result.stderr == (
        "prune-flags: warning: use_x: nothing read it in a form the config declares; it appears "
        'at pkg/a.py:1 ("use_x"); '
        "check the flag's name\n" + SUMMARY
    )


def test_a_local_two_functions_bind_asks_for_the_qualified_key_of_one(repo: Path) -> None:
    (repo / "pkg" / "a.py").write_text(
        "def f(x):\n    use_x = x > 1\n    return use_x\n\n\n"
        "def g(x):\n    use_x = x > 2\n    return use_x\n"
    )
    result = invoke("diff", "--flag", "use_x=False", ".")
    assert result.exit_code == 0
    assert result.stderr == (
        "prune-flags: warning: use_x: nothing read it in a form the config declares; it appears "
        "at pkg/a.py:2 (use_x), pkg/a.py:3 (use_x), pkg/a.py:7 (use_x) and 1 more; it is a local"
        ' of pkg.a.f, pkg.a.g; to prune one, name it by its qualified key, e.g. "pkg.a.f.use_x" ='
        " false\n" + SUMMARY
    )


def test_a_name_that_appears_nowhere_is_warned_plainly(repo: Path) -> None:
    (repo / "pkg" / "a.py").write_text("X = 1\n")
    result = invoke("diff", "--flag", "use_x=False", "--report", "report.json", ".")
    assert result.exit_code == 0
    assert (
        result.stderr
        == "prune-flags: warning: use_x: appears nowhere in the files in scope\n" + SUMMARY
    )
    warnings = json.loads((repo / "report.json").read_text())["warnings"]
    assert warnings == [{"flag": "use_x", "why": "nowhere", "locations": [], "template": None}]


def test_a_flag_pruned_or_read_through_a_declared_template_is_not_warned(repo: Path) -> None:
    (repo / "pkg" / "a.py").write_text(
        'USE_Y = True\n\n\ndef f(features):\n    if features.has("use_x"):\n        return 1\n'
        "    return USE_Y\n"
    )
    (repo / "c.toml").write_text(
        'accessors = ["features.has({name})"]\n[flags]\nuse_x = false\nUSE_Y = true\n'
    )
    result = invoke("diff", "--config", "c.toml", ".")
    assert result.exit_code == 1
    assert "warning" not in result.stderr


def test_a_refused_flag_is_not_also_warned(repo: Path) -> None:
    (repo / "pkg" / "a.py").write_text("def f(config):\n    return config.use_x.value\n")
    result = invoke("diff", "--flag", "use_x=False", ".")
    assert result.exit_code == 123
    assert "warning" not in result.stderr
    assert "not pruned: it is read as an object at pkg/a.py:2 (config.use_x.value)" in result.stderr


def test_an_attribute_chain_suggests_the_chain_and_a_bare_name_nothing() -> None:
    text = "a = config.use_x.value\nb = use_x.enabled.now\nc = use_x\nd = obj.use_x\n"
    found = appearances(ast.parse(text), "m.py", "use_x")
    assert [(str(place.site), place.template) for place in found] == [
        ("m.py:1", "config.{name}.value"),
        ("m.py:2", "{name}.enabled.now"),
        ("m.py:3", None),
        ("m.py:4", "obj.{name}"),
    ]


def test_an_option_string_given_to_an_undeclared_call_suggests_declaring_it(repo: Path) -> None:
    (repo / "pkg" / "cli.py").write_text(
        'def build(parser):\n    add_switch(parser, "--use-x", help="x")\n'
    )
    result = invoke("diff", "--flag", "use_x=False", ".")
    assert result.exit_code == 0
    assert result.stderr == (
        "prune-flags: warning: use_x: nothing read it in a form the config declares; it appears at "
        'pkg/cli.py:2 (add_switch(parser, "--use-x", help="x")); '
        "if add_switch adds the option as add_argument does, declare it: option_calls = "
        '["add_switch"]\n' + SUMMARY
    )
    (repo / "c.toml").write_text('option_calls = ["add_switch"]\n[flags]\nuse_x = false\n')
    declared = invoke("diff", "--config", "c.toml", ".")
    assert declared.exit_code == 1
    assert '-    add_switch(parser, "--use-x", help="x")\n' in declared.stdout
    assert "warning" not in declared.stderr


def test_a_flag_whose_lookups_are_kept_for_their_effects_is_warned_so(repo: Path) -> None:
    """`os.environ.get("FAST_MODE", compute())` is read in a form the tool acts on, but never
    replaced, as its constant would drop compute(): the warning says that, not that a template
    is missing (which would not help)."""
    (repo / "pkg" / "a.py").write_text(
        'import os\n\n\ndef run(compute):\n    if os.environ.get("FAST_MODE", compute()):\n'
        "        return 1\n    return 2\n"
    )
    result = invoke("diff", "--flag", "FAST_MODE='1'", "--report", "report.json", ".")
    assert result.exit_code == 0
    assert result.stderr == (
        "prune-flags: warning: FAST_MODE: left as it is: a lookup of it has operands with "
        "side effects at "
        'pkg/a.py:5 (os.environ.get("FAST_MODE", compute())), which its constant would drop; '
        "compute them "
        "apart (`d = compute()`, then the lookup) to let it go\n" + SUMMARY
    )
    warnings = json.loads((repo / "report.json").read_text())["warnings"]
    assert warnings == [
        {"flag": "FAST_MODE", "why": "effects", "locations": ["pkg/a.py:5"], "template": None}
    ]


def test_an_option_left_registered_is_warned_with_its_place(repo: Path) -> None:
    """The option is added through a table the config does not declare: its read folds, and the
    registration it leaves is named (in the JSON too); the exit code stays."""
    (repo / "pkg" / "cli.py").write_text(
        'OPTIONS = [("--use-x", "the new x")]\n\n\ndef main(args):\n'
        "    if args.use_x:\n        return 1\n    return 2\n"
    )
    result = invoke("apply", "--flag", "use_x=False", "--report", "report.json", ".")
    assert result.exit_code == 0
    assert result.stderr.splitlines()[0] == (
        "prune-flags: warning: use_x: its reads were folded, but its option is still registered"
        " at pkg/cli.py:1 (--use-x), and now does nothing; remove it, or declare the call that"
        ' adds it (option_calls = ["..."]) so that it goes with the flag'
    )
    (warning,) = json.loads((repo / "report.json").read_text())["warnings"]
    assert warning == {
        "flag": "use_x",
        "why": "registration-left",
        "locations": ["pkg/cli.py:1 (--use-x)"],
        "template": None,
    }


def test_an_option_whose_definition_goes_is_not_warned(repo: Path) -> None:
    (repo / "pkg" / "cli.py").write_text(
        "import argparse\n\nparser = argparse.ArgumentParser()\n"
        'parser.add_argument("--use-x", action="store_true")\n\n\ndef main(argv):\n'
        "    if parser.parse_args(argv).use_x:\n        return 1\n    return 2\n"
    )
    result = invoke("apply", "--flag", "use_x=False", ".")
    assert result.exit_code == 0
    assert "warning" not in result.stderr
    assert "--use-x" not in (repo / "pkg" / "cli.py").read_text()


def test_a_kept_test_asserting_a_removed_string_is_warned(repo: Path) -> None:
    (repo / "pkg" / "page.py").write_text(
        "import warnings\n\n\ndef render(page, legacy=False):\n    if legacy:\n"
        '        warnings.warn("the legacy layout is deprecated")\n    return page\n'
    )
    (repo / "tests").mkdir()
    (repo / "tests" / "test_page.py").write_text(
        "from pkg.page import render\n\n\ndef test_warns(recwarn, legacy):\n"
        '    render("x", **legacy)\n    assert "deprecated" in str(recwarn[0].message)\n\n\n'
        'def test_plain():\n    assert render("x") == "x"\n'
    )
    result = invoke("diff", "--flag", "legacy=False", "--report", "report.json", ".")
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        "prune-flags: warning: legacy: the cleanup removed strings that tests still assert,"
        " which may now fail: tests/test_page.py:6"
    )
    (warning,) = json.loads((repo / "report.json").read_text())["warnings"]
    assert warning["why"] == "possibly-failing-test"
