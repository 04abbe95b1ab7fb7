"""A class's ancestry as the repository defines it: one lazy walk up the chain of bases, each
step's class statements and what is not plain about them; and the subclasses of classes."""

# A class's ancestry as the repository defines it: one walk up the chain of bases, which each
# question about a class's ancestors reads its own way.
#
# For a class's name, the walk gives a step for it and for every class its statements derive from
# (by the bases' last names, `Base` of `models.Base`, as the repository's classes are matched;
# `object` is no step, and each name is one step, so a cycle ends): every class statement of that
# name the repository's files hold, and what is not plain about them (`flaws`): defined nowhere or
# more than once, a file that may define it but does not parse, a decorator or a metaclass (either
# may hand the class anything), a base spelt other than by a plain name (`models.Base`,
# `Generic[T]`), or by no name at all (`Generic[T]`, `make_base()`: the walk cannot follow it).
#
# The questions, each tolerating its own flaws:
# - `helpers.method_reach`: every step is one plain class (no flaw at all), or a call's receiver
#   class is not sure;
# - `derived`: every step of a derived flag's classes is the repository's own, undecorated, with no
#   keyword and every base followed (a framework's base may set or read its attributes);
# - `scoping.droppable_hooks`: an ancestor may define a hook when the repository does not define it,
#   gives it a keyword or a base it cannot name plainly, or binds the hook in its body.
#
# The walk is lazy, depth-first, a base's statements looked up only when it is reached: a question
# answered early asks nothing more (each lookup parses the files that name the class).

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import (
    TYPE_CHECKING,
)

from prune_flags.syntax.expressions import ast_dotted

if TYPE_CHECKING:
    from prune_flags.semantic.repository import Repository


# What may not be plain about a step of the chain.
UNDEFINED = "undefined"  # no file that parses defines a class of the name


SEVERAL = "several"  # more than one class statement of the name


UNREADABLE = "unreadable"  # a file naming the class does not parse: it may define one


DECORATED = "decorated"


KEYWORDS = "keywords"  # a metaclass or another class keyword


DOTTED_BASE = "dotted-base"  # a base that is not a plain name: `models.Base`, `Generic[T]`


UNNAMED_BASE = "unnamed-base"  # a base spelt by no name, not even a dotted one: `Generic[T]`


# The class statements of a name, each with None for a file that names it but does not parse.
Statements = Callable[[str], Sequence[ast.ClassDef | None]]


def base_name(base: ast.expr) -> str:
    """A base's last name (`Base` of `models.Base`), "" when no name spells it (`Generic[T]`)."""
    return ast_dotted(base).rsplit(".", 1)[-1]


def flaws(statements: Sequence[ast.ClassDef | None]) -> frozenset[str]:
    """What is not plain about the class statements of one name (see the module's docstring)."""
    definitions = [node for node in statements if node is not None]
    bases = [base for node in definitions for base in node.bases]
    found = {
        UNDEFINED: not definitions,
        SEVERAL: len(definitions) > 1,
        UNREADABLE: len(definitions) < len(statements),
        DECORATED: any(node.decorator_list for node in definitions),
        KEYWORDS: any(node.keywords for node in definitions),
        DOTTED_BASE: not all(isinstance(base, ast.Name) for base in bases),
        UNNAMED_BASE: not all(base_name(base) for base in bases),
    }
    return frozenset(flaw for flaw, present in found.items() if present)


@dataclass(frozen=True)
class Step:
    """One class of a chain: its name and every class statement of that name (None for a file
    that names it but does not parse)."""

    name: str
    statements: tuple[ast.ClassDef | None, ...]

    @property
    def definitions(self) -> list[ast.ClassDef]:
        return [node for node in self.statements if node is not None]

    @property
    def flaws(self) -> frozenset[str]:
        return flaws(self.statements)


def ancestry(names: Iterable[str], statements: Statements) -> Iterator[Step]:
    """The steps of the classes named and of every class their statements derive from, depth
    first (the last base first), each name once; `object` and bases no name spells are no step."""
    seen: set[str] = set()
    stack = list(names)
    while stack:
        name = stack.pop()
        if name in ("object", "") or name in seen:
            continue
        seen.add(name)
        step = Step(name, tuple(statements(name)))
        yield step
        stack += [base_name(base) for node in step.definitions for base in node.bases]


def class_statements(repository: Repository, name: str) -> list[ast.ClassDef | None]:
    """The class statements of a name (at any depth) in the repository's files as they now read;
    None for a file that names it but does not parse."""
    found: list[ast.ClassDef | None] = []
    for path in repository.mentioning(frozenset([name])):
        tree = repository.tree_facts(path, repository.text(path))
        found += [None] if tree is None else tree.classes.get(name, [])
    return found


def class_bases(repository: Repository, names: frozenset[str]) -> dict[str, set[str]]:
    """The bases' last names of each class named (every class statement of that name in the
    files in scope), and of their bases in turn, as far as the repository defines them."""
    steps = ancestry(sorted(names), partial(class_statements, repository))
    return {
        step.name: {base_name(base) for node in step.definitions for base in node.bases}
        for step in steps
    }


def with_subclasses(repository: Repository, names: frozenset[str]) -> frozenset[str]:
    """Classes' names and those of the classes the repository derives from them, at any depth
    (by the bases' last names)."""
    found, frontier = set(names), set(names)
    while frontier:
        derived = set()
        for path in repository.mentioning(frozenset(frontier)):
            tree = repository.tree_facts(path, repository.text(path))
            for name, nodes in tree.classes.items() if tree is not None else ():
                if name not in found and any(
                    base_name(base) in frontier for node in nodes for base in node.bases
                ):
                    derived.add(name)
        found |= derived
        frontier = derived
    return frozenset(found)
