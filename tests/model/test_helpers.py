"""Helpers that fold to a constant: the `ast` analysis (model/helpers.py),
the LibCST pass that inlines their calls (passes/helpers.py) and the imports it adds
(passes/imports.py `add_imports`). The engine's wiring is exercised by fixtures/deep/helper_*."""

from __future__ import annotations

import ast
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper

from prune_flags.config import Flag
from prune_flags.model.helpers import (
    Helper,
    Parameter,
    folded_helpers,
    helper_calls,
    rebound,
)
from prune_flags.model.methods import method_calls, method_reach
from prune_flags.rewrite.context import RewriteContext
from prune_flags.rewrite.file import rewrite
from prune_flags.rewrite.passes.imports import add_imports
from prune_flags.rewrite.rewriter import Rewriter
from prune_flags.semantic.bindings import Binding
from prune_flags.semantic.facts import NameFacts, Site, Write
from prune_flags.semantic.modules import module_name, module_names
from prune_flags.syntax.values import UNKNOWN
from tests.support import dedent

FLAGS = {"use_x": Flag("use_x", True, "True")}
CHANNELS = '''\
from jax.interpreters import mlir

DEFAULT_GROUPS = ((0, 1),)


def _get_channel(ctx):
    """The channel."""
    return mlir.COLLECTIVE_CHANNEL_ID


def _groups(ctx, *, axis=None):
    return DEFAULT_GROUPS


def _maybe_cast(x, dtype=None):
    return x


def _three():
    return 1 + 2
'''


def helpers_in(
    source: str, before: str | None = None, path: str = "pkg/channels.py"
) -> dict[str, Helper]:
    source, module = dedent(source), path.removesuffix(".py").replace("/", ".")
    tree = ast.parse(dedent(before)) if before is not None else None
    found = folded_helpers(tree, ast.parse(source), source, path, module, lambda qualname: "use_x")
    return {helper.qualname: helper for helper in found}


def calls_in(
    caller: str, helpers: dict[str, Helper], path: str = "pkg/lowering.py"
) -> dict[str, tuple[str, ...]]:
    module = path.removesuffix(".py").replace("/", ".")
    return {
        spelling: call.imports
        for spelling, call in helper_calls(
            ast.parse(dedent(caller)), path, module, helpers.values()
        ).items()
    }


def inline(
    caller: str,
    helpers_source: str = CHANNELS,
    path: str = "pkg/lowering.py",
    passes_only: bool = False,
) -> str:
    """The caller after the rewrite with the helpers of `helpers_source` (pkg/channels.py) known."""
    caller = dedent(caller)
    module = path.removesuffix(".py").replace("/", ".")
    found = folded_helpers(
        None,
        ast.parse(dedent(helpers_source)),
        dedent(helpers_source),
        "pkg/channels.py",
        "pkg.channels",
        lambda qualname: "use_x",
    )
    context = RewriteContext(
        path=path, flags=FLAGS, helpers=helper_calls(ast.parse(caller), path, module, found)
    )
    if passes_only:
        return MetadataWrapper(cst.parse_module(caller)).visit(Rewriter(context)).code
    return rewrite(caller, context, False).text


# -- the analysis -------------------------------------------------------------------------------


def test_constant_and_identity_helpers_with_what_they_need() -> None:
    found = helpers_in(CHANNELS)
    assert sorted(found) == ["_get_channel", "_groups", "_maybe_cast", "_three"]
    channel = found["_get_channel"]
    assert (channel.expression, channel.returns, channel.line, channel.flag) == (
        "mlir.COLLECTIVE_CHANNEL_ID",
        None,
        6,
        "use_x",
    )
    assert channel.parameters == (Parameter("ctx", "positional", False),)
    assert channel.needs == (
        Binding("mlir", ("from", "jax.interpreters", "mlir"), "from jax.interpreters import mlir"),
    )
    assert found["_groups"].needs == (
        Binding(
            "DEFAULT_GROUPS",
            ("from", "pkg.channels", "DEFAULT_GROUPS"),
            "from pkg.channels import DEFAULT_GROUPS",
        ),
    )
    assert found["_groups"].parameters[1] == Parameter("axis", "keyword-only", True)
    assert (found["_maybe_cast"].returns, found["_maybe_cast"].needs) == ("x", ())
    assert (found["_three"].expression, found["_three"].needs) == ("1 + 2", ())


def test_only_what_the_cleanup_changed_is_a_helper() -> None:
    before = """
        from jax.interpreters import mlir


        def _get_channel(ctx):
            if USE_X:
                return mlir.COLLECTIVE_CHANNEL_ID
            return ctx.new_channel()


        def _same(x):
            return x
    """
    after = """
        from jax.interpreters import mlir


        def _get_channel(ctx):
            return mlir.COLLECTIVE_CHANNEL_ID


        def _same(x):
            return x
    """
    assert sorted(helpers_in(after, before)) == ["_get_channel"]


@pytest.mark.parametrize(
    "source",
    [
        "def __f__():\n    return 1\n",
        "def _f(ctx):\n    return ctx.channel\n",  # uses its parameter
        "def _f(ctx):\n    return make_channel()\n",  # may have an effect
        "def _f(ctx):\n    log(ctx)\n    return 1\n",  # more than a return
        "def _f(ctx):\n    return\n",
        "import functools\n\n\n@functools.cache\n"
        "def _f(ctx):\n    return 1\n",  # a cache hands back one object
        "@register\ndef _f(ctx):\n    return 1\n",  # may register it
        "def _f(*args):\n    return 1\n",
        "def _f(**kwargs):\n    return 1\n",
        "async def _f(ctx):\n    return 1\n",
        "def _f(ctx):\n    return lambda: 1\n",
        "def _f(ctx):\n    return [i for i in range(3)]\n",
        "def _f(ctx):\n    return undefined_name\n",
        "__all__ = ['_f']\n\n\ndef _f(ctx):\n    return 1\n",  # public API
        "def _f(ctx):\n    return 1\n\n\n_f = other\n",  # bound twice
        "try:\n    import mlir\nexcept ImportError:\n    mlir = None\n\n\ndef _f():\n"
        "    return mlir.X\n",
        "if CHECK:\n    import mlir\n\n\ndef _f():\n    return mlir.X\n",
        "from somewhere import *\n\n\ndef _f():\n    return X\n",
        "X = 1\n\n\ndef _g():\n    global X\n    X = 2\n\n\ndef _f():\n    return X\n",
        "def outer():\n    def _f():\n        return 1\n    return _f\n",  # not module-level
        "class C:\n    def f(self):\n        return self.size\n",  # reads its instance
        "class C:\n    @classmethod\n    def f(cls):\n        return cls\n",
        "class C:\n    @property\n    def f(self):\n        return 1\n",  # called without a call
        "class C:\n    @functools.cache\n    def f(self):\n        return 1\n",
        "class C:\n    def f():\n        return 1\n",  # no instance to take
        "@decorate\nclass C:\n    @staticmethod\n    def _f():\n        return 1\n",
    ],
)
def test_not_a_helper(source: str) -> None:
    assert helpers_in(source) == {}


def test_a_public_function_or_staticmethod_is_a_helper_unless_exported() -> None:
    """A public name is inlined too (the engine leaves those a package's __init__ re-exports)."""
    assert list(helpers_in("def should_skip(types):\n    return False\n")) == ["should_skip"]
    assert list(helpers_in("class C:\n    @staticmethod\n    def f():\n        return 1\n")) == [
        "C.f"
    ]
    assert (
        helpers_in("__all__ = ['should_skip']\n\n\ndef should_skip(types):\n    return False\n")
        == {}
    )


def test_methods_are_helpers_reached_only_through_a_receiver() -> None:
    """An instance method or classmethod takes its receiver first: not among its parameters, and
    never called by its spelling (`C.f(obj)` passes the instance itself)."""
    found = helpers_in(
        "class C:\n    def f(self, types):\n        return False\n\n    @classmethod\n"
        "    def g(cls, x):\n        return x\n"
    )
    assert (found["C.f"].method, found["C.f"].parameters) == (
        "instance",
        (Parameter("types", "positional", False),),
    )
    assert (found["C.g"].method, found["C.g"].returns) == ("class", "x")
    assert calls_in("from pkg.channels import C\n", found) == {}


CHECKER = """\
class Checker:
    def should_skip(self, types):
        return False

    def check(self, t):
        return self.should_skip([t])


class Strict(Checker):
    pass


class Loose(Checker):
    def should_skip(self, types):
        return True
"""


def reach_in(source: str, name: str = "should_skip", writes: tuple[str, ...] = ("registered-def",)):
    """The reach of Checker's method helper in a repository of one module, `source`."""
    tree = ast.parse(dedent(source))
    helper = helpers_in(source)[f"Checker.{name}"]
    classes = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}

    def subclasses(cls: str) -> frozenset[str]:
        found = {cls}
        while derived := {
            c
            for c, node in classes.items()
            if c not in found and {b.id for b in node.bases} & found
        }:
            found |= derived
        return frozenset(found)

    facts = NameFacts(writes=[Write(Site("pkg/channels.py", 1), kind, UNKNOWN) for kind in writes])
    return method_reach(
        helper, facts, lambda c: [("pkg.channels", classes[c])] if c in classes else [], subclasses
    )


def test_which_classes_reach_a_method_helper() -> None:
    """Loose overrides it: `self.should_skip` in Checker may be Loose's, in Strict it is
    Checker's."""
    reach = reach_in(CHECKER, writes=("registered-def", "registered-def"))
    assert reach is not None and not reach.anywhere
    assert (reach.families, dict(reach.classes)) == (
        frozenset({"Strict"}),
        {"Checker": "pkg.channels", "Strict": "pkg.channels"},
    )
    unique = reach_in(CHECKER.partition("class Loose")[0])
    assert unique is not None and unique.anywhere
    assert (
        reach_in(CHECKER.partition("class Loose")[0], writes=("registered-def", "attribute"))
        is None
    )  # `obj.should_skip = ...`
    assert (
        reach_in("class Checker(Base):\n    def should_skip(self, types):\n        return False\n")
        is None
    )  # Base from elsewhere
    builtin = reach_in("class Checker:\n    def get(self, key):\n        return None\n", "get")
    assert builtin is not None and not builtin.anywhere  # `d.get(k)` is a dict's


def test_the_calls_a_method_helper_reaches() -> None:
    reach = reach_in(CHECKER, writes=("registered-def", "registered-def"))
    assert reach is not None
    caller = """\
        from pkg.channels import Checker, Loose


        class Strict2(Checker):
            def run(self, t):
                return self.should_skip([t])


        def main(t, other):
            checker = Checker()
            loose = Loose()
            first = checker.should_skip(t)
            both = (checker.should_skip(t), loose.should_skip(t))  # one line: all reach it or none
            return first, both, other.should_skip(t), Checker.should_skip(checker, t)


        def rebinds(t, checker):
            checker = Checker()
            return checker.should_skip(t)
    """
    found = method_calls(ast.parse(dedent(caller)), "pkg/main.py", "pkg.main", [reach])
    # Line 6: Strict2 is no class the reach knows (its repository is CHECKER's module alone).
    assert sorted(found) == [(12, "should_skip")]
    calls = method_calls(ast.parse(dedent(CHECKER)), "pkg/channels.py", "pkg.channels", [reach])
    assert calls == {}  # Checker's self may be a Loose
    strict = (
        "from pkg.channels import Checker\n\n\ndef main(t):\n    checker = Checker()\n"
        "    return checker.should_skip(t)\n"
    )
    assert list(method_calls(ast.parse(strict), "pkg/main.py", "pkg.main", [reach])) == [
        (6, "should_skip")
    ]
    unique = reach_in(CHECKER.partition("class Loose")[0])
    assert unique is not None
    anywhere = "def main(t, other):\n    return other.should_skip(t)\n"
    assert list(method_calls(ast.parse(anywhere), "pkg/main.py", "pkg.main", [unique])) == [
        (2, "should_skip")
    ]
    assert method_calls(ast.parse(anywhere), "pkg/main.py", "pkg.main", [reach]) == {}
    # What an import gives may be anything from elsewhere (`json.dumps`), at the top or inside.
    imported = (
        "import lib\n\n\ndef main(t):\n    from lib import other\n"
        "    a = lib.should_skip(t)\n    b = other.should_skip(t)\n"
        "    return lib.a.should_skip(t)\n"
    )
    assert method_calls(ast.parse(imported), "pkg/main.py", "pkg.main", [unique]) == {}


def test_a_staticmethod_of_a_module_level_class() -> None:
    found = helpers_in(
        "class Lowering:\n    @staticmethod\n    def _channel(ctx):\n        return 3\n"
    )
    assert list(found) == ["Lowering._channel"]
    assert found["Lowering._channel"].name == "_channel"
    assert calls_in("from pkg.channels import Lowering\n", found) == {"Lowering._channel": ()}
    assert calls_in("from pkg import channels\n", found) == {"channels.Lowering._channel": ()}


def test_relative_imports_and_builtins_resolved() -> None:
    source = (
        "from . import mlir\nfrom .. import top\n\n\ndef _f():\n"
        "    return (mlir.X, top.Y, len(()))\n"
    )
    needs = helpers_in(source, path="pkg/sub/channels.py")["_f"].needs
    assert [need.statement for need in needs] == [
        "",
        "from pkg.sub import mlir",
        "from pkg import top",
    ]
    assert needs[0] == Binding("len", ("builtin",))


def test_spellings_of_a_call_and_the_imports_each_file_needs() -> None:
    found = helpers_in(CHANNELS)
    mlir = ("from jax.interpreters import mlir",)
    assert calls_in(
        "from pkg.channels import _get_channel\n", {"_get_channel": found["_get_channel"]}
    ) == {"_get_channel": mlir}
    assert calls_in("from pkg.channels import _get_channel as channel\n", found)["channel"] == mlir
    assert (
        calls_in("from pkg import channels\nfrom jax.interpreters import mlir\n", found)[
            "channels._get_channel"
        ]
        == ()
    )
    assert calls_in("import pkg.channels\n", found)["pkg.channels._groups"] == (
        "from pkg.channels import DEFAULT_GROUPS",
    )
    assert calls_in("import pkg.channels as ch\n", found)["ch._maybe_cast"] == ()
    # In the helper's own module, the names are its own.
    assert set(calls_in(CHANNELS, found, path="pkg/channels.py").values()) == {()}
    # Nothing reaches a helper through a module it does not import.
    assert calls_in("import pkg\n", found) == {}


def test_a_file_that_cannot_be_given_the_names_is_left_alone() -> None:
    found = helpers_in(CHANNELS)
    caller = "from pkg.channels import _get_channel, _maybe_cast\n"
    assert set(calls_in(caller + "mlir = None\n", found)) == {"_maybe_cast"}  # another mlir
    assert set(calls_in(caller + "from other import mlir\n", found)) == {"_maybe_cast"}
    assert set(
        calls_in(
            caller + "try:\n    from jax.interpreters import mlir\nexcept ImportError:\n    pass\n",
            found,
        )
    ) == {"_maybe_cast"}
    assert calls_in(caller + "from elsewhere import *\n", found) == {}
    # `import a.c` beside the needed `import a.b` binds the same `a`: the import is added.
    dotted = helpers_in("import jax.numpy\n\n\ndef _f():\n    return jax.numpy.pi\n")
    assert calls_in("import jax.random\nfrom pkg.channels import _f\n", dotted) == {
        "_f": ("import jax.numpy",)
    }
    assert calls_in("jax = 1\nfrom pkg.channels import _f\n", dotted) == {}
    # A builtin the caller shadows.
    builtin = helpers_in("def _f():\n    return len(())\n")
    assert calls_in("from pkg.channels import _f\n\n\ndef len(x):\n    return 0\n", builtin) == {}


def test_module_names() -> None:
    files = {
        Path("repo/pkg/__init__.py"),
        Path("repo/pkg/sub/__init__.py"),
        Path("repo/pkg/sub/mod.py"),
        Path("repo/main.py"),
    }
    assert module_name(Path("repo/pkg/sub/mod.py"), files.__contains__) == ("pkg.sub.mod", False)
    assert module_name(Path("repo/pkg/__init__.py"), files.__contains__) == ("pkg", True)
    assert module_name(Path("repo/main.py"), files.__contains__) == ("main", False)
    twice = files | {Path("repo/tools/main.py")}
    named = module_names(twice, twice.__contains__)
    assert Path("repo/main.py") not in named and Path("repo/tools/main.py") not in named
    assert named[Path("repo/pkg/sub/mod.py")] == ("pkg.sub.mod", False)


def test_rebound() -> None:
    definition = Write(Site("pkg/channels.py", 4), "module-def", UNKNOWN)
    assert not rebound(NameFacts(writes=[definition, Write(Site("b.py", 1), "keyword", 1, "f")]))
    assert rebound(NameFacts(writes=[definition, Write(Site("tests/t.py", 3), "patch", UNKNOWN)]))
    assert rebound(NameFacts(writes=[definition, Write(Site("b.py", 1), "attribute", UNKNOWN)]))


# -- the pass ---------------------------------------------------------------------------------


def test_inlined_with_the_import_it_needs_and_the_helper_import_gone() -> None:
    caller = """
        \"\"\"Lowering of psum.\"\"\"

        from jax._src.lib.mlir.dialects import hlo

        from pkg.channels import _get_channel


        def psum_lowering(ctx, x, *, axes):
            return hlo.AllReduceOp(x, axes, channel_handle=_get_channel(ctx))
    """
    assert inline(caller) == dedent("""
        \"\"\"Lowering of psum.\"\"\"

        from jax._src.lib.mlir.dialects import hlo
        from jax.interpreters import mlir


        def psum_lowering(ctx, x, *, axes):
            return hlo.AllReduceOp(x, axes, channel_handle=mlir.COLLECTIVE_CHANNEL_ID)
        """)


def test_each_inlining_and_import_is_reported() -> None:
    caller = dedent("""
        from pkg import channels


        def lower(ctx):
            _ = channels._groups(ctx), channels._get_channel(ctx)
            channels._get_channel(ctx)
        """)
    found = folded_helpers(
        None,
        ast.parse(CHANNELS),
        CHANNELS,
        "pkg/channels.py",
        "pkg.channels",
        lambda qualname: "use_x",
    )
    context = RewriteContext(
        path="pkg/lowering.py",
        flags=FLAGS,
        helpers=helper_calls(ast.parse(caller), "pkg/lowering.py", "pkg.lowering", found),
    )
    result = rewrite(caller, context, False)
    assert result.text == dedent("""
        from pkg.channels import DEFAULT_GROUPS
        from jax.interpreters import mlir


        def lower(ctx):
            _ = DEFAULT_GROUPS, mlir.COLLECTIVE_CHANNEL_ID
        """)
    assert [(c.line, c.action, c.reason) for c in result.changes] == [
        (5, "inlined-helper", "_groups always returns DEFAULT_GROUPS once use_x is fixed at True"),
        (
            5,
            "added-import",
            "`from pkg.channels import DEFAULT_GROUPS`: the inlined _groups needs it",
        ),
        (
            5,
            "inlined-helper",
            "_get_channel always returns mlir.COLLECTIVE_CHANNEL_ID once use_x is fixed at True",
        ),
        (
            5,
            "added-import",
            "`from jax.interpreters import mlir`: the inlined _get_channel needs it",
        ),
        (
            6,
            "inlined-helper",
            "_get_channel always returns mlir.COLLECTIVE_CHANNEL_ID once use_x is fixed at True",
        ),
        (
            6,
            "removed-call",
            "the call of _get_channel was a statement of its own, and what it returns has "
            "no side effect",
        ),
        (1, "removed-import", "channels has no use left in this module after the cleanup"),
    ]
    assert {c.flag for c in result.changes} == {"use_x"}


def test_identity_helper_becomes_its_argument() -> None:
    caller = """
        from pkg.channels import _maybe_cast


        def step(model, batch):
            hidden = model.encode(batch)
            hidden = _maybe_cast(hidden)
            return model.loss(_maybe_cast(hidden + 1, dtype="fp8")) * _maybe_cast(-hidden)
    """
    assert inline(caller) == dedent("""
        def step(model, batch):
            hidden = model.encode(batch)
            return model.loss(hidden + 1) * -hidden
        """)


def test_calls_that_are_left_alone() -> None:
    caller = """
        from pkg.channels import _get_channel, _groups, _maybe_cast


        def lower(ctx, mlir):
            return _get_channel(ctx)


        def lower_all(ctx, args, kwargs):
            return (
                _get_channel(ctx.fork()),
                _get_channel(),
                _get_channel(ctx, 1),
                _get_channel(context=ctx),
                _groups(ctx, None),
                _get_channel(*args),
                _groups(**kwargs),
                _maybe_cast(dtype=1),
                [_get_channel(mlir) for mlir in args],
            )


        class Lowering:
            channel = _get_channel(None)
    """
    assert inline(caller) == dedent(caller)


def test_parentheses_where_the_expression_needs_them() -> None:
    helpers = """
        def _sum():
            return 1 + 2


        def _pair():
            return 1, 2


        def _one():
            return 1


        def _name():
            return "x"
    """
    caller = """
        from pkg.channels import _name, _one, _pair, _sum


        def f(g):
            total = _sum() * 2
            g(_pair(), key=_sum())
            value = _one().real + _one()
            return _pair(), (_sum()), _name().join(g), not _sum()
    """
    # `not 1 + 2` is `not (1 + 2)`; a number receives an attribute only in parentheses (`1.real`
    # does not parse).
    assert inline(caller, helpers) == dedent("""
        def f(g):
            total = (1 + 2) * 2
            g((1, 2), key=1 + 2)
            value = (1).real + 1
            return (1, 2), (1 + 2), "x".join(g), not 1 + 2
        """)


def test_an_inlined_constant_folds_the_branch_it_decides() -> None:
    helpers = "def _use_new_path():\n    return True\n"
    caller = """
        from pkg.channels import _use_new_path


        def run(x):
            if _use_new_path():
                return new(x)
            return old(x)
    """
    assert inline(caller, helpers) == dedent("""
        def run(x):
            return new(x)
        """)


def test_only_the_calls_that_reach_a_helper_change() -> None:
    # `_get_channel` of another module shares the helper's name, not its body.
    caller = """
        from pkg import channels
        from pkg.other import _get_channel


        def f(ctx):
            return channels._get_channel(ctx), _get_channel(ctx)
    """
    assert "return mlir.COLLECTIVE_CHANNEL_ID, _get_channel(ctx)\n" in inline(
        caller, passes_only=True
    )


def test_the_pass_alone_adds_imports_and_keeps_the_rest_for_the_import_cleanup() -> None:
    caller = """
        from pkg.channels import _get_channel


        def f(ctx):
            return _get_channel(ctx)
    """
    assert inline(caller, passes_only=True) == dedent("""
        from pkg.channels import _get_channel
        from jax.interpreters import mlir


        def f(ctx):
            return mlir.COLLECTIVE_CHANNEL_ID
        """)


# -- adding imports ---------------------------------------------------------------------------


def added(source: str, *statements: str) -> str:
    return add_imports(cst.parse_module(dedent(source)), statements).code


def test_an_import_joins_the_line_of_its_module() -> None:
    assert added("from jax.interpreters import xla, zz\n", "from jax.interpreters import mlir") == (
        "from jax.interpreters import mlir, xla, zz\n"
    )
    assert added("from a import z, b\n", "from a import c as d") == "from a import z, b, c as d\n"


def test_an_import_goes_beside_its_package_in_isort_order() -> None:
    source = """
        \"\"\"Doc.\"\"\"

        # Third party.
        import jax
        from jax.numpy import pi

        from pkg import tools

        X = 1
    """
    assert added(
        source,
        "from jax.interpreters import mlir",
        "import jax.lax",
        "from pkg.alpha import a",
        "import os",
    ) == dedent(
        """
        \"\"\"Doc.\"\"\"

        # Third party.
        import jax
        import jax.lax
        from jax.interpreters import mlir
        from jax.numpy import pi

        from pkg import tools
        from pkg.alpha import a
        import os

        X = 1
        """
    )
    assert (
        added("import zlib\n\nimport numpy\n", "import abc")
        == "import zlib\n\nimport numpy\nimport abc\n"
    )
    assert (
        added("# Top.\nfrom pkg import b\n", "from pkg import a")
        == "# Top.\nfrom pkg import a, b\n"
    )
    assert (
        added("# Top.\nfrom pkg.b import b\n", "from pkg.a import a")
        == "# Top.\nfrom pkg.a import a\nfrom pkg.b import b\n"
    )


def test_the_first_import_of_a_module() -> None:
    assert (
        added('"""Doc."""\ndef f():\n    pass\n', "import os")
        == '"""Doc."""\n\nimport os\n\n\ndef f():\n    pass\n'
    )
    assert added("# Header.\n\nX = 1\n", "import os") == "# Header.\n\nimport os\n\nX = 1\n"
    assert added("from __future__ import annotations\n\n\ndef f():\n    pass\n", "import os") == (
        "from __future__ import annotations\n\nimport os\n\n\ndef f():\n    pass\n"
    )


def test_a_call_kept_by_the_pragma_gets_no_import() -> None:
    caller = """
        from pkg.channels import _get_channel


        def f(ctx):
            return _get_channel(ctx)  # prune-flags: keep
    """
    assert inline(caller) == dedent(caller)


def test_a_helper_is_credited_to_the_flag_that_folded_it(tmp_path: Path) -> None:
    """Two flags change one module: the helper's inlining is reported under the flag whose fold
    made it, not under the module's first change (here FAST's, above it)."""
    from prune_flags.config import Config, Flag
    from prune_flags.engine.driver import run

    (tmp_path / ".git").mkdir()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "gates.py").write_text(dedent("""
            FAST = False
            STRICT = True


            def speed(x):
                return x * 2 if FAST else x


            def _strict():
                if STRICT:
                    return True
                return False


            def check(x):
                return x > 0 if _strict() else True
            """))
    flags = (Flag("FAST", False, "False"), Flag("STRICT", True, "True"))
    report = run(Config(flags=flags, format="none"), [tmp_path], tmp_path)
    inlined = [
        change
        for result in report.files
        for change in result.changes
        if change.action == "inlined-helper"
    ]
    assert [(change.flag, change.reason) for change in inlined] == [
        ("STRICT", "_strict always returns True once STRICT is fixed at True")
    ]
