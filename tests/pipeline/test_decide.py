"""The config is the decision: a flag's definitions go whatever value they hold, writes
of another value go as `overridden`, an ambiguous name is refused, `strict` keeps the old rule.

Differential checks: each rule's fixture is run through `prune-flags apply`, and the program it
holds (main.py) must print the same as the original program with every definition and write of
the flag set to the configured value by hand (what "the config is the decision" means)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from prune_flags.semantic.modules import qualified
from prune_flags.syntax.statements import KEEP_PRAGMA
from tests.support import (
    CASES,
    checkout,
    fixture_path,
    invoke_in,
    make_tree,
    program_output,
    write_expected,
)

# Per fixture: (file, the original text, the same at the configured value).
AT_CONFIGURED_VALUE = {
    "core_decide_definition_other_value": [
        ("app/settings.py", "PREFER_V2 = False", "PREFER_V2 = True"),
        ("app/planner.py", "normalize_first: bool = True", "normalize_first: bool = False"),
        ("app/planner.py", "self.new_planner = False", "self.new_planner = True"),
        ("app/views.py", "    use_search = False", "    use_search = True"),
    ],
    "core_decide_computed_definition": [
        ("svc/config.py", 'os.environ.get("ENABLE_BATCHING", False)', "True"),
        ("svc/config.py", 'registry.bool_flag("use_cache", default=True)', "False"),
    ],
    "core_list_valued_stale_definition": [
        (
            "lint/settings.py",
            'DISABLED_CHECKS = ["trailing-comma"]',
            'DISABLED_CHECKS = ["trailing-comma", "dict-separator"]',
        )
    ],
    "core_decide_overridden_write": [
        ("graph/build.py", "nodes[0].fast = True", "nodes[0].fast = False"),
        ("graph/build.py", 'setattr(node, "fast", True)', 'setattr(node, "fast", False)'),
    ],
    # One setting at three stages: the overlays' assignments are the flag's too.
    "idiom_settings_overlay": [
        ("shop/settings/base.py", "USE_NEW_ROUTER = False", "USE_NEW_ROUTER = True"),
        ("shop/settings/test.py", "USE_NEW_ROUTER = False", "USE_NEW_ROUTER = True"),
    ],
    # Fixtures that were refused before the config became the decision.
    "idiom_class_attr_override_conflict": [
        ("renderers/raster.py", "supports_gpu = True", "supports_gpu = False")
    ],
    "cascade_conflict_subclass_attr": [("ops/apex_norm.py", "fused = True", "fused = False")],
    "idiom_test_write_mixed": [
        ("tests/test_pipeline.py", "enable_dedup = True", "enable_dedup = False")
    ],
    "core_writer_constant_other_value": [
        ("shop/tests/test_checkout.py", "FAST_CHECKOUT, 1)", "FAST_CHECKOUT, 0)")
    ],
    # Parameters along call chains: every default and every call passes the configured value.
    "idiom_param_chain_other_default": [
        ("planning/planner.py", "normalize_first=False):", "normalize_first=True):"),
        ("main.py", "normalize_first=False)", "normalize_first=True)"),
    ],
    "idiom_param_chain_no_default": [
        ("export/records.py", "compact_ids=False):", "compact_ids=True):")
    ],
    "idiom_param_kwargs_forwarded": [("codec/api.py", "compact_ids=True)", "compact_ids=False)")],
    # A function's local: what its caller hands it no longer matters.
    "core_local_flag": [("main.py", '"verbose": True', '"verbose": False')],
    # A keyword taken out of `**options` by the flag's definition is the flag's.
    "core_definition_consumes_its_keyword": [("main.py", "compact=True)", "compact=False)")],
    **{
        name: [("search/api.py", "search(query, True)", "search(query, False)")]
        for name in ("core_positional_last_argument", "core_positional_last_argument_noop")
    },
    # The import succeeds here; the config says the fast path is never taken.
    "core_import_named_in_a_string": [
        ("engines.py", "    has_fast_json = True", "    has_fast_json = False")
    ],
}


# Drivers for the fixtures that hold no main.py of their own (written into both trees).
DRIVERS = {
    "idiom_class_attr_override_conflict": """\
from renderers.color import to_srgb
from renderers.raster import SoftwareRasterizer, VulkanRasterizer


class Triangle:
    def fill(self):
        return "filled"


class Scene:
    triangles = [Triangle(), Triangle()]


class Device:
    has_gpu = True

    def submit(self, triangles):
        return ["gpu"] * len(triangles)


for kind in (SoftwareRasterizer, VulkanRasterizer):
    print(kind.__name__, kind(Device()).render(Scene()))
print(round(to_srgb(0.5), 6), round(to_srgb(0.001), 6))
""",
    "cascade_conflict_subclass_attr": """\
from ops.apex_norm import FusedLayerNorm
from ops.norm import LayerNorm


class Value:
    def __init__(self, value):
        self.value = value

    def mean(self, *args, **kwargs):
        return Value(self.value / 2)

    def var(self, *args, **kwargs):
        return Value(1.0)

    def __sub__(self, other):
        return Value(self.value - other.value)

    def __add__(self, other):
        return Value(self.value + other)

    def sqrt(self):
        return Value(self.value**0.5)

    def __truediv__(self, other):
        return Value(self.value / other.value)


for kind in (LayerNorm, FusedLayerNorm):
    print(kind.__name__, round(kind(4)(Value(3.0)).value, 6))
""",
}


# A test module's tests, run in order: each passes or fails (a test pinning the removed value
# fails alike before, at the configured value, and after).
TEST_DRIVER = """\
import importlib.util
import sys

sys.path.insert(0, ".")
spec = importlib.util.spec_from_file_location("tests_run", "{path}")
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
for name in sorted(vars(module)):
    if name.startswith("test_"):
        try:
            getattr(module, name)()
            print(name, "passed")
        except AssertionError:
            print(name, "failed")
"""
DRIVERS["idiom_test_write_mixed"] = TEST_DRIVER.format(path="tests/test_pipeline.py")
DRIVERS["core_writer_constant_other_value"] = TEST_DRIVER.format(path="shop/tests/test_checkout.py")


def printed(root: Path) -> str:
    """What main.py prints, or how it fails (the original at another value may fail)."""
    run = subprocess.run([sys.executable, "main.py"], cwd=root, capture_output=True, text=True)
    return run.stdout + (run.stderr.strip().splitlines() or [""])[-1]


# Every other fixture whose tree holds a main.py: its flags stand at their configured values, so
# the cleanup's tree prints what the original prints (the differential check of its rules).
SAME_BEHAVIOUR = sorted(
    name
    for name in CASES
    if (fixture_path(name) / "before" / "main.py").is_file() and name not in AT_CONFIGURED_VALUE
)


@pytest.mark.parametrize("name", SAME_BEHAVIOUR)
def test_the_result_runs_as_the_original(name: str, tmp_path: Path) -> None:
    case = fixture_path(name)
    original = tmp_path / "original"
    shutil.copytree(case / "before", original)
    result = write_expected(case, tmp_path / "result")
    assert printed(result) == printed(original)


@pytest.mark.parametrize("name", sorted(AT_CONFIGURED_VALUE))
def test_the_result_runs_as_the_original_with_the_flag_at_the_configured_value(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = fixture_path(name)
    at_value = tmp_path / "at_value"
    shutil.copytree(case / "before", at_value)
    for file, original, configured in AT_CONFIGURED_VALUE[name]:
        text = (at_value / file).read_text()
        assert text.count(original) == 1, (file, original)
        (at_value / file).write_text(text.replace(original, configured))
    original = tmp_path / "original"
    shutil.copytree(case / "before", original)
    work = checkout(case, tmp_path / "work")
    result = invoke_in(monkeypatch, work, "apply", "--config", str(case / "config.toml"), ".")
    assert result.exit_code == 0, result.output
    for root in (at_value, original, work):
        if name in DRIVERS:
            (root / "main.py").write_text(DRIVERS[name])
    assert printed(work) == printed(at_value)
    assert printed(work) != printed(original)  # the config did decide something


def test_each_overridden_write_is_in_the_report_explain_and_on_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = fixture_path("core_decide_overridden_write")
    work = checkout(case, tmp_path / "work")
    report = tmp_path / "r.json"
    result = invoke_in(
        monkeypatch,
        work,
        "diff",
        "--explain",
        "--report",
        str(report),
        "--config",
        str(case / "config.toml"),
        ".",
    )
    assert result.exit_code == 1, result.output
    reason = "overrode fast = True (the config fixes it at False)"
    assert result.stderr.splitlines()[:2] == [
        f"prune-flags: graph/build.py:6: {reason}",
        f"prune-flags: graph/build.py:8: {reason}",
    ]
    assert f"graph/build.py:6  fast  overridden  {reason}" in result.stdout
    changes = {entry["path"]: entry["changes"] for entry in json.loads(report.read_text())["files"]}
    overridden = [
        (c["line"], c["reason"]) for c in changes["graph/build.py"] if c["action"] == "overridden"
    ]
    assert overridden == [(6, reason), (8, reason)]


@pytest.mark.parametrize(
    "value, pruned",
    [
        ('features.get("use_v2", False)', True),  # a parameter read as a receiver: a source
        ('features["use_v2"]', True),
        # `**kwargs` looked up by the flag's name: where its keyword is taken (no call passes it)
        ('kwargs.get("use_v2", False)', True),
        ('kwargs.pop("use_v2", False)', True),
        ('kwargs.get("mode") == "v2"', False),  # another key: what the callers pass
        ("enabled", False),  # a parameter's value: what the callers pass
        ("bool(features)", False),
    ],
)
def test_a_field_computed_from_a_parameter_goes_unless_the_parameter_carries_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str, pruned: bool
) -> None:
    code = (
        "class Settings:\n"
        "    def read_config(self, features=None, enabled=False, **kwargs):\n"
        f"        self.use_v2 = {value}\n"
        "\n"
        "    def render(self):\n"
        '        return "v2" if self.use_v2 else "v1"\n'
    )
    root = make_tree(tmp_path / "repo", {"settings.py": code})
    result = invoke_in(monkeypatch, root, "apply", "--flag", "use_v2=True", ".")
    assert result.exit_code == (0 if pruned else 123), result.output
    assert ("self.use_v2" not in (root / "settings.py").read_text()) == pruned
    if not pruned:
        assert "use_v2: not pruned: it is given another value at settings.py:3" in result.stderr


def test_a_reexported_flag_is_left_at_its_reexport_in_the_report_explain_and_on_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = fixture_path("core_left_reexported")
    work = checkout(case, tmp_path / "work")
    report = tmp_path / "r.json"
    args = ["--explain", "--report", str(report), "--config", str(case / "config.toml"), "."]
    result = invoke_in(monkeypatch, work, "diff", *args)
    assert result.exit_code == 123, result.output
    hint = (
        "outside code may import it from here, so this stays, and so does the definition it"
        " reads; delete it by hand once no user imports it, then run again"
    )
    assert result.stderr.splitlines()[0] == (
        f"prune-flags: pkg/__init__.py:3: left PY310_PLUS as it is (re-exported): {hint}"
    )
    assert f"pkg/__init__.py:3  PY310_PLUS  left  re-exported: {hint}" in result.stdout
    written = json.loads(report.read_text())
    assert written["refused"] == []
    assert written["left"] == [
        {
            "flag": "PY310_PLUS",
            "path": "pkg/__init__.py",
            "line": 3,
            "why": "re-exported",
            "hint": hint,
        }
    ]


def test_a_computed_definition_names_the_calls_it_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = fixture_path("core_decide_computed_field")
    work = checkout(case, tmp_path / "work")
    result = invoke_in(monkeypatch, work, "diff", "--config", str(case / "config.toml"), ".")
    assert result.exit_code == 1, result.output
    assert result.stderr.splitlines()[:2] == [
        'prune-flags: app/settings.py:10: overrode use_v2 = features.get("use_v2", False) (the'
        " config fixes it at True); dropped with the definition: features.get(...)",
        'prune-flags: app/settings.py:12: overrode compress = bool(int(os.getenv("APP_COMPRESS",'
        ' "1"))) (the config fixes it at True); dropped with the definition: os.getenv(...)',
    ]


def test_an_ambiguous_flag_is_refused_with_the_qualified_names_of_its_definitions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = fixture_path("core_decide_ambiguous")
    work = checkout(case, tmp_path / "work")
    result, refused = refusals(monkeypatch, work, "apply", "--config", str(case / "config.toml"))
    assert refused == [
        {
            "flag": "fast",
            "why": "ambiguous",
            "locations": ["vehicles/car.py:3", "vehicles/engine.py:2", "vehicles/garage.py:2"],
            "scope_with": ["vehicles.car.Car.fast", "vehicles.engine.Engine.fast"],
        }
    ]
    assert (
        "prune-flags: fast: not pruned: the name is ambiguous: unrelated definitions carry it "
        "(vehicles.car.Car.fast, vehicles.engine.Engine.fast, at vehicles/car.py:3, "
        "vehicles/engine.py:2); a read or write of it (vehicles/garage.py:2) may be either's; to "
        "prune one of them, scope the flag "
        'with its qualified key, e.g. "vehicles.car.Car.fast" = false\n'
    ) in result.stderr


def test_a_scoped_flag_still_ambiguous_at_a_receiver_of_unknown_class_is_refused_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`car.fast = True` on an unannotated parameter could be Engine's or Car's: the key does not
    say, so the flag is refused with the place (the fixture core_decide_scoped annotates it)."""
    case = fixture_path("core_decide_ambiguous")
    work = checkout(case, tmp_path / "work")
    config = tmp_path / "scoped.toml"
    config.write_text('[flags]\n"vehicles.engine.Engine.fast" = false\n')
    result, refused = refusals(monkeypatch, work, "diff", "--config", str(config))
    assert refused == [
        {
            "flag": "fast",
            "why": "ambiguous",
            "locations": ["vehicles/garage.py:2"],
            "scope_with": ["vehicles.engine.Engine.fast"],
        }
    ]
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("key", "message"),
    [
        (
            "vehicles.motors.Engine.fast",
            "vehicles has no class or function motors, and there is no module vehicles.motors",
        ),
        ("cars.engine.Engine.fast", "no module cars among the files in scope"),
        ("vehicles.engine.Motor.fast", "vehicles.engine has no class or function Motor"),
        ("vehicles.garage.retune.fast", "vehicles.garage has no class or function retune"),
        (
            "vehicles.garage.tune.fast",
            "vehicles.garage.tune has no parameter fast and assigns no local of that name (if"
            " a run pruned it, drop the key)",
        ),
    ],
)
def test_a_qualified_key_that_names_nothing_is_a_config_error_naming_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str, message: str
) -> None:
    work = checkout(fixture_path("core_decide_ambiguous"), tmp_path / "work")
    before = {path: path.read_bytes() for path in work.rglob("*.py")}
    config = tmp_path / "bad.toml"
    config.write_text(f'[flags]\n"{key}" = false\n')
    result = invoke_in(monkeypatch, work, "apply", "--config", str(config), ".")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"prune-flags: error: {config}: flags.{key}: {message}")
    assert {path: path.read_bytes() for path in work.rglob("*.py")} == before


def test_a_bare_name_beside_a_qualified_key_of_it_is_a_config_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = checkout(fixture_path("core_decide_ambiguous"), tmp_path / "work")
    config = tmp_path / "twice.toml"
    config.write_text('[flags]\nfast = false\n"vehicles.car.Car.fast" = true\n')
    result = invoke_in(monkeypatch, work, "apply", "--config", str(config), ".")
    assert result.exit_code == 2
    assert (
        f"{config}: flags.vehicles.car.Car.fast: fast and vehicles.car.Car.fast are the same flag"
        " name, and the bare name is every definition of it; give one, or a qualified key for"
        " each definition"
    ) in result.stderr


def test_two_qualified_keys_of_one_name_are_each_decided_in_one_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = checkout(fixture_path("core_decide_ambiguous"), tmp_path / "work")
    config = tmp_path / "twice.toml"
    config.write_text(
        '[flags]\n"vehicles.engine.Engine.fast" = false\n"vehicles.car.Car.fast" = true\n'
    )
    result = invoke_in(monkeypatch, work, "apply", "--config", str(config), ".")
    # `car.fast = True` in garage.py could be either's: each key is refused there, in turn.
    assert result.exit_code == 123
    assert [line.split(" at ")[0] for line in result.stderr.splitlines()[:2]] == [
        "prune-flags: fast: not pruned: scoped to vehicles.engine.Engine.fast, the name is still"
        " ambiguous",
        "prune-flags: fast: not pruned: scoped to vehicles.car.Car.fast, the name is still"
        " ambiguous",
    ]


def test_a_qualified_key_given_as_an_option_scopes_the_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = fixture_path("core_decide_scoped")
    work = checkout(case, tmp_path / "work")
    result = invoke_in(
        monkeypatch, work, "apply", "--flag", "vehicles.engine.Engine.fast=False", "."
    )
    assert result.exit_code == 0, result.output
    after = write_expected(case, tmp_path / "after")
    for path in after.rglob("*.py"):
        assert (work / path.relative_to(after)).read_text() == path.read_text()


@pytest.mark.parametrize(
    "key", ["shop.settings.base.USE_NEW_ROUTER", "shop.settings.test.USE_NEW_ROUTER"]
)
def test_a_qualified_key_of_one_settings_stage_names_every_stage(
    key: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = fixture_path("idiom_settings_overlay")
    work = checkout(case, tmp_path / "work")
    result = invoke_in(monkeypatch, work, "apply", "--flag", f"{key}=True", ".")
    assert result.exit_code == 0, result.output
    after = write_expected(case, tmp_path / "after")
    for path in after.rglob("*.py"):
        assert (work / path.relative_to(after)).read_text() == path.read_text()


def test_parameters_no_chain_links_with_other_defaults_are_ambiguous_with_their_qualified_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = fixture_path("core_decide_ambiguous_parameters")
    work = checkout(case, tmp_path / "work")
    result, refused = refusals(monkeypatch, work, "apply", "--config", str(case / "config.toml"))
    assert refused == [
        {
            "flag": "fuzzy",
            "why": "ambiguous",
            "locations": ["search/spelling.py:7"],
            "scope_with": ["search.index.search.fuzzy", "search.spelling.Speller.similar.fuzzy"],
        }
    ]
    assert (
        "prune-flags: fuzzy: not pruned: the name is ambiguous: parameters that no chain of calls "
        "links to the flag carry it (search.spelling.Speller.similar.fuzzy, at "
        "search/spelling.py:7), each the flag or another variable; to prune it, give each the "
        "configured value as its default (a parameter that agrees is the flag), "
        'or scope the flag with a qualified key, e.g. "search.index.search.fuzzy" = false\n'
    ) in result.stderr


def test_the_qualified_key_an_ambiguous_refusal_suggests_prunes_that_parameter_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = fixture_path("core_decide_ambiguous_parameters")
    work = checkout(case, tmp_path / "work")
    similar = (work / "search" / "spelling.py").read_text()
    result = invoke_in(monkeypatch, work, "apply", "--flag", "search.index.search.fuzzy=False", ".")
    assert result.exit_code == 0, result.output
    assert "fuzzy" not in (work / "search" / "index.py").read_text()
    assert (work / "search" / "spelling.py").read_text() == similar


def test_a_function_sharing_a_flag_functions_name_without_its_value_is_ambiguous(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Calls are matched by last name: `run(fast=...)` may reach either `run`, so neither is
    guessed."""
    files = {
        "a.py": "def run(x, fast=False):\n    return x + 1 if fast else x\n",
        "b.py": "def run(x, fast):\n    return fast\n",
        "c.py": "from a import run\n\nprint(run(1, fast=True))\n",
    }
    message = (
        "fast: not pruned: the name is ambiguous: parameters that no chain of calls links "
        "to the flag carry it (b.run.fast"
    )
    refused_untouched(tmp_path, monkeypatch, files, "fast=False", message)


def test_an_argument_left_in_a_line_kept_refuses_the_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`search(..., False, 2)` loses its flag argument only with the parameter: where the call's
    line is kept, the argument stays and so must the parameter: the flag is refused."""
    files = {
        "lib.py": "def search(q, fuzzy=False, limit=9):\n    return q[:limit] if fuzzy else q\n",
        "api.py": "from lib import search\n\n"
        f"print(search('abc', False, 2), search('abcd', True, 3))  {KEEP_PRAGMA}\n",
    }
    message = (
        "fuzzy: not pruned: it is given another value at api.py:3, and it is passed or "
        "taken at lib.py:1, and not every read of it"
    )
    refused_untouched(tmp_path, monkeypatch, files, "fuzzy=False", message)


def refused_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str], flag: str, message: str
) -> None:
    """`apply --flag FLAG` on a tree of `files` refuses the flag with `message` and writes
    nothing."""
    root = make_tree(tmp_path / "r", files)
    result = invoke_in(monkeypatch, root, "apply", "--flag", flag, ".")
    assert result.exit_code == 123
    assert message in result.stderr
    assert {name: (root / name).read_text() for name in files} == files


def test_a_refused_flag_holds_back_no_other_flag_in_its_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`slow` is ambiguous (two unrelated classes) and refused; `fuzzy` is pruned all the same,
    in lib.py too, which reads `slow`: what reads the refused flag stays as it was."""
    files = {
        "lib.py": "SLOW = True\n\n\ndef search(q, fuzzy=False, limit=9):\n"
        "    return q[:limit] if fuzzy else q.strip()\n",
        "a.py": "class A:\n    slow = True\n",
        "b.py": "class B:\n    slow = False\n",
        "api.py": "from lib import search\n\n"
        "print(search('abc', False, 2), search('abcd', True, 3))\n",
    }
    files["lib.py"] += "\n\ndef speed(x):\n    return x.slow\n"
    root = make_tree(tmp_path / "r", files)
    result = invoke_in(
        monkeypatch, root, "apply", "--flag", "fuzzy=False", "--flag", "slow=False", "."
    )
    assert result.exit_code == 123
    assert "slow: not pruned: the name is ambiguous" in result.stderr
    assert "api.py:3: overrode fuzzy = True (the config fixes it at False)" in result.stderr
    expected = dict(files)
    expected["lib.py"] = files["lib.py"].replace(
        "q, fuzzy=False, limit=9):\n    return q[:limit] if fuzzy else q",
        "q, limit=9):\n    return q",
    )
    expected["api.py"] = "from lib import search\n\nprint(search('abc', 2), search('abcd', 3))\n"
    assert {name: (root / name).read_text() for name in files} == expected


def refusals(
    monkeypatch: pytest.MonkeyPatch, work: Path, command: str, *args: str
) -> tuple[Any, list[dict]]:
    """A run that refuses a flag (exit 123), and its JSON report's `refused` list."""
    report = work.parent / f"{work.name}-report.json"
    result = invoke_in(monkeypatch, work, command, "--report", str(report), *args, ".")
    assert result.exit_code == 123, result.output
    return result, json.loads(report.read_text())["refused"]


NODE = (
    "class Node:\n    def __init__(self):\n        self.fast = True\n\n    def run(self):\n"
    "        return 1 if self.fast else 2\n"
)


def test_a_subclass_overriding_the_attribute_is_the_flags_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A subclass in another module gives the attribute another value: one hierarchy, not
    ambiguous."""
    sub = (
        "from node import Node\n\n\nclass Quick(Node):\n    def __init__(self):\n"
        "        self.fast = False\n"
    )
    root = make_tree(tmp_path / "r", {"node.py": NODE, "quick.py": sub})
    result = invoke_in(monkeypatch, root, "apply", "--flag", "fast=False", ".")
    assert result.exit_code == 0, result.output
    assert (root / "node.py").read_text() == "class Node:\n    def run(self):\n        return 2\n"
    # Node's went first, so Quick's emptied one overrides nothing and goes too.
    assert (
        root / "quick.py"
    ).read_text() == "from node import Node\n\n\nclass Quick(Node):\n    pass\n"


def test_siblings_under_a_base_without_the_attribute_are_unrelated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {
        "base.py": "class Base:\n    pass\n",
        "a.py": "from base import Base\n\n\nclass A(Base):\n    fast = True\n\n    def go(self):\n"
        "        return self.fast\n",
        "b.py": "from base import Base\n\n\nclass B(Base):\n    fast = False\n",
    }
    root = make_tree(tmp_path / "r", files)
    result = invoke_in(monkeypatch, root, "apply", "--flag", "fast=False", ".")
    assert result.exit_code == 123
    assert (
        "fast: not pruned: the name is ambiguous: unrelated definitions carry it "
        "(a.A.fast, b.B.fast" in result.stderr
    )
    assert {name: (root / name).read_text() for name in files} == files


def test_a_flag_still_read_by_a_skipped_file_keeps_its_writes_and_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its definition cannot go (the skipped file reads it), so neither can it hold another value
    than the inlined reads: the flag is refused, not half carried out."""
    files = {"node.py": NODE, "broken.py": "if node.fast\n    pass\n"}
    root = make_tree(tmp_path / "r", files)
    result = invoke_in(monkeypatch, root, "apply", "--flag", "fast=False", ".")
    assert result.exit_code == 123
    assert (
        "fast: not pruned: it is given another value at node.py:3, and not every read of it"
        in result.stderr
    )
    assert (root / "node.py").read_text() == NODE


CARRIER = (
    "class Node:\n    def __init__(self, fast=True):\n        self.fast = fast\n\n"
    "    def run(self):\n        return 1 if self.fast else 2\n"
)


def test_a_parameter_stored_into_the_flag_is_the_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`self.fast = fast` carries the parameter into the flag: the parameter goes with it, its
    default of another value overridden."""
    root = make_tree(tmp_path / "r", {"node.py": CARRIER})
    result = invoke_in(monkeypatch, root, "apply", "--flag", "fast=False", ".")
    assert result.exit_code == 0, result.output
    assert (root / "node.py").read_text() == (
        "class Node:\n    def __init__(self):\n        pass\n\n    def run(self):\n"
        "        return 2\n"
    )
    assert (
        "prune-flags: node.py:2: overrode fast = True (the config fixes it at False)\n"
        in result.stderr
    )


def test_a_write_of_a_value_a_caller_passes_stays_a_conflict_under_strict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_tree(tmp_path / "r", {"node.py": CARRIER})
    result = invoke_in(monkeypatch, root, "apply", "--strict", "--flag", "fast=False", ".")
    assert result.exit_code == 123
    assert "fast: not pruned: it is given another value at node.py:3" in result.stderr
    assert (root / "node.py").read_text() == CARRIER


def test_strict_must_be_a_boolean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_tree(
        tmp_path / "r", {"node.py": NODE, "c.toml": 'strict = "yes"\n\n[flags]\nfast = false\n'}
    )
    result = invoke_in(monkeypatch, root, "apply", "--config", "c.toml", ".")
    assert result.exit_code == 2
    assert (
        result.stderr == "prune-flags: error: c.toml: strict: expected true or false, got 'yes'\n"
    )


def test_a_static_methods_first_parameter_is_not_its_class(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`node.fast = True` in a static method of another class writes a node, not that class's own
    attribute: the flag has one definition, and the write is overridden."""
    factory = (
        "class Factory:\n    @staticmethod\n    def tune(node):\n        node.fast = True\n"
        "        return node\n"
    )
    root = make_tree(tmp_path / "r", {"node.py": NODE, "factory.py": factory})
    result = invoke_in(monkeypatch, root, "apply", "--flag", "fast=False", ".")
    assert result.exit_code == 0, result.output
    assert (root / "factory.py").read_text() == factory.replace("        node.fast = True\n", "")


OPTIONS = """\
from dataclasses import dataclass


@dataclass
class Options:
    limit: int = 10
    normalize_first: bool = True


def plan(options):
    return "norm" if options.normalize_first else "raw"


print(plan(Options(limit=3, normalize_first=False)), plan(Options()))
"""


def test_a_field_of_another_default_goes_with_the_keywords_of_the_configured_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_tree(tmp_path / "r", {"opts.py": OPTIONS})
    result = invoke_in(monkeypatch, root, "apply", "--flag", "normalize_first=False", ".")
    assert result.exit_code == 0, result.output
    after = (root / "opts.py").read_text()
    assert "normalize_first" not in after
    assert "print(plan(Options(limit=3)), plan(Options()))\n" in after
    at_value = make_tree(
        tmp_path / "v",
        {
            "main.py": OPTIONS.replace(
                "normalize_first: bool = True", "normalize_first: bool = False"
            )
        },
    )
    (root / "main.py").write_text(after)
    assert printed(root) == printed(at_value)


def test_a_keyword_of_another_value_at_the_constructor_is_overridden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = OPTIONS.replace("plan(Options()))", "plan(Options(normalize_first=True)))")
    root = make_tree(tmp_path / "r", {"opts.py": text})
    result = invoke_in(monkeypatch, root, "apply", "--flag", "normalize_first=False", ".")
    assert result.exit_code == 0, result.output
    assert (
        "prune-flags: opts.py:14: overrode normalize_first = True (the config fixes it at False)\n"
        in result.stderr
    )
    after = (root / "opts.py").read_text()
    assert "print(plan(Options(limit=3)), plan(Options()))\n" in after
    at_value = make_tree(
        tmp_path / "v", {"main.py": text.replace("normalize_first=True", "normalize_first=False")}
    )
    (root / "main.py").write_text(after)
    assert printed(root) == printed(at_value)


def test_a_keyword_of_another_value_at_the_constructor_stays_a_conflict_under_strict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = OPTIONS.replace("plan(Options()))", "plan(Options(normalize_first=True)))")
    root = make_tree(tmp_path / "r", {"opts.py": text})
    result = invoke_in(
        monkeypatch, root, "apply", "--strict", "--flag", "normalize_first=False", "."
    )
    assert result.exit_code == 123
    assert (
        "normalize_first: not pruned: it is given another value at opts.py:7, opts.py:14"
        in result.stderr
    )
    assert (root / "opts.py").read_text() == text


@pytest.mark.parametrize("default", ["False", "True"])
def test_a_field_filled_by_position_stays_a_conflict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, default: str
) -> None:
    """Removing `normalize_first` would shift `Options(3, False, 2)` onto `depth` (whatever the
    field's default: the same value's removal was wrong before the config became the decision)."""
    text = OPTIONS.replace(
        "normalize_first: bool = True", f"normalize_first: bool = {default}\n    depth: int = 1"
    )
    text = text.replace("Options(limit=3, normalize_first=False)", "Options(3, False, 2)")
    root = make_tree(tmp_path / "r", {"opts.py": text})
    result = invoke_in(monkeypatch, root, "apply", "--flag", "normalize_first=False", ".")
    assert result.exit_code == 123
    assert (
        "normalize_first: not pruned: it is given another value at opts.py:15 (passes Options's "
        "field by position)" in result.stderr
    )
    assert (root / "opts.py").read_text() == text


SCOPED_PROGRAMS = {
    # fixture: (the decided edit of `before`, the calls whose results must not change)
    "core_decide_scoped": (
        None,
        "from vehicles.engine import Engine, Gauge\nfrom vehicles.car import Car\n"
        "from vehicles.garage import tune, warm_up\n"
        "print(Engine().start(), Gauge().needle(), Car().drive(), tune(Car()).fast, "
        "warm_up(Engine()))",
    ),
    "core_decide_scoped_module": (
        ("shop/checkout.py", "FAST = False", "FAST = True"),
        "from shop import checkout, pages, shipping\n"
        "print(checkout.steps(), pages.title(), pages.banner(), pages.shipping_note(), "
        "shipping.options())",
    ),
    "core_decide_scoped_parameter": (
        None,
        "from search.api import search_endpoint, typeahead_endpoint\n"
        "class Index:\n"
        "    def edits(self, term): return [term, term + 's']\n"
        "    def lookup(self, terms): return sorted(terms)\n"
        "    def complete(self, prefix): return [prefix + '!']\n"
        "print(search_endpoint({'q': 'A b'}, Index()), typeahead_endpoint({'q': 'ab'}, Index()))",
    ),
}


@pytest.mark.parametrize("name", sorted(SCOPED_PROGRAMS))
def test_a_scoped_cleanup_behaves_as_the_program_with_the_flag_at_its_value(
    name: str, tmp_path: Path
) -> None:
    """Differential check: the rewrite runs as `before` with the scoped definition at the configured
    value, while the same-named other definitions keep theirs."""
    edit, program = SCOPED_PROGRAMS[name]
    decided = shutil.copytree(fixture_path(name) / "before", tmp_path / "decided")
    if edit is not None:
        path, old, new = edit
        (decided / path).write_text((decided / path).read_text().replace(old, new, 1))
    after = write_expected(fixture_path(name), tmp_path / "after")
    outputs = [program_output(tree, program) for tree in (decided, after)]
    assert outputs[0] == outputs[1]
    assert outputs[0].strip()


def test_a_scoped_flag_read_on_another_receiver_inside_a_foreign_class_is_ambiguous(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inside Manager (which defines its own do_offload), `chunk.do_offload` is not Manager's: it
    may be the Handler's the key scopes. Read as Manager's, Handler's field would go while Manager
    still reads it from a Handler (megatron-core's offload manager has this shape)."""
    work = make_tree(
        tmp_path / "work",
        {
            "offload.py": (
                "class Handler:\n"
                "    def __init__(self):\n"
                "        self.do_offload = True\n\n"
                "    def commit(self):\n"
                "        if not self.do_offload:\n"
                "            return 0\n"
                "        return 1\n\n\n"
                "class Manager:\n"
                "    def __init__(self, chunks):\n"
                "        self.do_offload = True\n"
                "        self.chunks = chunks\n\n"
                "    def disable(self):\n"
                "        self.do_offload = False\n"
                "        for chunk in self.chunks:\n"
                "            chunk.do_offload = False\n"
            )
        },
    )
    before = (work / "offload.py").read_text()
    result, refused = refusals(
        monkeypatch, work, "apply", "--flag", "offload.Handler.do_offload=True"
    )
    assert refused == [
        {
            "flag": "do_offload",
            "why": "ambiguous",
            "locations": ["offload.py:17", "offload.py:19"],
            "scope_with": ["offload.Handler.do_offload"],
        }
    ]
    assert (work / "offload.py").read_text() == before


@pytest.mark.parametrize(
    ("path", "name", "expected"),
    [
        ("pkg/mod.py", "Car.fast", "pkg.mod.Car.fast"),
        ("pkg/__init__.py", "FAST", "pkg.FAST"),
        ("../repo/pkg/mod.py", "FAST", "repo.pkg.mod.FAST"),
        ("./pkg/__init__.py", "", "pkg"),
        ("/abs/repo/mod.py", "FAST", "abs.repo.mod.FAST"),
    ],
)
def test_a_qualified_name_spells_no_parent_directories(path: str, name: str, expected: str) -> None:
    """Keys suggested for a tree above the working directory (`../repo`) hold no run of dots."""
    assert qualified(path, name) == expected


def test_a_qualified_key_of_a_local_no_value_fixes_is_a_config_error_naming_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = checkout(fixture_path("core_local_flag_noop"), tmp_path / "work")
    before = {path: path.read_bytes() for path in work.rglob("*.py")}
    result = invoke_in(monkeypatch, work, "apply", "--flag", "app.report.count.verbose=False", ".")
    assert result.exit_code == 2
    assert result.stderr == (
        "prune-flags: error: --flag: flags.app.report.count.verbose: app.report.count's local"
        " verbose cannot be fixed: line 15 binds it otherwise than by an assignment\n"
    )
    assert {path: path.read_bytes() for path in work.rglob("*.py")} == before
