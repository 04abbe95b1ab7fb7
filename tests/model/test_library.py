"""Library keywords (library.py): which calls are asked about, and the probe subprocess that asks
the installed libraries' signatures (its failures keep every keyword, with a notice)."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from prune_flags.model.library import (
    LibraryDefault,
    Parameter,
    Target,
    keyword_calls,
    library_keywords,
    probe,
    repository_names,
    same_default,
)
from tests.support import fixture_path

FLAGS = frozenset({"fast"})


def calls(
    source: str, repository: frozenset[str] = frozenset({"app"})
) -> list[tuple[int, str, str, Target]]:
    tree = ast.parse(textwrap.dedent(source))
    found = keyword_calls(tree, FLAGS, lambda module: module.split(".")[0] not in repository)
    return sorted((call.line, call.keyword, call.callee, call.target) for call in found)


def test_callees_resolve_through_the_files_imports() -> None:
    found = calls("""
        import json
        import os.path
        import xml.etree.ElementTree as ET
        from subprocess import run as execute
        json.dumps(x, sort_keys=self.fast)
        os.path.join(a, strict=fast)
        ET.tostring(e, short_empty_elements=not self.fast)
        execute(cmd, check=self.fast)
        """)
    assert found == [
        (6, "sort_keys", "json.dumps", Target("json", "json", ("dumps",))),
        (7, "strict", "os.path.join", Target("os.path", "os", ("path", "join"))),
        (
            8,
            "short_empty_elements",
            "ET.tostring",
            Target("xml.etree.ElementTree", "xml.etree.ElementTree", ("tostring",)),
        ),
        (9, "check", "execute", Target("subprocess", "subprocess", ("run",))),
    ]


@pytest.mark.parametrize(
    "source",
    [
        "from app.io import dump\ndump(x, sort_keys=self.fast)",  # the repository's own
        "from .io import dump\ndump(x, sort_keys=self.fast)",  # relative: the repository's own
        "import json\ndef f(json):\n"
        "    json.dumps(x, sort_keys=self.fast)",  # a parameter shadows it
        "import json\nif X:\n    json = None\njson.dumps(x, sort_keys=self.fast)",  # bound again
        "try:\n    import json\nexcept ImportError:\n    pass\n"
        "json.dumps(x, sort_keys=self.fast)",  # conditional
        "import json\nself.json.dumps(x, sort_keys=self.fast)",  # a receiver of unknown class
        "import json\njson.dumps(x, sort_keys=self.fast, **extra)",  # might pass it again
        "import json\njson.dumps(*args, sort_keys=self.fast)",
        "import json\njson.dumps(x, sort_keys=other)",  # reads no flag
        "import json\nfrom os import *\njson.dumps(x, sort_keys=self.fast)",  # a star import
        "import json\njson(x, sort_keys=self.fast)",  # the module itself
    ],
)
def test_other_callees_are_never_asked_about(source: str) -> None:
    assert calls(source) == []


def test_same_default_is_strict_about_types() -> None:
    assert (
        same_default(False, False) and same_default((1, "a"), (1, "a")) and same_default(None, None)
    )
    assert not same_default(True, 1)
    assert not same_default(0, False)
    assert not same_default(-0.0, 0.0)


def test_the_probe_reads_defaults_of_the_installed_library(tmp_path: Path) -> None:
    dumps, run, indent = (
        Target("json", "json", ("dumps",)),
        Target("subprocess", "subprocess", ("run",)),
        Target("textwrap", "textwrap", ("indent",)),
    )
    found, notices = probe(
        {
            dumps: frozenset({"sort_keys", "indent"}),
            run: frozenset({"check"}),
            indent: frozenset({"predicate"}),
        },
        tmp_path,
    )
    assert notices == []
    assert found[dumps] == {"sort_keys": Parameter(False, None), "indent": Parameter(None, None)}
    assert found[run] == {"check": Parameter(False, None)}
    assert found[indent] == {"predicate": Parameter(None, 2)}  # positional or keyword: its place


def test_a_class_is_asked_for_its_constructors_signature(tmp_path: Path) -> None:
    decoder = Target("json", "json", ("JSONDecoder",))
    found, _ = probe({decoder: frozenset({"strict"})}, tmp_path)
    assert found[decoder] == {"strict": Parameter(True, None)}


def test_what_the_probe_cannot_read_keeps_its_keywords_with_a_notice(tmp_path: Path) -> None:
    missing = Target("prune_flags_no_such_module", "prune_flags_no_such_module", ("f",))
    unknown = Target("json", "json", ("no_such_function",))
    kwargs = Target("logging", "logging", ("basicConfig",))  # (**kwargs)
    taken = Target("textwrap", "textwrap", ("indent",))
    wanted = {
        missing: frozenset({"a"}),
        unknown: frozenset({"a"}),
        kwargs: frozenset({"level"}),
        taken: frozenset({"nope"}),
    }
    found, notices = probe(wanted, tmp_path)
    assert found.get(missing) is None and found.get(unknown) is None
    assert found[kwargs] == {} and found[taken] == {}
    assert notices == [
        "library_keywords: cannot read prune_flags_no_such_module.f's signature "
        "(ModuleNotFoundError: No module named 'prune_flags_no_such_module'); its keywords stay",
        "library_keywords: cannot read json.no_such_function's signature (AttributeError: module "
        "'json' has no attribute 'no_such_function'); its keywords stay",
        "library_keywords: logging.basicConfig takes level only through **kwargs: the "
        "keyword stays",
        "library_keywords: textwrap.indent takes no keyword nope: the keyword stays",
    ]


def test_a_default_that_is_no_literal_is_never_compared(tmp_path: Path) -> None:
    dump = Target(
        "json", "json", ("dump",)
    )  # dump(obj, fp, *, ..., cls=None, ...): `fp` has no default
    found, notices = probe({dump: frozenset({"fp", "cls"})}, tmp_path)
    assert found[dump] == {"cls": Parameter(None, None)} and notices == []


def test_a_probe_that_takes_too_long_keeps_every_keyword(tmp_path: Path) -> None:
    slow = tmp_path / "python"
    slow.write_text("#!/bin/sh\nsleep 10\n")
    slow.chmod(0o755)
    found, notices = probe(
        {Target("json", "json", ("dumps",)): frozenset({"sort_keys"})},
        tmp_path,
        str(slow),
        timeout=0.5,
    )
    assert found == {}
    assert notices == [
        "library_keywords: reading the libraries' signatures took longer than 0.5 s; every "
        "library keyword stays"
    ]


def test_an_interpreter_that_fails_keeps_every_keyword(tmp_path: Path) -> None:
    found, notices = probe(
        {Target("json", "json", ("dumps",)): frozenset({"sort_keys"})}, tmp_path, "/bin/false"
    )
    assert found == {}
    assert notices[0].startswith(
        "library_keywords: /bin/false could not read the libraries' signatures ("
    )


def test_a_module_of_the_repository_is_never_imported(tmp_path: Path) -> None:
    """An editable install of the target makes its package importable: the probe refuses it
    before importing it (the package would print on import)."""
    site = tmp_path / "site"
    (site / "loudpkg").mkdir(parents=True)
    (site / "loudpkg" / "__init__.py").write_text(
        "raise SystemExit('imported')\ndef f(a=False):\n    pass\n"
    )
    wrapper = tmp_path / "python"
    import sys

    wrapper.write_text(
        "#!/bin/sh\n"
        f'exec {sys.executable} -c \'import sys; sys.path.insert(0, "{site}"); '
        'exec(sys.argv[-1])\' "$@"\n'
    )
    wrapper.chmod(0o755)
    target = Target("loudpkg", "loudpkg", ("f",))
    found, notices = probe({target: frozenset({"a"})}, site, str(wrapper))
    assert found == {}
    assert notices == [
        "library_keywords: cannot read loudpkg.f's signature (ImportError: loudpkg is installed "
        "from the repository itself); its keywords stay"
    ]


def test_a_positional_argument_reaching_the_parameter_keeps_it(tmp_path: Path) -> None:
    source = (
        "import textwrap\n"
        "textwrap.indent(t, p, predicate=self.fast)\n"
        "textwrap.indent(t, p, q, predicate=self.fast)\n"
        "textwrap.indent(t, p, predicate=self.fast) + textwrap.indent(t, p, q, "
        "predicate=self.fast)\n"
    )
    found = library_keywords(
        [(Path("a.py"), ast.parse(source))], frozenset({"fast"}), frozenset(), tmp_path
    )
    assert found.files == {
        Path("a.py"): {
            (2, "textwrap.indent", "predicate", 2): LibraryDefault(None),
            (4, "textwrap.indent", "predicate", 2): LibraryDefault(None),
        }
    }


def test_nothing_to_ask_spawns_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess

    monkeypatch.setattr(subprocess, "run", lambda *args, **kwargs: pytest.fail("spawned"))
    found = library_keywords(
        [(Path("a.py"), ast.parse("import json\njson.dumps(x, indent=2)\n"))],
        FLAGS,
        frozenset(),
        tmp_path,
    )
    assert found.files == {} and found.notices == []


def test_repository_names_include_its_modules_and_root_entries(tmp_path: Path) -> None:
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "tools.py").write_text("")
    names = repository_names(tmp_path, [tmp_path / "scripts" / "json.py"])
    assert {"scripts", "json", "src", "tools", "pkg"} <= names


def _run_fixture(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[object, dict]:
    import json
    import shutil
    import subprocess

    from typer.testing import CliRunner

    from prune_flags.cli import app

    tree = tmp_path / "tree"
    shutil.copytree(fixture_path(name) / "before", tree)
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    monkeypatch.chdir(tree)
    report = tmp_path / "report.json"
    config = str(fixture_path(name) / "config.toml")
    result = CliRunner().invoke(
        app,
        ["diff", "-q", "--config", config, "--report", str(report), "."],
        catch_exceptions=False,
    )
    return result, json.loads(report.read_text())


def test_a_callee_that_cannot_be_read_is_named_once_on_stderr_and_in_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result, report = _run_fixture("idiom_library_keyword_noop", tmp_path, monkeypatch)
    notice = (
        "library_keywords: cannot read prune_flags_missing_library.dumps's signature "
        "(ModuleNotFoundError: No module named 'prune_flags_missing_library'); its keywords stay"
    )
    assert report["notices"] == [notice]
    assert result.stderr.count(f"prune-flags: warning: {notice}") == 1  # type: ignore[attr-defined]


def test_with_the_option_off_nothing_is_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import prune_flags.engine.driver

    monkeypatch.setattr(
        prune_flags.engine.driver, "library_keywords", lambda *args, **kwargs: pytest.fail("asked")
    )
    result, report = _run_fixture("idiom_library_keyword_off", tmp_path, monkeypatch)
    assert result.exit_code == 1 and report["notices"] == []  # type: ignore[attr-defined]


def test_the_same_question_is_asked_once_a_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`apply -i` plans the cleanup again after each declined hunk: the libraries are not imported
    again."""
    wanted = {Target("json", "json", ("dumps",)): frozenset({"sort_keys"})}
    first = probe(wanted, tmp_path)
    import subprocess

    monkeypatch.setattr(subprocess, "run", lambda *args, **kwargs: pytest.fail("asked again"))
    assert probe(wanted, tmp_path) == first
