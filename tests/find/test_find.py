"""`prune-flags find`: which names are proposed, which are not, and that its config applies as it
is."""

from __future__ import annotations

import ast
import json
import shutil
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from prune_flags.cli import app as prune_flags_app
from prune_flags.config import Config, Flag
from prune_flags.config_files import load_config
from prune_flags.find import estimate as find_module
from prune_flags.find import run as find_run
from prune_flags.find.candidates import discover
from prune_flags.find.command import find as find_command
from prune_flags.find.facts import Candidate, FindResult
from prune_flags.find.render import config_toml, evidence
from prune_flags.find.run import find
from prune_flags.find.scan import scan_file
from prune_flags.semantic.facts import Site
from prune_flags.semantic.modules import internal_module_names
from tests.support import CASES, fixture_path, python_tree_bytes, write_expected

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

SEED = fixture_path("seed_schedule_node")
# How the summary line labels counts made from the trees, without --exact.
ESTIMATED = (
    "; counted from the folds alone, at least what the cleanup does (--exact: the "
    "cleanup's own counts)"
)

NODE = """\
class Node:
    def __init__(self):
        self.fast = False

    def run(self):
        if self.fast:
            return 1
        return 2
"""


def write_tree(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(exist_ok=True)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def found(root: Path, **options: object) -> dict[str, Candidate]:
    result = find([root], root, jobs=1, **options)  # type: ignore[arg-type]
    return {candidate.name: candidate for candidate in result.candidates}


def discovered(root: Path) -> dict[str, Candidate]:
    """Candidates before counting folds (find() then drops those that fold nothing)."""
    files = sorted(root.rglob("*.py"))
    internal = internal_module_names(files, root)
    facts = [scan_file(path, path.relative_to(root).as_posix(), internal) for path in files]
    return {candidate.name: candidate for candidate in discover(facts, internal)}


def find_app() -> typer.Typer:
    app = typer.Typer()
    app.callback()(lambda: None)  # a group, as prune_flags.cli is, so the command goes by its name
    app.command()(find_command)
    return app


# -- the seed ---------------------------------------------------------------------------------


@pytest.fixture
def seed(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(SEED / "before", root)
    (root / ".git").mkdir()
    return root


def test_seed_proposes_manual_release_grads_only(seed: Path) -> None:
    candidates = found(seed)
    assert list(candidates) == ["manual_release_grads"]
    flag = candidates["manual_release_grads"]
    assert flag.value is False
    assert flag.kinds == ("attribute",)
    assert flag.definitions == (Site("pipeline/nodes.py", 50),)
    assert (flag.reads, flag.condition_reads, flag.branches) == (2, 2, 2)
    # Two folded ifs, the comment above the first, the definition.
    assert flag.lines == 10


def test_seed_exact_counts_come_from_the_engine(seed: Path) -> None:
    flag = found(seed, exact=True)["manual_release_grads"]
    assert (flag.branches, flag.lines_removed, flag.lines_added) == (2, 21, 0)


def test_seed_rejects_two_valued_and_parameter_fed_fields(seed: Path) -> None:
    names = set(discovered(seed))
    assert "delay_grads_release" not in names  # False in one class, an expression in another
    assert not names & {
        "free_input",
        "name",
        "stream",
        "event",
        "forward_func",
    }  # self.x = parameter


def test_config_out_then_apply_reproduces_the_seed(
    seed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(seed)
    config = seed.parent / "stale.toml"
    result = CliRunner().invoke(
        find_app(), ["find", "--config-out", str(config), "."], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert "manual_release_grads = false\n" in config.read_text()
    applied = CliRunner().invoke(
        prune_flags_app, ["apply", "--config", str(config), "."], catch_exceptions=False
    )
    assert applied.exit_code == 0, applied.output
    assert python_tree_bytes(seed) == python_tree_bytes(
        write_expected(SEED, seed.parent / "expected")
    )


# -- what rules a name out ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "other",
    [
        pytest.param('setattr(node, "fast", True)\n', id="setattr"),
        pytest.param("make_node(fast=True)\n", id="keyword"),
        pytest.param(
            "import argparse\nparser = argparse.ArgumentParser()\n"
            'parser.add_argument("--fast", action="store_true")\n',
            id="argparse",
        ),
        pytest.param('parser.add_argument("-f", dest="fast")\n', id="argparse-dest"),
        pytest.param(
            'import click\n@click.option("--fast/--slow")\ndef main(speed): pass\n', id="click"
        ),
        pytest.param("node.fast = compute()\n", id="non-literal"),
        pytest.param("node.fast = None\n", id="another-literal"),
        pytest.param("node.fast += 1\n", id="augmented"),
        pytest.param("del node.fast\n", id="del"),
        pytest.param("for node.fast in (True, False):\n    pass\n", id="loop-target"),
        pytest.param("with opened() as node.fast:\n    pass\n", id="with-target"),
        pytest.param("first, node.fast = pair\n", id="unpacking"),
        pytest.param('import os\nnode.speed = os.environ.get("FAST")\n', id="env-var"),
        pytest.param('options = {"fast": True}\n', id="string-key"),
        pytest.param(
            'from unittest import mock\nmock.patch("pkg.node.Node.fast", True)\n', id="mock-patch"
        ),
        pytest.param("class Quick(Node):\n    fast = True\n", id="subclass-attribute"),
        pytest.param(
            "class Other:\n    def fast(self):\n        return 1\n", id="method-of-that-name"
        ),
        pytest.param("import torch\nif torch.fast:\n    pass\n", id="external-attribute"),
    ],
)
def test_any_other_write_rules_the_name_out(tmp_path: Path, other: str) -> None:
    write_tree(tmp_path, {"node.py": NODE})
    assert "fast" in found(tmp_path)  # the control: without the other write it is proposed
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_node.py").write_text(other)
    assert "fast" not in found(tmp_path)


def test_a_keyword_passing_the_same_literal_gives_no_other_value(tmp_path: Path) -> None:
    write_tree(tmp_path, {"node.py": NODE, "main.py": "make_node(fast=False)\n"})
    assert "fast" in found(tmp_path)


def test_a_file_that_does_not_parse_rules_out_what_it_mentions(tmp_path: Path) -> None:
    write_tree(tmp_path, {"node.py": NODE, "broken.py": "node.fast = (\n"})
    result = find([tmp_path], tmp_path, jobs=1)
    assert result.candidates == ()
    assert [skipped.display for skipped in result.skipped] == ["broken.py"]


def test_a_name_no_condition_reads_is_no_candidate(tmp_path: Path) -> None:
    write_tree(tmp_path, {"node.py": NODE.replace("if self.fast:", "if compute(self.fast):")})
    assert found(tmp_path) == {}


def test_a_constant_only_compared_with_unknowns_folds_nothing(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "limits.py": "LIMIT = 10\n\ndef check(n):\n    if n > LIMIT:\n"
            "        raise ValueError(n)\n"
        },
    )
    assert found(tmp_path) == {}


def test_attributes_of_external_bases_are_ruled_out(tmp_path: Path) -> None:
    module = "import torch\n\n" + NODE.replace("class Node:", "class Node(torch.nn.Module):")
    write_tree(tmp_path, {"node.py": module})
    assert found(tmp_path) == {}


def test_enum_members_are_not_constants(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {"colors.py": """\
            from enum import Enum

            class Color(Enum):
                RED = 1

            def paint(color):
                if color == Color.RED:
                    return "red"
            """},
    )
    assert "RED" not in discovered(tmp_path)


# -- the kinds of candidate ----------------------------------------------------------------------


def test_module_constant_read_through_an_import(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "settings.py": "DEBUG = False\n",
            "app.py": """\
            from settings import DEBUG

            def run():
                if DEBUG:
                    print("debugging")
                return 1
            """,
        },
    )
    flag = found(tmp_path)["DEBUG"]
    assert (flag.kinds, flag.definitions, flag.branches) == (
        ("module-constant",),
        (Site("settings.py", 1),),
        1,
    )


def test_module_constant_imported_from_outside_is_ruled_out(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "settings.py": "DEBUG = False\n",
            "app.py": "from django.conf import DEBUG\nif DEBUG:\n    x = 1\n",
        },
    )
    assert found(tmp_path) == {}


DATACLASS = """\
from dataclasses import dataclass

@dataclass
class Options:
    path: str
    verbose: bool = False

def run(options):
    if options.verbose:
        print("running")
"""


def test_dataclass_field_with_literal_default(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {"options.py": DATACLASS, "main.py": "from options import Options\nOptions('a')\n"},
    )
    assert found(tmp_path)["verbose"].kinds == ("field",)
    assert "path" not in discovered(tmp_path)  # no default: every constructor call sets it


def test_dataclass_field_with_a_field_call_default(tmp_path: Path) -> None:
    options = DATACLASS.replace(
        "verbose: bool = False", "verbose: bool = field(default=False, repr=False)"
    )
    write_tree(
        tmp_path, {"options.py": options.replace("import dataclass", "import dataclass, field")}
    )
    assert found(tmp_path)["verbose"].kinds == ("field",)


@pytest.mark.parametrize("call", ["Options('a', True)", "Options(**settings)", "Options(*row)"])
def test_dataclass_field_set_by_the_constructor_is_ruled_out(tmp_path: Path, call: str) -> None:
    write_tree(
        tmp_path, {"options.py": DATACLASS, "main.py": f"from options import Options\n{call}\n"}
    )
    assert "verbose" not in discovered(tmp_path)


def test_class_attribute_compared_with_a_literal(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {"client.py": """\
            class Client:
                retries = 3

                def send(self):
                    if self.retries > 5:
                        return "many"
                    return "few"
            """},
    )
    flag = found(tmp_path)["retries"]
    assert (flag.value, flag.kinds, flag.branches) == (3, ("class-attribute",), 1)


PARAMETER = """\
def load(path, *, strict=False):
    if strict:
        raise ValueError(path)
    return path

def save(data, compress=None):
    if compress:
        return data
    return data

load("a")
save(1)
"""


def test_parameter_defaults_no_call_passes_are_proposed(tmp_path: Path) -> None:
    write_tree(tmp_path, {"io.py": PARAMETER})
    candidates = found(tmp_path)
    strict, compress = candidates["strict"], candidates["compress"]
    assert (strict.kinds, strict.value, strict.definitions, strict.functions) == (
        ("parameter",),
        False,
        (Site("io.py", 1),),
        ("load",),
    )
    assert (strict.reads, strict.condition_reads, strict.branches) == (1, 1, 1)
    assert strict.lines == 2  # the folded `if` and its body; the parameter has no line of its own
    assert (compress.value, compress.functions, compress.branches) == (None, ("save",), 1)
    assert "(default of a parameter of load(); no call passes another value)" in evidence(strict)


def test_the_table_names_a_parameters_functions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(tmp_path, {"io.py": PARAMETER})
    monkeypatch.chdir(tmp_path)
    table = CliRunner().invoke(find_app(), ["find", "-j", "1"], catch_exceptions=False)
    rows = {row.split()[3]: row for row in table.stdout.splitlines()[1:]}
    assert rows["strict"].endswith("io.py:1 (parameter of load())")


@pytest.mark.parametrize(
    "call",
    [
        pytest.param("save(1, True)", id="by-position"),
        pytest.param("save(1, None)", id="by-position-even-the-same-value"),
        pytest.param("save(*args)", id="star-args"),
        pytest.param("save(1, **options)", id="star-star-kwargs"),
        pytest.param(
            "def relay(*args, **kwargs):\n    return save(*args, **kwargs)", id="forwarding"
        ),
        pytest.param("callbacks = [save]", id="escapes-as-a-value"),
        pytest.param("import functools\nfunctools.partial(save, 1)", id="partial"),
        pytest.param("handler.on_write = io.save", id="stored-as-a-callback"),
        pytest.param("from io import save as store\nstore(1, True)", id="imported-as-another-name"),
        pytest.param("getattr(module, 'save')(1, True)", id="getattr-by-name"),
        pytest.param("__all__ = ['save']", id="exported-by-name"),
        pytest.param("getattr(handler, 'sa' + kind)(1, True)", id="getattr-by-a-built-name"),
        pytest.param("save(1, compress=True)", id="keyword-another-value"),
        pytest.param("save(1, compress=level > 3)", id="keyword-not-a-literal"),
        pytest.param("def other(data, compress):\n    return compress", id="another-local"),
        pytest.param(
            "def other(data, compress=None):\n    compress = data\n    return compress\nother(1)",
            id="rebound-elsewhere",
        ),
        pytest.param("store = lambda data, compress=None: compress", id="lambda-default"),
        pytest.param(
            "def other(data, compress=None):\n    from io import compress\n    return compress\n"
            "other(1)",
            id="rebound-by-an-import",
        ),
        pytest.param("save.__defaults__ = (True,)", id="defaults-replaced"),
        pytest.param(
            "def other(data, compress=None):\n    def inner():\n        nonlocal compress\n"
            "        compress = data\n    inner()\n    if compress:\n        pass\nother(1)",
            id="nonlocal-rebinding",
        ),
        pytest.param(
            "@register\ndef other(data, compress=None):\n    if compress:\n        pass",
            id="decorated-function",
        ),
        pytest.param(
            "def relay(**options):\n    return options\nrelay(compress=None)",
            id="keyword-to-a-function-without-it",
        ),
        pytest.param("if config.compress:\n    pass", id="attribute-of-that-name"),
        pytest.param(
            "def other(data, compress=0):\n    if compress:\n        pass\nother(1)",
            id="another-default",
        ),
    ],
)
def test_parameter_defaults_a_call_could_set_are_ruled_out(tmp_path: Path, call: str) -> None:
    write_tree(tmp_path, {"io.py": PARAMETER})
    assert "compress" in found(tmp_path)  # the control
    (tmp_path / "main.py").write_text(call + "\n")
    assert "compress" not in discovered(tmp_path)
    assert "compress" not in found(tmp_path)
    assert "strict" in found(tmp_path)  # nothing here reaches load


def test_a_function_the_repository_never_calls_is_an_entry_point(tmp_path: Path) -> None:
    write_tree(tmp_path, {"io.py": PARAMETER.replace("save(1)\n", "")})
    assert "compress" not in found(tmp_path)
    assert "strict" in found(tmp_path)


def test_keyword_only_parameters_ignore_positional_calls(tmp_path: Path) -> None:
    write_tree(tmp_path, {"io.py": PARAMETER + "load('a', 'b', 'c')\n"})
    assert "strict" in found(tmp_path)


def test_a_keyword_passing_the_default_or_the_parameter_itself_keeps_it(tmp_path: Path) -> None:
    main = """\
    from io import save

    def backup(data, compress=None):
        return save(data, compress=compress)

    save(2, compress=None)
    backup(3)
    """
    write_tree(tmp_path, {"io.py": PARAMETER, "main.py": main})
    assert found(tmp_path)["compress"].functions == ("backup", "save")
    write_tree(tmp_path, {"main.py": main.replace("backup(3)", "backup(3, True)")})
    assert "compress" not in found(tmp_path)


METHODS = """\
class Reader:
    def read(self, path, fast=False):
        if fast:
            return path
        return path.upper()

Reader().read("a")
"""


@pytest.mark.parametrize(
    "call, proposed",
    [
        pytest.param("", True, id="control"),
        pytest.param("Reader().read('a', True)", False, id="bound-method-by-position"),
        pytest.param("Reader.read(reader, 'a', True)", False, id="through-the-class"),
        pytest.param(
            "import threading\n\nclass Threaded(Reader, threading.Thread):\n    pass",
            False,
            id="subclass-with-an-external-base",
        ),
        pytest.param(
            "class Visiting:\n    def run(self, kind):\n"
            "        return getattr(self, 're' + kind)('a', True)",
            False,
            id="dispatch-by-a-built-name",
        ),
        pytest.param(
            "class Visiting:\n    def run(self, kind):\n"
            "        return getattr(self, f'{kind}ad')('a')",
            False,
            id="dispatch-by-an-f-string",
        ),
        pytest.param(
            "class Visiting:\n    def run(self, kind):\n"
            "        return getattr(self, 'do_%s' % kind)('a')",
            True,
            id="dispatch-to-other-names",
        ),
    ],
)
def test_method_parameters(tmp_path: Path, call: str, proposed: bool) -> None:
    write_tree(tmp_path, {"reader.py": METHODS, "main.py": call + "\n"})
    assert ("fast" in found(tmp_path)) == proposed


def test_methods_of_a_class_with_an_external_base_are_not_proposed(tmp_path: Path) -> None:
    module = "import torch\n\n" + METHODS.replace("class Reader:", "class Reader(torch.nn.Module):")
    write_tree(tmp_path, {"reader.py": module})
    assert "fast" not in found(tmp_path)


def test_dunder_parameters_are_not_proposed(tmp_path: Path) -> None:
    module = """\
    class Reader:
        def __init__(self, fast=False):
            if fast:
                print(1)  # not the string "fast", which alone would rule the name out

    Reader()
    """
    write_tree(tmp_path, {"reader.py": module})
    assert "fast" not in found(tmp_path)


def test_a_parameter_that_defaults_to_a_flags_value_must_hold_too(tmp_path: Path) -> None:
    """The cleanup takes `def helper(x, fast=False)` for the flag `fast = False` as well."""
    helper = (
        "def helper(x, fast=False):\n    if fast:\n        return x\n    return -x\n\nhelper(1)\n"
    )
    write_tree(tmp_path, {"node.py": NODE, "helper.py": helper})
    assert found(tmp_path)["fast"].kinds == ("attribute",)
    (tmp_path / "main.py").write_text("from helper import helper\nhelper(1, True)\n")
    assert "fast" not in found(tmp_path)


def test_parameter_reads_are_counted_inside_its_function_only(tmp_path: Path) -> None:
    module = """\
    def render(text, html=False):
        def wrap(line):
            if html:
                return "<p>" + line
            return line
        return [wrap(line) for line in text]

    def other():
        if html:
            return 1

    render("a")
    """
    write_tree(tmp_path, {"render.py": module})
    flag = found(tmp_path)["html"]
    # The read in other() is a global of that name (undefined here), not the parameter.
    assert (flag.reads, flag.condition_reads, flag.branches, flag.lines) == (1, 1, 1, 2)
    # With a module-level `html`, find's own rules take that as the flag (the parameter of
    # another default a local), but apply cannot tell whether the parameter is the flag, as no
    # call links it: it would refuse the name as ambiguous, so find holds it back.
    write_tree(tmp_path, {"render.py": module + "html = None\n"})
    assert discovered(tmp_path)["html"].kinds == ("module-constant",)
    result = find([tmp_path], tmp_path, jobs=1)
    assert result.candidates == ()
    assert [(refusal.flag, refusal.why, refusal.scope_with) for refusal in result.held_back] == [
        ("html", "ambiguous", ("render.render.html",))
    ]


def test_parameter_config_out_then_apply(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    write_tree(
        root,
        {
            "shop/__init__.py": "",
            "shop/search.py": SEARCH,
            "shop/api.py": """\
            from shop.search import search


            def endpoint(request, index):
                return search(index, request.args["q"], fuzzy=False)


            def typeahead(request, index):
                return search(index, request.args["q"], limit=5)
            """,
        },
    )
    monkeypatch.chdir(root)
    config = tmp_path / "stale.toml"
    result = CliRunner().invoke(
        find_app(), ["find", "-j", "1", "--config-out", str(config), "."], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert "\nfuzzy = false\n" in config.read_text()
    assert [flag.name for flag in load_config([root], config).flags] == ["fuzzy"]
    applied = CliRunner().invoke(
        prune_flags_app, ["apply", "--config", str(config), "."], catch_exceptions=False
    )
    assert applied.exit_code == 0, applied.output
    assert (root / "shop/search.py").read_text() == SEARCH_AFTER
    assert 'search(index, request.args["q"])\n' in (root / "shop/api.py").read_text()
    for path in root.rglob("*.py"):
        compile(path.read_text(), str(path), "exec")
    assert found(root) == {}  # nothing left to propose


SEARCH = '''\
def search(index, query, limit=20, fuzzy=False):
    """Products whose title matches the query.

    Args:
        index: The product index.
        query: Words to look for.
        limit: Most results to return.
        fuzzy: Also match words within one edit of the query's.
    """
    terms = query.lower().split()
    if fuzzy:
        terms = [v for term in terms for v in index.edits(term)]
    return index.lookup(terms)[:limit]
'''
SEARCH_AFTER = '''\
def search(index, query, limit=20):
    """Products whose title matches the query.

    Args:
        index: The product index.
        query: Words to look for.
        limit: Most results to return.
    """
    terms = query.lower().split()
    return index.lookup(terms)[:limit]
'''


@pytest.mark.parametrize(
    "fixture",
    ["idiom_param_external_callee", "idiom_param_google_docstring", "idiom_param_numpy_docstring"],
)
def test_parameter_fixtures_config_out_then_apply(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fixture: str
) -> None:
    """On the cleanup's own parameter fixtures, find proposes the fixture's flag, and its config
    applied as it is reproduces the fixture's result."""
    root = tmp_path / "repo"
    shutil.copytree(fixture_path(fixture) / "before", root)
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    config = tmp_path / "stale.toml"
    CliRunner().invoke(
        find_app(), ["find", "--config-out", str(config), "."], catch_exceptions=False
    )
    proposed = load_config([root], config).flags
    expected = load_config([root], fixture_path(fixture) / "config.toml").flags
    assert [(f.name, f.value) for f in proposed] == [(f.name, f.value) for f in expected]
    applied = CliRunner().invoke(
        prune_flags_app, ["apply", "--config", str(config), "."], catch_exceptions=False
    )
    assert applied.exit_code == 0, applied.output
    assert python_tree_bytes(root) == python_tree_bytes(
        write_expected(fixture_path(fixture), tmp_path / "expected")
    )


# -- the outputs -------------------------------------------------------------------------------


def test_config_out_holds_every_kind_of_value_apply_takes(tmp_path: Path) -> None:
    values = [False, 3, 2.5, 'it\'s "quoted"', None, ("a", 1), "tab\there"]
    candidates = tuple(
        Candidate(f"flag_{i}", value, ("attribute",), (Site("m.py", i),), 1, 1, 1, 2)
        for i, value in enumerate(values)
    )
    config = tmp_path / "stale.toml"
    config.write_text(config_toml(FindResult(candidates, files=1)))
    loaded = load_config([tmp_path], config)
    assert [flag.value for flag in loaded.flags] == values
    assert (
        "# False at m.py:0; 1 read, 1 in conditions; folds 1 branch, removes 2 lines\n"
        "flag_0 = false\n" in config.read_text()
    )


def test_table_is_sorted_by_lines_and_json_carries_the_evidence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small = NODE.replace("fast", "quick")
    big = NODE.replace("return 1", "x = 1\n            y = 2\n            return 1")
    write_tree(tmp_path, {"small.py": small, "big.py": big})
    monkeypatch.chdir(tmp_path)
    table = CliRunner().invoke(find_app(), ["find"], catch_exceptions=False)
    assert table.exit_code == 0
    rows = table.stdout.splitlines()
    assert rows[0].split() == ["lines", "branches", "reads", "name", "value", "defined", "at"]
    assert [row.split()[3] for row in rows[1:]] == ["fast", "quick"]
    result = CliRunner().invoke(find_app(), ["find", "--json", "-j", "1"], catch_exceptions=False)
    first = json.loads(result.stdout)["candidates"][0]
    assert first == {
        "name": "fast",
        "value": "False",
        "kinds": ["attribute"],
        "defined_at": ["big.py:3"],
        "functions": [],
        "reads": 1,
        "condition_reads": 1,
        "branches": 1,
        "lines": 5,
        "lines_removed": 5,
        "lines_added": 0,
        "named": False,
        "overridden": [],
    }


def test_command_exit_codes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_tree(tmp_path, {"node.py": NODE, "broken.py": "def (:\n"})
    monkeypatch.chdir(tmp_path)
    skipped = CliRunner().invoke(find_app(), ["find"], catch_exceptions=False)
    assert skipped.exit_code == 123
    assert "prune-flags: skipped broken.py: does not parse" in skipped.stderr
    missing = CliRunner().invoke(find_app(), ["find", "nowhere"], catch_exceptions=False)
    assert missing.exit_code == 2


# -- counting ---------------------------------------------------------------------------------


def test_an_and_or_inside_another_counts_each_read_once(tmp_path: Path) -> None:
    module = (
        "FAST = False\n\ndef run(a, b):\n    x = a and (FAST or b)\n    if FAST:\n"
        "        return x\n"
    )
    write_tree(tmp_path, {"m.py": module})
    assert found(tmp_path)["FAST"].condition_reads == 2


def test_the_users_own_constant_tests_do_not_count(tmp_path: Path) -> None:
    module = """\
    FAST = False

    def run(x):
        if 0:
            print("never", FAST)
        while False:
            if FAST:
                x += 1
        if FAST:
            x += 2
        return x
    """
    write_tree(tmp_path, {"m.py": module})
    # The cleanup folds the two `if FAST:`, and leaves `if 0:` and `while False:` alone.
    assert found(tmp_path)["FAST"].branches == 2


def test_lines_are_numbered_as_python_numbers_them(tmp_path: Path) -> None:
    """A form feed or a line separator inside a string is no line break to Python."""
    module = (
        'FAST = False\n\x0c\nNOTE = "a\u2028b"\n\ndef run():\n    # only when fast\n'
        "    if FAST:\n        return 1\n"
    )
    exotic, plain = tmp_path / "exotic", tmp_path / "plain"
    exotic.mkdir(), plain.mkdir()
    write_tree(exotic, {"m.py": module})
    write_tree(plain, {"m.py": module.replace("\x0c", "").replace("\u2028", " ")})
    assert found(exotic)["FAST"].lines == found(plain)["FAST"].lines == 4


COUNTED = """\
import functools
FAST = False
WIDE = FAST or None; OTHER = 1 if FAST else 2

class Node:
    @functools.cache
    def run(self, x):
        def inner():
            # comment above
            if FAST:
                return x
            elif x:
                return 2
            return 3
        return inner

    if not FAST:
        limit = 3

def helper(y, slow=False):
    while slow and not FAST:
        y += 1
    assert FAST or y
    return y

if FAST:
    print("fast")
"""


METHOD_THEN_MODULE = """\
class Node:
    def run(self):
        if FAST:
            return 1
        return 2

FAST = False
if FAST:
    print(1)
"""


def test_counting_parses_again_only_the_parts_that_read_the_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.py"
    path.write_text(COUNTED)
    facts = scan_file(path, "m.py", frozenset())
    spans = {span for name in ("FAST", "slow") for span in facts.segments[name]}
    flags = [("FAST", False, False), ("slow", False, True)]
    whole = find_module.count_folds(path, flags)
    # FAST: the ternary, the if/elif with its comment, `if not FAST`, the top-level if;
    # slow: the while.
    assert whole == {"FAST": (4, 6), "slow": (1, 2)}
    parsed: list[str] = []
    parse = ast.parse
    monkeypatch.setattr(
        ast, "parse", lambda text, *a, **k: parsed.append(text) or parse(text, *a, **k)
    )
    assert find_module.count_folds(path, flags, tuple(spans), facts.module_bound) == whole
    assert parsed and all(
        len(text.strip().splitlines()) < len(COUNTED.splitlines()) for text in parsed
    )
    # A run that starts in a method and goes on at the top level.
    path.write_text(METHOD_THEN_MODULE)
    facts = scan_file(path, "m.py", frozenset())
    spans = facts.segments["FAST"]
    assert spans == ((2, 5), (8, 9))
    parsed.clear()
    flag = [("FAST", False, False)]
    assert find_module.count_folds(path, flag, spans, facts.module_bound) == {"FAST": (2, 4)}
    assert parsed == ["class _:\n" + "".join(METHOD_THEN_MODULE.splitlines(True)[1:9]).rstrip("\n")]
    assert find_module.count_folds(path, flag) == {"FAST": (2, 4)}
    path.write_text(COUNTED)
    # A part that does not parse alone: the whole file is parsed instead.
    parsed.clear()
    assert find_module.count_folds(path, flags, ((8, 9),), facts.module_bound) == whole
    assert parsed[-1] == COUNTED


def test_a_pool_finds_what_one_process_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(tmp_path, {f"node_{i}.py": NODE.replace("fast", f"fast_{i}") for i in range(4)})
    monkeypatch.setattr(find_run, "PARALLEL_MIN_BYTES", 0)
    assert find([tmp_path], tmp_path, jobs=2) == find([tmp_path], tmp_path, jobs=1)


def test_what_a_class_with_an_external_base_reads_of_itself_is_ruled_out(tmp_path: Path) -> None:
    model = """\
    import torch

    class Model(torch.nn.Module):
        def forward(self, x):
            if self.fast:
                return x
            return -x
    """
    write_tree(tmp_path, {"node.py": NODE, "model.py": model})
    assert "fast" not in found(tmp_path)


def test_config_exclude_is_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_tree(tmp_path, {"node.py": NODE, "build/node_copy.py": "node.fast = True\n"})
    (tmp_path / "prune-flags.toml").write_text('exclude = ["build/**"]\n')
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(find_app(), ["find", "--json"], catch_exceptions=False)
    assert [c["name"] for c in json.loads(result.stdout)["candidates"]] == ["fast"]
    bad = tmp_path / "bad.toml"
    bad.write_text("exclud = []\n")
    refused = CliRunner().invoke(find_app(), ["find", "--config", str(bad)], catch_exceptions=False)
    assert refused.exit_code == 2
    assert "exclud: unknown key" in refused.stderr


# -- flags the user names: the config is the decision ----------------------------------------------

NODE_TURNED_ON = "from node import Node\n\nnode = Node()\nnode.fast = True\n"


def test_a_named_flag_is_listed_with_the_writes_it_overrides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`node.fast = True` rules `fast` out of find's own proposals; named, it is listed as apply
    treats it: at the named value, the write it overrides in its row, its JSON and its config."""
    write_tree(tmp_path, {"node.py": NODE, "main.py": NODE_TURNED_ON})
    assert "fast" not in found(tmp_path)
    monkeypatch.chdir(tmp_path)
    table = CliRunner().invoke(find_app(), ["find", "--flag", "fast=False"], catch_exceptions=False)
    assert table.exit_code == 0, table.output
    assert table.stdout == (
        "lines  branches  reads  name  value  defined at\n"
        "    4         1      1  fast  False  main.py:4, node.py:3 (named; overrides main.py:4)\n"
    )
    assert table.stderr == f"1 candidate (1 named) in 2 files{ESTIMATED}\n"
    result = CliRunner().invoke(
        find_app(), ["find", "--json", "--flag", "fast=False"], catch_exceptions=False
    )
    report = json.loads(result.stdout)
    assert report["flags"] == {"fast": "False"}
    assert report["refused"] == []
    assert report["candidates"] == [
        {
            "name": "fast",
            "value": "False",
            "kinds": ["attribute"],
            "defined_at": ["main.py:4", "node.py:3"],
            "functions": [],
            "reads": 1,
            "condition_reads": 1,
            "branches": 1,
            "lines": 4,
            "lines_removed": 4,
            "lines_added": 0,
            "named": True,
            "overridden": [
                {
                    "location": "main.py:4",
                    "reason": "overrode fast = True (the config fixes it at False)",
                }
            ],
        }
    ]


def test_a_named_value_other_than_the_codes_is_counted_at_the_named_value(tmp_path: Path) -> None:
    """The code says False everywhere, the user says True: the definition is overridden, and the
    folds are those of True (the body stays, dedented)."""
    write_tree(tmp_path, {"node.py": NODE})
    assert found(tmp_path)["fast"].value is False
    named = found(tmp_path, settings=Config(flags=(Flag("fast", True, "True"),)))["fast"]
    assert (named.value, named.named, named.branches, named.lines) == (True, True, 1, 2)
    assert [str(write) for write in named.overridden] == [
        "node.py:3: overrode fast = False (the config fixes it at True)"
    ]


def test_config_out_writes_named_flags_with_what_they_override(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The config found (here prune-flags.toml) names the flag; the config written names it too,
    with the writes apply overrides, and apply takes it as it is."""
    write_tree(tmp_path, {"node.py": NODE, "main.py": NODE_TURNED_ON})
    (tmp_path / "prune-flags.toml").write_text("[flags]\nfast = false\n")
    monkeypatch.chdir(tmp_path)
    stale = tmp_path / "stale.toml"
    result = CliRunner().invoke(
        find_app(), ["find", "--config-out", str(stale)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert stale.read_text().splitlines()[1:] == [
        "[flags]",
        "# named: False at main.py:4, node.py:3; 1 read, 1 in conditions; folds 1 branch, "
        "removes 4 lines",
        "#   overrides main.py:4: overrode fast = True (the config fixes it at False)",
        "fast = false",
    ]
    applied = CliRunner().invoke(
        prune_flags_app, ["apply", "--config", str(stale), "."], catch_exceptions=False
    )
    assert applied.exit_code == 0, applied.output
    assert (tmp_path / "main.py").read_text() == "from node import Node\n\nnode = Node()\n"


AMBIGUOUS = {
    "car.py": "class Car:\n    fast = True\n\n    def go(self):\n"
    "        return 2 if self.fast else 1\n",
    "engine.py": "class Engine:\n    fast = False\n\n    def run(self):\n        if self.fast:\n"
    "            return 1\n        return 0\n",
}


PASSED_TO_KWARGS = {
    "engine.py": (
        "class Engine:\n    def __init__(self):\n        self.fast = False\n\n"
        "    def go(self):\n        if self.fast:\n            return 1\n        return 2\n\n\n"
        "def helper(x, **options):\n    return x\n\n\nhelper(1, fast=False)\n"
    ),
}


def test_a_name_apply_would_refuse_is_held_back_with_applys_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`fast` holds one literal everywhere, so find's own rules propose it; but it is also passed
    to a function of the repository that does not take it as the flag, so the model of a flag
    (the one apply plans from) refuses it: find holds it back, says why as apply does, lists the
    refusal under `held_back`, and exits 0 (nobody named it)."""
    write_tree(tmp_path, PASSED_TO_KWARGS)
    monkeypatch.chdir(tmp_path)
    assert list(discovered(tmp_path)) == ["fast"]  # find's own rules alone
    applied = CliRunner().invoke(
        prune_flags_app,
        ["diff", "--flag", "fast=False", "--report", "apply.json", "."],
        catch_exceptions=False,
    )
    assert applied.exit_code == 123
    message = next(line for line in applied.stderr.splitlines() if "fast: not pruned" in line)

    result = CliRunner().invoke(find_app(), ["find"], catch_exceptions=False)
    assert (result.exit_code, result.stdout) == (
        0,
        "lines  branches  reads  name  value  defined at\n",
    )
    assert result.stderr == (
        message.replace("prune-flags: ", "prune-flags: not proposed, as apply would refuse it: ")
        + "\n0 candidates in 1 files; 1 name held back\n"
    )
    report = json.loads(
        CliRunner().invoke(find_app(), ["find", "--json"], catch_exceptions=False).stdout
    )
    assert report["candidates"] == []
    assert report["held_back"] == json.loads((tmp_path / "apply.json").read_text())["refused"]
    CliRunner().invoke(find_app(), ["find", "--config-out", "stale.toml"], catch_exceptions=False)
    written = (tmp_path / "stale.toml").read_text().splitlines()
    assert written[1:] == [
        "[flags]",
        "# held back (another-value), as apply would refuse it: " + message.split(": ", 1)[1],
    ]


def test_a_named_flag_apply_refuses_is_refused_with_applys_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two unrelated classes carry `fast`: apply refuses it as ambiguous; find lists no candidate
    of that name (not even its own proposal), says why on stderr as apply does, puts apply's
    entry in its JSON `refused`, comments it out in the config it writes, and exits 123."""
    write_tree(tmp_path, {**AMBIGUOUS, "bike.py": NODE.replace("fast", "eco")})
    monkeypatch.chdir(tmp_path)
    applied = CliRunner().invoke(
        prune_flags_app,
        ["diff", "--flag", "fast=False", "--report", "apply.json", "."],
        catch_exceptions=False,
    )
    assert applied.exit_code == 123
    refused = json.loads((tmp_path / "apply.json").read_text())["refused"]
    assert refused == [
        {
            "flag": "fast",
            "why": "ambiguous",
            "locations": ["car.py:2", "engine.py:2"],
            "scope_with": ["car.Car.fast", "engine.Engine.fast"],
        }
    ]
    stale = tmp_path / "stale.toml"
    options = ["--flag", "fast=False", "--flag", "eco=False", "--config-out", str(stale)]
    result = CliRunner().invoke(find_app(), ["find", *options], catch_exceptions=False)
    assert result.exit_code == 123
    assert result.stdout == (
        "lines  branches  reads  name  value  defined at\n"
        "    3         1      1  eco   False  bike.py:3 (named)\n"
    )
    message = next(line for line in applied.stderr.splitlines() if "fast: not pruned" in line)
    assert (
        result.stderr
        == f"{message}\n1 candidate (1 named) in 3 files; 1 named flag refused{ESTIMATED}\n"
    )
    report = json.loads(
        CliRunner().invoke(find_app(), ["find", "--json", *options], catch_exceptions=False).stdout
    )
    assert report["refused"] == refused
    assert [c["name"] for c in report["candidates"]] == ["eco"]
    assert stale.read_text().splitlines()[-2:] == [
        f"# refused (ambiguous), as apply would: {message.removeprefix('prune-flags: ')}",
        "# fast = false",
    ]


def test_strict_refuses_a_named_flag_given_another_value(tmp_path: Path) -> None:
    write_tree(tmp_path, {"node.py": NODE, "main.py": NODE_TURNED_ON})
    settings = Config(flags=(Flag("fast", False, "False"),), strict=True)
    result = find([tmp_path], tmp_path, settings, jobs=1)
    assert result.candidates == ()
    assert [(r.flag, r.why, r.locations) for r in result.refused] == [
        ("fast", "another-value", ("main.py:4",))
    ]


def test_find_s_own_proposals_keep_their_rules_when_flags_are_named(tmp_path: Path) -> None:
    """Naming `fast` lists it; `quick` (the same shape) is still proposed by find's own rules,
    and `slow`, which something sets to another value and nobody named, is still ruled out."""
    write_tree(
        tmp_path,
        {
            "node.py": NODE,
            "main.py": NODE_TURNED_ON + "node.slow = True\n",
            "quick.py": NODE.replace("fast", "quick"),
            "slow.py": NODE.replace("fast", "slow"),
        },
    )
    candidates = found(tmp_path, settings=Config(flags=(Flag("fast", False, "False"),)))
    assert {name: c.named for name, c in candidates.items()} == {"fast": True, "quick": False}


def test_a_named_flag_is_listed_even_when_it_folds_nothing(tmp_path: Path) -> None:
    write_tree(tmp_path, {"node.py": NODE})
    settings = Config(flags=(Flag("fast", False, "False"), Flag("absent", 1, "1")))
    candidates = found(tmp_path, settings=settings)
    absent = candidates["absent"]
    assert (absent.named, absent.branches, absent.lines, absent.definitions) == (True, 0, 0, ())
    assert evidence(absent) == (
        "named: 1 at no definition seen; 0 reads, 0 in conditions; folds 0 branches, "
        "removes 0 lines"
    )


def test_exact_counts_a_named_flag_with_the_engine_at_the_named_value(tmp_path: Path) -> None:
    write_tree(tmp_path, {"node.py": NODE, "main.py": NODE_TURNED_ON})
    settings = Config(flags=(Flag("fast", False, "False"),))
    flag = found(tmp_path, settings=settings, exact=True)["fast"]
    # The definition, the fold (`if` and its body) and the overridden write go, and with them
    # the emptied `def __init__(self)` (object's own) and the blank line after it.
    assert (flag.named, flag.branches, flag.lines_removed, flag.lines_added) == (True, 1, 6, 0)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--flag", "fast"], "--flag: fast: expected NAME=VALUE"),
        (["--flag", "fast=False", "--flag", "fast=True"], "--flag: fast: given twice"),
        (["--flag", "fast=yes"], "--flag: fast: 'yes' is not a Python literal"),
    ],
)
def test_a_bad_flag_option_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: list[str], message: str
) -> None:
    write_tree(tmp_path, {"node.py": NODE})
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(find_app(), ["find", *options], catch_exceptions=False)
    assert result.exit_code == 2
    assert message in result.stderr


@pytest.mark.parametrize(
    "fixture",
    [
        "core_decide_computed_definition",
        "core_decide_definition_other_value",
        "core_decide_overridden_write",
        "core_decide_scoped_module",
        "idiom_test_keyword",
        "idiom_test_write_mixed",
    ],
)
def test_named_flags_config_out_then_apply_reproduces_the_fixture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fixture: str
) -> None:
    """find with the fixture's config writes a config holding its flags (each with the writes it
    overrides), which apply takes as it is to give the fixture's result."""
    root = tmp_path / "repo"
    shutil.copytree(fixture_path(fixture) / "before", root)
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    stale = tmp_path / "stale.toml"
    options = ["--config", str(fixture_path(fixture) / "config.toml"), "--config-out", str(stale)]
    result = CliRunner().invoke(find_app(), ["find", *options, "."], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    named = load_config([root], fixture_path(fixture) / "config.toml").flags
    assert {(f.key, f.value) for f in load_config([root], stale).flags} == {
        (f.key, f.value) for f in named
    }
    assert "#   overrides " in stale.read_text()
    applied = CliRunner().invoke(
        prune_flags_app, ["apply", "--config", str(stale), "."], catch_exceptions=False
    )
    assert applied.exit_code == 0, applied.output
    assert python_tree_bytes(root) == python_tree_bytes(
        write_expected(fixture_path(fixture), tmp_path / "expected")
    )


def test_a_scoped_flag_is_listed_by_its_key_with_its_own_definition_and_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`"vehicles.engine.Engine.fast"` names Engine's `fast` only: the row and the config written
    spell the key, list Engine's definition alone, and count what the cleanup folds for it (Car's
    reads of its own `fast` are another variable's); a key that names nothing is exit 2."""
    root = tmp_path / "repo"
    shutil.copytree(fixture_path("core_decide_scoped") / "before", root)
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    stale = tmp_path / "stale.toml"
    options = ["--flag", "vehicles.engine.Engine.fast=False", "--config-out", str(stale)]
    result = CliRunner().invoke(find_app(), ["find", *options, "."], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[1] == (
        "    4         2      2  vehicles.engine.Engine.fast  False  vehicles/engine.py:2 (named)"
    )
    assert stale.read_text().splitlines()[2:4] == [
        "# named: False at vehicles/engine.py:2; 2 reads, 2 in conditions; folds 2 branches, "
        "removes 4 lines",
        '"vehicles.engine.Engine.fast" = false',
    ]
    bad = ["find", "--flag", "vehicles.engine.Nothing.fast=False", "."]
    missing = CliRunner().invoke(find_app(), bad, catch_exceptions=False)
    assert missing.exit_code == 2
    expected = "flags.vehicles.engine.Nothing.fast: vehicles.engine has no class or function"
    assert expected in missing.stderr


# -- flags read and defined through the config's templates ------------------------------------

TEMPLATED = Config(
    flags=(),
    accessors=("config.{name}.value", "flags.FLAGS.{name}", "{name} in features.enabled"),
    writers=("flags.DEFINE_boolean({name}, ...)", "set_feature({name}, ...)"),
)
TEMPLATED_TREE = {
    "config.py": """\
        from registry import bool_state

        use_fused = bool_state(name="app_use_fused", default=False, help="fused kernels")
        """,
    "model.py": """\
        from absl import flags

        import config
        from registry import features, set_feature

        flags.DEFINE_boolean("use_bf16", False, "train in bfloat16")
        set_feature("dark-mode", True)


        def forward(x):
            if not config.use_fused.value:
                y = x * 2
            else:
                y = x + x
            if config.use_fused.value == False and x:
                y += 1
            return y


        def dtype():
            return "bfloat16" if flags.FLAGS.use_bf16 else "float32"


        def theme():
            if "dark-mode" not in features.enabled:
                return "light"
            return "dark"
        """,
}


def test_flags_read_through_accessors_and_defined_by_writers_are_proposed(tmp_path: Path) -> None:
    """A flag object at its literal `default=`, an absl registration and a setter call each
    define their flag; reads through the accessors are its reads, deciding in conditions
    (through `not`, comparisons, `and`, a ternary, and `not in` for a membership template)."""
    write_tree(tmp_path, TEMPLATED_TREE)
    result = find([tmp_path], tmp_path, TEMPLATED, jobs=1)
    rows = {
        c.key: (
            c.source,
            c.kinds,
            [str(site) for site in c.definitions],
            c.reads,
            c.condition_reads,
            c.branches,
            c.lines,
        )
        for c in result.candidates
    }
    assert rows == {
        # `if not ...` keeps its else branch (header, body, `else:` go) and the definition goes.
        "use_fused": ("False", ("flag-object",), ["config.py:3"], 2, 2, 1, 4),
        "use_bf16": ("False", ("writer",), ["model.py:6"], 1, 1, 1, 1),
        "dark-mode": ("True", ("writer",), ["model.py:7"], 1, 1, 1, 3),
    }
    assert found(tmp_path) == {}  # without the templates, nothing is a flag


@pytest.mark.parametrize(
    ("name", "other"),
    [
        pytest.param("use_fused", "config.use_fused.value = True\n", id="store-through-template"),
        pytest.param("use_fused", "if config.use_fused:\n    pass\n", id="object-read-plainly"),
        pytest.param("use_fused", "config.use_fused.set(True)\n", id="object-method"),
        pytest.param("use_fused", "print(config.use_fused.value.real)\n", id="read-acted-on"),
        pytest.param(
            "use_fused", 'if "use_fused" in features.enabled:\n    pass\n', id="object-by-string"
        ),
        pytest.param(
            "use_bf16", 'flags.DEFINE_boolean("use_bf16", True, "")\n', id="writer-another-literal"
        ),
        pytest.param("use_bf16", 'flags.DEFINE_boolean("use_bf16", on(), "")\n', id="writer-call"),
        pytest.param(
            "dark-mode", 'with set_feature("dark-mode", True):\n    pass\n', id="writer-in-with"
        ),
        pytest.param("dark-mode", 'KEY = "dark-mode"\n', id="constant-holding-the-name"),
        pytest.param(
            "dark-mode", 'features.enabled.discard("dark-mode")\n', id="name-spelled-elsewhere"
        ),
    ],
)
def test_another_value_through_the_templates_rules_the_flag_out(
    tmp_path: Path, name: str, other: str
) -> None:
    write_tree(tmp_path, TEMPLATED_TREE)
    assert name in found(tmp_path, settings=TEMPLATED)  # the control
    write_tree(tmp_path, {"tests/test_other.py": "import config\nfrom absl import flags\n" + other})
    assert name not in found(tmp_path, settings=TEMPLATED)


def test_a_flag_object_without_a_literal_default_is_no_candidate(tmp_path: Path) -> None:
    default = TEMPLATED_TREE["config.py"].replace("default=False", "default=DEFAULT")
    write_tree(tmp_path, {**TEMPLATED_TREE, "config.py": default})
    assert "use_fused" not in found(tmp_path, settings=TEMPLATED)


def test_a_bare_template_read_of_a_local_rules_the_flag_out(tmp_path: Path) -> None:
    """`{name}.value` on a bare name reads the flag only where the module's name is meant: a
    function's own `use_fused` holds something else."""
    settings = replace(TEMPLATED, accessors=("{name}.value",))
    flag_object = 'use_fused = bool_state(name="app_use_fused", default=False)\n'
    write_tree(tmp_path, {"config.py": flag_object + "if use_fused.value:\n    print(1)\n"})
    assert "use_fused" in found(tmp_path, settings=settings)
    local = "def f(use_fused):\n    return 1 if use_fused.value else 2\n"
    write_tree(tmp_path, {"other.py": local})
    assert "use_fused" not in found(tmp_path, settings=settings)


@pytest.mark.parametrize("fixture", ["idiom_template_found"])
def test_template_fixtures_find_then_config_out_then_apply(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fixture: str
) -> None:
    """With only the fixture's templates in the config, find proposes exactly the fixture's
    flags, and the config it writes (templates carried over) applies to give the fixture's after."""
    root = tmp_path / "repo"
    shutil.copytree(fixture_path(fixture) / "before", root)
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    expected = load_config([root], fixture_path(fixture) / "config.toml")
    templates = tmp_path / "templates.toml"
    templates.write_text(
        "".join(
            f"{key} = {json.dumps(list(getattr(expected, key)))}\n"
            for key in ("accessors", "writers")
        )
    )
    stale = tmp_path / "stale.toml"
    options = ["--config", str(templates), "--config-out", str(stale)]
    result = CliRunner().invoke(find_app(), ["find", *options, "."], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    written = load_config([root], stale)
    assert {(f.key, f.value) for f in written.flags} == {(f.key, f.value) for f in expected.flags}
    assert (written.accessors, written.writers) == (expected.accessors, expected.writers)
    applied = CliRunner().invoke(
        prune_flags_app, ["apply", "--config", str(stale), "."], catch_exceptions=False
    )
    assert applied.exit_code == 0, applied.output
    assert python_tree_bytes(root) == python_tree_bytes(
        write_expected(fixture_path(fixture), tmp_path / "expected")
    )


TEMPLATE_FIXTURES = sorted(
    name
    for name in CASES
    for path in [fixture_path(name)]
    if (path / "config.toml").is_file()
    and {"accessors", "writers"} & set(tomllib.loads((path / "config.toml").read_text()))
)


@pytest.mark.parametrize("fixture", TEMPLATE_FIXTURES)
def test_find_agrees_with_apply_on_flags_found_through_templates(
    tmp_path: Path, fixture: str
) -> None:
    """With the fixture's templates and no flag named, each flag find proposes is one apply
    prunes alone (not refused), folding the branches find counted from the trees."""
    root = tmp_path / "repo"
    shutil.copytree(fixture_path(fixture) / "before", root)
    (root / ".git").mkdir()
    templates = replace(load_config([root], fixture_path(fixture) / "config.toml"), flags=())
    estimated = find([root], root, templates, jobs=1)
    exact = {c.name: c for c in find([root], root, templates, jobs=1, exact=True).candidates}
    assert set(exact) == {c.name for c in estimated.candidates}
    for candidate in estimated.candidates:
        assert exact[candidate.name].branches == candidate.branches


def test_config_out_carries_the_templates_over(tmp_path: Path) -> None:
    """The config written keeps the keys that say how flags are read, written and declared as
    options, or apply would not see the flags found through them; without them it is as before."""
    candidate = Candidate("use_x", False, ("flag-object",), (Site("config.py", 3),), 1, 1, 1, 2)
    accessors = ("config.{name}.value", '{name} in opts["on"]')
    shapes = (("accessors", accessors), ("option_calls", ("add_toggle",)))
    text = config_toml(FindResult((candidate,), files=1, shapes=shapes))
    (tmp_path / "stale.toml").write_text(text)
    loaded = load_config([tmp_path], tmp_path / "stale.toml")
    assert loaded.accessors == accessors
    assert (loaded.writers, loaded.option_calls) == ((), ("add_toggle",))
    assert [(f.name, f.value) for f in loaded.flags] == [("use_x", False)]
    assert config_toml(FindResult((candidate,), files=1)).splitlines()[1] == "[flags]"
