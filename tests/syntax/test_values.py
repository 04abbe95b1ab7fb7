"""Values a flag can be fixed at: type-strict equality, and literals read from source."""

from __future__ import annotations

import ast

import pytest

from prune_flags.syntax.values import literal_value, same_value


@pytest.mark.parametrize(
    ("left", "right", "same"),
    [
        ([1, "a"], [1, "a"], True),
        ([1], [True], False),  # == would say so
        ([1], (1,), False),
        ({"a": 1, "b": 2}, {"a": 1, "b": 2}, True),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}, False),  # the reads iterate in another order
        ({"a": 1}, {"a": True}, False),
        ({1, 2}, {2, 1}, True),
        ({1}, {True}, False),
        (frozenset({1}), {1}, False),
        (frozenset(), frozenset(), True),
    ],
)
def test_same_value_asks_the_same_type_of_every_item(left: object, right: object, same: bool):
    assert same_value(left, right) is same


@pytest.mark.parametrize(
    ("source", "value"),
    [
        ("set()", set()),
        ("frozenset()", frozenset()),
        ("frozenset({'a', 'b'})", frozenset({"a", "b"})),
        ("frozenset([1, 1])", frozenset({1})),
        ("(frozenset((1,)), [2], {3: set()})", (frozenset({1}), [2], {3: set()})),
        ("{'k': (1, -2.5)}", {"k": (1, -2.5)}),
    ],
)
def test_literal_value_reads_set_and_frozenset_calls(source: str, value: object) -> None:
    assert literal_value(ast.parse(source, mode="eval").body) == value


@pytest.mark.parametrize(
    "source", ["frozenset(x)", "frozenset(1)", "set([], [])", "frozenset(a=1)", "{**d}", "{[1]}"]
)
def test_literal_value_refuses_what_is_no_literal(source: str) -> None:
    with pytest.raises(ValueError):
        literal_value(ast.parse(source, mode="eval").body)
