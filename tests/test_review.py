"""Interactive review (`apply -i`): a declined hunk keeps its lines and everything they read, so
whatever mix of answers is given, the code written runs as the original did with the flag at its
value. Each test answers the questions from a script, then runs the program before and after.

The review keeps declined lines as a `# prune-flags: keep` pragma would, so the pragma's own
guarantee is tested here too: nothing a kept statement mentions loses its definition.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from prune_flags.cli import app

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


def repository(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir()
    for name, text in files.items():
        (root / name).write_text(text)
    return root


def execute(root: Path, main: str) -> tuple[int, str, str]:
    done = subprocess.run([sys.executable, main], cwd=root, capture_output=True, text=True, timeout=30)
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize(
    ("flag", "files", "main"),
    [
        pytest.param(
            "fast=False",
            {"node.py": NODE.replace("assert self.pending is not None", "assert self.pending is not None  # prune-flags: keep")},
            "node.py",
            id="an-assert",
        ),
        pytest.param(
            "use_x=False",
            {
                "lib.py": "def f(x, use_x=False):\n    if use_x:\n        return x * 2\n    return x\n",
                "main.py": "from lib import f\n\nprint(f(1, use_x=False))  # prune-flags: keep\nprint(f(2, use_x=False))\n",
            },
            "main.py",
            id="a-keyword-of-a-parameter",
        ),
        pytest.param(
            "enable_x=False",
            {
                "conf.py": "from dataclasses import dataclass\n\n\n@dataclass\nclass Config:\n    size: int = 1\n"
                "    enable_x: bool = False\n\n\nc = Config(size=2, enable_x=False)  # prune-flags: keep\n"
                'if c.enable_x:\n    print("x")\nprint(c.size)\n',
            },
            "conf.py",
            id="a-keyword-of-a-field",
        ),
        pytest.param(
            "fast=False",
            {
                "count.py": "class C:\n    def __init__(self):\n        self.fast = False\n        self.n = 0\n\n"
                "    def hit(self):\n        self.n += 1  # prune-flags: keep\n"
                "        if self.fast:\n            print(self.n)\n        return self\n\n\nC().hit()\nprint('ok')\n",
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
    result = CliRunner().invoke(app, ["apply", "--no-format", "--flag", flag, "."], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert execute(root, main) == before
