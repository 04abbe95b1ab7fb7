"""How code spells a flag: its name's words, and the module constants that hold its name."""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class FlagNames:
    """How a call of an accessor or a writer names a flag: a string literal, or a constant that
    holds one: a bare name as this module binds it (to a string; to anything else, which names no
    flag; as an alias of an imported constant), else (imported by name) as the repository's
    constants hold it; an attribute (`flag_names.EXPRESS`) only the latter. The one resolution
    of the index (for `ast`) and of the passes (for LibCST), so that a write and a read through
    the same constant are seen alike."""

    # The names this module assigns (see module_strings), and its aliases of the constants.
    module: Mapping[str, str | None]
    repository: Mapping[str, str]  # constants anywhere that hold a flag's name -> that name

    @classmethod
    def of_module(
        cls,
        assigned: Mapping[str, str | None],
        imported: Iterable[tuple[str, str]],
        repository: Mapping[str, str],
    ) -> FlagNames:
        """The names of a module with these top-level assignments and these imports (name,
        alias): `from keys import FAST_KEY as FK` makes FK name what FAST_KEY names."""
        module: dict[str, str | None] = {
            alias: repository[name] for name, alias in imported if name in repository
        }
        module.update(assigned)
        return cls(module, repository)

    def holding(self, names: Collection[str]) -> dict[str, str]:
        """The constants this module can see that hold one of the names -> that name."""
        visible = {**self.repository, **self.module}
        return {
            constant: name
            for constant, name in visible.items()
            if name is not None and name in names
        }

    def of(self, bare: str | None = None, attribute: str | None = None) -> str | None:
        """The string a constant spelt `bare` or `….attribute` holds, if it is known."""
        if bare is not None:
            return self.module.get(bare, self.repository.get(bare))
        return self.repository.get(attribute) if attribute is not None else None

    def of_ast(self, node: ast.expr) -> object:
        if isinstance(node, ast.Name):
            return self.of(bare=node.id)
        if isinstance(node, ast.Attribute):
            return self.of(attribute=node.attr)
        return node.value if isinstance(node, ast.Constant) else None


def module_strings(tree: ast.Module) -> dict[str, str | None]:
    """The names a module assigns at top level: the string each holds (`NAME = "..."`), or None
    for anything else (`NAME = 3` shadows a constant of the same name elsewhere)."""
    found: dict[str, str | None] = {}
    for statement in tree.body:
        if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            value = statement.value.value if isinstance(statement.value, ast.Constant) else None
            found.update(
                (t.id, value if isinstance(value, str) else None)
                for t in targets
                if isinstance(t, ast.Name)
            )
    return found


def spellings(name: str) -> tuple[str, ...]:
    """The words that spell a name in source text: the name, and for a command-line option its
    dashed form, which `--use-x` and `--no-use-x` hold as a whole word. Every search of text for
    names goes through this (files.names_in, files.lines_naming, the engine's byte index), so that
    a file naming a flag only as an option is never left out."""
    dashed = name.replace("_", "-")
    return (name,) if dashed == name else (name, dashed)
