"""The command line's outside: exit codes, messages, the JSON report, explain lines, colour."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from prune_flags.cli import app
from tests.support import ROOT, invoke, make_tree

MODULE = """\
class Node:
    def __init__(self):
        self.fast = False

    def run(self):
        if self.fast:
            return 1
        return 2
"""
# `def __init__(self): pass` is object's own: it goes with the field it set.
PRUNED = """\
class Node:
    def run(self):
        return 2
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "node.py").write_text(MODULE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_diff_exits_1_and_writes_nothing(repo: Path) -> None:
    result = invoke("diff", "--flag", "fast=False", ".")
    assert result.exit_code == 1
    assert result.stdout.startswith(
        "diff --git a/node.py b/node.py\n--- a/node.py\n+++ b/node.py\n"
    )
    assert "-        if self.fast:\n" in result.stdout
    assert (repo / "node.py").read_text() == MODULE
    assert result.stderr == "1 file changed, 5 lines removed, 0 added\n"


def test_apply_exits_0_and_rewrites(repo: Path) -> None:
    result = invoke("apply", "--flag", "fast=false", ".")
    assert result.exit_code == 0
    assert (repo / "node.py").read_text() == PRUNED
    assert invoke("apply", "--flag", "fast=false", ".").exit_code == 0
    assert invoke("diff", "--flag", "fast=false", ".").exit_code == 0


def test_explain_lines_name_path_line_flag_action_reason(repo: Path) -> None:
    result = invoke("diff", "--explain", "--no-color", "--flag", "fast=False", ".")
    explain = [line for line in result.stdout.splitlines() if line.startswith("node.py:")]
    assert explain == [
        "node.py:2  fast  removed-method  __init__'s body folded away, and no base class defines"
        " it: nothing is left to run or override",
        "node.py:3  fast  removed-write  fast has no reader left: the flag is fixed at False and "
        "every read of it was inlined",
        "node.py:6  fast  inlined  fast is fixed at False",
        "node.py:6  fast  removed-branch  the condition is always false once fast is inlined",
    ]


def test_json_report(repo: Path) -> None:
    result = invoke("diff", "--report", "report.json", "--flag", "fast=False", ".")
    assert result.exit_code == 1
    report = json.loads((repo / "report.json").read_text())
    assert report["version"] == 1
    assert report["flags"] == {"fast": "False"}
    assert [f["path"] for f in report["files"]] == ["node.py"]
    assert [(c["line"], c["action"]) for c in report["files"][0]["changes"]] == [
        (2, "removed-method"),
        (3, "removed-write"),
        (6, "inlined"),
        (6, "removed-branch"),
    ]
    assert report["skipped"] == []
    assert report["summary"] == {"files_changed": 1, "lines_removed": 5, "lines_added": 0}


def test_bad_config_exits_2_naming_file_and_key(repo: Path) -> None:
    (repo / "flags.toml").write_text("[flags]\nfast = 2024-01-01\n")
    result = invoke("apply", "--config", "flags.toml", ".")
    assert result.exit_code == 2
    assert result.stderr.startswith("prune-flags: error: flags.toml: flags.fast: expected")
    assert (repo / "node.py").read_text() == MODULE


def test_bad_flag_option_exits_2(repo: Path) -> None:
    result = invoke("apply", "--flag", "fast", ".")
    assert result.exit_code == 2
    assert result.stderr.startswith("prune-flags: error: --flag: ")


def test_missing_path_exits_2(repo: Path) -> None:
    result = invoke("diff", "--flag", "fast=False", "nowhere")
    assert result.exit_code == 2
    assert result.stderr == "prune-flags: error: nowhere: no such file or directory\n"


def test_missing_config_file_exits_2(repo: Path) -> None:
    result = invoke("diff", "--config", "absent.toml", ".")
    assert result.exit_code == 2
    assert result.stderr == "prune-flags: error: absent.toml: --config: no such file\n"


def test_syntax_error_is_skipped_and_the_rest_written(repo: Path) -> None:
    (repo / "broken.py").write_text("if self.fast\n    pass\n")
    result = invoke("apply", "--flag", "fast=False", ".")
    assert result.exit_code == 123
    assert "prune-flags: skipped broken.py: does not parse" in result.stderr
    assert (repo / "broken.py").read_text() == "if self.fast\n    pass\n"
    # broken.py still reads `self.fast`: the reads elsewhere go, the definition stays
    assert (repo / "node.py").read_text() == PRUNED.replace(
        "class Node:\n", "class Node:\n    def __init__(self):\n        self.fast = False\n\n"
    )


def test_a_write_of_another_value_is_overridden_and_said_on_stderr(repo: Path) -> None:
    (repo / "main.py").write_text(
        "from node import Node\n\nnode = Node()\nnode.fast = True\nprint(node.run())\n"
    )
    result = invoke("apply", "--flag", "fast=False", "--report", "r.json", ".")
    assert result.exit_code == 0, result.output
    assert (
        "prune-flags: main.py:4: overrode fast = True (the config fixes it at False)\n"
        in result.stderr
    )
    assert (repo / "node.py").read_text() == PRUNED
    assert (
        repo / "main.py"
    ).read_text() == "from node import Node\n\nnode = Node()\nprint(node.run())\n"
    changes = json.loads((repo / "r.json").read_text())["files"][0]["changes"]
    reason = "overrode fast = True (the config fixes it at False)"
    assert changes == [{"line": 4, "flag": "fast", "action": "overridden", "reason": reason}]


@pytest.mark.parametrize("how", [["--strict"], ["--config", "strict.toml"]])
def test_under_strict_a_write_of_another_value_refuses_the_flag(repo: Path, how: list[str]) -> None:
    (repo / "strict.toml").write_text("strict = true\n\n[flags]\nfast = false\n")
    (repo / "main.py").write_text("from node import Node\n\nnode = Node()\nnode.fast = True\n")
    result = invoke("apply", *how, "--flag", "fast=False", ".")
    assert result.exit_code == 123
    assert (
        "prune-flags: fast: not pruned: it is given another value at main.py:4 (strict"
        in result.stderr
    )
    assert (repo / "node.py").read_text() == MODULE
    assert (
        repo / "main.py"
    ).read_text() == "from node import Node\n\nnode = Node()\nnode.fast = True\n"


def test_color_only_when_asked_or_on_a_terminal(repo: Path) -> None:
    plain = invoke("diff", "--flag", "fast=False", ".")
    assert "\x1b[" not in plain.stdout  # CliRunner's stdout is not a terminal
    colored = invoke("diff", "--color", "--flag", "fast=False", ".")
    assert "\x1b[31m-        if self.fast:\x1b[0m" in colored.stdout


def test_python_dash_m(repo: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "prune_flags", "diff", "--flag", "fast=False", "."],
        capture_output=True,
        text=True,
        cwd=repo,
    )
    assert result.returncode == 1
    assert "-    def __init__(self):\n" in result.stdout


def run_entry(repo: Path, before_main: str = "") -> subprocess.CompletedProcess[str]:
    """`prune-flags diff --flag fast=False .` through the console script's entry; its stderr's
    last line lists the modules of `HEAVY` the process imported."""
    code = (
        "import sys; sys.argv = ['prune-flags', 'diff', '--flag', 'fast=False', '.']\n"
        "import prune_flags.__main__ as entry\n"
        f"{before_main}\n"
        "try:\n    entry.main()\nexcept SystemExit:\n    pass\n"
        f"print([name for name in {HEAVY!r} if name in sys.modules], file=sys.stderr)\n"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=repo)


# Start-up is most of a small run's time: a diff imports no pool, batch machinery,
# Dask, rich or black, and no pydantic (typer 0.29 imports it for every command; pyproject
# keeps typer below). LibCST is imported by the process `warm` forks, never by this one.
HEAVY = (
    "libcst",
    "multiprocessing",
    "prune_flags.batch.launch",
    "dask",
    "rich",
    "black",
    "pydantic",
)


def test_a_diff_imports_nothing_it_does_not_use_and_rewrites_in_the_warm_process(
    repo: Path,
) -> None:
    done = run_entry(repo)
    assert "-    def __init__(self):\n" in done.stdout
    assert done.stderr.splitlines()[-1] == "[]"


def test_a_diff_whose_warm_process_is_gone_rewrites_in_its_own(repo: Path) -> None:
    kill = (
        "import os, signal, time; from prune_flags.workers import warm; warm.start(); "
        "os.kill(warm.rewriter().pid, signal.SIGKILL); os.waitpid(warm.rewriter().pid, 0)"
    )
    done = run_entry(repo, kill)
    assert done.stdout == invoke("diff", "--flag", "fast=False", ".").stdout
    assert "-    def __init__(self):\n" in done.stdout
    assert done.stderr.splitlines()[-1] == "['libcst']"


def test_own_source_tree_with_a_flag_nothing_reads_changes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)
    result = invoke("diff", "--flag", "never_read_anywhere_flag=False", "src", "tests")
    assert result.exit_code == 0
    assert result.stdout == ""
    warning = (
        "prune-flags: warning: never_read_anywhere_flag: appears only in comments or longer "
        "strings of the files in scope"
    )
    assert result.stderr == f"{warning}\n0 files changed, 0 lines removed, 0 added\n"


def test_emptied_function_is_reported(repo: Path) -> None:
    (repo / "hooks.py").write_text("def on_start(node):\n    if node.fast:\n        node.warm()\n")
    result = invoke("diff", "--explain", "--no-color", "--flag", "fast=False", ".")
    assert "hooks.py:1  fast  emptied-function  on_start's body folded away" in result.stdout
    assert "+    pass\n" in result.stdout


def test_keep_pragma_protects_a_line_and_a_block(repo: Path) -> None:
    (repo / "runner.py").write_text(
        "def run(node):\n"
        "    if node.fast:  # prune-flags: keep\n"
        "        return 1\n"
        "    x = 2 if node.fast else 3  # prune-flags: keep\n"
        "    if node.fast:\n"
        "        return 4\n"
        "    return x\n"
    )
    result = invoke("apply", "--explain", "--no-color", "--flag", "fast=False", ".")
    assert (repo / "runner.py").read_text() == (
        "def run(node):\n"
        "    if node.fast:  # prune-flags: keep\n"
        "        return 1\n"
        "    x = 2 if node.fast else 3  # prune-flags: keep\n"
        "    return x\n"
    )
    runner = [line for line in result.stdout.splitlines() if line.startswith("runner.py")]
    assert runner == [
        "runner.py:2  fast  kept-by-pragma  `# prune-flags: keep` protects it",
        "runner.py:4  fast  kept-by-pragma  `# prune-flags: keep` protects it",
        "runner.py:5  fast  inlined  fast is fixed at False",
        "runner.py:5  fast  removed-branch  the condition is always false once fast is inlined",
    ]
    assert "self.fast = False" in (repo / "node.py").read_text()  # still read under the pragma


def test_quiet_drops_the_summary(repo: Path) -> None:
    result = invoke("diff", "-q", "--flag", "fast=False", ".")
    assert result.exit_code == 1
    assert result.stderr == ""


def test_interactive_applies_only_accepted_hunks(repo: Path) -> None:
    result = CliRunner().invoke(app, ["apply", "-i", "--flag", "fast=False", "."], input="y\nn\n")
    assert result.exit_code == 0, result.output
    assert (
        "@@ line 2 @@\n class Node:\n-    def __init__(self):\n-        self.fast = False\n-\n"
        "     def run(self):\n         if self.fast:\n             return 1\n"
    ) in result.stdout
    assert "# fast  removed-write  fast has no reader left" in result.stdout
    # the folded branch (asked first: it causes the rest) taken, then the field refused
    assert (repo / "node.py").read_text() == MODULE.replace(
        "        if self.fast:\n            return 1\n", ""
    )


def test_interactive_quit_writes_nothing(repo: Path) -> None:
    result = CliRunner().invoke(app, ["apply", "-i", "--flag", "fast=False", "."], input="q\n")
    assert result.exit_code == 0
    assert (repo / "node.py").read_text() == MODULE


def test_interactive_refuses_a_mix_that_does_not_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    from prune_flags import cli
    from prune_flags.report import FileResult, Report

    old, new = "x = (1 +\n     0 +\n     2)\n", "x = [1 +\n     0 +\n     2]\n"
    report = Report(flags={}, files=[FileResult(Path("m.py"), "m.py", old, new)])
    answers = iter(["y", "n"])  # the opening bracket changed, the closing one not
    monkeypatch.setattr("builtins.input", lambda: next(answers))
    # A plan that cannot keep the declined line: the mix is never written, nor anything else.
    reviewed = cli._review(
        report,
        lambda contents: Report(flags={}, files=[FileResult(Path("m.py"), "m.py", old, new)]),
    )
    assert reviewed.files[0].new_text == old


def test_config_that_is_a_directory_exits_2(repo: Path) -> None:
    (repo / "conf").mkdir()
    result = invoke("diff", "--config", "conf", ".")
    assert result.exit_code == 2
    assert (
        result.stderr
        == "prune-flags: error: conf: --config: is a directory; give the TOML file itself\n"
    )


def test_a_definition_read_outside_the_paths_stays_and_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The paths say where to write: what the code reads is looked up in the whole repository.
    The definition stays while a file outside the paths reads it, and a warning says so; the
    exit code stays (nothing was skipped)."""
    make_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/settings.py": "FAST = False\n",
            "pkg/use.py": "from pkg import settings\n\n\ndef run():\n"
            "    if settings.FAST:\n        return 1\n    return 2\n",
        },
    )
    monkeypatch.chdir(tmp_path)
    result = invoke("apply", "--flag", "FAST=False", "pkg/settings.py")
    assert result.exit_code == 0
    assert (tmp_path / "pkg" / "settings.py").read_text() == "FAST = False\n"
    assert result.stderr == (
        "prune-flags: warning: pkg/use.py reads FAST, so its definitions stay: the file is outside"
        " the paths given (run over the whole repository to clean it up too)\n"
        "0 files changed, 0 lines removed, 0 added\n"
    )


def test_plain_progress_says_how_far_the_reading_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """For logs: a line at each quarter of a large tree's files, never a bar's control codes."""
    root = make_tree(
        tmp_path / "big",
        {"flags.py": "FAST = False\n", **{f"m{n}.py": f"X{n} = {n}\n" for n in range(199)}},
    )
    monkeypatch.chdir(root)
    result = invoke("diff", "--progress", "plain", "--flag", "FAST=False", ".")
    assert result.exit_code == 1, result.output
    assert [line for line in result.stderr.splitlines() if " of 200 files" in line] == [
        f"prune-flags: read {done} of 200 files" for done in (50, 100, 150, 200)
    ]
    assert "\x1b" not in result.stderr


def test_progress_takes_only_its_kinds(repo: Path) -> None:
    result = invoke("diff", "--progress", "sometimes", "--flag", "fast=False", ".")
    assert result.exit_code == 2
    assert "sometimes" in result.stderr and "plain" in result.stderr
