"""Expression rewrites never change what the code means.

Each case runs the engine over one module and checks the exact result, that it compiles, and
that it behaves as the original does: both run in this process with the flags at their
values, every probe call is evaluated on several inputs, and what it prints, returns and
raises must be the same.

* Precedence: a replacement carries the parentheses its new position needs (under `not`, in a
  comparison, in arithmetic, as a receiver, under a unary operator, as the left of `**`), and
  an inherited pair on an atom goes only where no keyword would run into it (`if(x):`).
* Multi-line: a parenthesised condition that loses an operand keeps its parentheses.
* Builtins over constants fold (`callable(None)`, `isinstance`, `len`, `type(...) is`), or
  stay whole where the result is not certain.
* Receivers: a flag read that an attribute, call or subscript acts on is never replaced by
  the constant (`False.value`, `None(d)`), nor is any constant put there by a simplification.
* f-strings: a string constant takes the quote the f-string leaves free; `{FLAG=}` prints its
  text, so it stays.
"""

from __future__ import annotations

import io
import tempfile
from collections.abc import Sequence
from contextlib import redirect_stdout
from pathlib import Path

import libcst as cst
import pytest

from prune_flags.config import Config, Flag
from prune_flags.engine.driver import run
from prune_flags.rewrite.constants import constant_node, constant_value
from prune_flags.rewrite.context import RewriteContext
from prune_flags.rewrite.file import rewrite
from prune_flags.syntax.values import UNKNOWN, same_value
from tests.support import dedent


def prune(source: str, **flags: object) -> str:
    """The engine's rewrite of `mod.py` holding `source`, with each flag at its value."""
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        (root / ".git").mkdir()
        (root / "mod.py").write_text(source)
        fixed = tuple(Flag(name, value, repr(value)) for name, value in flags.items())
        report = run(Config(flags=fixed, format="none", root=root), [root], root)
        assert not report.skipped, [(skipped.display, skipped.error) for skipped in report.skipped]
        assert not report.conflicts, report.conflicts
        return next((result.new_text for result in report.changed_files), source)


def behaviour(source: str, calls: Sequence[str]) -> list[tuple[str, str, str]]:
    """What each call prints and returns or raises, in a fresh namespace for the module."""
    namespace: dict[str, object] = {"__name__": "differential"}
    with redirect_stdout(io.StringIO()):
        exec(compile(source, "mod.py", "exec"), namespace)
    seen = []
    for call in calls:
        printed = io.StringIO()
        with redirect_stdout(printed):
            try:
                outcome = repr(eval(call, namespace))
            except Exception as error:  # what it raises is part of its behaviour
                outcome = f"raise {type(error).__name__}"
        seen.append((call, printed.getvalue(), outcome))
    return seen


def pruned_alike(source: str, calls: Sequence[str], **flags: object) -> str:
    """The pruned module, once it is known to compile and to behave as `source` does."""
    before = dedent(source)
    after = prune(before, **flags)
    compile(after, "after.py", "exec")
    assert behaviour(after, calls) == behaviour(before, calls)
    return after


def over(function: str, inputs: Sequence[object] = (0, 1, 2, 3)) -> list[str]:
    return [f"{function}({value!r})" for value in inputs]


SIDE_EFFECT = """
    def f():
        print("f")
        return True
"""


# -- precedence --------------------------------------------------------------------------------
def test_a_negated_chain_and_a_multiline_chain_are_rewritten_right() -> None:
    source = """
        FAST = False
        def f(): print("f"); return True
        def g(x):
            if not (FAST or x > 1 and not f()): print("a")
            if (f() and
                    not x and
                    not FAST):
                print("b")
        class C:
            namer = None
            def run(self, d):
                if not callable(self.namer): r = d
                else: r = self.namer(d)
                return r
    """
    after = pruned_alike(source, [*over("g"), "C().run(4)"], FAST=False, namer=None)
    assert after == dedent("""
        def f(): print("f"); return True
        def g(x):
            if not (x > 1 and not f()): print("a")
            if (f() and
                    not x):
                print("b")
        class C:
            def run(self, d):
                r = d
                return r
    """)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("not (FAST or x > 1 and f())", "not (x > 1 and f())"),  # under `not`
        ("(FAST or x > 0) == (x < 2)", "(x > 0) == (x < 2)"),  # a comparison in a comparison
        ("(FAST or x - 1) * 2", "(x - 1) * 2"),  # arithmetic
        ("-(FAST or x + 1)", "-(x + 1)"),  # a unary operator
        (
            "[(FAST or x), (FAST or -x) ** 2]",
            "[x, (-x) ** 2]",
        ),  # the left of `**`; an atom needs none
        ("(FAST or x - 1).bit_length()", "(x - 1).bit_length()"),  # a receiver
    ],
)
def test_a_simplified_expression_keeps_the_parentheses_its_place_needs(
    expression: str, expected: str
) -> None:
    source = SIDE_EFFECT + f"""
    FAST = False
    def g(x):
        return {expression}
    """
    after = pruned_alike(source, over("g"), FAST=False)
    assert f"    return {expected}\n" in after


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("LEVEL ** x", "(-1) ** x"),  # `-1 ** x` is `-(1 ** x)`
        ("-LEVEL ** x", "-(-1) ** x"),
    ],
)
def test_an_inlined_negative_constant_is_parenthesised_where_it_must_be(
    expression: str, expected: str
) -> None:
    source = f"""
        LEVEL = -1
        def g(x):
            return {expression}, x ** LEVEL, x - LEVEL
    """
    after = pruned_alike(source, over("g", (1, 2, 3)), LEVEL=-1)
    assert f"    return {expected}, x ** -1, x - -1\n" in after  # only there


def test_an_environment_default_keeps_its_precedence_under_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("FAST_ENV", raising=False)
    source = """
        import os
        def g(x):
            return not os.environ.get("FAST_ENV", x > 1 or x), os.environ.get("FAST_ENV", x - 1) * 2
    """
    after = pruned_alike(source, over("g"), FAST_ENV=None)
    assert "    return not (x > 1 or x), (x - 1) * 2\n" in after


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        ("if not(FAST or x): return 1", "if not(x): return 1"),
        ("if(FAST or x): return 1", "if(x): return 1"),
        ("return 1 if(FAST or x)else 2", "return 1 if(x)else 2"),
        ("return(FAST or x)", "return(x)"),
        ("return(FAST or x), 1", "return(x), 1"),
        ("return x in(FAST or range(2))", "return x in(range(2))"),
    ],
)
def test_a_replacement_never_runs_into_a_keyword(statement: str, expected: str) -> None:
    """`not(FAST or x)` loses the `or` but not the parentheses: `notx` would not parse."""
    source = f"""
        FAST = False
        def g(x):
            {statement}
            return 0
    """
    after = pruned_alike(source, over("g"), FAST=False)
    assert f"    {expected}\n" in after


# -- multi-line conditions --------------------------------------------------------------------
def test_a_multi_line_condition_that_loses_an_operand_keeps_its_parentheses() -> None:
    source = SIDE_EFFECT + """
    FAST = False
    def g(x):
        if (f() and
                not x and
                not FAST):
            return 1
        return 0
    """
    after = pruned_alike(source, over("g"), FAST=False)
    assert "    if (f() and\n            not x):\n        return 1\n" in after


def test_a_multi_line_call_kept_for_its_effect_keeps_its_parentheses() -> None:
    """`if (f() and\\n x and\\n FAST):` with FAST false: the branch goes, `f() and x` stays as a
    statement, still in its parentheses; on one line it needs none."""
    source = SIDE_EFFECT + """
    FAST = False
    def g(x):
        if (f() and
                x and
                FAST):
            return 1
        if (f() and x and FAST):
            return 2
        return 0
    """
    after = pruned_alike(source, over("g"), FAST=False)
    assert after.endswith("def g(x):\n    (f() and\n            x)\n    f() and x\n    return 0\n")


# -- builtins over constants ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("condition", "value", "kept"),
    [
        ("callable(FLAG)", None, False),
        ("not callable(FLAG)", None, True),
        ("isinstance(FLAG, int)", False, True),  # a bool is an int
        ("isinstance(FLAG, (list, str))", "on", True),
        ("isinstance(FLAG, float)", 3, False),
        ("len(FLAG) == 2", "on", True),
        ("len(FLAG) > 0", (), False),
        ("type(FLAG) is bool", False, True),
        ("type(FLAG) is not int", True, True),
        ("type(FLAG) == str", None, False),
    ],
)
def test_a_pure_builtin_over_a_constant_folds(condition: str, value: object, kept: bool) -> None:
    source = f"""
        FLAG = {value!r}
        def g(x):
            if {condition}:
                return x + 1
            return x - 1
    """
    after = pruned_alike(source, over("g"), FLAG=value)
    assert after == dedent(f"""
        def g(x):
            return x {"+" if kept else "-"} 1
    """)


def test_a_builtin_whose_result_is_not_certain_stays_whole() -> None:
    """`float("nan")` has no literal, `int("x")` and `len(None)` raise, `Number` is not a
    builtin."""
    source = """
        from numbers import Number
        TEXT = "nan"
        NOTHING = None
        def g(x):
            if float(TEXT) > x: return 1
            if isinstance(NOTHING, Number): return 2
            if x == 3 and int(TEXT) == 3: return 3
            if x == 2 and len(NOTHING) == 0: return 4
            return 0
    """
    after = pruned_alike(source, over("g"), TEXT="nan", NOTHING=None)
    assert after == dedent("""
        from numbers import Number
        def g(x):
            if float("nan") > x: return 1
            if isinstance(None, Number): return 2
            if x == 3 and int("nan") == 3: return 3
            if x == 2 and len(None) == 0: return 4
            return 0
    """)


def test_a_method_whose_receiver_is_a_fixed_field_folds_with_its_callable_test() -> None:
    """`callable(self.namer)` with `namer = None` is False: the `else` and its call go whole,
    and the field with them; the call never becomes `None(d)`."""
    source = """
        class C:
            namer = None

            def run(self, d):
                if not callable(self.namer):
                    result = d
                else:
                    result = self.namer(d)
                return result
    """
    after = pruned_alike(source, ["C().run(1)", "C().run('x')"], namer=None)
    assert after == dedent("""
        class C:
            def run(self, d):
                result = d
                return result
    """)


# -- receivers --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "read", ["USE_NEW.value", "USE_NEW()", "USE_NEW[0]", "USE_NEW.value.real", "self.use_new.value"]
)
def test_a_flag_that_an_attribute_call_or_subscript_acts_on_stays(read: str) -> None:
    """The name holds an object there (a flag object, a definition out of reach): the passes
    never write `False.value`; what becomes of such a flag is the engine's to say, so the passes
    run here without it."""
    source = dedent(f"""
        class Switch:
            value = False
            def __call__(self): return self.value
            def __getitem__(self, index): return self.value
        USE_NEW = Switch()
        class C:
            use_new = Switch()
            def g(self, x):
                return {read}, x
    """)
    flags = {name: Flag(name, False, "False") for name in ("USE_NEW", "use_new")}
    after = rewrite(source, RewriteContext(path="mod.py", flags=flags), False).text
    assert after == source
    assert behaviour(after, ["C().g(1)"]) == behaviour(source, ["C().g(1)"])


def test_a_simplification_puts_a_constant_where_an_attribute_acts_on_it_only_if_it_has_it() -> None:
    # In parentheses, never `1 is None` (a SyntaxWarning) or `1.real` (which does not parse).
    source = """
        FAST = False
        LEVEL = 1
        def g(x):
            return (FAST and x).real, (x if FAST else None).__class__, ("a" if FAST else "b").upper()
        def h(x):
            return (LEVEL is None).bit_length(), (LEVEL + 0).real, (FAST or None).value
    """  # noqa: E501 (the program's first return)
    after = pruned_alike(source, over("g") + over("h"), FAST=False, LEVEL=1)
    assert '    return (False).real, (None).__class__, "B"\n' in after
    assert "    return (False).bit_length(), (1 + 0).real, (False or None).value\n" in after


def test_a_bool_valued_expression_folds_even_where_a_member_it_lacks_acts_on_it() -> None:
    """`(LEVEL is not None)[0]` raises TypeError whatever LEVEL is: folding it to `(True)[0]`
    fails alike, where leaving it would leave `2 is not None`, a SyntaxWarning of its own."""
    source = """
        LEVEL = 2
        def g(x):
            if x > 5:
                return (LEVEL is not None)[0], (not LEVEL)(x), ("a" in (LEVEL,)).value
            return x
    """
    after = pruned_alike(source, over("g") + ["g(6)"], LEVEL=2)
    assert "        return (True)[0], (False)(x), (False).value\n" in after


def test_a_lookup_that_an_attribute_acts_on_stays_unless_it_is_an_environment_string(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("MODE_ENV", raising=False)
    source = """
        import os
        from types import SimpleNamespace
        SETTINGS = SimpleNamespace(use_new=SimpleNamespace(value=False))
        def g(x):
            mode = os.environ.get("MODE_ENV", "Off").lower()
            return getattr(SETTINGS, "use_new").value, mode, os.environ.get("MODE_ENV")
    """
    after = pruned_alike(source, over("g"), use_new=False, MODE_ENV=None)
    # (the local carries the environment string's result)
    assert '    return getattr(SETTINGS, "use_new").value, "off", None\n' in after


# -- f-strings --------------------------------------------------------------------------------
def test_a_string_constant_in_an_f_string_takes_the_free_quote() -> None:
    source = '''
        MODE = "on"
        def g(x):
            return f"{MODE}-{x}", f'{MODE!r:>6}', f"""{MODE}"""
    '''
    after = pruned_alike(source, over("g"), MODE="on")
    assert """    return f"{'on'}-{x}", f'{"on"!r:>6}', f\"\"\"{'on'}\"\"\"\n""" in after


def test_an_f_string_that_prints_its_expression_or_cannot_hold_the_constant_keeps_the_read() -> (
    None
):
    source = """
        FAST = False
        MODE = "a\\nb"
        def g(x):
            return f"{FAST=}", f"{MODE}", FAST
    """
    after = pruned_alike(source, over("g"), FAST=False, MODE="a\nb")
    assert '    return f"{FAST=}", f"{MODE}", False\n' in after


@pytest.mark.parametrize(
    ("value", "code"),
    [
        (["a", 1], '["a", 1]'),
        ({"a": (1,)}, '{"a": (1,)}'),
        ({"b", "a"}, '{"a", "b"}'),  # sorted: the same text whatever the string hashes are
        (set(), "set()"),
        (frozenset({2, 1}), "frozenset({1, 2})"),
        ({9, 1}, "{9, 1}"),  # (1 follows 9 where they collide: the order it iterates in)
        (frozenset(), "frozenset()"),
        ([], "[]"),
    ],
)
def test_container_constants_are_written_as_literals_that_read_back(value: object, code: str):
    node = constant_node(value)

    assert cst.Module([]).code_for_node(node) == code
    assert same_value(constant_value(cst.parse_expression(code)), value)


@pytest.mark.parametrize("code", ["[x]", "{**d}", "[*a]", "frozenset(x)", "set(a=1)", "{[]: 1}"])
def test_containers_of_unknowns_have_no_constant_value(code: str) -> None:
    assert constant_value(cst.parse_expression(code)) is UNKNOWN
