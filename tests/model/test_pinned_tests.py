"""Tests that pin a value the config rules out: what the report, `--explain`
and stderr say of them, and the edges of the rule (what stays a conflict, what is never deleted).
The shapes themselves are golden fixtures (fixtures/idiom/test_*)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prune_flags.model.pinned import is_test_path
from tests.support import checkout, fixture_path, invoke_in, make_tree


def changes_of(report: Path, path: str) -> list[tuple[int, str]]:
    files = {entry["path"]: entry["changes"] for entry in json.loads(report.read_text())["files"]}
    return [(change["line"], change["action"]) for change in files[path]]


def test_removed_tests_and_overridden_writes_are_in_the_report_explain_and_on_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = fixture_path("idiom_test_mock_patch")
    work = checkout(case, tmp_path / "work")
    report = tmp_path / "r.json"
    result = invoke_in(
        monkeypatch,
        work,
        "diff",
        "--explain",
        "--report",
        str(report),
        "--config",
        str(case / "config.toml"),
        ".",
    )
    assert result.exit_code == 1, result.output
    assert changes_of(report, "tests/test_encoder.py") == [
        (3, "removed-import"),
        (6, "removed-import"),
        (11, "overridden"),
        (16, "removed-test"),
        (31, "removed-test"),
    ]
    possibly = (
        "overrode hardware_accel = True (the config fixes it at False); test_hardware_path also "
        "checks other things and may pin the removed behaviour (possibly pinning)"
    )
    output = (
        "removed test_hardware_output, which exists only to exercise hardware_accel = True (set by "
        "a `with` around its whole body); the config fixes it at False"
    )
    strict = (
        "removed test_strict_limits, which exists only to exercise STRICT_LIMITS = True (set by a "
        "decorator); the config fixes it at False"
    )
    assert result.stderr.splitlines()[:3] == [
        f"prune-flags: tests/test_encoder.py:11: {possibly}",
        f"prune-flags: tests/test_encoder.py:16: {output}",
        f"prune-flags: tests/test_encoder.py:31: {strict}",
    ]
    assert f"tests/test_encoder.py:31  STRICT_LIMITS  removed-test  {strict}" in result.stdout


def test_with_tests_report_no_test_goes_and_each_write_is_possibly_pinning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = fixture_path("idiom_test_mock_patch_report")
    work = checkout(case, tmp_path / "work")
    report = tmp_path / "r.json"
    result = invoke_in(
        monkeypatch,
        work,
        "apply",
        "--report",
        str(report),
        "--config",
        str(case / "config.toml"),
        ".",
    )
    assert result.exit_code == 0, result.output
    assert changes_of(report, "tests/test_encoder.py") == [
        (11, "overridden"),
        (17, "overridden"),
        (30, "overridden"),
    ]
    warnings = [line for line in result.stderr.splitlines() if "possibly pinning" in line]
    assert [line.split(": ")[1] for line in warnings] == [
        "tests/test_encoder.py:11",
        "tests/test_encoder.py:17",
        "tests/test_encoder.py:30",
    ]
    assert (
        "test_strict_limits exists to exercise that value and may pin the removed behaviour "
        '(possibly pinning; tests = "report" keeps it)' in warnings[2]
    )


def test_an_unknown_tests_value_is_a_config_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_tree(
        tmp_path / "r", {"c.toml": 'tests = "skip"\n\n[flags]\nFAST = false\n', "mod.py": MODULE}
    )
    result = invoke_in(monkeypatch, root, "apply", "--config", "c.toml", ".")
    assert result.exit_code == 2
    assert (
        result.stderr
        == 'prune-flags: error: c.toml: tests: expected one of "delete", "report", got \'skip\'\n'
    )


MODULE = "FAST = False\n\n\ndef run():\n    return 1 if FAST else 2\n"
PINNED = (
    'from unittest import mock\n\nimport mod\n\n\n@mock.patch("mod.FAST", True)\ndef test_fast():\n'
    "    assert mod.run() == 1\n"
)


@pytest.mark.parametrize(
    "path", ["test_mod.py", "mod_test.py", "conftest.py", "tests/checks.py", "pkg/tests/deep/x.py"]
)
def test_test_files(path: str) -> None:
    assert is_test_path(path)


@pytest.mark.parametrize("path", ["mod.py", "testing.py", "pkg/test.py", "contest.py", "tests.py"])
def test_other_files(path: str) -> None:
    assert not is_test_path(path)


def test_a_test_double_outside_test_files_stays_a_conflict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {"mod.py": MODULE, "demo.py": PINNED}
    root = make_tree(tmp_path / "r", files)
    result = invoke_in(monkeypatch, root, "apply", "--flag", "FAST=False", ".")
    assert result.exit_code == 123
    assert "FAST: not pruned: it is given another value at demo.py:6" in result.stderr
    assert {name: (root / name).read_text() for name in files} == files


ENV_MODULE = 'import os\n\n\ndef run():\n    return os.environ.get("FAST_MODE") == "1"\n'


def test_an_environment_write_of_another_value_in_a_test_goes_with_its_test(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    test = (
        "import mod\n\n\ndef test_fast(monkeypatch):\n"
        '    monkeypatch.setenv("FAST_MODE", "1")\n    assert mod.run()\n'
    )
    root = make_tree(tmp_path / "r", {"mod.py": ENV_MODULE, "test_mod.py": test})
    result = invoke_in(monkeypatch, root, "apply", "--flag", "FAST_MODE='0'", ".")
    assert result.exit_code == 0, result.output
    assert (root / "test_mod.py").read_text() == ""
    assert (root / "mod.py").read_text() == "def run():\n    return False\n"
    assert (
        'test_mod.py:4: removed test_fast, which exists only to exercise FAST_MODE = "1"'
        " (set before anything else it does)"
    ) in result.stderr


def test_an_environment_write_outside_tests_stays_a_conflict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {"mod.py": ENV_MODULE, "demo.py": 'import os\n\nos.environ["FAST_MODE"] = "1"\n'}
    root = make_tree(tmp_path / "r", files)
    result = invoke_in(monkeypatch, root, "apply", "--flag", "FAST_MODE='0'", ".")
    assert result.exit_code == 123
    assert "FAST_MODE: not pruned: it is given another value at demo.py:3" in result.stderr
    assert {name: (root / name).read_text() for name in files} == files


def test_a_pinned_test_named_elsewhere_loses_only_its_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_tree(
        tmp_path / "r",
        {"mod.py": MODULE, "test_mod.py": PINNED + "\n\ntest_fast_again = test_fast\n"},
    )
    result = invoke_in(monkeypatch, root, "apply", "--flag", "FAST=False", ".")
    assert result.exit_code == 0, result.output
    after = (root / "test_mod.py").read_text()
    assert "def test_fast():" in after and "mock" not in after
    assert (
        "test_mod.py:6: overrode FAST = True (the config fixes it at False); test_fast "
        "exists to exercise" in result.stderr
    )


def test_a_pinned_test_the_pragma_keeps_keeps_the_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The test and its decorator stay as they are, so the flag they set stays too: refused."""
    test = PINNED.replace("def test_fast():", "def test_fast():  # prune-flags: keep")
    root = make_tree(tmp_path / "r", {"mod.py": MODULE, "test_mod.py": test})
    result = invoke_in(monkeypatch, root, "apply", "--flag", "FAST=False", ".")
    assert result.exit_code == 123
    assert (
        "FAST: not pruned: it is given another value at test_mod.py:6, and not every read of it"
        in result.stderr
    )
    assert (root / "mod.py").read_text() == MODULE


def test_a_with_binding_the_double_stays_a_conflict_when_its_test_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`with mock.patch(...) as fake:` after other statements, whose result the test reads after
    it: the body may use `fake`, so the `with` cannot go alone, nor the block whole."""
    test = (
        "from unittest import mock\n\nimport mod\n\n\ndef test_fast():\n    assert mod.run() == 2\n"
        '    with mock.patch("mod.FAST", True) as fake:\n        found = mod.run()\n'
        "    assert found == 1 and fake\n"
    )
    root = make_tree(tmp_path / "r", {"mod.py": MODULE, "test_mod.py": test})
    result = invoke_in(monkeypatch, root, "apply", "--flag", "FAST=False", ".")
    assert result.exit_code == 123
    assert "FAST: not pruned: it is given another value at test_mod.py:8" in result.stderr


def test_a_with_block_of_another_value_that_checks_it_goes_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same `with` checking its result inside, binding nothing read after it: it exists to
    exercise the other value and goes whole, `as fake` and all."""
    test = (
        "from unittest import mock\n\nimport mod\n\n\ndef test_fast():\n    assert mod.run() == 2\n"
        '    with mock.patch("mod.FAST", True) as fake:\n        assert mod.run() == 1 and fake\n'
    )
    root = make_tree(tmp_path / "r", {"mod.py": MODULE, "test_mod.py": test})
    result = invoke_in(monkeypatch, root, "apply", "--flag", "FAST=False", ".")
    assert result.exit_code == 0, result.output
    assert (
        root / "test_mod.py"
    ).read_text() == "import mod\n\n\ndef test_fast():\n    assert mod.run() == 2\n"
    assert (
        "test_mod.py:8: removed the `with` block of test_fast that exercises FAST = True (it "
        "checks that value's behaviour); the config fixes it at False"
    ) in result.stderr


def test_fixtures_that_stay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fixture another test asks for, one that runs unasked (autouse), and one of a conftest.py
    (other files' tests may ask for it) stay when the only test naming them goes."""
    test = (
        "import pytest\n\nimport mod\n\n\n@pytest.fixture\ndef shared():\n    return 1\n\n\n"
        "@pytest.fixture(autouse=True)\ndef always():\n    yield\n\n\n"
        "def test_plain(shared):\n    assert mod.run() == 2\n\n\n"
        "def test_fast(monkeypatch, shared, always, from_conftest):\n"
        '    monkeypatch.setattr(mod, "FAST", True)\n    assert mod.run() == 1\n'
    )
    conftest = "import pytest\n\n\n@pytest.fixture\ndef from_conftest():\n    return 2\n"
    root = make_tree(
        tmp_path / "r", {"mod.py": MODULE, "test_mod.py": test, "conftest.py": conftest}
    )
    result = invoke_in(monkeypatch, root, "apply", "--flag", "FAST=False", ".")
    assert result.exit_code == 0, result.output
    assert (root / "test_mod.py").read_text() == test[: test.index("\n\n\ndef test_fast")] + "\n"
    assert (root / "conftest.py").read_text() == conftest


def test_a_deleted_test_keeps_the_code_it_called(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A test is a user of what it calls, not a reason to delete it with the test: `strict_check`,
    which only the deleted test called, stays (the import of it goes)."""
    module = MODULE + "\n\ndef strict_check():\n    return 3\n"
    test = PINNED.replace("import mod\n", "import mod\nfrom mod import strict_check\n").replace(
        "assert mod.run() == 1", "assert mod.run() == 1 and strict_check()"
    )
    root = make_tree(tmp_path / "r", {"mod.py": module, "test_mod.py": test})
    result = invoke_in(monkeypatch, root, "apply", "--flag", "FAST=False", ".")
    assert result.exit_code == 0, result.output
    assert "def strict_check():" in (root / "mod.py").read_text()
    assert (
        root / "test_mod.py"
    ).read_text() == ""  # emptied, an empty file (so does `import mod`, now unused)


def test_a_test_double_of_the_configured_value_goes_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the flag's definition gone, `mock.patch("mod.FAST", False)` would fail to patch it:
    it goes, and the test stays (it exercised the configured value)."""
    root = make_tree(
        tmp_path / "r",
        {"mod.py": MODULE, "test_mod.py": PINNED.replace("True", "False").replace("== 1", "== 2")},
    )
    report = tmp_path / "r.json"
    result = invoke_in(
        monkeypatch, root, "apply", "--flag", "FAST=False", "--report", str(report), "."
    )
    assert result.exit_code == 0, result.output
    assert (
        root / "test_mod.py"
    ).read_text() == "import mod\n\n\ndef test_fast():\n    assert mod.run() == 2\n"
    assert changes_of(report, "test_mod.py")[-1] == (6, "removed-write")


def test_a_write_after_a_tests_own_imports_still_sets_the_flag_for_the_whole_test(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = "FAST = False\n\n\ndef run():\n    return 'fast' if FAST else 'slow'\n"
    test = (
        "def test_fast(monkeypatch):\n"
        '    """The fast path."""\n'
        "    import mod\n"
        "    from mod import run\n\n"
        '    monkeypatch.setattr(mod, "FAST", True)\n'
        "    assert run() == 'fast'\n\n\n"
        "def test_slow_then_fast(monkeypatch):\n"
        "    import mod\n\n"
        "    assert mod.run() == 'slow'\n"
        '    monkeypatch.setattr(mod, "FAST", True)\n'
    )
    root = make_tree(tmp_path / "r", {"mod.py": module, "test_mod.py": test})
    result = invoke_in(monkeypatch, root, "apply", "--flag", "FAST=False", ".")
    assert result.exit_code == 0, result.output
    assert (root / "test_mod.py").read_text() == (
        "def test_slow_then_fast(monkeypatch):\n"
        "    import mod\n\n"
        "    assert mod.run() == 'slow'\n"
    )
