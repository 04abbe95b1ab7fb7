"""Modules by their dotted names: a file's name as Python imports it, relative imports resolved,
what a package's `__init__.py` re-exports."""

from __future__ import annotations

import ast
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass


def module_name(
    path: Path,
    is_file: Callable[[Path], bool] = Path.is_file,
    packages: dict[Path, str] | None = None,
) -> tuple[str, bool]:
    """`pkg/sub/mod.py` -> ("pkg.sub.mod", False), `pkg/__init__.py` -> ("pkg", True): the
    directories above that hold an `__init__.py` are the packages. `packages` remembers each
    directory's dotted name ("" outside any package) across calls."""
    is_package = path.name == "__init__.py"
    package = _package(path.parent, is_file, {} if packages is None else packages)
    name = package if is_package else f"{package}.{path.stem}" if package else path.stem
    return name, is_package


def _package(directory: Path, is_file: Callable[[Path], bool], packages: dict[Path, str]) -> str:
    if directory not in packages:
        if directory.name and is_file(directory / "__init__.py"):
            above = _package(directory.parent, is_file, packages)
            packages[directory] = f"{above}.{directory.name}" if above else directory.name
        else:
            packages[directory] = ""
    return packages[directory]


def module_names(
    paths: Iterable[Path], is_file: Callable[[Path], bool] = Path.is_file
) -> dict[Path, tuple[str, bool]]:
    """`module_name` of each path, and only of paths whose dotted name no other path shares: two
    `utils.py` outside any package are both `utils`, and a call cannot tell which it imports."""
    packages: dict[Path, str] = {}  # a tree has far fewer directories than files
    named = {path: module_name(path, is_file, packages) for path in paths}
    counts: dict[str, int] = {}
    for name, _ in named.values():
        counts[name] = counts.get(name, 0) + 1
    return {path: named[path] for path in named if counts[named[path][0]] == 1}


def absolute_module(statement: ast.ImportFrom, module: str, is_package: bool) -> str | None:
    """The module a `from ... import` reads, relative levels resolved; None if it cannot be."""
    if not statement.level:
        return statement.module
    parts = module.split(".") if module else []
    base = parts if is_package else parts[:-1]
    if statement.level - 1 > len(base) or (
        statement.level - 1 == len(base) and not statement.module
    ):
        return None
    base = base[: len(base) - (statement.level - 1)]
    dotted = ".".join([*base, *([statement.module] if statement.module else [])])
    return dotted or None


def reexports(tree: ast.Module, name: str) -> bool:
    """Whether a package's `__init__.py` imports `name` from a module (`from .mod import name`),
    making it the package's interface."""
    return any(
        isinstance(node, ast.ImportFrom) and any(alias.name == name for alias in node.names)
        for node in ast.walk(tree)
    )


def exported_names(tree: ast.Module) -> set[str]:
    """Names in the module's `__all__`: public API, called as it is, never inlined."""
    names: set[str] = set()
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if any(isinstance(target, ast.Name) and target.id == "__all__" for target in targets):
            names.update(
                c.value
                for c in ast.walk(node)
                if isinstance(c, ast.Constant) and isinstance(c.value, str)
            )
    return names


def qualified(path: str, name: str) -> str:
    """`pkg/mod.py` and `helper` -> `pkg.mod.helper`, as `keep` and qualified flag keys spell names.
    A path above the working directory (`../repo/pkg/mod.py`, `/abs/repo/pkg/mod.py`) spells its
    directories without the `..` (a key may leave out the directories above the package)."""
    module = path[: -len(".py")] if path.endswith(".py") else path
    parts = [part for part in module.split("/") if part not in ("", ".", "..")]
    module = ".".join(parts[:-1] if parts[-1:] == ["__init__"] else parts)
    return f"{module}.{name}" if name else module


def names_module(path: str, module: str) -> bool:
    """Whether a file (by its display path) is the module a dotted name spells: the name may leave
    out the directories above the package (`pkg.mod` for `src/pkg/mod.py`)."""
    spelled = qualified(path, "")
    return spelled == module or spelled.endswith("." + module)


def internal_module_names(files: Iterable[Path], root: Path) -> frozenset[str]:
    """Every directory and module name in the tree: an import whose first part is one of them
    comes from the repository."""
    names: set[str] = set()
    for path in files:
        relative = Path(os.path.relpath(path, root))
        names.update(part for part in relative.parent.parts if part not in ("..", "."))
        names.add(path.stem)
    return frozenset(names)
