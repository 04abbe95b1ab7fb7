"""What a rewrite knows of each function's locals: the reads that can reach them, by scope."""

import ast
import textwrap

import pytest

from prune_flags.semantic.locals import function_locals


def locals_of(source: str):
    return function_locals(ast.parse(textwrap.dedent(source)))


def test_functions_are_named_by_their_dotted_path() -> None:
    found = locals_of("""
        def run():
            def step():
                pass
        class Node:
            def forward(self):
                pass
        """)
    assert sorted(found) == ["Node.forward", "run", "run.step"]


def test_a_function_counts_the_reads_of_the_scopes_nested_in_it() -> None:
    found = locals_of("""
        def outer():
            total = 1
            def inner():
                return total
            return inner
        def other(total):
            return total
        """)
    assert found["outer"].loads["total"] == 1
    assert found["outer"].bound == {"total", "inner"}
    assert found["other"].bound == set()  # a parameter is no local a store of could go


def test_names_declared_global_or_nonlocal_are_not_the_function_s_locals() -> None:
    found = locals_of("""
        def outer():
            count = 0
            def bump():
                nonlocal count
                count = 5
            return count
        def reset():
            global CACHE
            CACHE = {}
        """)
    assert found["outer.bump"].bound == set()
    assert found["reset"].bound == set()
    assert found["outer"].bound == {"count", "bump"}


def test_a_nested_class_body_binds_class_attributes_not_locals() -> None:
    found = locals_of("""
        def make():
            class Box:
                size = 3
            if True:
                width = 2
            return Box
        """)
    assert found["make"].bound == {"Box", "width"}


def test_two_functions_of_one_name_count_together() -> None:
    found = locals_of("""
        if FAST:
            def pick():
                value = 1
                return value
        else:
            def pick():
                value = 2
                return 0
        """)
    assert found["pick"].loads["value"] == 1
    assert found["pick"].bound == {"value"}


@pytest.mark.parametrize(
    ("call", "introspects"),
    [
        ("locals()", True),
        ("vars()", True),
        ("eval('x')", True),
        ("exec('x = 1')", True),
        ("vars(obj)", False),
        ("model.eval()", False),
    ],
)
def test_a_function_reading_its_locals_by_name_is_known(call: str, introspects: bool) -> None:
    found = locals_of(f"def run(obj, model):\n    x = 1\n    return {call}\n")
    assert found["run"].introspects is introspects


def test_a_name_read_by_name_in_a_nested_function_marks_the_enclosing_one() -> None:
    found = locals_of("def outer():\n    x = 1\n    def inner():\n        return eval('x')\n")
    assert found["outer"].introspects and found["outer.inner"].introspects


def test_a_module_taking_a_frame_keeps_every_function_s_locals() -> None:
    found = locals_of(
        "import sys\n\ndef caller_locals():\n    return sys._getframe(1).f_locals\n\n"
        "def run():\n    x = 1\n    return 2\n"
    )
    assert found["run"].introspects
