"""What writes of the environment set, and what a definition computed from a variable gives."""

from __future__ import annotations

import ast

import pytest

from prune_flags.syntax.environment import computed_value, environment_entry, environment_writes
from prune_flags.syntax.values import UNKNOWN


def _node(source: str) -> ast.AST:
    statement = ast.parse(source).body[0]
    return statement.value if isinstance(statement, ast.Expr) else statement


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('os.environ["X"] = "1"', [("X", "'1'", True)]),
        ('del os.environ["X"]', [("X", "None", True)]),
        ('monkeypatch.setenv("X", "0")', [("X", "'0'", True)]),
        ('monkeypatch.delenv("X", raising=False)', [("X", "None", True)]),
        ('os.environ.setdefault("X", "1")', [("X", "'1'", True)]),
        ('mock.patch.dict(os.environ, {"X": "1"})', [("X", "'1'", True)]),
        ('mock.patch.dict("os.environ", X="1")', [("X", "'1'", True)]),
        ('mock.patch.dict(os.environ, values={"X": "1"})', [("X", "'1'", True)]),
        (
            'mock.patch.dict(os.environ, {"X": "1", "Y": "2"})',
            [("X", "'1'", False), ("Y", "'2'", False)],
        ),
        ('mock.patch.dict(os.environ, {"X": "1"}, clear=True)', [("X", "'1'", False)]),
        ('mock.patch.dict(os.environ, {**base, "X": "1"})', [("X", "'1'", False)]),
        ('mock.patch.dict(settings, {"X": "1"})', []),
        ('config["X"] = "1"', []),
        ('monkeypatch.setattr(os, "X", "1")', []),
    ],
)
def test_what_a_write_of_the_environment_sets(source: str, expected: list) -> None:
    found = [
        (written.variable, ast.unparse(written.value), written.alone)
        for written in environment_writes(_node(source))
    ]
    assert found == expected


def test_the_entry_of_a_patch_dict_setting_others_is_its_key() -> None:
    node = _node('mock.patch.dict(os.environ, {"Y": "2", "X": "1"})')
    entry = environment_entry(node, "X")
    assert isinstance(entry, ast.Constant) and (entry.lineno, entry.col_offset) == (1, 39)
    assert environment_entry(_node('monkeypatch.setenv("X", "1")'), "X") is None


@pytest.mark.parametrize(
    ("definition", "values"),
    [
        ('os.environ.get("X", "0") == "1"', [True, False, False, False]),
        ('bool(int(os.getenv("X", "1")))', [True, False, UNKNOWN, True]),
        ('"X" in os.environ', [True, True, True, False]),
        ('"X" not in os.environ', [False, False, False, True]),
        ('os.environ.get("X", "").lower() in ("1", "true")', [True, False, True, False]),
        ('os.environ["X"] == "1"', [True, False, False, UNKNOWN]),
        ('os.environ.get("X") or "fallback"', ["1", "0", "true", "fallback"]),
        ('os.environ.get("Y") == "1"', [UNKNOWN] * 4),
        ('strtobool(os.environ.get("X", "0"))', [UNKNOWN] * 4),
        ('os.environ.get("X", compute()) == "1"', [True, False, False, UNKNOWN]),
        ('os.environ.get("X") is "1"', [UNKNOWN, UNKNOWN, UNKNOWN, False]),
        ('os.environ.get("X") is not None', [True, True, True, False]),
        ('bool(int(os.getenv("X", "0"))) == 1', [True, False, UNKNOWN, False]),
    ],
)
def test_a_definition_computed_from_the_environment_at_each_setting(
    definition: str, values: list
) -> None:
    expression = ast.parse(definition, mode="eval").body
    found = [computed_value(expression, "X", setting) for setting in ("1", "0", "true", None)]
    assert found == values
