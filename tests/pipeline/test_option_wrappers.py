"""Differential check of option wrappers (`option_calls`): the exporter of the idiom_option_wrapper
fixture, run before and after the cleanup on the same command lines, prints and returns the same,
the before program given its stale options at the configured values (`--use-cache` on,
`--force-rebuild` off) and the after one without them, as its users now run it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from prune_flags.cli import app
from tests.support import fixture_path

FIXTURE = fixture_path("idiom_option_wrapper")
STALE = ["--use-cache"]  # the configured values as the old command line spells them


def run_main(tree: Path, argv: list[str]) -> str:
    code = f"from exporter.cli import main\nprint(repr(main({argv!r})))"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tree, capture_output=True, text=True, timeout=60
    )
    return f"{done.returncode}\n{done.stdout}{done.stderr if done.returncode else ''}"


@pytest.mark.parametrize("argv", [["out"], ["out", "--verbose"], ["--verbose", "elsewhere"]])
def test_the_program_behaves_alike_before_and_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    before, after = tmp_path / "before", tmp_path / "after"
    shutil.copytree(FIXTURE / "before", before)
    shutil.copytree(FIXTURE / "before", after)
    (after / ".git").mkdir()
    monkeypatch.chdir(after)
    result = CliRunner().invoke(
        app, ["apply", "--config", str(FIXTURE / "config.toml"), "."], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert run_main(after, argv) == run_main(before, [*argv, *STALE])
    assert run_main(after, argv).startswith("0\n")
