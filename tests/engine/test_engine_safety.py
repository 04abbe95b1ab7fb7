"""The engine never plans around a rewrite that did not happen, credits each change to the flag
that caused it, leaves alone files it has nothing to do in, and refuses flags read as objects.

Each test drives `engine.run` (or the command line) on a small tree and checks what would be
written, what the report says, and the exit code.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from prune_flags.config_files import load_config
from prune_flags.engine import driver as engine
from prune_flags.report import Report
from prune_flags.rewrite.context import RewriteContext
from prune_flags.source import parsing as deep
from prune_flags.workers import runner
from tests.support import fixture_path, invoke_in, make_tree


def run(root: Path, *flags: str) -> Report:
    config = load_config([root], None, list(flags))
    return engine.run(config, [root], root, jobs=1)


def new_texts(report: Report) -> dict[str, str]:
    return {result.display: result.new_text for result in report.changed_files}


# -- item 4: a skipped reader keeps what it reads ------------------------------------------------
SETTINGS = "USE_X = False\n"
READER = (
    "from settings import USE_X\n\n\ndef run():\n    if USE_X:\n        return 1\n    return 0\n"
)


def failing_for(display: str, original: Callable, error: str) -> Callable:
    """`original` (a task function of the engine), except that it fails for one file."""

    def function(task: tuple) -> object:
        context = next(part for part in task if isinstance(part, RewriteContext))
        return error if context.path == display else original(task)

    return function


def test_a_file_the_safety_gate_rejects_keeps_the_definitions_it_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rewrite of main.py fails the final check: main.py stays as it is, still importing
    USE_X, so settings.py must keep it (before, USE_X was deleted all the same)."""
    root = make_tree(tmp_path / "repo", {"settings.py": SETTINGS, "main.py": READER})
    problem = (
        "internal error while pruning USE_X: a second run would change the result again; "
        "left untouched"
    )
    monkeypatch.setattr(engine, "recheck", failing_for("main.py", engine.recheck, problem))
    report = run(root, "USE_X=False")
    assert new_texts(report) == {}
    assert [(s.display, s.error) for s in report.skipped] == [
        ("main.py", problem + "; it reads USE_X, so it keeps its definitions and imports elsewhere")
    ]


def test_a_file_that_fails_in_a_later_round_keeps_what_it_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """reader.py is rewritten in the first round (the flag inlined, the branch reading `cache`
    folded) and fails in the second, when `cache` is dead: it stays as it was, reading `fast` and
    `cache`, so node.py keeps both fields (before, both writes went)."""
    node = (
        "class Node:\n    def __init__(self):\n        self.fast = False\n        self.cache = {}\n"
    )
    reader = (
        "def use(node, x):\n    if node.fast:\n        return node.cache[x]\n    return x\n\n\n"
        "def reset(node):\n    node.cache = {}\n"
    )
    root = make_tree(tmp_path / "repo", {"node.py": node, "reader.py": reader})
    calls = {"reader.py": 0}
    original = runner.rewrite_outcome

    def second_fails(task: tuple) -> object:
        context = task[2]
        if context.path == "reader.py":
            calls["reader.py"] += 1
            if calls["reader.py"] == 2:
                return "internal error while pruning fast: boom"
        return original(task)

    monkeypatch.setattr(runner, "rewrite_outcome", second_fails)
    report = run(root, "fast=False")
    assert calls["reader.py"] == 2
    assert new_texts(report) == {}
    assert [(s.display, s.error) for s in report.skipped] == [
        (
            "reader.py",
            "internal error while pruning fast: boom; it reads fast, so it keeps its definitions "
            "and imports elsewhere",
        )
    ]


def test_a_skipped_reader_is_named_on_stderr_and_in_the_json_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    legacy = (
        "from settings import USE_X\n\ntry:\n    VALUE = int(USE_X)\nexcept ValueError :\n"
        "    VALUE = 0\n"
    )
    root = make_tree(
        tmp_path / "repo", {"settings.py": SETTINGS, "main.py": READER, "legacy.py": legacy}
    )
    result = invoke_in(
        monkeypatch, root, "diff", "--no-color", "--report", "r.json", "--flag", "USE_X=False", "."
    )
    assert result.exit_code == 123
    why = (
        "skipped: LibCST does not give back this file's exact bytes, so it cannot be edited "
        "safely; it reads USE_X, so it keeps its definitions and imports elsewhere"
    )
    assert f"prune-flags: skipped legacy.py: {why}" in result.stderr.splitlines()
    report = json.loads((root / "r.json").read_text())
    assert report["skipped"] == [{"path": "legacy.py", "error": why}]
    assert [entry["path"] for entry in report["files"]] == ["main.py"]  # settings.py keeps USE_X
    assert (
        "+from settings import USE_X" not in result.stdout
        and "-from settings import USE_X" not in result.stdout
    )


def test_after_a_skipped_reader_the_program_still_runs_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Differential: the skipped file still imports what it read, and every module prints what it
    printed with USE_X at its value (before, `from settings import USE_X` failed in legacy.py)."""
    legacy = (
        "from settings import USE_X\n\ntry:\n    VALUE = int(USE_X)\nexcept ValueError :\n"
        "    VALUE = 0\n"
    )
    files = {"settings.py": SETTINGS, "main.py": READER, "legacy.py": legacy}
    before, after = make_tree(tmp_path / "before", files), make_tree(tmp_path / "after", files)
    assert invoke_in(monkeypatch, after, "apply", "--flag", "USE_X=False", ".").exit_code == 123
    program = "import legacy, main; print(legacy.VALUE, main.run())"
    outputs = [
        subprocess.run([sys.executable, "-c", program], cwd=root, capture_output=True, text=True)
        for root in (before, after)
    ]
    assert [(o.returncode, o.stdout, o.stderr) for o in outputs] == [(0, "0 0\n", "")] * 2


# -- item 8: each change names the flag whose cleanup caused it ----------------------------------
def test_each_change_is_credited_to_the_flag_whose_cleanup_caused_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four flags in one file, each with bookkeeping of its own: a write, an import or a function
    that lost its last read goes in the name of the flag whose branch held that read (before,
    everything in opts.py went in the name of the first flag changed there)."""
    case = fixture_path("core_credit_two_flags")
    root = make_tree(
        tmp_path / "repo", {p.name: p.read_text() for p in (case / "before").iterdir()}
    )
    result = invoke_in(
        monkeypatch,
        root,
        "diff",
        "--no-color",
        "--report",
        "r.json",
        "--config",
        str(case / "config.toml"),
        ".",
    )
    assert result.exit_code == 1, result.output
    report = json.loads((root / "r.json").read_text())
    credited = {
        (entry["path"], change["line"], change["action"]): change["flag"]
        for entry in report["files"]
        for change in entry["changes"]
        if change["action"] not in ("inlined", "removed-branch", "removed-import")
    }
    assert credited == {
        ("opts.py", 7, "removed-write"): "force_x",
        ("opts.py", 8, "removed-write"): "legacy_x",
        ("opts.py", 9, "removed-write"): "force_x",
        ("opts.py", 10, "removed-write"): "legacy_x",
        ("settings.py", 1, "removed-write"): "FORCE_X",
        ("settings.py", 2, "removed-write"): "LEGACY_X",
        ("hooks.py", 1, "removed-function"): "LEGACY_X",
        ("hooks.py", 5, "removed-function"): "FORCE_X",
    }
    imports = sorted(  # two names on one line: each its own change
        (change["flag"], change["reason"].split(" ")[0])
        for entry in report["files"]
        for change in entry["changes"]
        if change["action"] == "removed-import"
    )
    assert imports == [
        ("FORCE_X", "FORCE_X"),
        ("FORCE_X", "force_hook"),
        ("LEGACY_X", "LEGACY_X"),
        ("LEGACY_X", "legacy_hook"),
    ]


NODE_TWO_FLAGS = """\
class Node:
    def __init__(self):
        self.fast = False
        self.slow = False

    def a(self):
        if self.fast:
            return 1
        return 2

    def release(self):
        if self.slow:
            print("slow")

    def b(self, ready):
        if ready:
            if self.slow:
                print("slow")
        return ready
"""


def test_an_emptied_body_is_credited_to_the_flag_whose_change_emptied_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A function or `if` whose body folded away goes in the name of the flag folded inside it,
    not the nearest one inlined above (before: `fast`, read in the method above)."""
    root = make_tree(tmp_path / "repo", {"node.py": NODE_TWO_FLAGS})
    result = invoke_in(
        monkeypatch,
        root,
        "diff",
        "--no-color",
        "--report",
        "r.json",
        "--flag",
        "fast=False",
        "--flag",
        "slow=False",
        ".",
    )
    assert result.exit_code == 1, result.output
    changes = json.loads((root / "r.json").read_text())["files"][0]["changes"]
    credited = {
        (change["line"], change["action"]): change["flag"]
        for change in changes
        if change["action"] in ("emptied-function", "removed-method", "removed-empty-if")
    }
    assert credited == {
        (2, "removed-method"): "fast",  # (`def __init__(self): pass` is object's own)
        (11, "emptied-function"): "slow",
        (16, "removed-empty-if"): "slow",
    }


# -- item 12: files with nothing to do are never parsed by LibCST; deep files are rewritten -------
def test_a_file_naming_the_flag_only_inside_strings_is_never_handed_to_libcst(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The standard library's help topics name `coroutine` only inside strings: nothing to do
    there (before, LibCST parsed it and ran out of recursion: a skipped file, exit 123)."""
    import pydoc_data.topics

    from prune_flags.rewrite import file as rewrite

    topics = Path(pydoc_data.topics.__file__).read_text(encoding="utf-8")
    assert "coroutine" in topics
    root = make_tree(
        tmp_path / "repo", {"topics.py": topics, "run.py": "coroutine = False\nprint(coroutine)\n"}
    )

    def no_libcst(text: str) -> object:
        assert "coroutine = False" in text, "LibCST was handed a file with nothing to do"
        return original(text)

    original = rewrite._wrapped
    monkeypatch.setattr(rewrite, "_wrapped", no_libcst)
    report = run(root, "coroutine=False")
    assert report.skipped == []
    assert new_texts(report) == {"run.py": "print(False)\n"}


def deep_module(pieces: int) -> str:
    """Valid Python nested deeper than the default recursion limit lets LibCST walk: a sum of
    `pieces` terms and a string of `pieces` implicitly concatenated parts, both naming FAST."""
    total = " + ".join(["FAST"] + ["1"] * pieces)
    strings = "\n    ".join(f'"FAST piece {i} "' for i in range(pieces))
    return (
        "FAST = False\n"
        f"TOTAL = {total}\n"
        f"HELP = (\n    {strings}\n)\n\n\n"
        "def pick(x):\n    if FAST:\n        return TOTAL\n    return x + len(HELP)\n"
    )


def test_a_deep_but_valid_file_that_needs_a_rewrite_is_rewritten(tmp_path: Path) -> None:
    """Before, LibCST ran out of recursion on it: the file was skipped (exit 123)."""
    before = deep_module(600)
    root = make_tree(tmp_path / "repo", {"deep.py": before})
    report = run(root, "FAST=False")
    assert report.skipped == []
    after = new_texts(report)["deep.py"]
    total = "TOTAL = " + " + ".join(["FAST"] + ["1"] * 600) + "\n"  # pure, and its only read went
    assert after == before.replace("FAST = False\n", "").replace(total, "").replace(
        "    if FAST:\n        return TOTAL\n", ""
    )
    outputs = []
    for text in (before, after):  # the same behaviour, FAST at its value
        namespace: dict[str, object] = {}
        exec(compile(text, "deep.py", "exec"), namespace)
        outputs.append(namespace["pick"](2))  # type: ignore[operator]
    assert outputs[0] == outputs[1]


def test_a_file_too_deep_even_for_the_big_stack_is_skipped_with_its_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(deep, "DEEP_RECURSION", 1000)
    root = make_tree(
        tmp_path / "repo", {"deep.py": deep_module(600), "other.py": "FAST = False\nprint(FAST)\n"}
    )
    report = run(root, "FAST=False")
    assert [(s.display, s.error) for s in report.skipped] == [("deep.py", deep.too_deep("analyse"))]
    assert new_texts(report) == {"other.py": "print(False)\n"}  # deep.py's FAST is its own


# -- item 3: a flag read as an object is refused -------------------------------------------------
def test_a_flag_read_as_an_object_is_refused_with_where_and_the_accessor_to_declare(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before, each read became the constant with the rest left on it: `False.value`, `False()`,
    `False[0]`, `False.enabled`, and `page.legacy()` became `False()`."""
    case = fixture_path("core_flag_object_refused")
    root = make_tree(
        tmp_path / "repo", {p.name: p.read_text() for p in (case / "before").iterdir()}
    )
    result = invoke_in(
        monkeypatch,
        root,
        "diff",
        "--no-color",
        "--report",
        "r.json",
        "--config",
        str(case / "config.toml"),
        ".",
    )
    assert result.exit_code == 123, result.output
    report = json.loads((root / "r.json").read_text())
    assert [entry["path"] for entry in report["files"]] == ["plain.py"]
    assert report["refused"] == [
        {"flag": "CHECKS", "why": "read-as-object", "locations": ["app.py:9"], "scope_with": []},
        {"flag": "TABLE", "why": "read-as-object", "locations": ["app.py:11"], "scope_with": []},
        {"flag": "USE_NEW", "why": "read-as-object", "locations": ["app.py:7"], "scope_with": []},
        {
            "flag": "legacy",
            "why": "read-as-object",
            "locations": ["app.py:13", "app.py:14"],
            "scope_with": [],
        },
    ]
    refusals = [line for line in result.stderr.splitlines() if "not pruned" in line]
    assert refusals == [
        "prune-flags: CHECKS: not pruned: it is read as an object at app.py:9 (CHECKS(...)); "
        "declare how it is"
        ' read, as an accessor template such as accessors = ["{name}(...)"]',
        "prune-flags: TABLE: not pruned: it is read as an object at app.py:11 (TABLE[...]); "
        "declare how it is"
        ' read, as an accessor template such as accessors = ["{name}[...]"]',
        "prune-flags: USE_NEW: not pruned: it is read as an object at app.py:7 (USE_NEW.value); "
        "declare how it is"
        ' read, as an accessor template such as accessors = ["{name}.value"]',
        "prune-flags: legacy: not pruned: it is read as an object at app.py:13 "
        "(config.legacy.enabled),"
        " app.py:14 (page.legacy(...)); declare how it is read, as an accessor template such as"
        ' accessors = ["config.{name}.enabled"]',
    ]


def test_a_flag_read_as_a_value_and_a_local_that_shares_its_name_read_as_an_object_is_pruned(
    tmp_path: Path,
) -> None:
    """Only reads of the flag count: a parameter or local named like it holds something else."""
    text = (
        "FAST = False\n\n\ndef run(fast_mode, FAST_items=None):\n    if FAST:\n        return 1\n"
        "    return 0\n\n\n"
        "def other(FAST):\n    return FAST.value\n"
    )
    root = make_tree(tmp_path / "repo", {"mod.py": text})
    report = run(root, "FAST=False")
    assert report.refused == []
    assert new_texts(report) == {
        "mod.py": "def run(fast_mode, FAST_items=None):\n    return 0\n\n\ndef other(FAST):\n"
        "    return FAST.value\n"
    }


def test_a_skipped_file_keeps_only_what_is_not_its_own(tmp_path: Path) -> None:
    """A skipped file's bare reads of a name it binds at its top level are its own (whether `ast`
    parses it or not): settings.py's USE_X goes; `.fast`, an attribute, is nobody's own and stays.
    """
    # old Mac line endings: LibCST cannot round-trip it
    own_cr = "USE_X = False\rif USE_X:\r    print(1)\r"
    own_broken = "USE_X = True\nif USE_X\n    print(node.fast)\n"
    node = "class Node:\n    def __init__(self):\n        self.fast = False\n"
    root = make_tree(
        tmp_path / "repo",
        {
            "settings.py": SETTINGS,
            "main.py": READER,
            "cr.py": own_cr,
            "broken.py": own_broken,
            "node.py": node,
        },
    )
    (root / "cr.py").write_bytes(own_cr.encode())
    report = run(root, "USE_X=False", "fast=False")
    assert sorted(s.display for s in report.skipped) == ["broken.py", "cr.py"]
    assert new_texts(report) == {"settings.py": "", "main.py": "def run():\n    return 0\n"}
