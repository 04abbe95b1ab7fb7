"""Accessor templates (README: Lookups by name; CONTRACT: accessors): one shape matcher for `ast`
(the index) and LibCST (the lookups pass), and fixtures whose rewrite behaves as the program with
each flag at its configured value."""

from __future__ import annotations

import ast
import shutil
from collections.abc import Callable
from pathlib import Path

import libcst as cst
import pytest

from prune_flags.rewrite.passes.lookups import cst_unfold
from prune_flags.syntax.spellings import FlagNames
from prune_flags.syntax.templates import (
    ShapeError,
    TemplateMatch,
    ast_unfold,
    module_writers,
    parse_template,
    parse_writer,
)
from tests.support import fixture_path, program_output, write_expected

# template, expression, (identifier, the naming expression's source, negated) or None: no match
MATCHES = [
    ("features.has({name}, ...)", 'features.has("x", user)', (None, '"x"', False)),
    ("features.has({name}, ...)", "self.features.has(KEY)", (None, "KEY", False)),
    ("features.has({name})", 'features.has("x", user)', None),  # no `...`: no further argument
    ("features.has({name}, ...)", 'other.has("x")', None),
    ("features.has({name}, ...)", 'make().features.has("x")', None),  # a receiver with a call
    ("get_flag(name={name}, default=...)", 'get_flag(name="x", default=1)', (None, '"x"', False)),
    ("get_flag(name={name})", 'get_flag(name="x", default=1)', None),
    ("config.{name}.value", "config.use_x.value", ("use_x", None, False)),
    ("config.{name}.value", "self.config.use_x.value", ("use_x", None, False)),
    ("config.{name}.value", "config.use_x.default", None),
    ("config.{name}.value", "settings.use_x.value", None),
    ("{name}.value", "USE_X.value", ("USE_X", None, False)),
    ("{name}.value", "flags.USE_X.value", ("USE_X", None, False)),
    ("{name}.value", "make().USE_X.value", None),
    ("flags.FLAGS.{name}", "flags.FLAGS.use_x", ("use_x", None, False)),
    ("flags.FLAGS.{name}", "FLAGS.use_x", None),
    ("options[{name}]", 'ctx.options["x"]', (None, '"x"', False)),
    ("options[{name}]", 'limits["x"]', None),
    ("options[{name}]", 'options["x", 1]', None),
    ("ctx.options[{name}]", 'options["x"]', None),
    ('opts["extra"].get({name}, ...)', 'self.opts["extra"].get("x", False)', (None, '"x"', False)),
    ('opts["extra"].get({name}, ...)', 'opts["base"].get("x", False)', None),
    ("{name} in options.enabled", '"use-x" in options.enabled', (None, '"use-x"', False)),
    ("{name} in options.enabled", '"use-x" not in self.options.enabled', (None, '"use-x"', True)),
    ("{name} not in options.enabled", '"use-x" in options.enabled', (None, '"use-x"', True)),
    ("{name} in options.enabled", '"use-x" in options.beta', None),
    ("{name} in options.enabled", '"use-x" == options.enabled', None),
    ("{name}(...)", "USE_X()", ("USE_X", None, False)),
    ("{name}[...]", "USE_X[0]", ("USE_X", None, False)),
]


def _described(found: TemplateMatch | None, source: Callable[[object], str]) -> object:
    if found is None:
        return None
    named = None if found.named is None else _normal(source(found.named))
    return found.identifier, named, found.negated


def _normal(source: str) -> str:
    return ast.unparse(ast.parse(source, mode="eval"))


@pytest.mark.parametrize("template, expression, expected", MATCHES)
def test_the_index_and_the_rewrite_match_a_template_alike(
    template: str, expression: str, expected: object
) -> None:
    shape = parse_template(template)
    by_ast = shape.match(ast.parse(expression, mode="eval").body, ast_unfold)
    by_cst = shape.match(cst.parse_expression(expression), cst_unfold)
    if expected is not None:
        identifier, named, negated = expected  # type: ignore[misc]
        expected = identifier, None if named is None else _normal(named), negated
    assert _described(by_ast, ast.unparse) == expected  # type: ignore[arg-type]
    assert _described(by_cst, lambda node: cst.Module([]).code_for_node(node)) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "template, words",
    [
        ("config.{name}.(value", "not a Python expression"),
        ("features.has(x)", "{name} must be"),
        ("{name} < cap", "{name} in ..."),
        ("set({name}=...)", "writers"),
        ("{name}", "is not a call, attribute, subscript or membership test"),
    ],
)
def test_a_template_that_reads_no_flag_is_refused_with_the_reason(
    template: str, words: str
) -> None:
    with pytest.raises(ShapeError) as error:
        parse_template(template)
    assert words in str(error.value)


# writer template, call, (flag name, the naming node's source or None, the value's source or None)
WRITES = [
    ("set_config({name}, ...)", 'set_config("use_x", True)', ("use_x", '"use_x"', "True")),
    ("set_config({name}, ...)", "self.set_config(KEY, value=1)", ("enable", "KEY", "1")),
    ("set_config({name}, ...)", 'set_config("use_x")', ("use_x", '"use_x"', None)),
    ("override_settings({name}=...)", "override_settings(USE_X=True)", ("USE_X", None, "True")),
    ("override_settings({name}=...)", "override_settings(USE_X=True, DEBUG=1)", None),  # writes two
    (
        "config.define_bool_state(name={name}, ...)",
        'config.define_bool_state(name="z", default=False, help="")',
        ("z", '"z"', "False"),
    ),
    (
        "config.define_bool_state(name={name}, ...)",
        'config.define_bool_state(name="z")',
        ("z", '"z"', None),
    ),
    (
        "flags.DEFINE_boolean({name}, ...)",
        'flags.DEFINE_boolean("use_w", False, "Use w.")',
        ("use_w", '"use_w"', "False"),
    ),
    ("config.{name}(...)", "config.use_x(True)", ("use_x", "config.use_x", "True")),
    (
        "config.{name}(...)",
        "self.config.use_x(value=False)",
        ("use_x", "self.config.use_x", "False"),
    ),
    ("config.{name}(...)", "make().use_x(True)", None),
]


@pytest.mark.parametrize("template, call, expected", WRITES)
def test_a_writer_template_gives_the_flag_the_naming_node_and_the_value(
    template: str, call: str, expected: object
) -> None:
    """`written_value` (the index's, with `ast`) and `written` (the prune pass's, with LibCST) see
    the same write."""
    names = FlagNames({"KEY": "enable"}, {})
    found = parse_writer(template).written_value(ast.parse(call, mode="eval").body, names)  # type: ignore[arg-type]
    shown = (
        None
        if found is None
        else (found[0], *(None if node is None else ast.unparse(node) for node in found[1:]))
    )
    assert shown == (
        expected
        if expected is None
        else tuple(None if part is None else _normal(part) for part in expected)  # type: ignore[union-attr]
    )
    by_cst = parse_writer(template).written(cst.parse_expression(call), cst_unfold)
    assert (by_cst is None) == (expected is None)
    if by_cst is not None:
        value = None if by_cst.value is None else cst.Module([]).code_for_node(by_cst.value)  # type: ignore[arg-type]
        assert value == expected[2]  # type: ignore[index]


@pytest.mark.parametrize(
    "template, words",
    [
        ("set_config({name}, ...", "not a Python expression"),
        ("config.{name}.value", "is not a call"),
        ("f(x)", "{name} must be"),
    ],
)
def test_a_writer_template_that_writes_no_flag_is_refused_with_the_reason(
    template: str, words: str
) -> None:
    with pytest.raises(ShapeError) as error:
        parse_writer(template)
    assert words in str(error.value)


@pytest.mark.parametrize(
    "imports, called, writes",
    [
        ("from django.test import override_settings", "override_settings(USE_X=True)", True),
        ("from django.test.utils import override_settings", "override_settings(USE_X=True)", True),
        ("import django.test", "django.test.override_settings(USE_X=True)", True),
        ("from myapp.testing import override_settings", "override_settings(USE_X=True)", False),
        ("from django.test import override_settings as o", "o(USE_X=True)", False),
    ],
)
def test_djangos_override_settings_is_a_writer_only_where_it_is_djangos(
    imports: str, called: str, writes: bool
) -> None:
    tree = ast.parse(f"{imports}\n{called}\n")
    call = tree.body[-1].value  # type: ignore[attr-defined]
    found = [
        template.written_value(call, FlagNames({}, {})) for template in module_writers(tree, ())
    ]
    assert any(found) == writes


# Stand-ins for the libraries the fixtures read their flags through, at the configured values.
ABSL = {
    "absl/__init__.py": "",
    "absl/app.py": "def run(main):\n    main([])\n",
    "absl/flags.py": "class _Flags:\n    use_bf16 = True\n    batch_size = 8\n\n\n"
    "FLAGS = _Flags()\n",
}

PROGRAMS = {
    # fixture: (files added to both trees, the calls whose results must not change)
    "idiom_template_attribute_value": (
        {},
        "from app import model\nprint(model.forward(3, 1), model.forward(3, 0), model.describe())",
    ),
    "idiom_template_absl": (ABSL, "import train\ntrain.main(['x'])"),
    "idiom_template_subscript": (
        {"data.bin": "abcdef"},
        "from types import SimpleNamespace as NS\nimport io_paths\n"
        "print(io_paths.read('data.bin', {'fast_io': True, 'chunk': 2}, {'fast_io': 0}))\n"
        "loader = io_paths.Loader(NS(options={'fast_io': True}), {'extra': {'fast_io': True}, "
        "'base': {'fast_io': {'fast_io': 0}}})\n"
        "print(loader.load('data.bin'))",
    ),
    "idiom_template_membership": (
        {},
        "from types import SimpleNamespace as NS\nimport theme\n"
        "on = NS(enabled_features={'dark-mode'}, beta_features=set())\n"
        "beta = NS(enabled_features={'dark-mode', 'high-contrast'}, beta_features={'dark-mode'})\n"
        "print(theme.palette(NS(settings=on)), theme.palette(NS(settings=beta)), "
        "theme.banner(on), theme.banner(beta))",
    ),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_a_template_cleanup_behaves_as_the_program_with_the_flag_at_its_value(
    name: str, tmp_path: Path
) -> None:
    """Differential check: `before`, whose flag objects and tables hold the configured values, and
    `after` print the same."""
    files, program = PROGRAMS[name]
    outputs = []
    for side in ("before", "after"):
        tree = (
            shutil.copytree(fixture_path(name) / side, tmp_path / side)
            if side == "before"
            else write_expected(fixture_path(name), tmp_path / side)
        )
        for path, text in files.items():
            (tree / path).parent.mkdir(parents=True, exist_ok=True)
            (tree / path).write_text(text)
        outputs.append(program_output(tree, program))
    assert outputs[0] == outputs[1]
    assert outputs[0].strip()
