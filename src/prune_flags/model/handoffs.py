"""Calls of a flag's function that its name does not show, because the function was handed on
as a value: `get_environment(Environment, *options)` with `def get_environment(cls, *args):
return cls(*args)` fills Environment's parameters by position from inside get_environment."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from prune_flags.semantic.calls import scan_calls
from prune_flags.semantic.facts import Site, Write
from prune_flags.semantic.trees import calls_in
from prune_flags.syntax.expressions import last_name

if TYPE_CHECKING:
    from prune_flags.semantic.repository import Repository


@dataclass(frozen=True)
class HandOff:
    """A call handing the flag's function on to a function of the repository that calls it with
    positional arguments that reach the flag's place."""

    site: Site
    receiver: str  # the function it is handed to, by its last name
    # The receiver passes its `*args` straight on (`cls(*args)`, its only call of it): the place
    # of the handing call's arguments that lands on the flag's parameter. None when not so.
    place: int | None


def handed_on(repository: Repository, parameter: Write, names: frozenset[str]) -> list[HandOff]:
    """Calls that hand one of `names` (the flag's function, or what is bound to it) to a function
    of the repository that calls the parameter receiving it far enough to fill the flag's place,
    itself or with the `*args` its own caller passed: the argument is not seen at a call of the
    flag's function. A function outside the repository is not followed."""
    position = parameter.position
    assert position is not None
    found = []
    # (the answer for one receiver and way of calling it, asked once however many calls hand on)
    calling: dict[tuple[str, int, int, int | None], tuple[int, int | None]] = {}
    for path in repository.mentioning(names):
        facts = repository.tree_facts(path, repository.text(path))
        for receiver, call, _ in facts.calls if facts is not None else ():
            for index, argument in enumerate(call.args):
                if isinstance(argument, ast.Starred):
                    break
                if not receiver or last_name(argument) not in names:
                    continue
                implied = int(isinstance(call.func, ast.Attribute))
                passed = None if _starred(call) else len(call.args)
                key = (receiver, index, implied, passed)
                if key not in calling:
                    calling[key] = _calling(repository, *key, position)
                reach, place = calling[key]
                if reach > position:
                    found.append(
                        HandOff(Site(repository.display(path), call.lineno), receiver, place)
                    )
    return found


def _starred(call: ast.Call) -> bool:
    return any(isinstance(argument, ast.Starred) for argument in call.args)


_UNSEEN = 1 << 20  # a starred call reaches any place


def _calling(
    repository: Repository,
    function: str,
    index: int,
    through_attribute: int,
    passed: int | None,
    position: int,
) -> tuple[int, int | None]:
    """How far the functions of the repository named `function` call their parameter at `index`
    of a call (through an attribute or not, with `passed` positional arguments, None when
    starred): the most positional arguments they pass it (-1 when none calls it), and the place
    of the call's own arguments that lands on `position` when one function passes its `*args` on
    in one call."""
    reach, places = -1, list[int | None]()
    for tree in repository.trees_naming(function):
        for node in tree.definitions.get(function, ()):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            positional = [*node.args.posonlyargs, *node.args.args]
            implied = int(
                bool(through_attribute)
                and bool(positional)
                and positional[0].arg in ("self", "cls")
            )
            if index + implied >= len(positional):
                places.append(None)
                continue
            callee = positional[index + implied].arg
            inner = scan_calls(calls_in(node), "", frozenset([callee]))
            for call in inner:
                spilled = 0
                if call.forwarder is not None:
                    spilled = _UNSEEN if passed is None else passed + implied
                reach = max(reach, call.positional + max(0, spilled - call.forwarder_takes))
            forwarding = inner[0] if len(inner) == 1 else None
            places.append(
                forwarding.forwarder_takes - implied + position - forwarding.positional
                if forwarding is not None
                and forwarding.forwarder == function
                and position >= forwarding.positional
                else None
            )
    return reach, places[0] if len(places) == 1 else None
