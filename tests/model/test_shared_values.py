"""A flag fixed at a list, dict or set: pruned when every read uses the value up where it is,
refused (naming the read) when one hands the shared object on."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import dedent, invoke_in, make_tree

USED_UP = [
    "if 'a' in CHECKS: print(1)",
    "print('b' not in CHECKS and 1)",
    "print(CHECKS == ['a'], CHECKS != [], CHECKS < ['b'])",
    "print(0 < len(CHECKS))",
    "for check in CHECKS: print(check)",
    "print([c for c in CHECKS if c], sorted(CHECKS), ', '.join(CHECKS))",
    "print(*CHECKS, [*CHECKS])",
    "print(f'{CHECKS}')",
    "print(1 if CHECKS else 2, not CHECKS)",
    "assert CHECKS or 'x' in CHECKS",
    "print(list(zip(CHECKS, CHECKS)), isinstance(CHECKS, list))",
    "print(CHECKS[0], CHECKS[-1])",
]
HANDED_ON = [
    "copy = CHECKS",
    "print(CHECKS)",
    "print(CHECKS or ['b'])",
    "print(CHECKS is CHECKS)",
    "print(CHECKS in [['a']])",
    "def f(checks=CHECKS): return checks",
    "print(sorted(CHECKS, key=len))",
    "print(lambda: CHECKS)",
    "assert 'a' in CHECKS, CHECKS",
    "CHECKS[0] = 'b'",
    "del CHECKS[0]",
]


def _diff(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reader: str):
    tree = make_tree(tmp_path / "repo", {"m.py": dedent(f"CHECKS = ['a']\n{reader}\n")})
    return invoke_in(monkeypatch, tree, "diff", "--no-color", "--flag", "CHECKS=['a']", ".")


@pytest.mark.parametrize("reader", USED_UP)
def test_reads_that_use_the_value_up_become_the_literal(
    reader: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _diff(tmp_path, monkeypatch, reader)

    assert result.exit_code == 1, result.output
    assert "-CHECKS = ['a']" in result.stdout


@pytest.mark.parametrize("reader", HANDED_ON)
def test_a_read_handing_the_value_on_refuses_the_flag(
    reader: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _diff(tmp_path, monkeypatch, reader)

    assert result.exit_code == 123
    assert result.stdout == ""
    assert (
        "CHECKS: not pruned: its value is a list, one object all its reads share, and m.py:2"
        " hands it on, where it may be changed" in result.stderr
    )
    assert (
        "become the literal (if nothing changes it, make it a tuple or frozenset, in the code and"
        " in the config)" in result.stderr
    )
