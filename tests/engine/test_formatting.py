from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import textwrap
from importlib import metadata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from prune_flags.engine.formatting import (
    BlackSettings,
    Formatting,
    detect_formatting,
    format_lines,
    formats_as,
    load_black_settings,
)
from prune_flags.engine.line_ranges import changed_line_ranges, touched_line_ranges
from prune_flags.engine.precommit import Hook, hooks


def write_pyproject(root: Path, body: str) -> None:
    (root / "pyproject.toml").write_text(textwrap.dedent(body), encoding="utf-8")


# load_black_settings


def test_settings_from_dashed_keys(tmp_path: Path) -> None:
    write_pyproject(
        tmp_path,
        """
        [tool.black]
        line-length = 100
        skip-string-normalization = true
        skip-magic-trailing-comma = true
        target-version = ["py310", "py311"]
        preview = true
        required-version = "22"
        include = '\\.pyi?$'
        """,
    )
    assert load_black_settings(tmp_path) == BlackSettings(
        line_length=100,
        string_normalization=False,
        magic_trailing_comma=False,
        target_versions=("py310", "py311"),
        preview=True,
        configured=True,
    )


def test_settings_from_underscored_keys(tmp_path: Path) -> None:
    write_pyproject(
        tmp_path,
        """
        [tool.black]
        line_length = 120
        skip_string_normalization = true
        target_version = ["py39"]
        """,
    )
    assert load_black_settings(tmp_path) == BlackSettings(
        line_length=120,
        string_normalization=False,
        target_versions=("py39",),
        configured=True,
    )


def test_empty_black_table_is_configured_with_defaults(tmp_path: Path) -> None:
    write_pyproject(tmp_path, "[tool.black]\n")
    assert load_black_settings(tmp_path) == BlackSettings(configured=True)


def test_no_pyproject_gives_unconfigured_defaults(tmp_path: Path) -> None:
    settings = load_black_settings(tmp_path)
    assert settings == BlackSettings()
    assert settings.configured is False


def test_pyproject_without_black_table(tmp_path: Path) -> None:
    write_pyproject(tmp_path, '[project]\nname = "x"\n\n[tool.isort]\nprofile = "black"\n')
    assert load_black_settings(tmp_path) == BlackSettings()


def test_malformed_pyproject_gives_defaults(tmp_path: Path) -> None:
    write_pyproject(tmp_path, "[tool.black\nline-length = 100\n")
    assert load_black_settings(tmp_path) == BlackSettings()


def test_ill_typed_values_fall_back_to_defaults(tmp_path: Path) -> None:
    write_pyproject(
        tmp_path,
        """
        [tool.black]
        line-length = true
        skip-string-normalization = "yes"
        target-version = "py311"
        """,
    )
    assert load_black_settings(tmp_path) == BlackSettings(configured=True)


def test_unknown_target_version_does_not_stop_formatting(tmp_path: Path) -> None:
    write_pyproject(tmp_path, '[tool.black]\ntarget-version = ["py311", "py99", "PY312"]\n')
    settings = load_black_settings(tmp_path)
    assert format_lines("x  =  1\n", [(1, 1)], settings) == "x = 1\n"


def test_required_version_does_not_stop_formatting(tmp_path: Path) -> None:
    write_pyproject(tmp_path, '[tool.black]\nrequired-version = "22"\nline-length = 100\n')
    settings = load_black_settings(tmp_path)
    assert settings == BlackSettings(line_length=100, configured=True)
    assert format_lines("x  =  1\n", [(1, 1)], settings) == "x = 1\n"


# format_lines


def test_only_the_given_range_is_formatted() -> None:
    source = "x = [1,2,\n3]\ny  =  2\nz = [1,2,\n3]\n"
    assert (
        format_lines(source, [(3, 3)], BlackSettings()) == "x = [1,2,\n3]\ny = 2\nz = [1,2,\n3]\n"
    )


def test_range_touching_a_multiline_statement_formats_the_whole_statement() -> None:
    # Line 2 is the middle of `foo(...)`: black reformats the statement it belongs to, including
    # its first line, which lies outside the range.
    source = "x  =  1\nfoo(a,\n    b,\n      c)\nz  =  1\n"
    assert format_lines(source, [(3, 3)], BlackSettings()) == "x  =  1\nfoo(a, b, c)\nz  =  1\n"


@pytest.mark.parametrize(
    ("source", "line_range", "expected"),
    [
        pytest.param(
            "x = '''\n  a  =  1\n'''\ny  =  2\n",
            (2, 2),
            'x = """\n  a  =  1\n"""\ny  =  2\n',
            id="inside-multiline-string-formats-its-statement",
        ),
        pytest.param(
            "x = 1\n\n\n\n\ny  =  2\n",
            (6, 6),
            "x = 1\n\n\ny = 2\n",
            id="blank-lines-before-a-selected-line-are-capped",
        ),
        pytest.param(
            "import os\ndef f():\n  return  1\n",
            (2, 2),
            "import os\ndef f():\n    return  1\n",
            id="block-header-reindents-unselected-body",
        ),
    ],
)
def test_black_reaches_outside_the_range(
    source: str, line_range: tuple[int, int], expected: str
) -> None:
    # Pinned because the codemod's diffs depend on them: black's `lines=` works per statement and
    # per block, so some lines outside the range still change.
    assert format_lines(source, [line_range], BlackSettings()) == expected


def test_several_ranges() -> None:
    source = "a  =  1\nb  =  2\nc  =  3\nd  =  4\n"
    assert format_lines(source, [(1, 1), (3, 3)], BlackSettings()) == (
        "a = 1\nb  =  2\nc = 3\nd  =  4\n"
    )


def test_crlf_source_keeps_crlf() -> None:
    source = "x  =  1\r\ny  =  2\r\nz  =  3\r\n"
    assert format_lines(source, [(2, 2)], BlackSettings()) == "x  =  1\r\ny = 2\r\nz  =  3\r\n"


def test_crlf_single_line_keeps_crlf() -> None:
    # black 26 given raw "\r\n" text drops the "\r" here, hence the conversion.
    assert format_lines("x  =  1\r\n", [(1, 1)], BlackSettings()) == "x = 1\r\n"


def test_mixed_line_endings_are_left_alone() -> None:
    source = "x  =  1\r\ny  =  2\n"
    assert format_lines(source, [(1, 2)], BlackSettings()) is source


def test_missing_final_newline_is_not_added() -> None:
    assert format_lines("x  =  1\ny  =  2", [(1, 1)], BlackSettings()) == "x = 1\ny  =  2"
    assert format_lines("x  =  1\r\ny  =  2", [(2, 2)], BlackSettings()) == "x  =  1\r\ny = 2"


def test_string_normalization_on_and_off() -> None:
    source = "a = 'x'\n"
    assert format_lines(source, [(1, 1)], BlackSettings()) == 'a = "x"\n'
    assert format_lines(source, [(1, 1)], BlackSettings(string_normalization=False)) == source


def test_magic_trailing_comma_on_and_off() -> None:
    source = "foo(a, b,)\n"
    assert format_lines(source, [(1, 1)], BlackSettings()) == "foo(\n    a,\n    b,\n)\n"
    assert format_lines(source, [(1, 1)], BlackSettings(magic_trailing_comma=False)) == (
        "foo(a, b)\n"
    )


def test_line_length_respected() -> None:
    source = "result = function_name(argument_one, argument_two)\n"
    assert format_lines(source, [(1, 1)], BlackSettings()) == source
    assert format_lines(source, [(1, 1)], BlackSettings(line_length=40)) == (
        "result = function_name(\n    argument_one, argument_two\n)\n"
    )


def test_line_length_read_from_pyproject_is_used(tmp_path: Path) -> None:
    write_pyproject(tmp_path, "[tool.black]\nline-length = 100\n")
    source = "value = call(" + ", ".join(f"arg{i}" for i in range(14)) + ")\n"
    assert 88 < len(source) - 1 <= 100
    assert format_lines(source, [(1, 1)], load_black_settings(tmp_path)) == source
    assert format_lines(source, [(1, 1)], BlackSettings()) != source


def test_is_pyi() -> None:
    source = "def f() -> int:\n    ...\n"
    assert format_lines(source, [(1, 2)], BlackSettings(is_pyi=True)) == "def f() -> int: ...\n"


def test_unparseable_source_is_returned_unchanged() -> None:
    source = "x  =  (\n"
    assert format_lines(source, [(1, 1)], BlackSettings()) is source


def test_any_black_failure_returns_source(monkeypatch: pytest.MonkeyPatch) -> None:
    import black

    def explode(*args: object, **kwargs: object) -> str:
        raise RuntimeError("INTERNAL ERROR")

    monkeypatch.setattr(black, "format_str", explode)
    source = "x  =  1\n"
    assert format_lines(source, [(1, 1)], BlackSettings()) is source


def test_already_formatted_source_is_unchanged() -> None:
    source = "x = 1\n"
    assert format_lines(source, [(1, 1)], BlackSettings()) == source


def test_out_of_range_lines_are_ignored() -> None:
    source = "x  =  1\n"
    assert format_lines(source, [(5, 9)], BlackSettings()) == source


def test_empty_ranges_return_source_without_importing_black(tmp_path: Path) -> None:
    write_pyproject(tmp_path, '[tool.black]\nline-length = 100\ntarget-version = ["py311"]\n')
    script = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from prune_flags.engine.formatting import format_lines, load_black_settings
        from prune_flags.engine.line_ranges import changed_line_ranges

        settings = load_black_settings(Path({str(tmp_path)!r}))
        source = "x  =  1\\n"
        assert format_lines(source, [], settings) is source
        assert changed_line_ranges(source, source) == []
        assert "black" not in sys.modules, "black was imported"
        """)  # noqa: E501 (the script's import line)
    subprocess.run([sys.executable, "-c", script], check=True)


# changed_line_ranges


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        pytest.param("a\nb\n", "a\nb\n", [], id="identical"),
        pytest.param("a\nb\n", "a\nx\nb\n", [(2, 2)], id="insert"),
        pytest.param("a\nb\n", "a\nb\nc\nd\n", [(3, 4)], id="insert-at-end"),
        pytest.param("a\nb\nc\n", "a\nB\nc\n", [(2, 2)], id="replace"),
        pytest.param("a\nb\nc\nd\n", "a\nc\n", [], id="delete-only"),
        # difflib aligns these with a 'replace'; every line of `new` is still an old line in order
        pytest.param(
            "b\na\na\nc\nb\na\n", "b\na\nc\na\n", [], id="delete-only-misaligned-by-difflib"
        ),
        pytest.param("a\nb\nc\nd\ne\n", "a\nB\nd\nE\n", [(2, 2), (4, 4)], id="replace-and-delete"),
        pytest.param("a\nb\nc\n", "A\nb\nC\n", [(1, 1), (3, 3)], id="two-ranges"),
        pytest.param("a\nb\nc\n", "x\ny\nb\nz\n", [(1, 2), (4, 4)], id="replace-at-both-ends"),
        pytest.param("a\nb\n", "a\nb", [], id="final-newline-removed"),
        pytest.param("", "a\n", [(1, 1)], id="from-empty"),
        pytest.param("a\n", "", [], id="to-empty"),
    ],
)
def test_changed_line_ranges(old: str, new: str, expected: list[tuple[int, int]]) -> None:
    assert changed_line_ranges(old, new) == expected


def test_changed_line_ranges_replace_and_insert_give_one_range() -> None:
    assert changed_line_ranges("a\nb\nc\n", "a\nB\nnew\nc\n") == [(2, 3)]


lines = st.lists(st.sampled_from(["a", "b", "c", "", "    x"]), max_size=12)


@given(old=lines, new=lines)
def test_changed_line_ranges_are_merged_and_cover_every_new_line(
    old: list[str], new: list[str]
) -> None:
    ranges = changed_line_ranges(
        "".join(f"{line}\n" for line in old), "".join(f"{line}\n" for line in new)
    )
    # Sorted, non-empty, inside `new`, and merged: a gap of at least one line between ranges.
    assert all(1 <= start <= end <= len(new) for start, end in ranges)
    assert all(next_start > end + 1 for (_, end), (next_start, _) in zip(ranges, ranges[1:]))
    # Every line outside the ranges is an old line kept in order: nothing changed goes unreported.
    kept = [
        line
        for number, line in enumerate(new, start=1)
        if not any(start <= number <= end for start, end in ranges)
    ]
    remaining = iter(old)
    assert all(line in remaining for line in kept)


def test_changed_line_ranges_numbers_lines_like_black() -> None:
    # A form feed is whitespace to Python and black, not a line break as for str.splitlines().
    old = "a  =  1  # page\x0cbreak\nb = 2\n"
    new = "a  =  1  # page\x0cbreak\nb  =  3\n"
    assert changed_line_ranges(old, new) == [(2, 2)]
    assert format_lines(new, [(2, 2)], BlackSettings()) == "a  =  1  # page\x0cbreak\nb = 3\n"


def test_changed_ranges_feed_format_lines() -> None:
    old = "def f( a ):\n    if FLAG:\n        return  a\n    return  0\n"
    new = "def f( a ):\n    return  a\n    return  0\n"
    ranges = changed_line_ranges(old, new)
    assert ranges == [(2, 2)]
    assert format_lines(new, ranges, BlackSettings()) == (
        "def f( a ):\n    return a\n    return  0\n"
    )


# touched_line_ranges


TERNARY = """\
def label(self):
    x  =  1
    return (
        f"{self.name}"
        if not self.fast
        else f"{self.name}-fast"
    )
"""


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        pytest.param(
            TERNARY,
            TERNARY.replace('        if not self.fast\n        else f"{self.name}-fast"\n', ""),
            [(3, 5)],
            id="lines-gone-from-inside-a-statement",
        ),
        pytest.param(
            "if FAST:\n    a  =  1\nb  =  2\n", "b  =  2\n", [], id="whole-statements-gone"
        ),
        pytest.param(
            "a  =  1\n# about b\nb  =  2\n", "a  =  1\nb  =  2\n", [], id="comment-line-gone"
        ),
        pytest.param(
            "if (\n    a\n    and not FAST\n):\n    pass\n",
            "if (\n    a\n):\n    pass\n",
            [(1, 3)],
            id="header-lost-a-line",
        ),
        pytest.param(
            'def f(x, use_x=False):\n    """Help.\n\n    use_x: whether.\n    """\n',
            'def f(x):\n    """Help.\n\n    """\n',
            [(1, 4)],
            id="docstring-lost-a-line-and-header-changed",
        ),
        pytest.param(
            "foo(\n    a,\n    use_x=False,\n)\nb  =  [\n    1,\n]\n",
            "foo(\n    a,\n)\nb  =  [\n    2,\n]\n",
            [(5, 5)],
            id="whole-element-gone-and-replace",
        ),
        pytest.param(
            "foo(\n    a,\n    b=g(\n        1,\n    ),  # why\n    c,\n)\n",
            "foo(\n    a,\n    c,\n)\n",
            [],
            id="element-over-lines-gone",
        ),
        pytest.param(
            "foo(\n    a, use_x=False,\n    c,\n)\n",
            "foo(\n    c,\n)\n",
            [],
            id="line-of-two-elements-gone",
        ),
        pytest.param("foo(\n    use_x=False,\n)\n", "foo(\n)\n", [(1, 2)], id="only-element-gone"),
        pytest.param(
            "foo(\n    a\n    + b,\n    c,\n)\n",
            "foo(\n    a\n    c,\n)\n",
            [(1, 4)],
            id="part-of-an-element-gone",
        ),
        pytest.param(
            'foo(\n    a,\n    """x\n    y""",\n    c,\n)\n',
            "foo(\n    a,\n    c,\n)\n",
            [(1, 4)],
            id="string-over-lines-gone",
        ),
        pytest.param("x = (\n  1,\n  2,\n", "x = (\n  1,\n", [], id="does-not-tokenize"),
    ],
)
def test_touched_line_ranges(old: str, new: str, expected: list[tuple[int, int]]) -> None:
    assert touched_line_ranges(old, new) == expected


def test_without_the_magic_trailing_comma_a_bracket_that_lost_an_element_is_formatted() -> None:
    """With `skip-magic-trailing-comma` black joins what fits on a line, so it sees the rest."""
    old, new = "foo(\n    a,\n    use_x=False,\n)\n", "foo(\n    a,\n)\n"
    assert touched_line_ranges(old, new, magic_trailing_comma=False) == [(1, 3)]


def test_a_statement_that_lost_lines_from_within_is_formatted_whole_and_alone() -> None:
    """A folded ternary leaves `return (`, `f"..."`, `)`: black collapses it, as the repository's
    black would; the badly formatted statement beside it, untouched, stays."""
    new = TERNARY.replace('        if not self.fast\n        else f"{self.name}-fast"\n', "")
    formatted = format_lines(new, touched_line_ranges(TERNARY, new), BlackSettings())
    assert formatted == 'def label(self):\n    x  =  1\n    return f"{self.name}"\n'


@given(old=lines, new=lines)
def test_touched_line_ranges_hold_the_changed_lines(old: list[str], new: list[str]) -> None:
    old_text, new_text = "".join(f"{line}\n" for line in old), "".join(f"{line}\n" for line in new)
    touched = touched_line_ranges(old_text, new_text)
    assert all(1 <= start <= end <= len(new) for start, end in touched)
    assert all(next_start > end + 1 for (_, end), (next_start, _) in zip(touched, touched[1:]))
    assert all(
        any(start <= line <= end for start, end in touched)
        for first, last in changed_line_ranges(old_text, new_text)
        for line in range(first, last + 1)
    )


# detect_formatting: black in .pre-commit-config.yaml

INSTALLED_MAJOR = int(metadata.version("black").split(".")[0])


def write_pre_commit(
    root: Path, args: str, rev: str = f"{INSTALLED_MAJOR}.1.0", repo: str = "psf/black"
) -> None:
    (root / ".pre-commit-config.yaml").write_text(
        textwrap.dedent(f"""\
            repos:
              - repo: https://github.com/{repo}
                rev: {rev}
                hooks:
                  - id: black
                    args: {args}
            """),
        encoding="utf-8",
    )


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        pytest.param(
            "[--line-length=100]", BlackSettings(line_length=100, configured=True), id="long-equals"
        ),
        pytest.param(
            '["--line-length", "100"]',
            BlackSettings(line_length=100, configured=True),
            id="long-apart",
        ),
        pytest.param(
            "[-l, '100']", BlackSettings(line_length=100, configured=True), id="short-apart"
        ),
        pytest.param(
            "[-l100, -q]", BlackSettings(line_length=100, configured=True), id="short-joined"
        ),
        pytest.param(
            "[--skip-string-normalization, --skip-magic-trailing-comma]",
            BlackSettings(string_normalization=False, magic_trailing_comma=False, configured=True),
            id="long-switches",
        ),
        pytest.param(
            "[-qSC]",
            BlackSettings(string_normalization=False, magic_trailing_comma=False, configured=True),
            id="short-switches-together",
        ),
        pytest.param(
            "[--target-version, py310, -tpy311, --target-version=py312]",
            BlackSettings(target_versions=("py310", "py311", "py312"), configured=True),
            id="target-versions",
        ),
        pytest.param(
            "[--preview, --check, --config, x.toml]",
            BlackSettings(preview=True, configured=True),
            id="preview-and-others",
        ),
        pytest.param("[]", BlackSettings(configured=True), id="no-args"),
    ],
)
def test_black_hook_args(tmp_path: Path, args: str, expected: BlackSettings) -> None:
    write_pre_commit(tmp_path, args)
    assert detect_formatting(tmp_path) == Formatting(expected)


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/psf/black/",
        "git@github.com:psf/black.git",
        "https://GitHub.com/PSF/Black",
    ],
)
def test_black_hook_repository_spellings(tmp_path: Path, url: str) -> None:
    (tmp_path / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {url}\n  rev: {INSTALLED_MAJOR}.1.0\n  hooks:\n  - id: black\n"
    )
    assert detect_formatting(tmp_path) == Formatting(BlackSettings(configured=True))


def test_black_hook_block_list_args_and_the_mirror(tmp_path: Path) -> None:
    (tmp_path / ".pre-commit-config.yaml").write_text(
        "repos:\n"
        "- repo: https://github.com/psf/black-pre-commit-mirror.git  # the faster one\n"
        "  rev: '" + f"{INSTALLED_MAJOR}.3.0" + "'\n"
        "  hooks:\n"
        "  - id: black-jupyter\n"
        "    args:\n"
        "    - --line-length=120\n"
        '    - "-S"\n',
        encoding="utf-8",
    )
    expected = BlackSettings(line_length=120, string_normalization=False, configured=True)
    assert detect_formatting(tmp_path) == Formatting(expected)


def test_hook_args_override_and_fill_tool_black(tmp_path: Path) -> None:
    write_pyproject(
        tmp_path, '[tool.black]\nline-length = 79\ntarget-version = ["py39"]\npreview = true\n'
    )
    write_pre_commit(tmp_path, "[-l, '100', -C]")
    expected = BlackSettings(
        line_length=100,
        magic_trailing_comma=False,
        target_versions=("py39",),
        preview=True,
        configured=True,
    )
    assert detect_formatting(tmp_path) == Formatting(expected)


def test_a_pinned_black_of_another_major_formats_with_a_notice(tmp_path: Path) -> None:
    write_pre_commit(tmp_path, "[--line-length=100]", rev=f"{INSTALLED_MAJOR - 1}.12.1")
    notice = (
        f".pre-commit-config.yaml pins black {INSTALLED_MAJOR - 1}.12.1; the touched lines are "
        "formatted with the "
        f"installed black {metadata.version('black')}, whose style may differ in places"
    )
    assert detect_formatting(tmp_path) == Formatting(
        BlackSettings(line_length=100, configured=True), (notice,)
    )


@pytest.mark.parametrize(
    "rev",
    [
        f"v{INSTALLED_MAJOR}.1.0",
        f"{INSTALLED_MAJOR}.12.1",
        "4d3a2b1c0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b",
        "",
    ],
)
def test_the_same_major_or_no_version_gives_no_notice(tmp_path: Path, rev: str) -> None:
    write_pre_commit(tmp_path, "[]", rev=rev)
    assert detect_formatting(tmp_path).notices == ()


@pytest.mark.parametrize("repo", ["acme/black", "psf/blackened", "psf/black/extra"])
def test_a_black_hook_from_another_repository_is_not_black(tmp_path: Path, repo: str) -> None:
    write_pre_commit(tmp_path, "[--line-length=100]", repo=repo)
    assert detect_formatting(tmp_path) == Formatting(None)


def test_a_pre_commit_config_without_a_formatter_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / ".pre-commit-config.yaml").write_text(
        "repos:\n  - repo: https://github.com/pycqa/flake8\n    rev: 7.0.0\n    hooks:\n"
        "      - id: flake8\n        args: [--max-line-length=100]\n"
    )
    assert detect_formatting(tmp_path) == Formatting(None)
    assert detect_formatting(tmp_path, "black") == Formatting(BlackSettings())
    write_pyproject(tmp_path, "[tool.black]\nline-length = 100\n")
    assert detect_formatting(tmp_path) == Formatting(
        BlackSettings(line_length=100, configured=True)
    )


@pytest.mark.parametrize(
    "text",
    [
        "",
        "repos: []\n",
        "repos:\n  - {repo: x}\n",
        "\x00\x01:::\n  - -\n",
        "- a\n- b\n",
        "repos: x\n",
    ],
)
def test_an_odd_pre_commit_config_reads_as_no_hooks(tmp_path: Path, text: str) -> None:
    (tmp_path / ".pre-commit-config.yaml").write_text(text)
    assert hooks(tmp_path / ".pre-commit-config.yaml") == []


PRE_COMMIT_CONFIGS = [
    """\
# top comment
default_language_version:
  python: python3.11
repos:
-   repo: https://github.com/pre-commit/pre-commit-hooks
    rev: v4.5.0  # pinned
    hooks:
    -   id: trailing-whitespace
    -   id: end-of-file-fixer
- repo: https://github.com/psf/black-pre-commit-mirror.git
  rev: "24.2.0"
  hooks:
    - id: black
      args: [--line-length=100, "-S", '--target-version', py310,
             --preview]
      language_version: python3.11
- rev: v0.4.4
  repo: https://github.com/astral-sh/ruff-pre-commit
  hooks:
    - id: ruff
      args:
      - --fix
      - "--exit-non-zero-on-fix"   # comment
    - id: ruff-format
      description: |
        a block scalar
        id: not-a-hook
ci:
  autofix_prs: false
""",
    """\
repos:
  - repo: local
    hooks:
      - id: black
        name: black
        entry: black
        language: system
        args: ["--config=pyproject.toml", 'it''s', "a \\"b\\""]
  - repo: https://github.com/astral-sh/ruff-pre-commit
    rev: v0.6.9
    hooks:
    - id: ruff-format
      args: []
""",
]


@pytest.mark.parametrize("text", PRE_COMMIT_CONFIGS)
def test_the_pre_commit_reader_agrees_with_a_yaml_parser(tmp_path: Path, text: str) -> None:
    yaml = pytest.importorskip("yaml")  # a test dependency (dask's), never prune-flags'
    config = tmp_path / ".pre-commit-config.yaml"
    config.write_text(text)
    expected = [
        Hook(entry["repo"], str(entry.get("rev", "")), hook["id"], tuple(hook.get("args", ())))
        for entry in yaml.safe_load(text)["repos"]
        for hook in entry["hooks"]
    ]
    assert hooks(config) == expected


def test_flow_mappings_are_skipped_not_misread(tmp_path: Path) -> None:
    config = tmp_path / ".pre-commit-config.yaml"
    config.write_text(
        "repos:\n  - repo: https://github.com/psf/black\n    rev: 24.1.0\n"
        "    hooks: [{id: black}]\n"
    )
    assert hooks(config) == []


# detect_formatting: ruff's formatter


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        pytest.param(
            "ruff.toml",
            "line-length = 100\n[format]\n",
            BlackSettings(line_length=100, configured=True),
            id="ruff.toml",
        ),
        pytest.param(
            ".ruff.toml",
            'target-version = "py310"\n[format]\nquote-style = "preserve"\n'
            "skip-magic-trailing-comma = true\n",
            BlackSettings(
                string_normalization=False,
                magic_trailing_comma=False,
                target_versions=("py310",),
                configured=True,
            ),
            id=".ruff.toml-format",
        ),
        pytest.param(
            "pyproject.toml",
            '[tool.ruff]\nline-length = 120\n[tool.ruff.format]\nquote-style = "double"\n'
            "preview = true\n",
            BlackSettings(line_length=120, configured=True),
            id="tool.ruff",
        ),
        pytest.param(
            "ruff.toml",
            "line_length = 100\nindent-width = 4\n[format]\n",
            BlackSettings(configured=True),
            id="underscores-are-not-ruff's",
        ),
    ],
)
def test_ruff_settings(tmp_path: Path, name: str, text: str, expected: BlackSettings) -> None:
    (tmp_path / name).write_text(text)
    assert detect_formatting(tmp_path) == Formatting(expected)


def test_ruff_looks_at_dot_ruff_toml_then_ruff_toml_then_pyproject(tmp_path: Path) -> None:
    write_pyproject(tmp_path, "[tool.ruff]\nline-length = 120\n")
    (tmp_path / "ruff.toml").write_text("line-length = 110\n")
    (tmp_path / ".ruff.toml").write_text("line-length = 100\n[format]\n")
    assert detect_formatting(tmp_path).settings == BlackSettings(line_length=100, configured=True)


def test_a_ruff_format_hook_alone_means_ruff_defaults(tmp_path: Path) -> None:
    (tmp_path / ".pre-commit-config.yaml").write_text(
        "repos:\n  - repo: https://github.com/astral-sh/ruff-pre-commit\n    rev: v0.4.4\n"
        "    hooks:\n      - id: ruff-format\n"
    )
    assert detect_formatting(tmp_path) == Formatting(BlackSettings(configured=True))


def test_a_ruff_lint_hook_alone_is_no_formatter(tmp_path: Path) -> None:
    (tmp_path / ".pre-commit-config.yaml").write_text(
        "repos:\n  - repo: https://github.com/astral-sh/ruff-pre-commit\n    rev: v0.4.4\n"
        "    hooks:\n      - id: ruff\n"
    )
    assert detect_formatting(tmp_path) == Formatting(None)


@pytest.mark.parametrize(
    "name, text",
    [
        ("ruff.toml", 'line-length = 100\n[lint]\nselect = ["E", "F"]\n'),
        ("pyproject.toml", "[tool.ruff]\nline-length = 100\n[tool.ruff.lint]\nselect = ['F']\n"),
    ],
)
def test_ruff_settings_for_its_linter_alone_format_only_files_in_its_style(
    tmp_path: Path, name: str, text: str
) -> None:
    """ruff's settings with nothing showing its formatter runs may be its linter's alone: black
    would rewrite quotes and split calls on every touched line of a file never formatted. Only
    a file already in the style is formatted (formats_as); `format = "black"` formats all."""
    (tmp_path / name).write_text(text)
    assert detect_formatting(tmp_path) == Formatting(
        BlackSettings(line_length=100, configured=True, if_formatted=True)
    )
    assert detect_formatting(tmp_path, "black").settings == BlackSettings()


def test_a_file_is_in_a_style_when_black_leaves_it_as_it_is() -> None:
    settings = BlackSettings(line_length=100)
    assert formats_as('x = {"a": 1}\n', settings)
    assert not formats_as("x = {'a':1}\n", settings)
    assert not formats_as("x = (\n", settings)  # what black cannot read is in no style


@pytest.mark.parametrize(
    "path, text, expected",
    [
        (
            ".github/workflows/lint.yml",
            "jobs:\n  lint:\n    steps:\n      - run: ruff format --check .\n",
            BlackSettings(line_length=100, configured=True),
        ),
        ("tox.ini", "[testenv:style]\ncommands = python -m black --check src\n", None),
        ("Makefile", "fmt:\n\tblack .\n", None),
    ],
)
def test_a_ci_step_running_the_formatter_is_evidence(
    tmp_path: Path, path: str, text: str, expected: BlackSettings | None
) -> None:
    """ruff's settings stand for its formatter once a CI step runs `ruff format`; black run by a
    task file formats with black's settings (here its defaults)."""
    (tmp_path / "ruff.toml").write_text("line-length = 100\n" if expected else "")
    (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / path).write_text(text)
    settings = expected or BlackSettings(configured=True)
    if expected is None:
        (tmp_path / "ruff.toml").unlink()
    assert detect_formatting(tmp_path) == Formatting(settings)


def test_installing_a_formatter_is_not_running_it(tmp_path: Path) -> None:
    (tmp_path / "tox.ini").write_text("[testenv]\ndeps =\n    black\ncommands = pytest\n")
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "ci.yml").write_text("- run: pip install black ruff\n")
    assert detect_formatting(tmp_path) == Formatting(None)


def test_black_wins_over_ruff(tmp_path: Path) -> None:
    write_pyproject(tmp_path, "[tool.black]\nline-length = 79\n\n[tool.ruff]\nline-length = 120\n")
    assert detect_formatting(tmp_path) == Formatting(BlackSettings(line_length=79, configured=True))


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (
            '[format]\nquote-style = "single"\n',
            'ruff format\'s quote-style = "single" (ruff.toml) has no black equivalent',
        ),
        (
            '[format]\nindent-style = "tab"\n',
            'ruff format\'s indent-style = "tab" (ruff.toml) has no black equivalent',
        ),
        (
            "indent-width = 2\n[format]\n",
            "ruff's indent-width = 2 (ruff.toml) has no black equivalent",
        ),
    ],
)
def test_a_ruff_style_black_cannot_write_is_not_formatted_and_said(
    tmp_path: Path, text: str, why: str
) -> None:
    (tmp_path / "ruff.toml").write_text("line-length = 100\n" + text)
    assert detect_formatting(tmp_path) == Formatting(
        None, (f"the touched lines are not formatted: {why}",)
    )
    forced = detect_formatting(tmp_path, "black")
    assert forced == Formatting(
        BlackSettings(line_length=100, configured=True),
        (f'{why}: formatted in black\'s style (format = "black")',),
    )


def test_format_none_reads_nothing(tmp_path: Path) -> None:
    write_pre_commit(tmp_path, "[--line-length=100]", rev="1.0.0")
    assert detect_formatting(tmp_path, "none") == Formatting(None)


def test_notices_reach_stderr_and_the_json_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from prune_flags.cli import app

    (tmp_path / ".git").mkdir()
    (tmp_path / "ruff.toml").write_text('[format]\nquote-style = "single"\n')
    (tmp_path / "a.py").write_text("FAST = False\nx = 1 if FAST else 2\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(
        app, ["diff", "--flag", "FAST=False", "--report", "r.json", "."], catch_exceptions=False
    )
    why = 'ruff format\'s quote-style = "single" (ruff.toml) has no black equivalent'
    assert f"prune-flags: warning: the touched lines are not formatted: {why}\n" in result.stderr
    assert json.loads((tmp_path / "r.json").read_text())["notices"] == [
        f"the touched lines are not formatted: {why}"
    ]


CONFIG_LINES = [
    "repos:",
    "- repo: https://github.com/psf/black",
    "  - repo: https://github.com/psf/black",
    "  rev: 24.1.0",
    "    rev: '24.1.0'",
    "  hooks:",
    "    hooks:",
    "  - id: black",
    "    - id: black",
    "      - id: black",
    "    args: [-S, '-l', \"100\"]",
    "      args: [--preview]",
    "        args:",
    "        - -C",
    "      - -C",
    "    # c",
    "  - id: x  # y",
    "    args: ['a, b', \"c]d\", 'it''s', \"e\\\"f\"]",
]


@given(st.lists(st.sampled_from(CONFIG_LINES), min_size=1, max_size=12))
def test_the_pre_commit_reader_agrees_with_a_yaml_parser_on_any_valid_config(
    lines: list[str],
) -> None:
    """Lines of configs, shuffled: where a YAML parser reads them, the hooks are the same."""
    yaml = pytest.importorskip("yaml")
    text = "\n".join(lines) + "\n"
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError:
        return
    with tempfile.TemporaryDirectory() as directory:
        config = Path(directory) / ".pre-commit-config.yaml"
        config.write_text(text)
        assert hooks(config) == _yaml_hooks(document)


def _yaml_hooks(document: object) -> list[Hook]:
    repos = document.get("repos") if isinstance(document, dict) else None
    found = []
    for entry in repos if isinstance(repos, list) else []:
        if not (isinstance(entry, dict) and isinstance(entry.get("repo"), str)):
            continue
        rev = entry.get("rev") if isinstance(entry.get("rev"), str) else ""
        for hook in entry.get("hooks") if isinstance(entry.get("hooks"), list) else []:
            if isinstance(hook, dict) and isinstance(hook.get("id"), str):
                args = hook.get("args") if isinstance(hook.get("args"), list) else []
                found.append(
                    Hook(
                        entry["repo"],
                        rev,
                        hook["id"],
                        tuple(arg for arg in args if isinstance(arg, str)),
                    )
                )
    return found
