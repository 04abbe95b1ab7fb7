"""The rewrite parses only the statements that name what it acts on (window.py).

A window must never change the result: every golden fixture gives the same diff and the same
report with windows as when each file is parsed whole
(tests/pipeline/test_fixture_properties.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import prune_flags.rewrite.file
from prune_flags.rewrite.view import SEAM, View, view_of
from tests.support import checkout, fixture_path, invoke_in, run_report

MODULE = """\
import os

FAST = os.environ.get("FAST")


# About A.
class A:
    def f(self):
        return self.use_x

    # footer of A

# About g.
@decorate
def g():
    return 1


def h():
    return 2
"""


def lines_with(text: str, word: str) -> frozenset[int]:
    return frozenset(number for number, line in enumerate(text.split("\n"), 1) if word in line)


def test_a_definition_holding_a_line_only_in_its_body_is_parsed_alone() -> None:
    """It stays whatever becomes of its body: no rule about the statements around it applies."""
    view = view_of(MODULE, ast.parse(MODULE), lines_with(MODULE, "use_x"))
    assert view.text == "class A:\n    def f(self):\n        return self.use_x\n"
    assert view.gaps == (
        MODULE[: MODULE.index("class A")],
        MODULE[MODULE.index("\n    # footer") :],
    )
    assert view.file_line(1) == 7 and view.file_line(3) == 9
    assert view.splice(view.text) == MODULE


def test_a_statement_that_may_go_is_parsed_with_its_neighbours() -> None:
    view = view_of(MODULE, ast.parse(MODULE), lines_with(MODULE, "FAST"))
    assert view.text == MODULE[: MODULE.index("\n    # footer")]
    assert view.gaps == ("", MODULE[MODULE.index("\n    # footer") :])


# The flag is in f0's and f9's signatures: a definition's header holding a line may go (its name
# may be dead).
FUNCTIONS = "".join(
    f"def f{i}({'use_x=None' if i in (0, 9) else ''}):\n    return {i}\n\n\n" for i in range(10)
)


def test_runs_apart_are_parsed_as_one_module_joined_at_a_seam() -> None:
    view = view_of(FUNCTIONS, ast.parse(FUNCTIONS), lines_with(FUNCTIONS, "use_x"))
    first = (
        FUNCTIONS.split("\n\n\ndef f2")[0] + "\n"
    )  # up to the end of f1; the blank lines below stay out
    second = (
        "def f8" + FUNCTIONS.split("def f8")[1]
    )  # the last statement's run goes to the end of the file
    assert view.text == first + SEAM + second
    assert view.runs == ((1, 1, 6), (8, 33, 8))
    assert view.file_line(2) == 2 and view.file_line(9) == 34
    assert view.view_lines(frozenset({2, 20, 38})) == frozenset({2, 13})
    assert view.splice(view.text.replace("use_x", "False")) == FUNCTIONS.replace("use_x", "False")


def test_a_rewrite_that_removes_a_seam_is_not_spliced() -> None:
    view = view_of(FUNCTIONS, ast.parse(FUNCTIONS), lines_with(FUNCTIONS, "use_x"))
    assert view.splice(view.text.replace(SEAM, "")) is None


def methods(count: int, prefix: str = "m") -> str:
    """Filler methods of a class body, three lines each with the blank line above them."""
    return "".join(
        f"\n    def {prefix}{i}(self, x):\n        return x + {i}\n" for i in range(count)
    )


BIG_CLASS = f"""\
import os


@decorate(1)
class Big(
    Base,
):
    \"\"\"Doc.\"\"\"
{methods(10, "a")}
    def before(self):
        return 0

    def reader(self{{}}):
        return self.use_x

    def after(self):
        return 2
{methods(10, "z")}

def tail():
    return 3
"""


def test_a_big_class_is_parsed_as_its_header_and_the_methods_around_a_line() -> None:
    text = BIG_CLASS.format("")
    view = view_of(text, ast.parse(text), lines_with(text, "use_x"))
    header = text[text.index("@decorate") : text.index('    """Doc')]
    reader = text[text.index("    def reader") : text.index("\n    def after")]
    assert view.text == header + SEAM + reader
    assert "def a0" not in view.gaps[0] and "def a0" in view.gaps[1] and "def z0" in view.gaps[2]
    assert view.splice(view.text.replace("use_x", "False")) == text.replace("use_x", "False")


def test_a_method_that_may_go_is_parsed_with_its_neighbours_in_the_class() -> None:
    text = BIG_CLASS.format(", use_x=None")  # its signature names the flag: the method may go
    view = view_of(text, ast.parse(text), lines_with(text, "use_x"))
    header = text[text.index("@decorate") : text.index('    """Doc')]
    around = text[text.index("    def before") : text.index("\n    def z0")]
    assert view.text == header + SEAM + around
    assert "def a9" not in view.text and "def z0" not in view.text and "def tail" not in view.text
    assert view.splice(view.text) == text


@pytest.mark.parametrize(
    "text, word",
    [
        (MODULE.replace("\n", "\r\n"), "use_x"),  # a line break LibCST would infer otherwise
        (MODULE, "no such word"),
        (
            "def f(use_x=1):\n    return use_x\n\n\ndef g():\n    pass\n",
            "use_x",
        ),  # every statement is needed
        (FUNCTIONS + SEAM, "use_x"),  # the seam's own text
        (BIG_CLASS.format("").replace("\n", "\r\n"), "use_x"),
    ],
)
def test_whole_file_noop(text: str, word: str) -> None:
    assert view_of(text, ast.parse(text), lines_with(text, word)) == View(text)


def test_the_seed_parses_only_the_definitions_naming_its_fields(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The comparison above is not vacuous: the seed's rewrites go through views. Each class
    holds the fields only in its methods' bodies and is parsed alone. The file where
    `output_grads` is only a parameter (the field of that name died) is not parsed at all."""
    views: list[tuple[str, ...]] = []

    def recording_view_of(text: str, tree: ast.Module, lines: frozenset[int]) -> View:
        view = view_of(text, tree, lines)
        views.append(tuple(line for line in view.text.split("\n") if line[:1].isalpha()))
        return view

    monkeypatch.setattr(prune_flags.rewrite.file, "view_of", recording_view_of)
    run_report(
        "seed_schedule_node",
        checkout(fixture_path("seed_schedule_node"), tmp_path / "seed"),
        monkeypatch,
    )
    assert set(views) == {
        ("class ScheduleNode:",),
        ("class TransformerLayerNode(ScheduleNode):",),
    }


def prune_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, flag: str
) -> tuple[str, str, list[View]]:
    """The diff of one module, with views and with the whole file parsed, and the views."""
    outputs, views = [], []

    def recording_view_of(text: str, tree: ast.Module, lines: frozenset[int]) -> View:
        views.append(view_of(text, tree, lines))
        return views[-1]

    for name, view in (
        ("windowed", recording_view_of),
        ("whole", lambda text, tree, lines: View(text)),
    ):
        monkeypatch.setattr(prune_flags.rewrite.file, "view_of", view)
        work = tmp_path / name
        work.mkdir()
        (work / "m.py").write_bytes(text.encode())
        result = invoke_in(
            monkeypatch, work, "diff", "--no-color", "--no-format", "--flag", flag, "."
        )
        assert result.exit_code in (0, 1), result.output
        outputs.append(result.stdout)
    return outputs[0], outputs[1], views


FILLER = "".join(f"\n\ndef f{i}(x):\n    return x + {i}\n" for i in range(6))
FILL = methods(20)  # enough lines for a class to be cut
RUN = (
    "\n    def run(self):\n        if not STRICT:\n            return self._legacy()\n"
    "        return 2\n"
)  # legacy goes


def test_an_exit_folding_exposes_in_a_function_keeps_the_view(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A view holds a function whole, so what follows an exit inside it is in the view: the
    rewrite is not done again on the whole file (as it is for an exit at module level, above)."""
    parsed: list[bool] = []
    rewrite_view = prune_flags.rewrite.file._rewrite_view

    def recording(view: View, context):  # type: ignore[no-untyped-def]
        parsed.append(view.partial)
        return rewrite_view(view, context)

    monkeypatch.setattr(prune_flags.rewrite.file, "_rewrite_view", recording)
    text = FILLER + "\n\ndef g():\n    if STRICT:\n        return 1\n    return 2\n" + FILLER
    windowed, whole, _ = prune_both_ways(
        tmp_path, monkeypatch, "STRICT = True\n" + text, "STRICT=true"
    )
    assert windowed == whole and "-    return 2\n" in windowed
    # The windowed run parses as often as the whole-file run, and only ever its views.
    half = len(parsed) // 2
    assert parsed == [True] * half + [False] * half


@pytest.mark.parametrize(
    "text, inside, outside",
    [
        # folding exposes an exit at module level: everything after it goes, far past the view
        (
            "import sys\n"
            + FILLER
            + "\nif STRICT:\n    raise SystemExit('no')\n"
            + FILLER
            + "\nprint('ready')\n",
            "",
            "",
        ),
        # the seam's own text in the file: parsed whole, and no endless retry
        (FILLER + "\n" + SEAM + "\ndef g():\n    return 1 if STRICT else 2\n" + FILLER, "", ""),
        # a decorator whose `@(` line the statement's lines do not start with
        (
            FILLER
            + "\n\n@(\n    staticmethod\n)\ndef g():\n    return 1 if STRICT else 2\n"
            + FILLER,
            "",
            "",
        ),
        # functions edited inside, parsed without their neighbours: a last statement that goes
        # above the comments closing the body, a body that goes whole
        (
            FILLER + "\n\ndef g(x):\n    y = x\n\n    # about the branch\n    if not STRICT:\n"
            "        y = 2\n"
            "    # footer of g\n"
            + FILLER
            + "\n# about h\ndef h():\n    if not STRICT:\n        setup()\n"
            + FILLER,
            "def g",
            "def f3",
        ),
        # a method that goes, first in its class body
        (
            "\n\nclass A:\n    def _legacy(self):\n        return 1\n" + FILL + RUN + FILLER,
            "class A",
            "def m5",
        ),
        # a method that goes, last in its class body, and a comment below it
        (
            "\n\nclass A:"
            + FILL
            + RUN
            + "\n    # about _legacy\n    def _legacy(self):\n        return 1\n"
            "    # after legacy\n"
            "\n# about f0" + FILLER,
            "class A",
            "def m5",
        ),
        # every method of a class goes
        (
            "\n\nclass Legacy:\n    def _a(self):\n        return 1\n\n    def _b(self):\n"
            "        return 2\n"
            "\n\nclass A:" + FILL + "\n    def run(self, legacy):\n        if not STRICT:\n"
            "            return legacy._a() + legacy._b()\n        return 2\n"
            + FILL.replace("def m", "def n"),
            "class A",
            "def m5",
        ),
        # a field of a big class that nothing reads any more, written in __init__
        (
            "\n\nclass A:\n    def __init__(self):\n        self.legacy_mode = False\n"
            "        self.other = 1\n"
            + FILL
            + "\n    def run(self):\n        if not STRICT and self.legacy_mode:\n"
            "            return 1\n        return 2\n",
            "class A",
            "def m5",
        ),
        # a class-level field documented by the string below it
        (
            "\n\nclass A:"
            + FILL
            + '\n    legacy_limit = 10\n    """How many legacy items."""\n    other = 1\n'
            + FILL.replace("def m", "def n")
            + "\n    def run(self):\n        if not STRICT:\n"
            "            return self.legacy_limit\n        return 0\n",
            "class A",
            "def m5",
        ),
        # decorated methods around the one that goes, comments between methods
        (
            "\n\nclass A:"
            + FILL
            + "\n    @property\n    def shown(self):\n        return 1\n\n    # about _legacy\n"
            "    def _legacy(self):\n        return 2\n    # detached\n\n    # about helper\n"
            "    @staticmethod\n"
            "    def helper():\n        return 3\n" + FILL.replace("def m", "def n") + RUN,
            "class A",
            "def m5",
        ),
        # a nested class that goes, and a nested class whose method goes
        (
            "\n\nclass A:" + FILL + "\n    class _Legacy:\n        pass\n\n    class Inner:\n"
            "        def _legacy(self):\n            return 1\n"
            + RUN.replace("\n    ", "\n        ")
            + FILL.replace("def m", "def n")
            + "\n    def run(self):\n        if not STRICT:\n"
            "            return self._Legacy()\n        return 2\n",
            "class A",
            "def m5",
        ),
        # a class whose body starts with its docstring, followed by the method that goes
        (
            '\n\nclass A:\n    """Doc."""\n\n    def _legacy(self):\n        return 1\n'
            + FILL
            + RUN,
            "class A",
            "def m5",
        ),
        # bodies on the header's line; a statement that may go right below a class cut
        (
            "\n\nclass A: x = 1 if STRICT else 2\n\n\nclass B: y = STRICT; z = 2\n\n\nclass C:"
            + FILL
            + RUN
            + FILL.replace("def m", "def n")
            + "\n\n# about setup\nif not STRICT:\n    setup()\n"
            + FILLER,
            "class C",
            "def n5",
        ),
        # a file with `\r\n` line breaks: parsed whole
        (
            (
                "\n\nclass A:\n    def _legacy(self):\n        return 1\n" + FILL + RUN + FILLER
            ).replace("\n", "\r\n"),
            "",
            "",
        ),
    ],
    ids=[
        "exit-at-module-level",
        "seam-in-file",
        "decorator-on-its-own-line",
        "definitions-edited-inside",
        "method-first-in-class",
        "method-last-in-class",
        "every-method-goes",
        "field-in-init",
        "documented-class-field",
        "decorated-neighbours-and-comments",
        "nested-classes",
        "class-docstring",
        "one-line-bodies",
        "crlf",
    ],
)
def test_hard_views_give_what_the_whole_file_gives(
    text: str, inside: str, outside: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    windowed, whole, views = prune_both_ways(
        tmp_path, monkeypatch, "STRICT = True\n" + text, "STRICT=true"
    )
    assert windowed == whole and windowed.startswith("diff --git")
    if inside:  # not vacuous: a view holds the class and leaves some of its methods out
        assert any(inside in view.text and outside not in view.text for view in views)
