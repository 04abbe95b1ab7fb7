"""Interactive review (`apply -i`): a declined hunk keeps its lines and everything they read, so
whatever mix of answers is given, the code written runs as the original did with the flag at its
value. Each test answers the questions from a script, then runs the program before and after.

The review keeps declined lines as a `# prune-flags: keep` pragma would, so the pragma's own
guarantee is tested here too: nothing a kept statement mentions loses its definition.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from prune_flags.cli import REVIEW_HELP, app

NODE = """\
class Node:
    def __init__(self):
        self.fast = False
        self.pending = []

    def push(self, x):
        if self.fast:
            self.pending.append(x)
            return
        print("push", x)

    def flush(self):
        assert self.pending is not None
        print("flush")


node = Node()
node.push(1)
node.flush()
"""
SETTINGS = {
    "config.py": "FAST = False\nLIMIT = 3\n",
    "main.py": 'from config import FAST, LIMIT\n\nif FAST:\n    print("fast")\n'
    'print("limit", LIMIT)\n',
}
PICK = (
    'FAST = False\nMODE = "fast"\n\n\ndef pick(x):\n    if x > 5:\n        return "big"\n'
    '    elif FAST:\n        return MODE\n    return "small"\n\n\nprint(pick(1), pick(9))\n'
)
CHANNELS = {  # a helper that folds to a constant: its call in main.py is inlined, with an import
    "channels.py": "from math import pi as CHANNEL\n\nUSE_SHARDY = True\n\n\n"
    "def _get_channel(ctx):\n"
    "    if USE_SHARDY:\n        return CHANNEL\n    return ctx.new_channel()\n",
    "main.py": '"""Main."""\nimport os\n\nimport channels\n\nprint(os.sep)\n'
    "print(channels._get_channel(None))\n",
}


def repository(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir()
    for name, text in files.items():
        (root / name).write_text(text)
    return root


def execute(root: Path, main: str) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, main], cwd=root, capture_output=True, text=True, timeout=30
    )
    return done.returncode, done.stdout, done.stderr


def review(root: Path, flag: str, answers: list[str], monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(root)
    command = ["apply", "-i", "--no-format", "--flag", flag, "."]
    return CliRunner().invoke(
        app, command, input="".join(f"{answer}\n" for answer in answers), catch_exceptions=False
    )


def test_declining_the_last_read_of_a_field_keeps_its_definition_unasked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Causes come first: the fold of `if self.fast:` is asked before the removal of the fields it
    reads, so declining it leaves nothing about them to ask, accept and withdraw."""
    module = NODE.replace("        assert self.pending is not None\n", "")
    root = repository(tmp_path, {"node.py": module})
    before = execute(root, "node.py")
    result = review(root, "fast=False", ["n"], monkeypatch)
    assert result.exit_code == 0, result.output
    assert execute(root, "node.py") == before
    assert (root / "node.py").read_text() == module  # the `if` reads both fields: they stay
    assert result.stdout.count("apply this hunk") == 1
    assert "withdrawn" not in result.stderr


@pytest.mark.parametrize("decline", ["n", "d", "q"])
def test_declining_any_way_after_accepting_a_fold_still_runs(
    decline: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repository(tmp_path, {"node.py": NODE})
    before = execute(root, "node.py")
    result = review(root, "fast=False", ["y", decline, "n", "n"], monkeypatch)
    assert result.exit_code == 0, result.output
    assert execute(root, "node.py") == before
    assert "self.fast = False" in (root / "node.py").read_text()


def test_declining_an_assert_keeps_the_field_it_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repository(tmp_path, {"node.py": NODE})
    before = execute(root, "node.py")
    # Yes to the folded branch, no to removing the assert; then yes to what follows in __init__
    # (only `self.fast = False` goes now), shown with three lines around it.
    result = review(root, "fast=False", ["y", "n", "y"], monkeypatch)
    assert result.exit_code == 0, result.output
    assert execute(root, "node.py") == before
    assert (
        "@@ line 3 @@\n class Node:\n     def __init__(self):\n-        self.fast = False\n"
        "         self.pending = []\n \n     def push(self, x):\n  # fast  removed-write"
    ) in result.stdout
    assert (root / "node.py").read_text() == NODE.replace(
        "        self.fast = False\n", ""
    ).replace("        if self.fast:\n            self.pending.append(x)\n            return\n", "")


def test_declining_a_read_keeps_its_definition_in_another_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repository(tmp_path, SETTINGS)
    before = execute(root, "main.py")
    # Yes to folding the `if` in main.py; then, of what follows, yes to removing FAST from
    # config.py and no to removing its import in main.py, which keeps FAST read.
    result = review(root, "FAST=False", ["y", "y", "n"], monkeypatch)
    assert result.exit_code == 0, result.output
    assert execute(root, "main.py") == before
    assert (root / "config.py").read_text() == "FAST = False\nLIMIT = 3\n"
    assert "config.py: the hunk at line 1 you accepted is withdrawn" in result.stderr


def test_declining_an_elif_keeps_its_whole_if(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repository(tmp_path, {"pick.py": PICK})
    before = execute(root, "pick.py")
    result = review(root, "FAST=False", ["n"], monkeypatch)
    assert result.exit_code == 0, result.output
    assert execute(root, "pick.py") == before
    assert (root / "pick.py").read_text() == PICK
    assert result.stdout.count("apply this hunk") == 1  # the definitions are not asked
    assert "whole file" not in result.stderr  # the `if` took the pragma, not the file


@pytest.mark.parametrize(
    ("flag", "files", "main"),
    [
        pytest.param(
            "fast=False",
            {
                "node.py": NODE.replace(
                    "assert self.pending is not None",
                    "assert self.pending is not None  # prune-flags: keep",
                )
            },
            "node.py",
            id="an-assert",
        ),
        pytest.param(
            "use_x=False",
            {
                "lib.py": "def f(x, use_x=False):\n    if use_x:\n        return x * 2\n"
                "    return x\n",
                "main.py": "from lib import f\n\nprint(f(1, use_x=False))  # prune-flags: keep\n"
                "print(f(2, use_x=False))\n",
            },
            "main.py",
            id="a-keyword-of-a-parameter",
        ),
        pytest.param(
            "enable_x=False",
            {
                "conf.py": "from dataclasses import dataclass\n\n\n@dataclass\nclass Config:\n"
                "    size: int = 1\n"
                "    enable_x: bool = False\n\n\n"
                "c = Config(size=2, enable_x=False)  # prune-flags: keep\n"
                'if c.enable_x:\n    print("x")\nprint(c.size)\n',
            },
            "conf.py",
            id="a-keyword-of-a-field",
        ),
        pytest.param(
            "fast=False",
            {
                "count.py": "class C:\n    def __init__(self):\n        self.fast = False\n"
                "        self.n = 0\n\n"
                "    def hit(self):\n        self.n += 1  # prune-flags: keep\n"
                "        if self.fast:\n            print(self.n)\n        return self\n\n\n"
                "C().hit()\nprint('ok')\n",
            },
            "count.py",
            id="an-augmented-assignment",
        ),
    ],
)
def test_what_a_kept_statement_mentions_keeps_its_definition(
    flag: str, files: dict[str, str], main: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repository(tmp_path, files)
    before = execute(root, main)
    monkeypatch.chdir(root)
    result = CliRunner().invoke(
        app, ["apply", "--no-format", "--flag", flag, "."], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert execute(root, main) == before


def test_explain_names_what_was_declined(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = NODE.replace(
        "    def flush(self):\n",
        '    def mode(self):\n        return "on" if self.fast else "off"\n\n'
        "    def flush(self):\n",
    )
    root = repository(tmp_path, {"node.py": module})
    monkeypatch.chdir(root)
    command = ["apply", "-i", "--explain", "--no-format", "--flag", "fast=False", "."]
    # No to the `if`, yes to the ternary; __init__ keeps the field the `if` reads, unasked.
    result = CliRunner().invoke(app, command, input="n\ny\n", catch_exceptions=False)
    assert (root / "node.py").read_text() == module.replace('"on" if self.fast else "off"', '"off"')
    assert (
        "node.py:7  fast  kept-in-review  declined in review: kept as it is, with what it reads"
        in result.stdout
    )
    assert "kept-by-pragma" not in result.stdout


def test_declining_an_added_import_keeps_its_whole_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repository(tmp_path, CHANNELS)
    before = execute(root, "main.py")
    # Yes to the hunk of channels.py (the helper goes, and the file empties: its call in main.py
    # is inlined) and to the inlined call; then, as what follows from it, no to removing
    # `import channels` and no to the import the inlined call needs, which no statement can
    # keep: main.py stays whole, and so does the helper it calls.
    result = review(root, "USE_SHARDY=True", ["y", "y", "n", "n", "y", "y"], monkeypatch)
    assert result.exit_code == 0, result.output
    assert execute(root, "main.py") == before
    assert (root / "main.py").read_text() == CHANNELS["main.py"]
    assert "main.py: a declined hunk cannot be kept on its own" in result.stderr
    assert "def _get_channel(ctx):\n    return CHANNEL\n" in (root / "channels.py").read_text()


@pytest.mark.parametrize(
    "answers", ["".join(answers) for answers in itertools.product("yn", repeat=3)]
)
@pytest.mark.parametrize(
    ("flag", "files", "main"),
    [
        pytest.param("fast=False", {"node.py": NODE}, "node.py", id="fields"),
        pytest.param("FAST=False", SETTINGS, "main.py", id="module-constant"),
        pytest.param("USE_SHARDY=True", CHANNELS, "main.py", id="helper"),
    ],
)
def test_every_mix_of_answers_runs_as_the_original(
    flag: str,
    files: dict[str, str],
    main: str,
    answers: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = repository(tmp_path, files)
    before = execute(root, main)
    result = review(root, flag, [*answers, *"nnnnnn"], monkeypatch)
    assert result.exit_code == 0, result.output
    assert execute(root, main) == before


def test_declining_a_docstring_entry_keeps_only_that_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = (
        'def archive(project, notify=False):\n    """Archive a project.\n\n'
        "    :param project: The project.\n"
        '    :param notify: Email its owners.\n    """\n    if notify:\n        print("mail")\n'
        "    return project.title()\n\n\n"
        'print(archive("p"))\n'
    )
    root = repository(tmp_path, {"archive.py": module})
    before = execute(root, "archive.py")
    # Yes to the parameter, no to its docstring entry (a string runs nothing), yes to the `if`.
    result = review(root, "notify=False", ["y", "n", "y"], monkeypatch)
    assert result.exit_code == 0, result.output
    assert execute(root, "archive.py") == before
    assert (root / "archive.py").read_text() == module.replace(", notify=False", "").replace(
        '    if notify:\n        print("mail")\n', ""
    )
    assert result.stderr == "1 file changed, 3 lines removed, 1 added\n"


def test_declining_a_line_of_a_flattened_branch_keeps_the_branch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = (
        'FAST = False\n\n\ndef other():\n    if FAST:\n        return "fast"\n'
        '    return "slow".upper()\n\n\n'
        'def run():\n    if not FAST:\n        print("a")\n\n        print("b")\n'
        "    return 1\n\n\nprint(other(), run())\n"
    )
    root = repository(tmp_path, {"m.py": module})
    before = execute(root, "m.py")
    # The blank line splits the flattened branch in two hunks: yes to all but its second one,
    # whose statement stays but is dedented all the same; so its `if` is kept.
    result = review(root, "FAST=False", ["y", "y", "n", "y"], monkeypatch)
    assert result.exit_code == 0, result.output
    assert execute(root, "m.py") == before
    assert (root / "m.py").read_text() == module.replace(
        '    if FAST:\n        return "fast"\n', ""
    )
    assert (
        "m.py: the hunk at line 14 cannot be kept on its own (the block around it changes it);"
        in result.stderr
    )
    assert "whole file" not in result.stderr


def test_declining_every_hunk_of_a_flag_is_no_unmatched_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = (
        'USE_X = False\n\n\ndef run():\n    if USE_X:\n        return "x"\n'
        '    return "y"\n\n\nprint(run())\n'
    )
    root = repository(tmp_path, {"run.py": module})
    result = review(root, "USE_X=False", [*"nnnnnn"], monkeypatch)
    assert result.exit_code == 0, result.output
    assert (root / "run.py").read_text() == module
    assert "warning" not in result.stderr


def test_a_question_mark_or_a_typo_prints_the_choices_and_asks_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As `git add -p`: nothing but a choice is taken for one; a typo never counts as "n"."""
    root = repository(tmp_path, {"pick.py": PICK})
    result = review(root, "FAST=False", ["?", "yes please", "", "y", "y"], monkeypatch)
    assert result.exit_code == 0, result.output
    assert result.stderr.count(REVIEW_HELP) == 3
    assert "? - print this help" in REVIEW_HELP
    assert result.stdout.count("@@ line 8 @@") == 1  # the hunk itself is not shown again
    assert result.stdout.count("apply this hunk [y,n,a,d,q,?]? ") == 5
    assert (root / "pick.py").read_text() == PICK.replace(
        'FAST = False\nMODE = "fast"\n\n\n', ""
    ).replace("    elif FAST:\n        return MODE\n", "")


def test_the_end_of_the_answers_quits_and_applies_what_was_accepted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """End of input is `q` (exit 0): the fold accepted is written, the definitions never asked
    about stay, and nothing says a withdrawn hunk will be asked again."""
    root = repository(tmp_path, {"pick.py": PICK})
    before = execute(root, "pick.py")
    result = review(root, "FAST=False", ["y"], monkeypatch)
    assert result.exit_code == 0, result.output
    assert execute(root, "pick.py") == before
    assert (root / "pick.py").read_text() == PICK.replace(
        "    elif FAST:\n        return MODE\n", ""
    )
    assert "asked again" not in result.stderr
