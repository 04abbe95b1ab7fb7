"""Files on disk: byte-exact reading, safe writing, discovery and the text pre-filter."""

from __future__ import annotations

import os
import pickle
import time
from pathlib import Path

import pytest

import prune_flags.source.files as files
import prune_flags.source.words as words
from prune_flags.source.discovery import discover_python_files
from prune_flags.source.files import SourceError, SourceFile, read_source, write_atomic
from prune_flags.source.words import mentions_any, names_in


def touch(path: Path, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def relative(paths: list[Path], base: Path) -> list[str]:
    return [path.relative_to(base).as_posix() for path in paths]


# --- reading and encoding ------------------------------------------------------------------


def test_utf8_with_bom_round_trips(tmp_path: Path) -> None:
    data = b"\xef\xbb\xbfname = '\xc3\xa9'\r\n"
    path = tmp_path / "bom.py"
    path.write_bytes(data)

    source = read_source(path)

    assert source == SourceFile(path=path, text="name = 'é'\r\n", encoding="utf-8-sig")
    assert source.encode(source.text) == data


def test_latin1_coding_cookie_round_trips(tmp_path: Path) -> None:
    data = b"# -*- coding: latin-1 -*-\nname = '\xe9'\n"
    path = tmp_path / "latin.py"
    path.write_bytes(data)

    source = read_source(path)

    assert source.encoding == "iso-8859-1"
    assert source.text == "# -*- coding: latin-1 -*-\nname = 'é'\n"
    assert source.encode(source.text) == data


def test_newlines_are_kept_exactly(tmp_path: Path) -> None:
    data = b"a = 1\r\nb = 2\nc = 3\rd = 4\r\n"
    path = tmp_path / "mixed.py"
    path.write_bytes(data)

    source = read_source(path)

    assert source.encoding == "utf-8"
    assert source.text == "a = 1\r\nb = 2\nc = 3\rd = 4\r\n"
    assert source.encode(source.text.replace("b = 2\n", "")) == b"a = 1\r\nc = 3\rd = 4\r\n"


def test_undecodable_byte_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.py"
    path.write_bytes(b"x = 1\ny = 2\nz = '\xff'\n")

    with pytest.raises(SourceError) as caught:
        read_source(path)

    assert str(caught.value) == "cannot decode as utf-8 (line 3): invalid start byte"
    assert caught.value.path == path


def test_undecodable_byte_after_a_bom_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.py"
    path.write_bytes(b"\xef\xbb\xbfx = 1\n'\xff'\n")

    with pytest.raises(SourceError) as caught:
        read_source(path)

    assert str(caught.value) == "cannot decode as utf-8-sig (line 2): invalid start byte"


def test_unknown_coding_cookie(tmp_path: Path) -> None:
    path = tmp_path / "cookie.py"
    path.write_bytes(b"# coding: klingon\nx = 1\n")

    with pytest.raises(SourceError) as caught:
        read_source(path)

    assert str(caught.value) == "cannot detect the encoding: unknown encoding: klingon"


def test_reading_a_directory(tmp_path: Path) -> None:
    with pytest.raises(SourceError) as caught:
        read_source(tmp_path)

    assert str(caught.value) == "is a directory, not a file"
    assert caught.value.path == tmp_path


def test_reading_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SourceError) as caught:
        read_source(tmp_path / "gone.py")

    assert str(caught.value) == "cannot read: No such file or directory"


def test_text_that_the_encoding_cannot_hold(tmp_path: Path) -> None:
    source = SourceFile(path=tmp_path / "x.py", text="", encoding="iso-8859-1")

    with pytest.raises(SourceError) as caught:
        source.encode("a = 1\nb = '\u20ac'\n")

    assert str(caught.value) == "cannot encode as iso-8859-1 (line 2): ordinal not in range(256)"


def test_source_error_survives_pickling_for_worker_processes(tmp_path: Path) -> None:
    error = pickle.loads(pickle.dumps(SourceError(tmp_path / "a.py", "broken")))

    assert (error.path, str(error)) == (tmp_path / "a.py", "broken")


# --- writing -------------------------------------------------------------------------------


def test_atomic_write_keeps_the_mode_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    path = tmp_path / "script.py"
    path.write_bytes(b"old\n")
    path.chmod(0o755)

    write_atomic(path, b"new\r\n")

    assert path.read_bytes() == b"new\r\n"
    assert path.stat().st_mode & 0o7777 == 0o755
    assert os.listdir(tmp_path) == ["script.py"]


def test_atomic_write_of_a_new_file_follows_the_umask(tmp_path: Path) -> None:
    previous = os.umask(0o027)
    try:
        write_atomic(tmp_path / "report.json", b"{}")
    finally:
        os.umask(previous)

    assert (tmp_path / "report.json").stat().st_mode & 0o7777 == 0o640
    assert os.listdir(tmp_path) == ["report.json"]


def test_atomic_write_through_a_symlink_writes_the_target_and_keeps_the_link(
    tmp_path: Path,
) -> None:
    target = tmp_path / "real" / "module.py"
    touch(target, "old\n")
    link = tmp_path / "link.py"
    link.symlink_to(Path("real") / "module.py")

    write_atomic(link, b"new\n")

    assert link.is_symlink()
    assert os.readlink(link) == os.path.join("real", "module.py")
    assert target.read_bytes() == b"new\n"
    assert sorted(os.listdir(tmp_path / "real")) == ["module.py"]


def test_failed_atomic_write_removes_the_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = touch(tmp_path / "module.py", "original\n")

    def failing_replace(source: object, destination: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "replace", failing_replace)

    with pytest.raises(OSError, match="No space left on device"):
        write_atomic(path, b"new\n")

    assert path.read_text() == "original\n"
    assert os.listdir(tmp_path) == ["module.py"]


def test_temporary_file_is_dot_prefixed_beside_the_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = touch(tmp_path / "module.py", "old\n")
    replaced: list[tuple[str, str]] = []
    real_replace = os.replace

    def recording_replace(source: str, destination: str) -> None:
        replaced.append((str(source), str(destination)))
        real_replace(source, destination)

    monkeypatch.setattr(files.os, "replace", recording_replace)

    write_atomic(path, b"new\n")

    [(temporary, destination)] = replaced
    assert Path(temporary).parent == tmp_path
    assert Path(temporary).name.startswith(".module.py.")
    assert destination == str(path)


# --- discovery -----------------------------------------------------------------------------


def test_walks_directories_for_python_files_sorted(tmp_path: Path) -> None:
    for name in ["b.py", "a.py", "pkg/z.py", "pkg/sub/y.py", "notes.txt", "pkg/data.pyc", "pyx"]:
        touch(tmp_path / name)
    touch(tmp_path / ".git" / "hooks" / "hook.py")

    found = discover_python_files([tmp_path], tmp_path)

    assert relative(found, tmp_path) == ["a.py", "b.py", "pkg/sub/y.py", "pkg/z.py"]


def test_paths_keep_the_form_they_were_given_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    touch(tmp_path / "a.py")
    touch(tmp_path / "src" / "b.py")
    monkeypatch.chdir(tmp_path)

    assert discover_python_files([Path(".")], Path(".")) == [Path("a.py"), Path("src/b.py")]
    assert discover_python_files([Path("src")], Path(".")) == [Path("src/b.py")]


def test_overlapping_paths_give_each_file_once(tmp_path: Path) -> None:
    touch(tmp_path / "pkg" / "a.py")

    found = discover_python_files([tmp_path, tmp_path / "pkg", tmp_path / "pkg" / "a.py"], tmp_path)

    assert found == [tmp_path / "pkg" / "a.py"]


def test_root_gitignore(tmp_path: Path) -> None:
    touch(tmp_path / ".gitignore", "# generated\nbuild/\n*_pb2.py\n/top_only.py\n")
    for name in ["a.py", "build/b.py", "pkg/m_pb2.py", "top_only.py", "pkg/top_only.py"]:
        touch(tmp_path / name)

    found = discover_python_files([tmp_path], tmp_path)

    assert relative(found, tmp_path) == ["a.py", "pkg/top_only.py"]


def test_nested_gitignore_patterns_are_relative_to_their_directory(tmp_path: Path) -> None:
    touch(tmp_path / ".gitignore", "generated_*.py\n")
    touch(tmp_path / "pkg" / ".gitignore", "/local.py\n!generated_keep.py\ncache/\n")
    for name in [
        "local.py",
        "generated_x.py",
        "generated_keep.py",
        "pkg/local.py",
        "pkg/deeper/local.py",
        "pkg/generated_x.py",
        "pkg/generated_keep.py",
        "pkg/cache/c.py",
        "other/cache/c.py",
    ]:
        touch(tmp_path / name)

    found = discover_python_files([tmp_path], tmp_path)

    assert relative(found, tmp_path) == [
        "local.py",
        "other/cache/c.py",
        "pkg/deeper/local.py",
        "pkg/generated_keep.py",
    ]


def test_gitignore_files_above_a_walked_subdirectory_apply(tmp_path: Path) -> None:
    touch(tmp_path / ".gitignore", "skip_me.py\n")
    touch(tmp_path / "src" / ".gitignore", "pkg/gen/\n")
    for name in ["src/pkg/a.py", "src/pkg/skip_me.py", "src/pkg/gen/g.py"]:
        touch(tmp_path / name)

    found = discover_python_files([tmp_path / "src" / "pkg"], tmp_path)

    assert relative(found, tmp_path) == ["src/pkg/a.py"]


def test_exclude_globs_are_relative_to_the_root(tmp_path: Path) -> None:
    for name in ["build/x.py", "src/build/y.py", "tests/fixtures/f.py", "tests/test_a.py", "a.py"]:
        touch(tmp_path / name)

    found = discover_python_files(
        [tmp_path / "src", tmp_path / "tests", tmp_path / "a.py"],
        tmp_path,
        exclude=["/build/**", "tests/fixtures/"],
    )

    assert relative(found, tmp_path) == ["a.py", "src/build/y.py", "tests/test_a.py"]


def test_exclude_glob_is_on_top_of_a_gitignore_negation(tmp_path: Path) -> None:
    touch(tmp_path / ".gitignore", "*.py\n!keep.py\n")
    touch(tmp_path / "keep.py")
    touch(tmp_path / "other.py")

    assert discover_python_files([tmp_path], tmp_path) == [tmp_path / "keep.py"]
    assert discover_python_files([tmp_path], tmp_path, exclude=["keep.py"]) == []


def test_explicit_file_is_taken_even_when_ignored_or_excluded(tmp_path: Path) -> None:
    touch(tmp_path / ".gitignore", "build/\n")
    explicit = touch(tmp_path / "build" / "gen.py")
    touch(tmp_path / "build" / "other.py")

    found = discover_python_files([explicit, tmp_path], tmp_path, exclude=["build/gen.py"])

    assert found == [explicit]


def test_missing_path_raises_file_not_found(tmp_path: Path) -> None:
    missing = tmp_path / "nope"

    with pytest.raises(FileNotFoundError, match=str(missing)):
        discover_python_files([missing], tmp_path)


def test_directory_symlinks_are_not_followed(tmp_path: Path) -> None:
    touch(tmp_path / "real" / "a.py")
    (tmp_path / "alias").symlink_to(tmp_path / "real", target_is_directory=True)

    assert relative(discover_python_files([tmp_path], tmp_path), tmp_path) == ["real/a.py"]


def test_symlinked_files_outside_the_root_are_skipped(tmp_path: Path) -> None:
    root = tmp_path / "project"
    outside = touch(tmp_path / "elsewhere" / "shared.py")
    inside = touch(root / "lib" / "helper.py")
    touch(root / "mod.py")
    (root / "shared.py").symlink_to(outside)
    (root / "helper_link.py").symlink_to(inside)

    found = discover_python_files([root], root)

    # The link inside the root is the same file as lib/helper.py: taken once, by its own path.
    assert relative(found, root) == ["lib/helper.py", "mod.py"]


def test_symlinked_file_inside_the_root_is_taken_when_its_target_is_not_walked(
    tmp_path: Path,
) -> None:
    target = touch(tmp_path / "lib" / "helper.py")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "helper.py").symlink_to(target)

    assert discover_python_files([tmp_path / "app"], tmp_path) == [tmp_path / "app" / "helper.py"]


def test_ignored_directories_are_never_entered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    touch(tmp_path / ".gitignore", "node_modules/\n")
    touch(tmp_path / "node_modules" / "pkg" / "x.py")
    touch(tmp_path / "excluded" / "y.py")
    touch(tmp_path / "a.py")
    scanned: list[str] = []
    real_scandir = os.scandir

    def recording_scandir(path: str) -> object:
        scanned.append(os.path.relpath(path, tmp_path))
        return real_scandir(path)

    monkeypatch.setattr(files.os, "scandir", recording_scandir)

    found = discover_python_files([tmp_path], tmp_path, exclude=["excluded"])

    assert found == [tmp_path / "a.py"]
    assert scanned == ["."]


def test_ten_thousand_files_are_discovered_quickly(tmp_path: Path) -> None:
    touch(tmp_path / ".gitignore", "*.tmp.py\nbuild/\n")
    for package in range(100):
        directory = tmp_path / f"pkg{package}"
        directory.mkdir()
        touch(directory / ".gitignore", "generated/\n")
        for module in range(100):
            (directory / f"m{module}.py").touch()

    started = time.perf_counter()
    found = discover_python_files([tmp_path], tmp_path, exclude=["pkg1/**"])
    elapsed = time.perf_counter() - started

    assert len(found) == 9_900
    assert elapsed < 5.0


# --- the text pre-filter -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ("if use_new_path:\n", True),
        ("cfg.use_new_path", True),
        ("features.has('use_new_path')", True),
        ("use_new_path_v2 = 1", False),
        ("not_use_new_path = 1", False),
        ("", False),
        ("other = LEGACY", True),
        ("LEGACY_MODE", False),
    ],
)
def test_mentions_any_matches_whole_words(data: str, expected: bool) -> None:
    assert mentions_any(data, ["use_new_path", "LEGACY"]) is expected


def test_mentions_any_escapes_names_and_handles_non_word_edges() -> None:
    assert mentions_any("has('new-ui.')", ["new-ui."]) is True
    assert mentions_any("has('newXui')", ["new.ui"]) is False
    assert mentions_any("has('new-ui.x')", ["new-ui."]) is False


def test_mentions_any_without_names_is_false() -> None:
    assert mentions_any("anything", []) is False


def test_names_in_finds_whole_words_and_splits_each_text_once() -> None:
    text = "x = self.use_x  # use_xy\nparser.add_argument('--use-x')\nnaïve_use = 1\n"
    many = [f"name_{i}" for i in range(10_000)] + ["use_x", "use-x", "use", "naïve_use", "xy", "e"]
    before = words._words.cache_info()
    assert names_in(text, many) == {"use_x", "use-x", "use", "naïve_use"}
    assert names_in(text, ["use_xy"]) == {"use_xy"} and not mentions_any(text, ["se_x", "name_1"])
    after = words._words.cache_info()
    assert after.misses == before.misses + 1  # one split of the text, however many names
