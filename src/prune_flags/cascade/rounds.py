"""The cascade: inline, fold and prune, round after round, until no name loses its last reader."""

# Every round rewrites the planned files from their original text with everything learnt so far
# (which names are dead, which asserts go), so line numbers in the report are always the original's
# and a round never builds on a half-done one. A round ends when the index, rebuilt only over files
# that mention the names in question, finds no new name without a reader.
#
# What the model planned and what the rounds learnt are in cascade/state.py; what a file's rewrite
# is given in cascade/contexts.py; the helpers a round folded in cascade/helpers.py; which names may
# really go in cascade/liveness.py.

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from prune_flags.cascade.contexts import Contexts
from prune_flags.cascade.helpers import FoldedHelpers
from prune_flags.cascade.importers import Importers
from prune_flags.cascade.liveness import Liveness
from prune_flags.cascade.state import Learnt, Plan
from prune_flags.config import Config, Flag
from prune_flags.model.build import Model
from prune_flags.model.library import KeywordPlace, LibraryDefault
from prune_flags.rewrite.context import Death, RewriteTask, Rewritten
from prune_flags.semantic.bindings import module_level_names
from prune_flags.semantic.facts import NameFacts, Site, Write
from prune_flags.semantic.repository import Repository
from prune_flags.syntax.values import same_value
from prune_flags.vocabulary import Action, WriteKind


class Cascade:
    """Inline, fold and prune until no name loses its last reader."""

    def __init__(
        self,
        repository: Repository,
        config: Config,
        model: Model,
        rewrite: Callable[[list[RewriteTask]], list[Rewritten | str]],
        library_keywords: Mapping[Path, dict[KeywordPlace, LibraryDefault]],
    ) -> None:
        self.repository = repository
        self.rewrite = rewrite  # each file's rewrite, or why it is left untouched
        self.plan = Plan.of(config, model, library_keywords)
        self.learnt = Learnt()
        self._inputs: dict[Path, object] = {}  # per file, what its last rewrite depended on
        self.contexts = Contexts(repository, self.plan, self.learnt)
        self.liveness = Liveness(repository, self.plan, self.learnt)
        self.folded = FoldedHelpers(repository, self.learnt, self.liveness)
        self.importers = Importers(repository)

    def run(self) -> None:
        while True:
            changed = self._rewrite_round()
            if self.unsettled or not self._learn(changed) or self.unsettled:
                return

    @property
    def unsettled(self) -> bool:
        """A file rewritten in an earlier round was skipped since (its rewrite or its analysis
        failed): what was learnt from its rewritten text no longer holds, and the run starts
        over (see engine._cleanup)."""
        return any(path in self.repository.skipped for path in self.repository.rewritten)

    def _names(self) -> frozenset[str]:
        globals_ = {name for names in self.learnt.dead_globals.values() for name in names}
        return (
            frozenset(self.plan.flags)
            | frozenset(self.learnt.dead)
            | frozenset(globals_)
            | frozenset(self.plan.name_constants)
            | frozenset(helper.name for helper in self.learnt.helpers.values())
            | frozenset(
                s
                for name, strings in self.plan.option_flags.items()
                if name in self.learnt.dead
                for s in strings
            )
            | frozenset(
                callee for pipes in self.plan.plumbings.values() for callee in pipes.positions
            )
        )

    def _rewrite_round(self) -> list[Path]:
        tasks: list[RewriteTask] = []
        for path in self.repository.mentioning(self._names(), original=True):
            source = self.repository.sources[path]  # decoded: it mentions a name
            # What the rewrite of this file depends on: a dead name its text never mentions changes
            # nothing.
            mentioned = self.contexts.dead_in(path)
            inputs = (
                mentioned,
                self.learnt.removable_asserts.get(path),
                frozenset(self.learnt.dead_globals.get(path, {})),
                frozenset(self.learnt.helper_calls.get(path, {}).items()),
                frozenset(self.learnt.method_calls.get(path, {}).items()),
                self.contexts.kept_in(path),
            )
            if self._inputs.get(path) != inputs:
                self._inputs[path] = inputs
                tasks.append(
                    (path, source.text, self.contexts.context(path), path.name == "__init__.py")
                )
        changed = []
        for path, outcome in zip([task[0] for task in tasks], self.rewrite(tasks)):
            if isinstance(outcome, str):
                self.repository.skipped[path] = outcome
                self.learnt.results.pop(path, None)
                continue
            self.learnt.results[path] = outcome
            if self.repository.text(path) != outcome.text:
                self.repository.rewritten[path] = outcome.text
                changed.append(path)
        return changed

    def _learn(self, changed: list[Path]) -> bool:
        """Find the names that lost their last reader; True when there are new ones."""
        new_helpers = self.folded.learn(changed)
        fields, globals_ = set(self.plan.flags), set(self.plan.flags)
        causes: dict[str, str] = {}
        for path in changed:
            before = self.repository.tree(path, self.repository.sources[path].text)
            if before is None:
                continue
            result = self.learnt.results[path]
            module_names = module_level_names(before)
            for key, count in result.loads_before.items():
                if count > result.loads_after.get(key, 0):
                    name = key.lstrip(".")
                    if key.startswith("."):
                        fields.add(name)
                    elif name in module_names:
                        globals_.add(name)
                    causes.setdefault(name, result.causes[key])
        # A helper goes with its last caller however its calls were spelt:
        # `channels._get_channel(ctx)` drops only `._get_channel` loads, which alone make it a field
        # candidate, never a global.
        globals_ |= {
            h.name
            for h in self.learnt.helpers.values()
            if "." not in h.qualname and h.name in fields
        }
        fields, globals_ = self.liveness.unread_in(changed, fields, globals_)
        # A name nothing writes has nothing to remove: a cheap text test spares parsing its readers.
        # (A public method is never removed, but a method helper's.)
        methods = {self.learnt.helpers[key].name for key in self.learnt.method_reaches}
        fields = {
            name
            for name in fields - set(self.learnt.dead)
            if name in self.plan.flags or name in methods or self.repository.mentioning_write(name)
        }
        names = frozenset(fields | globals_)
        facts = self.repository.facts(names)
        skipped = self.repository.skipped_displays()
        dead_fields = {
            name
            for name in fields
            if not _live(self.liveness.field_reads(name, facts[name], skipped), skipped)
            and (name in self.plan.flags or not _constructed(facts[name]))
            and not self.liveness.protected(name, facts[name])
        }
        dead_fields = self.liveness.without_kept_asserts(
            dead_fields | set(self.learnt.dead), facts
        ) - set(self.learnt.dead)
        dead_globals = {
            name: paths
            for name, paths in self.liveness.module_definitions(facts, globals_).items()
            if not _live(facts[name].global_reads, skipped)
            and not self.liveness.protected(name, facts[name])
        }
        # A name only skipped files read would be dead but for them: it stays, with its imports.
        kept = {
            name: reads
            for name in dead_fields
            if (reads := self.liveness.field_reads(name, facts[name], skipped))
        }
        kept.update(
            {name: facts[name].global_reads for name in dead_globals if facts[name].global_reads}
        )
        dead_fields -= kept.keys()
        dead_globals = {name: paths for name, paths in dead_globals.items() if name not in kept}
        new = self._keep_for_skipped(kept)
        original = self.liveness.original_facts(frozenset(dead_fields) | frozenset(dead_globals))
        for name in sorted(dead_fields):
            if (
                any(w.kind in _FIELD_WRITES for w in facts[name].writes)
                or facts[name].assert_reads
                or self.liveness.read_by_name_only(name, facts[name])
                or self.liveness.lone_method(name, facts[name])
            ):
                self.learnt.dead[name] = Death(
                    self._cause(name, causes), self.liveness.reason(name, original[name])
                )
                self.learnt.dead_places[name] = (
                    frozenset(  # (a parameter of its name is another variable)
                        [
                            write.site.path
                            for write in original[name].writes
                            if write.kind != WriteKind.PARAMETER
                        ]
                        + [read.site.path for read in original[name].assert_reads]
                    )
                )
                new = True
        for name, paths in dead_globals.items():
            for path in paths:
                self.learnt.dead_globals.setdefault(path, {})[name] = Death(
                    self._cause(name, causes),
                    self.liveness.reason(name, original[name], module_level=True),
                )
                new = True
        self.liveness.plan_asserts()
        return self._keep_reexported(changed) or new or new_helpers

    def decided(self, flag: Flag, writes: list[Write]) -> bool:
        """Whether a flag has no reader left and each of its writes of another value went (a
        change at its line): what the config decided is all the code says of it."""
        return (self.unread(flag) or self._gone(flag)) and not self.not_gone(flag, writes)

    def not_gone(self, flag: Flag, writes: list[Write]) -> list[Write]:
        """The writes among `writes` that the rewrite did not remove (no change at its line)."""
        by_display = self.repository.by_display()
        left = []
        for write in writes:
            result = self.learnt.results.get(by_display.get(write.site.path, Path()))
            changes = result.changes if result is not None else ()
            line = self.plan.tests.change_line(
                flag.name, write
            )  # a deleted test's line, for the writes in it
            if not any(
                change.line == line and change.action in _WRITE_REMOVALS for change in changes
            ):
                left.append(write)
        return left

    def _gone(self, flag: Flag) -> bool:
        """Whether the rewritten code neither reads a name nor gives it another value: a flag
        defined nowhere (read through an accessor, or an environment variable) whose only writes of
        another value were tests' the tests pass removed. A test's write of the configured value
        may stay (`monkeypatch.setenv("X", "1")`): it sets what the config says."""
        facts = self.repository.facts(frozenset([flag.name]))[flag.name]
        return not (
            facts.global_reads
            or facts.assert_reads
            or facts.object_reads
            or any(not same_value(write.value, flag.value) for write in facts.writes)
        )

    def unread(self, flag: Flag) -> bool:
        """Whether nothing reads a flag any more: its definitions, parameters and arguments go."""
        return flag.name in self.learnt.dead or any(
            flag.name in names for names in self.learnt.dead_globals.values()
        )

    def kept_by_skipped(self) -> dict[str, str]:
        """For each skipped file (by display), what it keeps alive, said after why it was
        skipped."""
        by_file: dict[str, list[str]] = {}
        for name, files in sorted(self.learnt.kept.items()):
            for display in files:
                by_file.setdefault(display, []).append(name)
        return {
            display: f"; it reads {', '.join(names)}, so"
            f" {'it keeps its' if len(names) == 1 else 'they keep their'}"
            " definitions and imports elsewhere"
            for display, names in by_file.items()
        }

    def _cause(self, name: str, causes: dict[str, str]) -> str:
        """The flag whose cleanup a dead name goes with: a flag's own, else the flag whose change
        took the name's last read."""
        return name if name in self.plan.flags else causes.get(name, name)

    def _keep_reexported(self, changed: list[Path]) -> bool:
        """Note the imports a round dropped that another file imports from the file; True when
        there are new ones (the file is rewritten again, keeping them)."""
        new = False
        # (a flag or a name that went has no definition left to import: its imports go with it)
        gone = set(self.plan.flags) | set(self.learnt.dead)
        gone |= {name for names in self.learnt.dead_globals.values() for name in names}
        for path in changed:
            kept = self.importers.imported_from(path, self.importers.dropped(path) - gone)
            known = self.learnt.reexported.setdefault(path, set())
            new = new or not kept <= known
            known |= kept
        return new

    def _keep_for_skipped(self, kept: dict[str, list[Site]]) -> bool:
        """Note the names kept alive only by skipped files' reads, and which files; True when a
        name is new (the files importing it are rewritten again, keeping the import)."""
        new = False
        for name, reads in kept.items():
            new = new or name not in self.learnt.kept
            self.learnt.kept.setdefault(name, set()).update(read.path for read in reads)
        return new


# The actions of a removed write: the prune and parameter passes', and the tests pass's (a write
# in a deleted test); a property is a definition too.
_WRITE_REMOVALS = (
    Action.OVERRIDDEN,
    Action.REMOVED_METHOD,
    Action.REMOVED_WRITE,
    Action.REMOVED_WRITE_KEPT_VALUE,
    Action.REMOVED_PARAMETER,
    Action.REMOVED_ARGUMENT,
    Action.REMOVED_TEST,
)
_FIELD_WRITES = (
    WriteKind.ATTRIBUTE,
    WriteKind.CLASS,
    WriteKind.PARAMETER,
    WriteKind.KEYWORD,
    WriteKind.OPTION,
    WriteKind.CLASS_DEF,
    WriteKind.SETATTR,
    WriteKind.WRITER,
)


def _live(reads: list[Site], skipped: frozenset[str]) -> list[Site]:
    """The reads outside skipped files: those a rewrite may remove."""
    return [read for read in reads if read.path not in skipped]


def _constructed(facts: NameFacts) -> bool:
    """A class-level field also passed by keyword (`Config(field=...)`, a dataclass) cannot go
    while the constructor calls still pass it; only a flag's own keywords are removed with it."""
    kinds = {write.kind for write in facts.writes}
    return WriteKind.CLASS in kinds and WriteKind.KEYWORD in kinds
