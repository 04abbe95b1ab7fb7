"""The helpers a round folded: functions it reduced to one `return` of a constant or of a parameter,
and methods so reduced with the calls that reach them (model/helpers.py answers with `ast`); then
how each file spells their calls, for rewrite/passes/helpers.py to inline them."""

from __future__ import annotations

import ast
from bisect import bisect_left
from collections.abc import Callable, Sequence
from pathlib import Path

from prune_flags.cascade.liveness import Liveness
from prune_flags.cascade.state import Learnt
from prune_flags.model.helpers import (
    Helper,
    folded_helpers,
    helper_calls,
    made_shapes,
    rebound,
)
from prune_flags.model.methods import MethodReach, method_calls, method_reach
from prune_flags.report import Change
from prune_flags.semantic.classes import with_subclasses
from prune_flags.semantic.facts import NameFacts
from prune_flags.semantic.owners import owner_spans
from prune_flags.semantic.repository import Repository


class FoldedHelpers:
    """Learns, round after round, the helpers and method helpers the rewrites folded (into
    `Learnt.helpers`, `method_reaches`, `helper_calls`, `method_calls`)."""

    def __init__(self, repository: Repository, learnt: Learnt, liveness: Liveness) -> None:
        self.repository = repository
        self.learnt = learnt
        self.liveness = liveness  # whether a helper is an interface, protected, kept

    def learn(self, changed: list[Path]) -> bool:
        """Functions this round reduced to one `return` of a constant or of a parameter, then, for
        each file that mentions one, how it spells their calls and the imports it needs for them.
        True when there are new ones."""
        found: dict[str, Helper] = {}
        for path in changed:
            text = self.repository.text(path)
            after = self.repository.tree(path, text)
            before = self.repository.tree(path, self.repository.sources[path].text)
            if after is None or not made_shapes(before, after):
                continue
            modules = self.repository.module_names()
            if path not in modules:
                # another file has the same dotted name: a call cannot tell which it reaches
                continue
            module, is_package = modules[path]
            flag_of = _flag_of_definitions(before, self.learnt.results[path].changes)
            for helper in folded_helpers(
                before, after, text, self.repository.display(path), module, flag_of, is_package
            ):
                key = f"{helper.module}.{helper.qualname}"
                if self.learnt.helpers.get(key) != helper:
                    found[key] = helper
        if found:
            facts = self.repository.facts(frozenset(helper.name for helper in found.values()))
            for key, helper in found.items():
                reach = self._method_reach(helper, facts[helper.name]) if helper.method else None
                if reach is not None:
                    self.learnt.method_reaches[key] = reach
                # (a method that another round had made a helper of another shape: not any more)
                else:
                    self.learnt.method_reaches.pop(key, None)
            found = {
                key: helper
                for key, helper in found.items()
                if key in self.learnt.method_reaches
                or (
                    helper.method in ("", "static")
                    and not rebound(facts[helper.name])
                    and not self.liveness.protected(helper.name, facts[helper.name])
                    and not self.liveness.interface(helper.name)
                )
            }
        if not found:
            return False
        self.learnt.helpers.update(found)
        self.learnt.helper_calls, self.learnt.method_calls = {}, {}
        modules = self.repository.module_names()
        for path in self.repository.mentioning(
            frozenset(h.name for h in self.learnt.helpers.values()), original=True
        ):
            if path not in modules:
                continue
            tree = self.repository.tree(path, self.repository.sources[path].text)
            if tree is None:
                continue
            module, is_package = modules[path]
            display = self.repository.display(path)
            calls = helper_calls(tree, display, module, self.learnt.helpers.values(), is_package)
            if calls:
                self.learnt.helper_calls[path] = calls
            reaches = self.learnt.method_reaches
            through = (
                method_calls(tree, display, module, reaches.values(), is_package) if reaches else {}
            )
            if through:
                self.learnt.method_calls[path] = through
        return True

    def _method_reach(self, helper: Helper, facts: NameFacts) -> MethodReach | None:
        """Which calls reach a method helper (helpers.method_reach), unless its name or its class
        is an interface (a test names the method, a package's `__init__.py` re-exports the class)
        or `keep` names it."""
        liveness = self.liveness
        if (
            liveness.interface(helper.name)
            or liveness.reexported(helper.owner)
            or liveness.named_by_keep(helper.name, facts)
        ):
            return None
        modules = self.repository.module_names()
        found: dict[str, list[tuple[str, ast.ClassDef | None]]] = {}

        def classes(name: str) -> list[tuple[str, ast.ClassDef | None]]:
            if name not in found:
                found[name] = []
                for path in self.repository.mentioning(frozenset([name])):
                    tree = self.repository.tree_facts(path, self.repository.text(path))
                    if tree is None:
                        found[name].append(("", None))  # it may define one
                        continue
                    module = modules[path][0] if path in modules else ""
                    found[name] += [
                        (module if node in tree.tree.body else "", node)
                        for node in tree.classes.get(name, [])
                    ]
            return found[name]

        return method_reach(
            helper, facts, classes, lambda name: with_subclasses(self.repository, frozenset([name]))
        )


def _flag_of_definitions(
    before: ast.Module | None, changes: Sequence[Change]
) -> Callable[[str], str]:
    """The flag whose cleanup changed a function or class of a module (by its dotted path there):
    the first change within its original lines, else the module's first (a helper a fold in a
    function it calls made)."""
    flagged = [change for change in changes if change.flag]
    spans = (
        {dotted: (start, end) for dotted, start, end, _ in owner_spans(before)}
        if before is not None
        else {}
    )

    by_line = sorted((change.line, index) for index, change in enumerate(flagged))

    def flag_of(dotted: str) -> str:
        start, end = spans.get(dotted, (0, -1))
        inside = by_line[bisect_left(by_line, (start,)) : bisect_left(by_line, (end + 1,))]
        if inside:  # (the first recorded of those within its lines)
            return flagged[min(index for _, index in inside)].flag
        return flagged[0].flag if flagged else ""

    return flag_of
