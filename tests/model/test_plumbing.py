"""Parameters along call chains: which parameters are a flag, which arguments
go with them, and what stays a conflict. Each rewrite that goes through is also run: the result
must print what the original prints with every default and argument of the flag set to the
configured value by hand."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import invoke_in, make_tree


def printed(root: Path, module: str) -> str:
    run = subprocess.run([sys.executable, module], cwd=root, capture_output=True, text=True)
    return run.stdout + run.stderr


def prune(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str], flag: str, *args: str
):
    root = make_tree(tmp_path / "work", files)
    return root, invoke_in(monkeypatch, root, "apply", "--flag", flag, *args, ".")


def test_super_init_links_a_subclass_constructors_parameter_to_its_bases(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`super().__init__(fast=fast)` hands the subclass's parameter to its base's, whatever their
    defaults: one chain, so neither is ambiguous, and both go."""
    text = (
        "class Base:\n    def __init__(self, fast=False):\n        self.fast = fast\n\n\n"
        "class Quick(Base):\n    def __init__(self, size, fast=True):\n"
        "        super().__init__(fast=fast)\n"
        "        self.size = size\n\n    def go(self):\n"
        "        return self.size * 2 if self.fast else self.size\n\n\n"
        "print(Quick(3).go(), Quick(4, fast=True).go())\n"
    )
    root, result = prune(tmp_path, monkeypatch, {"main.py": text}, "fast=False")
    assert result.exit_code == 0, result.output
    after = (root / "main.py").read_text()
    assert "fast" not in after
    at_value = make_tree(tmp_path / "value", {"main.py": text.replace("fast=True", "fast=False")})
    assert printed(root, "main.py") == printed(at_value, "main.py")


def test_a_parameter_passed_on_by_position_is_linked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = (
        "def outer(x, nf=True):\n    return inner(x, nf)\n\n\n"
        "def inner(x, nf=False):\n    return -x if nf else x * 2\n\n\n"
        "print(outer(1), outer(2, False), inner(3, True))\n"
    )
    root, result = prune(tmp_path, monkeypatch, {"main.py": text}, "nf=False")
    assert result.exit_code == 0, result.output
    assert (root / "main.py").read_text().endswith("print(outer(1), outer(2), inner(3))\n")
    at_value = make_tree(
        tmp_path / "value",
        {"main.py": text.replace("nf=True", "nf=False").replace("3, True", "3, False")},
    )
    assert printed(root, "main.py") == printed(at_value, "main.py")


@pytest.mark.parametrize(
    ("subclass", "where"),
    [
        (
            "class Sub(Trainer):\n    pass\n",
            "main.py:10 (passes Trainer's parameter by position through Sub)",
        ),
        (
            "class Sub(Trainer):\n    def __init__(self, model):\n"
            "        super().__init__(model, True)\n",
            "main.py:8 (passes Trainer's parameter by position through __init__)",
        ),
    ],
)
def test_a_subclass_filling_its_bases_constructor_parameter_by_position_is_a_conflict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, subclass: str, where: str
) -> None:
    text = (
        "class Trainer:\n    def __init__(self, model, offload=False):\n"
        "        self.offload = offload\n\n\n"
        f"{subclass}\n\nprint(Sub(3{', True' if 'pass' in subclass else ''}).offload)\n"
    )
    root, result = prune(tmp_path, monkeypatch, {"main.py": text}, "offload=False")
    assert result.exit_code == 123, result.output
    assert where in result.stderr
    assert (root / "main.py").read_text() == text


@pytest.mark.parametrize(
    ("call", "why"),
    [
        ("search('a', fuzzy=mode())", "main.py:10 (its value may have side effects)"),
        ("search('a', mode())", "main.py:10 (passes search's parameter by position)"),
    ],
)
def test_an_argument_of_another_value_with_side_effects_is_a_conflict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, call: str, why: str
) -> None:
    text = (
        "def search(q, fuzzy=False):\n    return q if fuzzy else q.upper()\n\n\n"
        f"def mode():\n    print('mode')\n    return True\n\n\nprint({call})\n"
    )
    root, result = prune(tmp_path, monkeypatch, {"main.py": text}, "fuzzy=False")
    assert result.exit_code == 123
    assert f"fuzzy: not pruned: it is given another value at {why}" in result.stderr


def test_a_keyword_to_a_function_name_another_takes_otherwise_is_a_conflict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Calls are matched by last name: `run(fast=True)` may be b.run's, which reads its
    **options."""
    files = {
        "a.py": "def run(x, fast=False):\n    return x + 1 if fast else x\n",
        "b.py": "def run(x, **options):\n    return options\n",
        "c.py": "from a import run\n\nprint(run(1, fast=True))\n",
    }
    root, result = prune(tmp_path, monkeypatch, files, "fast=False")
    assert result.exit_code == 123
    assert (
        "fast: not pruned: it is given another value at c.py:3 (another function named run may "
        "not take it)" in result.stderr
    )
    assert {name: (root / name).read_text() for name in files} == files


def test_a_forwarder_reading_its_kwargs_is_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = (
        "def search(q, fuzzy=False):\n    return q if fuzzy else q.upper()\n\n\n"
        "def relay(q, **kw):\n    if kw.get('fuzzy'):\n        print('fuzzy!')\n"
        "    return search(q, **kw)\n\n\n"
        "print(relay('a', fuzzy=True))\n"
    )
    root, result = prune(tmp_path, monkeypatch, {"main.py": text}, "fuzzy=False")
    assert result.exit_code == 123
    assert "main.py:11 (passed to relay, which does not take it as the flag)" in result.stderr


def test_a_parameter_the_body_reads_after_rebinding_refuses_the_flag_its_arguments_would_leave(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parameter cannot go (a read after a loop rebinds it), so neither can the arguments that
    would shift onto `limit` without it: the flag is refused, nothing half done."""
    text = (
        "def search(q, fuzzy=False, limit=9):\n    if fuzzy:\n        return q\n"
        "    for i in range(2):\n        fuzzy = i\n    return q[:limit], fuzzy\n\n\n"
        "print(search('abc', False, 2), search('abcd', True, 3))\n"
    )
    root, result = prune(tmp_path, monkeypatch, {"main.py": text}, "fuzzy=False")
    assert result.exit_code == 123
    assert (
        "fuzzy: not pruned: it is given another value at main.py:9, and it is passed or taken "
        "at main.py:1," in result.stderr
    )
    assert (root / "main.py").read_text() == text


def test_strict_keeps_a_parameter_of_another_default_another_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = (
        "def search(q, fuzzy=False):\n    return q if fuzzy else q.upper()\n\n\n"
        "def similar(a, b, fuzzy=0.8):\n    return len(a) / len(b) >= fuzzy\n\n\n"
        "print(search('a'), similar('ab', 'abc'))\n"
    )
    root, result = prune(tmp_path, monkeypatch, {"main.py": text}, "fuzzy=False", "--strict")
    assert result.exit_code == 0, result.output
    assert "def similar(a, b, fuzzy=0.8):" in (root / "main.py").read_text()
    assert "def search(q):" in (root / "main.py").read_text()
