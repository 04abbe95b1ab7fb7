"""Property tests: pruning never changes what a program does, leaves unrelated code byte-identical,
and is idempotent.

* `programs()` generates flag-shaped modules of our own: a module constant and a class field
  (set in `__init__` or as a class attribute) read through `fast`, `self.fast`, `NODE.fast` and
  `Node.fast` in `if`/`elif`/`else`, ternaries, `while`/`else`, `for` with `break`/`continue`,
  `assert`, `try`/`except`/`finally`, `with`, comprehensions and lambdas, `and`/`or`/`not` with
  calls that print or log, comparisons, nested functions (some with a parameter that shares the
  flag's name), comments and early returns. Each example runs twice in a subprocess
  with a timeout: the original (the flag at its configured value) and the pruned module; what they
  print, log, return and raise must be the same.
* `hypothesmith` generates arbitrary valid syntax; with a flag name that does not occur as a
  name (mentioned only in a comment, so the text pre-filter lets the file through to LibCST),
  the output is byte-identical.
* Pruning the pruned output again changes nothing, over several files at once.

Deterministic: every property runs with `derandomize=True` and a fixed number of examples
(225 generated programs and 80 hypothesmith modules in all). A failing property reports its
example unshrunk; the shrunk reproductions of what they found are the regression tests at the end.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

import hypothesmith
import pytest
from hypothesis import HealthCheck, Phase, assume, given, note, settings
from hypothesis import strategies as st

from prune_flags.config import Config, Flag
from prune_flags.engine.driver import run

NAME = "fast"
VALUES = (True, False, None, 0, 1, 2, "", "on")
TIMEOUT = 10

PROPERTY = settings(
    derandomize=True,
    deadline=None,
    # A failing run reports its example unshrunk (shrinking these takes minutes); the shrunk
    # reproductions of what the properties found are the regression tests at the end.
    phases=(Phase.explicit, Phase.generate),
    database=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)


# -- running the engine ------------------------------------------------------------------------
@dataclass
class Pruned:
    texts: dict[str, str]  # every file, changed or not
    changed: set[str]
    skipped: dict[str, str]
    conflicts: list[str]


def prune(files: dict[str, str], value: object, name: str = NAME) -> Pruned:
    """Run the engine over `files` (name -> text) in a fresh directory; nothing is written."""
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        (root / ".git").mkdir()
        for file, text in files.items():
            (root / file).write_bytes(text.encode("utf-8"))
        config = Config(flags=(Flag(name, value, repr(value)),), format="none", root=root)
        report = run(config, [root], root)
        texts = dict(files)
        changed = set()
        for result in report.changed_files:
            file = result.path.relative_to(root).as_posix()
            texts[file] = result.new_text
            changed.add(file)
        skipped = {s.display: s.error for s in report.skipped}
        return Pruned(texts, changed, skipped, list(report.conflicts))


def execute(text: str, directory: Path, stem: str) -> tuple[int, str, str]:
    """Run a module in a fresh interpreter: (return code, stdout, last line of stderr)."""
    program = directory / f"{stem}.py"
    program.write_text(text)
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-W", "ignore::SyntaxWarning", str(program)],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            cwd=directory,
        )
    except subprocess.TimeoutExpired:
        return -1, "timeout", ""
    # A traceback names lines, which pruning moves; the exception line itself must match.
    errors = done.stderr.strip().splitlines()
    return done.returncode, done.stdout, errors[-1] if errors else ""


# -- the program generator ---------------------------------------------------------------------
HEADER = """\
import logging
import sys

logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(levelname)s %(message)s")
log = logging.getLogger("generated")


def probe(tag, value):
    log.info("probe %s -> %r", tag, value)
    return value


def say(tag, *values):
    print(tag, *values)
    return len(values)


class Ctx:
    def __init__(self, tag):
        self.tag = tag

    def __enter__(self):
        print("enter", self.tag)
        return self

    def __exit__(self, kind, value, trace):
        print("exit", self.tag, kind.__name__ if kind else None)
        return False
"""

FOOTER = """

def _main():
    for fn in FUNCTIONS:
        for x in (0, 1, 2, 3):
            try:
                print("return", fn.__name__, x, repr(fn(x)))
            except Exception as error:  # what it raises is part of its behaviour
                print("raise", fn.__name__, x, type(error).__name__, error)


_main()
"""


class Tags:
    """Distinct tags so that every print, log and raise says where it came from."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, prefix: str = "t") -> str:
        self.count += 1
        return f"{prefix}{self.count}"


@dataclass(frozen=True)
class Scope:
    method: bool  # `self` is there
    class_attribute: bool  # `Node.fast` exists
    shadowed: bool  # a parameter named like the flag hides the module constant
    loop: str  # "", "for" or "while": what `break`/`continue` may do
    depth: int


def literal(value: object) -> str:
    return repr(value)


@st.composite
def conditions(draw, scope: Scope, value: object, tags: Tags, depth: int = 0) -> str:
    reads = ["NODE.fast"]
    if not scope.shadowed:
        reads.append("fast")
    if scope.method:
        reads.append("self.fast")
    if scope.class_attribute:
        reads.append("Node.fast")
    flag = draw(st.sampled_from(reads))
    other = draw(st.sampled_from(VALUES))
    atoms = [
        flag,
        flag,
        f"probe({tags()!r}, {flag})",
        f"probe({tags()!r}, x > 1)",
        "x > 1",
        "x == 0",
        f"{flag} == {literal(other)}",
        f"{flag} != {literal(other)}",
        f"{flag} is None",
        f"{flag} is not {literal(other) if isinstance(other, bool) else 'None'}",
        f"bool({flag})",
        f"{flag} in ({literal(other)}, None)",
        f"say({tags()!r}, {flag})",
    ]
    if isinstance(value, (bool, int)):  # an ordering that cannot raise
        atoms.append(f"{flag} < 1")
    if scope.shadowed:
        atoms.append("fast")  # the parameter, which is not the flag
    if depth >= 2:
        return draw(st.sampled_from(atoms))
    kind = draw(st.sampled_from(["atom", "atom", "not", "and", "or", "ternary"]))
    if kind == "atom":
        return draw(st.sampled_from(atoms))
    sub = lambda: draw(conditions(scope, value, tags, depth + 1))  # noqa: E731
    if kind == "not":
        return f"not {sub()}"
    if kind == "ternary":
        return f"({sub()} if {sub()} else {sub()})"
    return f"({sub()} {kind} {sub()})"


@st.composite
def blocks(draw, scope: Scope, value: object, tags: Tags, indent: int) -> list[str]:
    count = draw(st.integers(1, 3 if scope.depth == 0 else 2))
    lines: list[str] = []
    for _ in range(count):
        lines += draw(statements(scope, value, tags, indent))
    return lines


@st.composite
def statements(draw, scope: Scope, value: object, tags: Tags, indent: int) -> list[str]:
    pad = "    " * indent
    cond = lambda: draw(conditions(scope, value, tags))  # noqa: E731
    nested = scope.depth < 2
    kinds = [
        "print",
        "print",
        "assign",
        "ternary",
        "log",
        "return",
        "comment",
        "assert",
        "comprehension",
        "lambda",
    ]
    if nested:
        kinds += ["if", "if", "if", "while", "for", "def", "try", "with"]
    if scope.loop:
        kinds += ["break"]
    if scope.loop == "for":
        kinds += ["continue"]
    kinds += ["raise"]
    kind = draw(st.sampled_from(kinds))
    deeper = Scope(scope.method, scope.class_attribute, scope.shadowed, scope.loop, scope.depth + 1)
    comment = f"  # {tags('c')} about fast" if draw(st.booleans()) else ""
    if kind == "print":
        return [f"{pad}say({tags()!r}, {cond()}, y){comment}"]
    if kind == "assign":
        return [f"{pad}y = {cond()}{comment}"]
    if kind == "ternary":
        return [
            f"{pad}y = ({draw(st.sampled_from(['x', 'y', repr(tags())]))} if {cond()} else "
            f"{cond()}){comment}"
        ]
    if kind == "log":
        return [f"{pad}log.info({tags()!r} + ' %r', {cond()}){comment}"]
    if kind == "return":
        return [
            f"{pad}return {draw(st.sampled_from(['y', 'x', repr(tags())]))} if {cond()} "
            f"else y{comment}"
        ]
    if kind == "comment":
        return [f"{pad}# {tags('c')}: fast is read below", f"{pad}say({tags()!r}, x)"]
    if kind == "assert":
        return [f"{pad}assert {cond()}, {tags('a')!r}{comment}"]
    if kind == "raise":
        return [
            f"{pad}if x == {draw(st.integers(0, 3))}:",
            f"{pad}    raise ValueError({tags('e')!r})",
        ]
    if kind == "comprehension":
        return [f"{pad}y = [v for v in range(3) if {cond()}]{comment}"]
    if kind == "lambda":
        return [f"{pad}y = (lambda: {cond()})(){comment}"]
    if kind == "try":
        lines = [f"{pad}try:", *draw(blocks(deeper, value, tags, indent + 1))]
        lines += [
            f"{pad}except (ValueError, AssertionError) as error:",
            f"{pad}    say({tags()!r}, repr(error))",
        ]
        if draw(st.booleans()):
            lines += [f"{pad}    if {cond()}:", f"{pad}        raise"]
        if draw(st.booleans()):
            lines += [f"{pad}finally:", f"{pad}    say({tags()!r}, {cond()})"]
        return lines
    if kind == "with":
        return [
            f"{pad}with Ctx({tags()!r}):{comment}",
            *draw(blocks(deeper, value, tags, indent + 1)),
        ]
    if kind == "break":
        return [f"{pad}break{comment}"]
    if kind == "continue":
        return [f"{pad}continue{comment}"]
    if kind == "if":
        lines = [f"{pad}if {cond()}:{comment}", *draw(blocks(deeper, value, tags, indent + 1))]
        for _ in range(draw(st.integers(0, 1))):
            if draw(st.booleans()):
                lines.append(f"{pad}    # {tags('c')}: the next branch")
            lines += [f"{pad}elif {cond()}:", *draw(blocks(deeper, value, tags, indent + 1))]
        if draw(st.booleans()):
            lines += [f"{pad}else:  # {tags('c')}", *draw(blocks(deeper, value, tags, indent + 1))]
        return lines
    if kind == "while":
        loop = Scope(scope.method, scope.class_attribute, scope.shadowed, "while", scope.depth + 1)
        lines = [
            f"{pad}while {cond()}:{comment}",
            *draw(blocks(loop, value, tags, indent + 1)),
            f"{pad}    break",
        ]
        if draw(st.booleans()):
            lines += [f"{pad}else:", *draw(blocks(deeper, value, tags, indent + 1))]
        return lines
    if kind == "for":
        loop = Scope(scope.method, scope.class_attribute, scope.shadowed, "for", scope.depth + 1)
        return [f"{pad}for _i in range(2):{comment}", *draw(blocks(loop, value, tags, indent + 1))]
    assert kind == "def"
    shadow = draw(st.booleans())
    inner = Scope(
        scope.method, scope.class_attribute, shadow or scope.shadowed, "", scope.depth + 1
    )
    name = tags("inner")
    parameter = "fast" if shadow else "z"
    return [
        f"{pad}def {name}({parameter}, y=y):",
        f"{pad}    say({tags()!r}, {parameter})",
        *draw(blocks(inner, value, tags, indent + 1)),
        f"{pad}    return y",
        f"{pad}say({tags()!r}, {name}(x))",
    ]


@st.composite
def programs(draw) -> tuple[str, object]:
    """(module source, the flag's value) for one generated program."""
    value = draw(st.sampled_from(VALUES))
    tags = Tags()
    class_attribute = draw(st.booleans())
    lines = [HEADER, "", f"fast = {literal(value)}  # the flag", "", ""]
    lines += ["class Node:"]
    if class_attribute:
        lines += [f"    fast = {literal(value)}", ""]
    lines += ["    def __init__(self):"]
    if not class_attribute:
        lines += [f"        # {tags('c')}: the field", f"        self.fast = {literal(value)}"]
    lines += ["        self.calls = 0", ""]
    functions = []
    for index in range(draw(st.integers(0, 1)) + 1):
        scope = Scope(True, class_attribute, False, "", 0)
        lines += [f"    def method{index}(self, x):", "        y = 0", "        self.calls += 1"]
        lines += draw(blocks(scope, value, tags, 2))
        lines += ["        return (y, self.calls)", ""]
        functions.append(f"NODE.method{index}")
    lines += ["", "NODE = Node()", ""]
    for index in range(draw(st.integers(1, 2))):
        scope = Scope(False, class_attribute, False, "", 0)
        lines += ["", f"def function{index}(x):", "    y = 0"]
        lines += draw(blocks(scope, value, tags, 1))
        lines += ["    return y", ""]
        functions.append(f"function{index}")
    lines += [f"FUNCTIONS = [{', '.join(functions)}]", FOOTER]
    return "\n".join(lines), value


# -- the properties ----------------------------------------------------------------------------
def test_the_generator_makes_programs_that_compile_cleanly() -> None:
    """The generator itself: its programs compile without a warning (so a warning after pruning is
    ours)."""

    @settings(PROPERTY, max_examples=25)
    @given(programs())
    def check(example: tuple[str, object]) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            compile(example[0], "generated.py", "exec")

    check()


@settings(PROPERTY, max_examples=60)
@given(programs())
def test_pruned_program_behaves_like_the_original(example: tuple[str, object]) -> None:
    """Same printed output, logging, return values and exceptions, in a fresh interpreter each."""
    source, value = example
    note(source)
    pruned = prune({"program.py": source}, value)
    new = pruned.texts["program.py"]
    note(f"--- pruned with {NAME}={value!r}, skipped: {pruned.skipped} ---\n{new}")
    assert pruned.conflicts == []
    # A skipped file is left as it was: the next property holds that against the engine.
    assume("program.py" in pruned.changed)
    with tempfile.TemporaryDirectory() as directory:
        before = execute(source, Path(directory), "original")
        assert before[0] != -1, "the generated program itself ran into the timeout"
        after = execute(new, Path(directory), "pruned")
    assert after == before


@settings(PROPERTY, max_examples=60)
@given(programs())
def test_pruning_is_clean_and_idempotent(example: tuple[str, object]) -> None:
    """Every generated program reads the flag in plain shapes: it is pruned, not skipped; the
    result compiles without a warning the original did not have; a second run changes nothing."""
    source, value = example
    note(source)
    pruned = prune({"program.py": source}, value)
    new = pruned.texts["program.py"]
    note(f"--- pruned with {NAME}={value!r} ---\n{new}")
    assert pruned.skipped == {}
    assert pruned.conflicts == []
    assert "program.py" in pruned.changed
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compile(new, "pruned.py", "exec")
    again = prune({"program.py": new}, value)
    assert again.skipped == {}
    assert again.changed == set(), again.texts["program.py"]


@settings(PROPERTY, max_examples=25)
@given(programs(), st.integers(0, 3))
def test_pruning_twice_changes_nothing(example: tuple[str, object], split: int) -> None:
    """Idempotence with the class in one module and its users in another (the cascade crosses
    files)."""
    source, value = example
    files = {"program.py": source, "user.py": _user_module(split)}
    once = prune(files, value)
    assume(not once.skipped)  # internal errors are the property above's business
    assert once.conflicts == []
    twice = prune(once.texts, value)
    assert twice.skipped == {}
    assert twice.changed == set(), {f: twice.texts[f] for f in twice.changed}


def _user_module(variant: int) -> str:
    """Another module reading the field through an instance, with a write-only helper field."""
    reads = [
        "    if node.fast:\n        node.helper = 1\n    return node.calls\n",
        "    return 1 if node.fast else 2\n",
        "    assert not node.fast or node.calls >= 0\n    return node.calls\n",
        "    while node.fast:\n        break\n    return None\n",
    ]
    return f"from program import Node\n\n\ndef use(node: Node):\n{reads[variant]}"


def _hypothesmith_sources():
    return st.one_of(hypothesmith.from_grammar(), hypothesmith.from_node())


UNUSED = "zz_flag_never_used"


@settings(PROPERTY, max_examples=60)
@given(_hypothesmith_sources(), st.sampled_from([False, True, None, 0, "x"]))
def test_unrelated_code_is_byte_identical(source: str, value: object) -> None:
    assume(UNUSED not in source)
    # The name in a trailing comment passes the text pre-filter, so LibCST parses the file and
    # every pass visits it; it reads no flag, so not one byte may change.
    text = source + ("" if source.endswith(("\n", "\r")) or not source else "\n") + f"# {UNUSED}\n"
    try:
        compile(text, "generated.py", "exec")
    except (SyntaxError, ValueError):
        assume(False)
    pruned = prune({"generated.py": text}, value, name=UNUSED)
    assert pruned.changed == set(), pruned.texts["generated.py"]
    assert pruned.conflicts == []
    # A file LibCST cannot give back byte for byte is skipped, with that reason; nothing else is.
    for error in pruned.skipped.values():
        assert "LibCST" in error or "does not parse" in error, error


@settings(PROPERTY, max_examples=20)
@given(_hypothesmith_sources())
def test_unrelated_code_without_any_mention_is_never_read(source: str) -> None:
    assume(UNUSED not in source)
    pruned = prune({"generated.py": source}, False, name=UNUSED)
    assert pruned.changed == set() and pruned.skipped == {} and pruned.conflicts == []


# -- regressions the generator found, shrunk -------------------------------------------------
@pytest.mark.parametrize("value", [2, 0, "on", ""])
@pytest.mark.parametrize(
    "test", ["fast is None", "fast is not None", "fast is True", "self.fast is not False"]
)
def test_identity_with_a_singleton_folds_instead_of_leaving_a_literal_is(
    value: object, test: str
) -> None:
    """Found by the clean-compile property: `fast is None` with fast=2 became `2 is None`, which
    Python compiles with "SyntaxWarning: "is" with a literal". An int or str is never
    None/True/False.
    """
    source = (
        f"fast = {value!r}\n\n\nclass Node:\n    def __init__(self):\n"
        f"        self.fast = {value!r}\n\n"
        f"    def check(self):\n        return {test}\n"
    )
    new = prune({"program.py": source}, value).texts["program.py"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compile(new, "pruned.py", "exec")
    namespace: dict[str, object] = {}
    exec(compile(source, "original.py", "exec"), namespace)
    expected = namespace["Node"]().check()  # type: ignore[operator]
    namespace = {}
    exec(compile(new, "pruned.py", "exec"), namespace)
    assert namespace["Node"]().check() == expected  # type: ignore[operator]


@pytest.mark.parametrize("test", ["not node.fast", "node.fast < 1", "node.fast == 0"])
def test_an_assert_on_a_field_flag_that_always_fails_stays(test: str) -> None:
    """Found by the clean-compile property: with the field fixed at True, an assert whose test
    inlines to False was planned for removal as "only checking a dead field", and the prune pass
    crashed (IndexError), so the whole file was skipped as an internal error."""
    source = (
        "class Node:\n    def __init__(self):\n        self.fast = True\n\n\n"
        f"def check(node):\n    assert {test}, 'always fails'\n"
    )
    pruned = prune({"program.py": source}, True)
    assert pruned.skipped == {}
    new = pruned.texts["program.py"]
    assert "self.fast" not in new
    namespace: dict[str, object] = {}
    exec(compile(new, "pruned.py", "exec"), namespace)
    with pytest.raises(AssertionError, match="always fails"):
        namespace["check"](namespace["Node"]())  # type: ignore[operator]


# -- shapes the mutation check (mutmut over passes/fold.py and the cascade) found untested ------
def changes_of(
    files: dict[str, str], value: object
) -> tuple[dict[str, str], list[tuple[int, str, str, str]]]:
    """(new texts, every change as (line, flag, action, reason)) for one run over `files`."""
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        (root / ".git").mkdir()
        for file, text in files.items():
            (root / file).write_text(text)
        report = run(
            Config(flags=(Flag(NAME, value, repr(value)),), format="none", root=root), [root], root
        )
        assert report.skipped == [] and report.conflicts == []
        texts = dict(files)
        changes = []
        for result in report.changed_files:
            texts[result.path.name] = result.new_text
            changes += [(c.line, c.flag, c.action, c.reason) for c in result.changes]
        return texts, changes


FOLD_SHAPES = """\
fast = False


def probe(v):
    print(v)
    return v


def run(x):
    if (probe(1)) and fast:
        x += 1
    else:
        x += 2
    if x > 1:
        x += 3
    elif x > 0:
        x += 4
    # about the fast branch
    elif fast :
        x += 5
    # the rest
    elif not fast :
        x += 6
    if x > 5:
        x += 7
    elif probe(x) and (fast or x > 3):
        x += 8
    while probe(x) or fast:
        x -= 1
        break
    while fast:
        x -= 2
    else:
        x -= 3
    if x > 1:
        if fast:
            x += 9
    return x
"""
FOLD_SHAPES_PRUNED = """\
def probe(v):
    print(v)
    return v


def run(x):
    probe(1)
    x += 2
    if x > 1:
        x += 3
    elif x > 0:
        x += 4
    # the rest
    else :
        x += 6
    if x > 5:
        x += 7
    elif probe(x) and x > 3:
        x += 8
    while probe(x):
        x -= 1
        break
    x -= 3
    return x
"""
FALSE = "the condition is always false once fast is inlined"


def test_fold_shapes_come_out_exactly_with_their_reasons() -> None:
    """A call kept from `f() and FLAG` loses its parentheses; an `elif` chain under a head without
    the flag folds link by link (comments above a removed link go, above a kept one stay, the
    colon's spacing stays); a `while` whose test keeps a call stays a loop; an `if` emptied by the
    fold goes.
    """
    texts, changes = changes_of({"shapes.py": FOLD_SHAPES}, False)
    assert texts["shapes.py"] == FOLD_SHAPES_PRUNED
    assert {change[1] for change in changes} == {"fast"}
    assert sorted(change[2:] for change in changes if change[2] != "inlined") == sorted(
        [
            ("folded-branch", "the condition is always true once fast is inlined"),
            ("folded-branch-kept-call", FALSE + "; its call stays for its side effects"),
            ("removed-branch", FALSE),
            ("removed-branch", FALSE),
            ("removed-branch", FALSE),
            ("removed-empty-if", "its body had nothing left"),
            ("removed-loop", "the loop never runs once fast is inlined"),
            (
                "removed-write",
                "fast has no reader left: the flag is fixed at False and every read of "
                "it was inlined",
            ),
        ]
    )


def test_a_live_branch_with_nothing_in_it_keeps_the_comment_above_it() -> None:
    source = (
        "fast = True\n\n\ndef run(x):\n    # kept above the folded if\n    if fast:\n        pass\n"
        '    assert fast, "holds"\n    assert x or fast\n    return x\n'
    )
    texts, changes = changes_of({"live.py": source}, True)
    assert texts["live.py"].startswith("def run(x):\n    # kept above the folded if\n")
    assert texts["live.py"].endswith("    return x\n") and "assert" not in texts["live.py"]
    assert [change for change in changes if change[2] == "removed-assert"] == [
        (8, "fast", "removed-assert", "the assertion always holds"),
        (9, "fast", "removed-assert", "the assertion always holds"),
    ]


TRUE_SHAPES = """\
fast = True


def probe(v):
    print(v)
    return v


class Node:
    def __init__(self):
        self.fast = True
        self.x = 0

    def setup(self, y):
        y += 1
        # a detached note

        if self.fast:
            self.fast = True
        return self.x + y

    def run(self, x):
        if probe(x) or fast:
            x += 1
            # the end of the live branch
        else:
            x += 2
        if probe(x) and (not fast or x > 3):
            x += 3
        if fast:
            x += 4
        return x

    def leave(self, x):
        if probe(x) or self.fast:
            return 1
        x += 5
        return x
"""
TRUE_SHAPES_PRUNED = """\
def probe(v):
    print(v)
    return v


class Node:
    def __init__(self):
        self.x = 0

    def setup(self, y):
        y += 1
        # a detached note

        return self.x + y

    def run(self, x):
        probe(x)
        x += 1
        # the end of the live branch
        if probe(x) and x > 3:
            x += 3
        x += 4
        return x

    def leave(self, x):
        probe(x)
        return 1
"""


def test_fold_shapes_with_the_flag_true() -> None:
    """A live branch emptied by the cascade goes but keeps the detached lines above it; `f() or
    FLAG` keeps the call and the live branch with its footer comment; code after a `return` the
    fold exposed goes."""
    texts, changes = changes_of({"true.py": TRUE_SHAPES}, True)
    assert texts["true.py"] == TRUE_SHAPES_PRUNED
    true = "the condition is always true once fast is inlined"
    written = "fast has no reader left: the flag is fixed at True and every read of it was inlined"
    assert sorted(change for change in changes if change[2] != "inlined") == sorted(
        [
            (1, "fast", "removed-write", written),
            (11, "fast", "removed-write", written),
            (18, "fast", "folded-branch", true),
            (19, "fast", "removed-write", written),
            (23, "fast", "folded-branch", true),
            (23, "fast", "folded-branch-kept-call", true + "; its call stays for its side effects"),
            (30, "fast", "folded-branch", true),
            (35, "fast", "folded-branch", true),
            (35, "fast", "folded-branch-kept-call", true + "; its call stays for its side effects"),
            (
                37,
                "fast",
                "removed-unreachable",
                "unreachable: it follows a return, raise, continue or break that folding exposed",
            ),
        ]
    )


USERS_OWN_CONSTANTS = """\
fast = False


def run(x):
    if fast:
        x += 1
    if False:  # the user's own, not the flag's
        x += 2
    if True:
        x += 3
    while False:
        x += 4
    while 0:
        pass
    assert 1  # constant, the user's own
    return x
"""


def test_the_users_own_constant_tests_are_left_alone() -> None:
    """Only tests that contain an inlined flag are folded; `if False:` written by hand stays."""
    texts, _ = changes_of({"own.py": USERS_OWN_CONSTANTS}, False)
    assert texts["own.py"] == USERS_OWN_CONSTANTS[USERS_OWN_CONSTANTS.index("def run") :].replace(
        "    if fast:\n        x += 1\n", ""
    )


def test_cascade_reasons_name_the_last_reads() -> None:
    source = """\
LIMIT = 3
fast = False


class Node:
    def __init__(self):
        self.fast = False
        self.count = 0

    def run(self):
        if self.fast:
            return self.count
        return 0

    def other(self):
        if fast:
            return self.count + LIMIT
        return 1
"""
    texts, changes = changes_of({"node.py": source}, False)
    assert "count" not in texts["node.py"] and "LIMIT" not in texts["node.py"]
    reasons = {line: reason for line, _, action, reason in changes if action == "removed-write"}
    assert reasons == {
        1: "LIMIT has no reader left: its last read was in code this cleanup removed (node.py:17)",
        2: "fast has no reader left: the flag is fixed at False and every read of it was inlined",
        7: "fast has no reader left: the flag is fixed at False and every read of it was inlined",
        8: "count has no reader left: its last reads were in code this cleanup removed "
        "(node.py:12, node.py:17)",
    }


# Bugs the mutation check led to: an `elif` chain folded in two steps compares the second step
# against the wrong original node (`_fold_elifs` recurses with the head's `original`).
def test_a_folded_elif_chain_leaves_the_users_own_elif_alone() -> None:
    source = (
        "fast = False\n\n\ndef run(x):\n    if x > 1:\n        x += 1\n    elif fast:\n"
        "        x += 2\n"
        "    elif False:  # the user's own\n        x += 3\n    elif x > 0:\n        x += 4\n"
        "    return x\n"
    )
    texts, changes = changes_of({"chain.py": source}, False)
    assert texts["chain.py"] == (
        "def run(x):\n    if x > 1:\n        x += 1\n"
        "    elif False:  # the user's own\n        x += 3\n    elif x > 0:\n        x += 4\n"
        "    return x\n"
    )
    assert [c[0] for c in changes if c[2] == "removed-branch"] == [7]


def test_an_elif_on_the_flag_after_a_kept_elif_becomes_else() -> None:
    source = (
        "fast = False\n\n\ndef run(x):\n    if x > 1:\n        x += 1\n    elif fast:\n"
        "        x += 2\n"
        "    elif x > 0:\n        x += 3\n    elif not fast:\n        x += 4\n    return x\n"
    )
    texts, _ = changes_of({"chain.py": source}, False)
    assert texts["chain.py"] == (
        "def run(x):\n    if x > 1:\n        x += 1\n    elif x > 0:\n        x += 3\n"
        "    else:\n        x += 4\n    return x\n"
    )


def test_each_folded_elif_is_reported_on_its_own_line() -> None:
    _, changes = changes_of({"shapes.py": FOLD_SHAPES}, False)
    folds = [
        (line, action)
        for line, _, action, _ in changes
        if action in ("removed-branch", "folded-branch")
    ]
    assert sorted(folds) == [
        (10, "removed-branch"),
        (19, "removed-branch"),
        (22, "folded-branch"),
        (36, "removed-branch"),
    ]
