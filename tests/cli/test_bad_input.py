"""Bad input: each gives one clear message naming what is wrong and where, exit 2 (config, usage)
or 123 (files), no traceback, and nothing written that should not be.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from prune_flags.cli import app
from prune_flags.cli import main as cli_main
from tests.support import invoke

MODULE = "fast = False\n\n\ndef pick(x):\n    if fast:\n        return 1\n    return x\n"
PRUNED = "def pick(x):\n    return x\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "mod.py").write_text(MODULE)
    monkeypatch.chdir(root)
    return root


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def one_error(result, *names: str) -> str:
    """The run's single error line; it names everything in `names`. No traceback anywhere."""
    assert "Traceback" not in result.output
    errors = [
        line for line in result.stderr.splitlines() if line.startswith("prune-flags: error: ")
    ]
    assert len(errors) == 1, result.stderr
    for name in names:
        assert name in errors[0], (name, errors[0])
    return errors[0]


# -- config ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, where",
    [
        # not TOML at all, and TOML with a broken line: the line and column are named
        ("flags = = 1\n", ["(toml)", "line 1, column 9"]),
        ("[flags]\nfast = nope\n", ["(toml)", "line 2"]),
        ("<flags><fast>false</fast></flags>\n", ["(toml)", "line 1"]),
        ("\ufeff[flags]\nfast = false\n", ["(toml)", "line 1"]),
        # wrong types
        ("[flags]\nfast = [1, [2]]\n", ["flags.fast", "list inside a list"]),
        ("[flags]\nfast = 2024-01-01\n", ["flags.fast", "date"]),
        ("[flags]\nfast = nan\n", ["flags.fast", "finite"]),
        ("flags = 3\n", ["flags", "table"]),
        ("[flags.fast]\npython = 3\n", ["flags.fast.python"]),
        ("[flags.fast]\npython = \"open('x')\"\n", ["flags.fast.python", "literal"]),
        (
            '[flags]\nfast = false\n[flags.slow]\npython = "{1: {2}}"\n',
            ["flags.slow.python", "set"],
        ),
        ('keep_asserts = "yes"\n[flags]\nfast = false\n', ["keep_asserts", "true or false"]),
        ('exclude = "build/**"\n[flags]\nfast = false\n', ["exclude", "array"]),
        ('format = "blue"\n[flags]\nfast = false\n', ["format", "blue"]),
        ('tests = "skip"\n[flags]\nfast = false\n', ["tests", '"delete", "report"', "skip"]),
        ('accessors = ["has(x)"]\n[flags]\nfast = false\n', ["accessors[0]", "{name}"]),
        (
            'accessors = ["has({name})", "config.{name}.(value"]\n[flags]\nfast = false\n',
            ["accessors[1]", "not a Python expression"],
        ),
        (
            'accessors = ["{name} < limits.cap"]\n[flags]\nfast = false\n',
            ["accessors[0]", "{name} in ..."],
        ),
        (
            'accessors = ["override({name}=...)"]\n[flags]\nfast = false\n',
            ["accessors[0]", "writers"],
        ),
        ('writers = ["set_config({name}"]\n[flags]\nfast = false\n', ["writers[0]"]),
        ('keep = ["pkg.2module"]\n[flags]\nfast = false\n', ["keep[0]"]),
        (
            'option_calls = ["add_toggle", "add-flag"]\n[flags]\nfast = false\n',
            ["option_calls[1]", "qualified name"],
        ),
        # unknown keys, with a suggestion where one is close
        ("[flag]\nfast = false\n", ["flag", "did you mean 'flags'"]),
        ("keep_assert = true\n[flags]\nfast = false\n", ["keep_assert", "keep_asserts"]),
        ("[flags.fast]\nvalue = false\n", ["flags.fast.value", "unknown key"]),
        # flags named like a keyword, or not like a name at all
        ("[flags]\nclass = false\n", ["flags.class", "keyword"]),
        ("[flags]\nNone = 1\n", ["flags.None", "keyword"]),
        ('[flags]\n"my flag" = false\n', ["flags.my flag", "identifier"]),
        ("[flags]\n", ["flags", "no flags"]),
    ],
)
def test_bad_config_names_file_and_key_and_writes_nothing(
    repo: Path, text: str, where: list[str]
) -> None:
    (repo / "flags.toml").write_text(text, encoding="utf-8")
    before = tree(repo)
    for command in ("apply", "diff"):
        result = invoke(command, "--config", "flags.toml", ".")
        assert result.exit_code == 2, result.output
        assert result.stdout == ""
        line = one_error(result, "flags.toml", *where)
        assert line.startswith("prune-flags: error: flags.toml: ")
    assert tree(repo) == before


def test_broken_pyproject_found_above_the_path_is_named(repo: Path) -> None:
    (repo / "pyproject.toml").write_text("[tool.prune-flags\nflags = {}\n")
    (repo / "src").mkdir()
    (repo / "src" / "mod.py").write_text(MODULE)
    before = tree(repo)
    result = invoke("apply", "src")
    assert result.exit_code == 2
    one_error(result, "pyproject.toml", "line 1")
    assert tree(repo) == before


def test_config_that_is_not_a_file(repo: Path) -> None:
    (repo / "conf.d").mkdir()
    result = invoke("apply", "--config", "conf.d", ".")
    assert result.exit_code == 2
    one_error(result, "conf.d", "--config")
    assert (repo / "mod.py").read_text() == MODULE


def test_unreadable_config(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = repo / "flags.toml"
    config.write_text("[flags]\nfast = false\n")
    config.chmod(0)
    if os.access(config, os.R_OK):  # root reads anything: make the read fail as it would
        real = Path.read_bytes

        def denied(self: Path) -> bytes:
            if self.name == "flags.toml":
                raise PermissionError(13, "Permission denied", str(self))
            return real(self)

        monkeypatch.setattr(Path, "read_bytes", denied)
    result = invoke("apply", "--config", "flags.toml", ".")
    config.chmod(0o644)
    assert result.exit_code == 2
    one_error(result, "flags.toml", "Permission denied")
    assert (repo / "mod.py").read_text() == MODULE


# -- --flag ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "option, where",
    [
        ("if=True", ["--flag", "'if' is a Python keyword"]),
        ("None=1", ["--flag", "keyword"]),
        ("fast", ["--flag", "NAME=VALUE"]),
        ("fast=", ["--flag", "missing value"]),
        ("=True", ["--flag", "NAME=VALUE"]),
        ("fast=yes", ["--flag", "fast", "quote strings"]),
        ("fast=[{1}]", ["--flag", "fast", "set inside a list"]),
        ("fast=1e999", ["--flag", "fast", "finite"]),
        ("my-flag=True", ["--flag", "my-flag", "identifier"]),
    ],
)
def test_bad_flag_option(repo: Path, option: str, where: list[str]) -> None:
    result = invoke("apply", "--flag", option, ".")
    assert result.exit_code == 2, result.output
    one_error(result, *where)
    assert (repo / "mod.py").read_text() == MODULE


def test_soft_keyword_is_a_valid_flag_name(repo: Path) -> None:
    """`match`, `case`, `type` and `_` are names as well as soft keywords: a flag may be called
    so."""
    source = (
        "match = False\n\n\ndef pick(x):\n    if match:\n        return 1\n"
        "    match x:\n        case 1:\n            return 2\n    return x\n"
    )
    (repo / "soft.py").write_text(source)
    result = invoke("apply", "--flag", "match=False", "soft.py")
    assert result.exit_code == 0, result.output
    assert (repo / "soft.py").read_text() == (
        "def pick(x):\n    match x:\n        case 1:\n            return 2\n    return x\n"
    )


# -- paths -------------------------------------------------------------------------------------
def test_missing_path_among_good_ones_writes_nothing(repo: Path) -> None:
    before = tree(repo)
    result = invoke("apply", "--flag", "fast=False", "mod.py", "nowhere/else.py")
    assert result.exit_code == 2
    assert one_error(result) == "prune-flags: error: nowhere/else.py: no such file or directory"
    assert tree(repo) == before


def test_dangling_symlink_named_as_a_path(repo: Path) -> None:
    (repo / "gone.py").symlink_to(repo / "deleted.py")
    result = invoke("apply", "--flag", "fast=False", "gone.py")
    assert result.exit_code == 2
    one_error(result, "gone.py")


def test_directory_without_python_files_says_so(repo: Path) -> None:
    """Nothing to do is worth saying: a typo'd or wrong directory must not look like a clean run."""
    (repo / "docs").mkdir()
    (repo / "docs" / "index.md").write_text("fast\n")
    before = tree(repo)
    result = invoke("apply", "--flag", "fast=False", "docs")
    assert result.exit_code == 2, result.output
    one_error(result, "docs", "no Python files")
    assert tree(repo) == before


# -- files -------------------------------------------------------------------------------------
def test_unreadable_file_is_named_and_the_rest_written(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = repo / "secret.py"
    secret.write_text(MODULE)
    secret.chmod(0)
    if os.access(secret, os.R_OK):  # root reads anything: make the read fail as it would
        real = Path.read_bytes

        def denied(self: Path) -> bytes:
            if self.name == "secret.py":
                raise PermissionError(13, "Permission denied", str(self))
            return real(self)

        monkeypatch.setattr(Path, "read_bytes", denied)
    result = invoke("apply", "--flag", "fast=False", ".")
    secret.chmod(0o644)
    assert result.exit_code == 123, result.output
    assert "prune-flags: skipped secret.py: cannot read: Permission denied" in result.stderr
    assert "Traceback" not in result.output
    assert secret.read_text() == MODULE
    assert (repo / "mod.py").read_text() == PRUNED


def test_report_path_that_cannot_be_written_is_a_usage_error(repo: Path) -> None:
    """--report into a missing directory: a one-line error before anything is written, not a
    traceback after the files were already rewritten."""
    result = CliRunner().invoke(
        app, ["apply", "--flag", "fast=False", "--report", "out/report.json", "."]
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert result.exit_code == 2, result.output
    one_error(result, "out/report.json")
    assert (repo / "mod.py").read_text() == MODULE


def test_unknown_command_and_option_exit_2(repo: Path) -> None:
    for args in (["frobnicate"], ["apply", "--nope", "."]):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2
        assert "Traceback" not in result.output
    assert (repo / "mod.py").read_text() == MODULE


@pytest.mark.parametrize("command", ["diff", "apply", "find"])
def test_links_that_lead_nowhere_are_skipped_with_the_reason(repo: Path, command: str) -> None:
    """A symlink loop or a broken link in the tree is a file that could not be read: named with
    why (exit 123), never a traceback whose exit 1 a CI recipe would read as "changes shown"."""
    (repo / "loop.py").symlink_to("loop.py")
    (repo / "broken.py").symlink_to("deleted.py")
    result = invoke(command, "--flag", "fast=False", ".")
    assert result.exit_code == 123, result.output
    assert "Traceback" not in result.output
    skipped = [line for line in result.stderr.splitlines() if line.startswith("prune-flags: skip")]
    assert skipped == [
        "prune-flags: skipped broken.py: is a symbolic link that leads nowhere: No such file or"
        " directory",
        "prune-flags: skipped loop.py: is a symbolic link that leads nowhere: Too many levels of"
        " symbolic links",
    ]
    assert (repo / "mod.py").read_text() == (PRUNED if command == "apply" else MODULE)


def test_an_unexpected_error_exits_123_with_one_line(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """What no stage expected still ends in the exit for "not all was done", never 0 or 1."""
    import prune_flags.engine.driver as driver

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(driver, "run", broken)
    monkeypatch.setattr("sys.argv", ["prune-flags", "diff", "--flag", "fast=False", "."])
    with pytest.raises(SystemExit) as exit_:
        cli_main()
    assert exit_.value.code == 123
    assert capsys.readouterr().err == "prune-flags: internal error: RuntimeError: a bug\n"
    assert (repo / "mod.py").read_text() == MODULE
