"""What the rewrite of a file is given (`RewriteContext`), from what the model planned and the
rounds learnt so far: only what the file mentions, so that what a worker is sent grows with the
file, not with the run."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

from prune_flags.cascade.state import Learnt, Plan
from prune_flags.model.defaults import empty_dict_is_default
from prune_flags.model.hooks import HOOKS, droppable_hooks
from prune_flags.rewrite.context import RewriteContext
from prune_flags.semantic.repository import Repository
from prune_flags.source.words import mentions_any, names_in
from prune_flags.syntax.expressions import ast_dotted


class Contexts:
    """The context of each file's rewrite, as the cascade stands."""

    def __init__(self, repository: Repository, plan: Plan, learnt: Learnt) -> None:
        self.repository = repository
        self.plan = plan
        self.learnt = learnt
        self._empty_defaults: dict[tuple[str, str], bool] = (
            {}
        )  # (callee, keyword) -> see _emptiable_keywords

    def context(self, path: Path, by_original_lines: bool = True) -> RewriteContext:
        """What the rewrite of a file is given. Not for its original text (the safety gate's
        second run over the result), it has none of what is planned by the original's lines:
        assert lines, tests' edits, arguments passing a flag by position."""
        plan, learnt = self.plan, self.learnt
        option_flags = {
            name: strings for name, strings in plan.option_flags.items() if name in learnt.dead
        }
        # Only the dead names the file mentions (and the switches its option tables may spell
        # `--use-x`): what a worker is sent grows with the file, not with the run.
        dead = self.dead_in(path) | frozenset(option_flags)
        display = self.repository.display(path)
        tree = self.repository.tree_facts(path, self.repository.sources[path].text)
        return RewriteContext(
            outside=(
                tree.outside_names(self.repository.internal) if tree is not None else frozenset()
            ),
            path=display,
            flags=plan.flags,
            parameters=plan.parameters,
            accessors=self.repository.accessors,
            writers=self.repository.writers,
            option_calls=self.repository.option_calls,
            flag_owners=plan.flag_owners,
            flag_functions=self._functions_in(display),
            local_flags=plan.local_flags.get(display, {}),
            flag_positions={
                name: pipes.positions
                for name, pipes in plan.plumbings.items()
                if pipes.positions and by_original_lines
            },
            name_constants=plan.name_constants,
            option_flags=option_flags,
            option_arities={name: plan.option_arities[name] for name in option_flags},
            emptiable_keywords=self._emptiable_keywords(
                path, option_flags.keys() | (learnt.dead.keys() & plan.flags.keys())
            ),
            dead_names={name: learnt.dead[name] for name in dead},
            overridden_writes=(
                plan.overridden_writes.get(display, {}) if by_original_lines else {}
            ),
            dead_globals=learnt.dead_globals.get(path, {}),
            helpers=learnt.helper_calls.get(path, {}),
            library_keywords=plan.library_keywords.get(path, {}) if by_original_lines else {},
            method_calls=learnt.method_calls.get(path, {}) if by_original_lines else {},
            removable_asserts=(
                learnt.removable_asserts.get(path, frozenset())
                if by_original_lines
                else frozenset()
            ),
            kept_imports=self.kept_in(path),
            foreign={
                name: owners[display]
                for name, owners in self.repository.foreign.items()
                if display in owners
            },
            tests=plan.tests.edits(display, plan.flags) if by_original_lines else None,
            droppable_hooks=self._droppable_hooks(path),
        )

    def _emptiable_keywords(self, path: Path, gone: Iterable[str]) -> frozenset[tuple[str, str]]:
        """The calls of the file (callee by last name, keyword) whose dict argument names only gone
        flags (`init(extra={"use_x": True})`), where an empty dict is surely the same as none
        (defaults.empty_dict_is_default): the keyword goes with its last entry."""
        gone = frozenset(gone)
        text = self.repository.sources[path].text
        quoted = any(
            f'"{name}"' in text or f"'{name}'" in text for name in gone
        )  # a dict key spells it so
        tree = self.repository.tree(path, text) if quoted else None
        if tree is None:
            return frozenset()
        found = set()
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            for keyword in node.keywords:
                value = keyword.value
                if keyword.arg is None or not isinstance(value, ast.Dict) or not value.keys:
                    continue
                if all(isinstance(key, ast.Constant) and key.value in gone for key in value.keys):
                    found.add((ast_dotted(node.func).rsplit(".", 1)[-1], keyword.arg))
        return frozenset(pair for pair in found if self._empty_is_default(pair))

    def _empty_is_default(self, pair: tuple[str, str]) -> bool:
        if pair not in self._empty_defaults:
            callee, keyword = pair
            self._empty_defaults[pair] = empty_dict_is_default(
                self.repository.trees_naming(callee), callee, keyword
            )
        return self._empty_defaults[pair]

    def _droppable_hooks(self, path: Path) -> frozenset[str]:
        """The file's hooks that may go once emptied (scoping.droppable_hooks), among those whose
        body names a flag or a dead name: no other can fold away, and the question costs a look
        at every file naming the hook."""
        text = self.repository.sources[path].text
        if not mentions_any(text, frozenset(HOOKS)):
            return frozenset()
        tree = self.repository.tree(path, text)
        changing = frozenset(self.plan.flags) | frozenset(self.learnt.dead)

        def folding(hook: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
            return any(
                (isinstance(node, ast.Name) and node.id in changing)
                or (isinstance(node, ast.Attribute) and node.attr in changing)
                for node in ast.walk(hook)
            )

        return droppable_hooks(self.repository, tree, folding) if tree is not None else frozenset()

    def _functions_in(self, display: str) -> dict[str, frozenset[str]]:
        """For each flag, the functions of a file whose parameter is the flag, by qualified name."""
        plumbings = self.plan.plumbings
        found = {
            name: frozenset(s for p, s in pipes.functions if p == display)
            for name, pipes in plumbings.items()
        }
        return {name: scopes for name, scopes in found.items() if scopes}

    def kept_in(self, path: Path) -> frozenset[str]:
        """The names kept for skipped files that this file mentions, and those other files import
        from it: its imports of them stay."""
        kept = (
            names_in(self.repository.sources[path].text, self.learnt.kept)
            if self.learnt.kept
            else frozenset()
        )
        return kept | self.learnt.reexported.get(path, set())

    def dead_in(self, path: Path) -> frozenset[str]:
        """The dead names a rewrite of the file acts on: the flags it names, and the other dead
        names it writes or asserts on."""
        display, text = self.repository.display(path), self.repository.sources[path].text
        dead = self.learnt.dead
        # A dead flag counts where only a constant holding its name or its option's own string
        # (`--turbo`, its `dest` another name) names it.
        aliases = {
            string: name for name, strings in self.plan.option_flags.items() for string in strings
        }
        aliases.update(self.plan.name_constants)
        # ... and where it is only an argument passed by position to a function whose parameter it
        # is.
        aliases.update(
            (callee, name)
            for name, pipes in self.plan.plumbings.items()
            for callee in pipes.positions
        )
        spelled = {aliases[word] for word in names_in(text, aliases) if aliases[word] in dead}
        return (
            frozenset(
                name
                for name in names_in(text, dead)
                if name in self.plan.flags or display in self.learnt.dead_places.get(name, ())
            )
            | spelled
        )
