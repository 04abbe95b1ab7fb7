"""Files on disk: every kind of file either comes out right or is skipped with a reason, and none is
ever truncated, half-written, replaced by something else or left with a temporary file beside it.

Each test builds a small repository, runs `prune-flags apply --flag fast=False --no-format`, and
checks each file's bytes against exactly two outcomes: the expected new bytes, or the original
bytes with the file named on stderr.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from prune_flags.cli import app
from prune_flags.config import Config, Flag
from prune_flags.engine import driver as engine
from prune_flags.source import files
from tests.support import ROOT

BEFORE = """\
import os

fast = False


def pick(x):
    # the flag decides
    if fast:
        return x * 2
    else:
        name = "café"
        return x, name


def other():
    return os.sep
"""
AFTER = """\
import os


def pick(x):
    name = "café"
    return x, name


def other():
    return os.sep
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    monkeypatch.chdir(root)
    return root


def apply(*paths: str, flag: str = "fast=False"):
    return CliRunner().invoke(
        app, ["apply", "--no-format", "--flag", flag, *(paths or (".",))], catch_exceptions=False
    )


def temporary_files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.name.endswith(".tmp")]


def check_outcome(path: Path, before: bytes, after: bytes | None, result) -> str:
    """The file is wholly `after`, or wholly `before` and named as skipped; returns which."""
    data = path.read_bytes()
    if after is not None and data == after:
        return "written"
    assert (
        data == before
    ), f"{path.name} is neither its old nor its expected new content: {data[:200]!r}"
    assert f"skipped {path.name}:" in result.stderr, result.stderr
    return "skipped"


# -- encodings --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name, before, after",
    [
        ("utf8.py", BEFORE.encode(), AFTER.encode()),
        ("bom.py", b"\xef\xbb\xbf" + BEFORE.encode(), b"\xef\xbb\xbf" + AFTER.encode()),
        (
            "latin1.py",
            ("# -*- coding: latin-1 -*-\n" + BEFORE).encode("latin-1"),
            ("# -*- coding: latin-1 -*-\n" + AFTER).encode("latin-1"),
        ),
        (
            "cp1252.py",
            ("# vim: set fileencoding=cp1252 :\n" + BEFORE.replace("café", "café €")).encode(
                "cp1252"
            ),
            ("# vim: set fileencoding=cp1252 :\n" + AFTER.replace("café", "café €")).encode(
                "cp1252"
            ),
        ),
        ("crlf.py", BEFORE.replace("\n", "\r\n").encode(), AFTER.replace("\n", "\r\n").encode()),
        ("tabs.py", BEFORE.replace("    ", "\t").encode(), AFTER.replace("    ", "\t").encode()),
        ("no_final_newline.py", BEFORE.rstrip("\n").encode(), AFTER.rstrip("\n").encode()),
        (
            "crlf_no_final_newline.py",
            BEFORE.replace("\n", "\r\n").rstrip("\r\n").encode(),
            AFTER.replace("\n", "\r\n").rstrip("\r\n").encode(),
        ),
        (
            "form_feeds.py",
            BEFORE.replace("\n\n\ndef other", "\n\n\x0c\ndef other").encode(),
            AFTER.replace("\n\n\ndef other", "\n\n\x0c\ndef other").encode(),
        ),
    ],
)
def test_encoding_and_layout_come_out_exactly(
    repo: Path, name: str, before: bytes, after: bytes
) -> None:
    (repo / name).write_bytes(before)
    result = apply()
    assert result.exit_code == 0, result.stderr
    assert (repo / name).read_bytes() == after
    assert temporary_files(repo) == []


def test_mixed_newlines_keep_each_line_ending(repo: Path) -> None:
    lines = BEFORE.splitlines(keepends=True)
    mixed = "".join(
        line.replace("\n", "\r\n") if index % 2 else line for index, line in enumerate(lines)
    )
    path = repo / "mixed.py"
    path.write_bytes(mixed.encode())
    result = apply()
    data = path.read_bytes()
    if (
        check_outcome(path, mixed.encode(), None if data == mixed.encode() else data, result)
        == "written"
    ):
        text = data.decode()
        assert text.replace("\r\n", "\n") == AFTER
        # Every line the cleanup kept has the ending it had before (the kept branch is dedented).
        endings = {
            line.strip(): line[len(line.rstrip("\r\n")) :]
            for line in mixed.splitlines(keepends=True)
        }
        kept = [line for line in text.splitlines(keepends=True) if line.strip()]
        assert len(kept) == 6
        for line in kept:
            assert line[len(line.rstrip("\r\n")) :] == endings[line.strip()], line
    assert temporary_files(repo) == []


def test_empty_file_and_file_without_the_flag_are_not_touched(repo: Path) -> None:
    (repo / "empty.py").write_bytes(b"")
    (repo / "__init__.py").write_bytes(b"")
    (repo / "unrelated.py").write_bytes(
        b"x = 1\r\n\ty = 2 if x else 3"
    )  # not even valid: never parsed
    (repo / "flagged.py").write_text(BEFORE)
    stats = {p.name: os.stat(p).st_mtime_ns for p in repo.glob("*.py")}
    result = apply()
    assert result.exit_code == 0, result.stderr
    assert (repo / "empty.py").read_bytes() == b""
    assert (repo / "unrelated.py").read_bytes() == b"x = 1\r\n\ty = 2 if x else 3"
    for name in ("empty.py", "__init__.py", "unrelated.py"):
        assert os.stat(repo / name).st_mtime_ns == stats[name], f"{name} was rewritten"
    assert (repo / "flagged.py").read_text() == AFTER


def test_a_file_only_mentioning_the_flag_in_a_comment_keeps_its_bytes(repo: Path) -> None:
    data = b"# fast is a flag\r\nx = 1  # fast\n\x0c\ny = 'fast'\n"
    (repo / "mention.py").write_bytes(data)
    result = apply()
    assert result.exit_code == 0, result.stderr
    assert (repo / "mention.py").read_bytes() == data


def test_fifty_thousand_line_file(repo: Path) -> None:
    """A generated module of 50,000 lines: flag reads at its start and end, ordinary functions in
    between. It is written whole, with the report's line numbers those of the original."""
    table = "".join(
        f"def f{i}(a, b={i}):\n    x = a + b * {i}  # {'x' * (i % 40)}\n    if x > 10:\n"
        "        return [x, a]\n    return x\n\n\n"
        for i in range(7_136)
    )
    head = "fast = False\n\n\ndef first():\n    if fast:\n        return 1\n    return 2\n\n\n"
    tail = "\n\ndef last():\n    return 3 if fast else 4\n"
    before = head + table + tail
    assert before.count("\n") >= 49_960
    after = "def first():\n    return 2\n\n\n" + table + "\n\ndef last():\n    return 4\n"
    (repo / "generated.py").write_text(before)
    result = CliRunner().invoke(
        app,
        ["apply", "--no-format", "--explain", "--flag", "fast=False", "."],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.stderr
    assert (repo / "generated.py").read_text() == after
    last_line = before.count("\n")
    assert f"generated.py:{last_line}  fast  inlined" in result.stdout
    assert temporary_files(repo) == []


# -- files the tool must not edit -------------------------------------------------------------
def test_file_libcst_cannot_round_trip_is_skipped_with_the_reason(repo: Path) -> None:
    # Old Mac line endings: Python compiles it, LibCST gives it back without its last "\r".
    data = BEFORE.replace("\n", "\r").encode()
    (repo / "cr.py").write_bytes(data)
    (repo / "ok.py").write_text(BEFORE)
    result = apply()
    assert result.exit_code == 123
    assert (repo / "cr.py").read_bytes() == data
    assert "prune-flags: skipped cr.py: " in result.stderr
    assert "LibCST" in result.stderr and "exact bytes" in result.stderr
    assert (repo / "ok.py").read_text() == AFTER


def test_syntax_error_is_named_and_left_untouched(repo: Path) -> None:
    data = b"fast = False\nif fast\n    x = 1\n"
    (repo / "broken.py").write_bytes(data)
    (repo / "ok.py").write_text(BEFORE)
    result = apply()
    assert result.exit_code == 123
    assert (repo / "broken.py").read_bytes() == data
    assert "prune-flags: skipped broken.py: does not parse" in result.stderr
    assert "line 2" in result.stderr
    assert (repo / "ok.py").read_text() == AFTER


def test_undecodable_file_is_named_and_left_untouched(repo: Path) -> None:
    data = BEFORE.encode("latin-1")  # "café" in latin-1 without a cookie: not UTF-8
    (repo / "bad.py").write_bytes(data)
    result = apply()
    assert result.exit_code == 123
    assert (repo / "bad.py").read_bytes() == data
    assert "skipped bad.py: cannot decode as utf-8 (line 11)" in result.stderr


def test_new_text_the_file_encoding_cannot_hold_is_skipped(repo: Path) -> None:
    data = (
        "# -*- coding: latin-1 -*-\nfrom settings import fast\n\nname = 'café'\n"
        "if fast == 'x':\n    pass\nlabel = fast\n".encode("latin-1")
    )
    (repo / "latin.py").write_bytes(data)
    result = apply(flag="fast='€'")
    assert result.exit_code == 123
    assert (repo / "latin.py").read_bytes() == data
    assert "skipped latin.py: cannot encode as iso-8859-1" in result.stderr


# -- links and permissions --------------------------------------------------------------------
def test_symlink_inside_the_tree_stays_a_link_and_its_target_is_written_once(repo: Path) -> None:
    (repo / "real.py").write_text(BEFORE)
    (repo / "alias.py").symlink_to("real.py")
    (repo / "sub").mkdir()
    (repo / "sub" / "deep_alias.py").symlink_to("../real.py")
    result = apply()
    assert result.exit_code == 0, result.stderr
    assert (repo / "real.py").read_text() == AFTER
    assert (repo / "alias.py").is_symlink() and os.readlink(repo / "alias.py") == "real.py"
    assert (repo / "sub" / "deep_alias.py").is_symlink()
    assert result.stderr.startswith("1 file changed")
    assert temporary_files(repo) == []


def test_symlink_named_as_the_path_writes_through_and_stays_a_link(repo: Path) -> None:
    (repo / "real.py").write_text(BEFORE)
    (repo / "alias.py").symlink_to("real.py")
    result = apply("alias.py")
    assert result.exit_code == 0, result.stderr
    assert (repo / "alias.py").is_symlink()
    assert (repo / "real.py").read_text() == AFTER


def test_symlinks_out_of_the_tree_are_never_followed(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "theirs.py").write_text(BEFORE)
    (outside / "pkg").mkdir()
    (outside / "pkg" / "inner.py").write_text(BEFORE)
    (repo / "link_to_file.py").symlink_to(outside / "theirs.py")
    (repo / "link_to_dir").symlink_to(outside / "pkg", target_is_directory=True)
    (repo / "dangling.py").symlink_to(repo / "nowhere.py")
    (repo / "mine.py").write_text(BEFORE)
    result = apply()
    # The broken link is named as skipped (see test_bad_input), and stays as it was.
    assert result.exit_code == 123, result.stderr
    assert "prune-flags: skipped dangling.py: is a symbolic link that leads nowhere" in (
        result.stderr
    )
    assert (outside / "theirs.py").read_text() == BEFORE
    assert (outside / "pkg" / "inner.py").read_text() == BEFORE
    assert (repo / "link_to_file.py").is_symlink() and (repo / "link_to_dir").is_symlink()
    assert (repo / "dangling.py").is_symlink() and not (repo / "dangling.py").exists()
    assert (repo / "mine.py").read_text() == AFTER
    assert temporary_files(tmp_path) == []


def test_executable_file_keeps_its_mode(repo: Path) -> None:
    path = repo / "tool.py"
    path.write_text("#!/usr/bin/env python3\n" + BEFORE)
    path.chmod(0o751)
    result = apply()
    assert result.exit_code == 0, result.stderr
    assert path.read_text() == "#!/usr/bin/env python3\n" + AFTER
    assert stat.S_IMODE(path.stat().st_mode) == 0o751


def test_read_only_file_is_written_with_its_mode_or_skipped(repo: Path) -> None:
    path = repo / "frozen.py"
    path.write_text(BEFORE)
    path.chmod(0o444)
    result = apply()
    check_outcome(path, BEFORE.encode(), AFTER.encode(), result)
    assert stat.S_IMODE(path.stat().st_mode) == 0o444
    assert temporary_files(repo) == []


def test_unwritable_file_fails_alone_and_leaves_no_temporary_file(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rename into place fails for one file (as on a full disk or a read-only directory):
    that file is named and keeps its old bytes, the others are written, no temporary file is left.
    """
    for name in ("a.py", "b.py", "c.py"):
        (repo / name).write_text(BEFORE)
    real_replace = os.replace

    def failing_replace(source, destination):
        if Path(destination).name == "b.py":
            raise OSError(28, "No space left on device")
        return real_replace(source, destination)

    monkeypatch.setattr(files.os, "replace", failing_replace)
    result = apply()
    assert result.exit_code == 123
    assert (repo / "b.py").read_text() == BEFORE
    assert "skipped b.py: [Errno 28] No space left on device" in result.stderr
    assert (repo / "a.py").read_text() == AFTER and (repo / "c.py").read_text() == AFTER
    assert temporary_files(repo) == []


def test_file_changed_on_disk_during_the_run_is_left_alone(repo: Path) -> None:
    (repo / "busy.py").write_text(BEFORE)
    (repo / "calm.py").write_text(BEFORE)
    config = Config(flags=(Flag("fast", False, "False"),), format="none")
    report = engine.run(config, [repo], repo)
    edited = BEFORE + "\n# edited by someone else meanwhile\n"
    (repo / "busy.py").write_text(edited)
    engine.write_changes(report)
    assert (repo / "busy.py").read_text() == edited
    assert [s.display for s in report.skipped] == ["busy.py"]
    assert "changed on disk" in report.skipped[0].error
    assert (repo / "calm.py").read_text() == AFTER


def test_special_files_named_py_are_not_opened(repo: Path) -> None:
    """A FIFO named like a module would block a reader forever; a directory named x.py is walked."""
    os.mkfifo(repo / "pipe.py")
    (repo / "dir.py").mkdir()
    (repo / "dir.py" / "inner.py").write_text(BEFORE)
    result = apply()
    assert result.exit_code == 0, result.stderr
    assert (repo / "dir.py" / "inner.py").read_text() == AFTER
    assert stat.S_ISFIFO(os.stat(repo / "pipe.py").st_mode)


# -- a real corpus ----------------------------------------------------------------------------
@pytest.mark.slow
def test_corpus_sample_with_a_flag_that_matches_nothing_changes_no_byte() -> None:
    """benchmarks/corpus.py over an evenly spread sample of the installed standard library and
    site-packages: not one byte changes, nothing is added, nothing crashes."""
    script = ROOT / "benchmarks" / "corpus.py"
    done = subprocess.run(
        [sys.executable, str(script), "--limit", "3000"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "  0 files changed, 0 files added" in done.stdout, done.stdout
    assert done.stdout.rstrip().endswith("ok")
