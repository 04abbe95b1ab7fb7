"""The model of a flag (model.py), as the engine plans from it: each flag's facts, the writes the
decision overrides, its plumbing, the tests' plan and the verdicts, built once from the `ast`
index before any rewrite."""

from __future__ import annotations

from pathlib import Path

from prune_flags.config import Config, parse_flag_options
from prune_flags.model.build import Model, build, resolve_flags
from prune_flags.report import Refusal
from prune_flags.semantic.repository import load


def model_of(
    root: Path,
    files: dict[str, str],
    *flags: str,
    strict: bool = False,
    accessors: tuple[str, ...] = (),
) -> Model:
    (root / ".git").mkdir(parents=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    config = Config(flags=tuple(parse_flag_options(flags)), strict=strict, accessors=accessors)
    repository = load([root], config, root, root)
    return build(repository, resolve_flags(repository, config))


NODE = (
    "class Node:\n"
    "    def __init__(self, fast=True):\n"
    "        self.fast = fast\n"
    "        self.manual = True\n\n"
    "    def go(self):\n"
    "        return 1 if self.manual else 2\n\n\n"
    "def start():\n"
    "    return Node(fast=True)\n"
)


def test_a_definition_of_another_value_is_overridden_and_the_flag_pruned(tmp_path: Path) -> None:
    model = model_of(tmp_path, {"node.py": NODE}, "manual=False")

    manual = model.flags["manual"]
    assert [(str(write.site), write.kind, write.value) for write in manual.overridden] == [
        ("node.py:4", "attribute", True)
    ]
    assert [str(site) for site in manual.facts.attribute_reads] == ["node.py:7"]
    assert model.refused == ()
    assert list(model.pruned) == ["manual"]
    assert model.writes_to_go("manual", unread=False) == list(manual.overridden)


def test_under_strict_a_write_of_another_value_refuses_the_flag(tmp_path: Path) -> None:
    model = model_of(tmp_path, {"node.py": NODE}, "manual=False", strict=True)

    assert [(refusal.flag, refusal.why, refusal.locations) for refusal in model.refused] == [
        ("manual", "another-value", ("node.py:4",))
    ]
    assert model.pruned == {}


def test_a_parameter_and_the_keywords_passing_it_are_the_flags_plumbing(tmp_path: Path) -> None:
    model = model_of(tmp_path, {"node.py": NODE}, "fast=False")

    fast = model.flags["fast"]
    assert "Node" in fast.plumbing.owners
    assert [str(write.site) for write in fast.plumbing.overridden] == [
        "node.py:11"
    ]  # Node(fast=True)
    # Once nothing reads it, the parameter goes too.
    assert {str(write.site) for write in model.writes_to_go("fast", unread=True)} >= {
        "node.py:2",
        "node.py:11",
    }
    assert {str(write.site) for write in model.writes_to_go("fast", unread=False)} == {"node.py:11"}


def test_unrelated_definitions_of_the_name_make_it_ambiguous_with_the_keys_that_scope_it(
    tmp_path: Path,
) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/car.py": "class Car:\n    def __init__(self):\n        self.fast = True\n\n"
        "    def go(self):\n        return self.fast\n",
        "pkg/job.py": "class Job:\n    fast = False\n\n    def run(self):\n"
        "        return 1 if self.fast else 2\n",
    }
    model = model_of(tmp_path, files, "fast=False")

    (refusal,) = model.refused
    assert (refusal.why, refusal.scope_with) == (
        "ambiguous",
        ("pkg.car.Car.fast", "pkg.job.Job.fast"),
    )
    scoped = model_of(tmp_path / "scoped", files, "pkg.job.Job.fast=False")
    assert scoped.refused == ()
    assert [str(site) for site in scoped.flags["fast"].facts.attribute_reads] == ["pkg/job.py:5"]


def test_the_cascade_only_refuses_more(tmp_path: Path) -> None:
    model = model_of(tmp_path, {"node.py": NODE}, "manual=False", "fast=False")
    later = Refusal("fast", "read-as-object", ("node.py:2",), "fast: not pruned: ...")

    refused = model.refusing([later])
    assert list(refused.pruned) == ["manual"]
    assert refused.refused == (later,)
    assert list(model.pruned) == ["manual", "fast"]  # the model itself is a value


def test_a_flag_read_only_as_a_string_is_named_by_its_whole_key(tmp_path: Path) -> None:
    files = {
        "opts.py": 'def build(features):\n    return 1 if features.has("use-new-path") else 2\n'
    }
    model = model_of(tmp_path, files, "use-new-path=True", accessors=("features.has({name})",))

    assert list(model.flags) == ["use-new-path"]
    assert [str(site) for site in model.flags["use-new-path"].facts.string_reads] == ["opts.py:2"]
