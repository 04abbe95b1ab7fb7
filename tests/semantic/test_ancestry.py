"""A class's ancestry as the repository defines it (ancestry.py): the steps up a chain of bases,
and what is not plain about each."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from textwrap import dedent

from prune_flags.semantic.classes import (
    DECORATED,
    DOTTED_BASE,
    KEYWORDS,
    SEVERAL,
    UNDEFINED,
    UNNAMED_BASE,
    UNREADABLE,
    Step,
    ancestry,
    class_statements,
)
from prune_flags.semantic.repository import Repository


def lookup(
    source: str, asked: list[str] | None = None
) -> Callable[[str], list[ast.ClassDef | None]]:
    """The class statements of each name in a repository of one module, `source`; `asked` gets
    each name looked up."""
    classes = [
        node for node in ast.walk(ast.parse(dedent(source))) if isinstance(node, ast.ClassDef)
    ]

    def statements(name: str) -> list[ast.ClassDef | None]:
        if asked is not None:
            asked.append(name)
        return [node for node in classes if node.name == name]

    return statements


def steps(source: str, *names: str) -> list[Step]:
    return list(ancestry(names, lookup(source)))


def flaws_by_name(found: list[Step]) -> dict[str, frozenset[str]]:
    return {step.name: step.flaws for step in found}


def test_a_plain_chain_is_every_class_up_to_object_without_a_flaw() -> None:
    found = steps(
        """\
        class Base:
            pass


        class Middle(Base, object):
            pass


        class Leaf(Middle):
            pass
        """,
        "Leaf",
    )
    assert flaws_by_name(found) == {"Leaf": frozenset(), "Middle": frozenset(), "Base": frozenset()}
    assert [node.name for step in found for node in step.definitions] == ["Leaf", "Middle", "Base"]


def test_a_decorated_base_is_followed_and_marked() -> None:
    found = steps(
        """\
        @dataclass
        class Base:
            pass


        class Leaf(Base):
            pass
        """,
        "Leaf",
    )
    assert flaws_by_name(found) == {"Leaf": frozenset(), "Base": frozenset({DECORATED})}


def test_a_metaclass_is_a_keyword() -> None:
    found = steps(
        """\
        class Meta(type):
            pass


        class Base(metaclass=Meta):
            pass


        class Leaf(Base):
            pass
        """,
        "Leaf",
    )
    # The metaclass is no base: `Meta` is no step, nor is `type`, which the repository does not
    # define.
    assert flaws_by_name(found) == {"Leaf": frozenset(), "Base": frozenset({KEYWORDS})}


def test_a_base_from_outside_the_repository_is_undefined() -> None:
    found = steps(
        """\
        from torch import nn


        class Plain(Base):
            pass


        class Module(nn.Module):
            pass
        """,
        "Plain",
        "Module",
    )
    # `nn.Module` is followed by its last name, which here is the class itself.
    assert flaws_by_name(found) == {
        "Module": frozenset({DOTTED_BASE}),
        "Plain": frozenset(),
        "Base": frozenset({UNDEFINED}),
    }


def test_a_base_no_name_spells_is_no_step() -> None:
    found = steps("class Box(Generic[T], make_base()):\n    pass\n", "Box")
    assert flaws_by_name(found) == {"Box": frozenset({DOTTED_BASE, UNNAMED_BASE})}


def test_a_doubly_defined_class_is_one_step_whose_every_statement_is_followed() -> None:
    found = steps(
        """\
        class Left:
            pass


        class Right:
            pass


        if FAST:
            class Engine(Left):
                pass
        else:
            class Engine(Right):
                pass
        """,
        "Engine",
    )
    assert flaws_by_name(found) == {
        "Engine": frozenset({SEVERAL}),
        "Right": frozenset(),
        "Left": frozenset(),
    }
    assert len(found[0].definitions) == 2


def test_a_cycle_ends() -> None:
    found = steps("class A(B):\n    pass\n\n\nclass B(A):\n    pass\n", "A")
    assert [step.name for step in found] == ["A", "B"]


def test_a_question_answered_early_looks_up_nothing_more() -> None:
    source = "class Base(Root):\n    pass\n\n\n@register\nclass Leaf(Base):\n    pass\n"
    asked: list[str] = []
    walk = ancestry(["Leaf"], lookup(source, asked))
    assert any(step.flaws for step in walk)
    assert asked == ["Leaf"]  # Base and Root were never looked for


def test_the_repository_statements_of_a_name_mark_a_file_that_does_not_parse(
    tmp_path: Path,
) -> None:
    files = {
        "pkg/engine.py": "class Engine(Base):\n    pass\n",
        "pkg/base.py": "class Base:\n    pass\n\n\nclass Engine:\n    class Base:\n        pass\n",
        "pkg/broken.py": "class Base(:\n",
        "pkg/other.py": "class Unrelated:\n    pass\n",
    }
    repository = Repository(
        tmp_path, raw={tmp_path / path: text.encode() for path, text in files.items()}
    )
    found = list(ancestry(["Engine"], lambda name: class_statements(repository, name)))
    assert flaws_by_name(found) == {
        "Engine": frozenset({SEVERAL}),
        "Base": frozenset({SEVERAL, UNREADABLE}),
    }
    assert None in found[1].statements and len(found[1].definitions) == 2  # nested classes count
    assert repository.skipped_displays() == {"pkg/broken.py"}
