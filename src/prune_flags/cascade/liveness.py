"""Which names a round left without a reader may really go: not those a changed file still
reads, an interface (re-exported, named by a test), what `keep` names or outside code may call,
nor a name an assert still checks; and why each goes, for the report."""

from __future__ import annotations

from pathlib import Path

from prune_flags.cascade.state import Learnt, Plan
from prune_flags.model.pinned import is_test_path
from prune_flags.semantic.facts import NameFacts, Site
from prune_flags.semantic.modules import qualified, reexports
from prune_flags.semantic.repository import Repository
from prune_flags.vocabulary import Action, WriteKind


class Liveness:
    """What keeps a name alive, asked by the rounds, the helpers and derived.py."""

    def __init__(self, repository: Repository, plan: Plan, learnt: Learnt) -> None:
        self.repository = repository
        self.plan = plan
        self.learnt = learnt
        self._original_known: dict[str, NameFacts] = {}  # see original_facts
        self._original_skipped: frozenset[Path] = frozenset()

    def lone_method(self, name: str, facts: NameFacts) -> bool:
        """Whether the name's one definition in the repository is a method helper's that the run
        inlined somewhere: once nothing reads the name it goes, public or not. One whose calls
        only went with dead code stays, a method of its class like any other."""
        definitions = [
            write
            for write in facts.writes
            if write.kind in (WriteKind.REGISTERED_DEF, WriteKind.CLASS_DEF, WriteKind.MODULE_DEF)
        ]
        if len(definitions) != 1:
            return False
        methods = [
            self.learnt.helpers[key]
            for key in self.learnt.method_reaches
            if self.learnt.helpers[key].name == name
        ]
        return any(
            helper.qualname in result.inlined_helpers
            for helper in methods
            for result in self.learnt.results.values()
        )

    def unread_in(
        self, changed: list[Path], fields: set[str], globals_: set[str]
    ) -> tuple[set[str], set[str]]:
        """The candidates that no changed file reads any more. A read left in a file just rewritten
        keeps a name alive whatever the rest of the repository does, so most candidates (`.shape`,
        `len`) never cost a repository-wide index."""
        names = frozenset(fields | globals_)
        for path in changed:
            found = (
                self.repository.scanned(path, self.repository.text(path), names) if names else None
            )
            if found is None:
                continue
            fields = {
                name
                for name in fields
                if name not in found or not self.field_reads(name, found[name])
            }
            globals_ = {
                name for name in globals_ if name not in found or not found[name].global_reads
            }
        return fields, globals_

    def read_by_name_only(self, name: str, facts: NameFacts) -> bool:
        """A flag no code defines or writes, read only through accessor templates (`"use-x" in
        options.legacy`), whose reads were all inlined: it goes too, and with it the tables that
        name it (`choices=["use-x", "old-io"]`, passes/tables.py). A name only a table spells is
        not known to be the flag's (unmatched.py warns of it)."""
        if name not in self.plan.flags or facts.writes or facts.name_reads or facts.object_reads:
            return False
        return any(
            c.flag == name and c.action == Action.INLINED
            for result in self.learnt.results.values()
            for c in result.changes
        )

    def field_reads(
        self, name: str, facts: NameFacts, skipped: frozenset[str] = frozenset()
    ) -> list[Site]:
        """What keeps a field alive (NameFacts.field_reads); a flag's name in a table literal (an
        option registry, a dict entry setting it) is no read of it: it goes with the flag
        (passes/tables.py), but where a skipped file holds it. Under strict, a field's is, as
        before: a dict entry may give the flag another value, which no write in the index shows."""
        if name not in self.plan.flags or self.plan.config.strict:
            return facts.field_reads
        return (
            facts.attribute_reads
            + facts.string_reads
            + [site for site in facts.table_mentions if site.path in skipped]
        )

    def interface(self, name: str) -> bool:
        """Whether a helper's name is an interface, whose calls stay as they are: a package's
        `__init__.py` re-exports it (callers outside the repository may call it), or a test
        names it (a test exercises it: `assert checkout(None) == "form"` must not become
        `assert "form" == "form"`)."""
        return self.reexported(name, tests=True)

    def reexported(self, name: str, tests: bool = False) -> bool:
        """Whether a package's `__init__.py` re-exports the name (or, with `tests`, a test names
        it)."""
        for path in self.repository.mentioning(frozenset([name]), original=True):
            if tests and is_test_path(self.repository.display(path)):
                return True
            if path.name == "__init__.py":
                tree = self.repository.tree(path, self.repository.sources[path].text)
                if tree is None or reexports(tree, name):
                    return True
        return False

    def protected(self, name: str, facts: NameFacts) -> bool:
        """Never deleted: what something outside the code may call (but a method helper, whose
        calls all went), and what `keep` names."""
        if any(
            write.kind == WriteKind.REGISTERED_DEF for write in facts.writes
        ) and not self.lone_method(name, facts):
            return True
        return self.named_by_keep(name, facts)

    def named_by_keep(self, name: str, facts: NameFacts) -> bool:
        """Whether `keep` names it."""
        for kept in self.plan.config.keep:
            owner, _, kept_name = kept.rpartition(".")
            if kept_name != name:
                continue
            # `pkg.mod.helper` or `pkg.mod.Class.method`: the owner is the module, or module and
            # class.
            modules = {qualified(write.site.path, "") for write in facts.writes}
            if any(
                module.endswith(owner) or module.endswith(owner.rpartition(".")[0])
                for module in modules
            ):
                return True
        return False

    def module_definitions(
        self, facts: dict[str, NameFacts], names: set[str]
    ) -> dict[str, list[Path]]:
        """Module-level names among `names` not yet known dead, with the files that define them."""
        by_display = self.repository.by_display()
        found: dict[str, list[Path]] = {}
        for name in names:
            for write in facts[name].writes:
                path = by_display[write.site.path]
                if write.kind in (
                    WriteKind.MODULE,
                    WriteKind.MODULE_DEF,
                ) and name not in self.learnt.dead_globals.get(path, {}):
                    found.setdefault(name, []).append(path)
        return found

    def without_kept_asserts(self, dead: set[str], facts: dict[str, NameFacts]) -> set[str]:
        """An assert is a reader unless everything it checks is dead (or keep_asserts says it always
        is)."""
        changed = True
        while changed:
            changed = False
            for name in list(dead):
                reads = facts[name].assert_reads if name in facts else []
                if reads and (
                    self.plan.config.keep_asserts
                    or any(r.subjects is None or not r.subjects <= dead for r in reads)
                ):
                    dead.discard(name)
                    changed = True
        return dead

    def plan_asserts(self) -> None:
        """The asserts to remove, by line in the original file (the rewrite works on the
        original)."""
        by_display = self.repository.by_display()
        dead = set(self.learnt.dead)
        facts = self.original_facts(frozenset(dead))
        for name in dead:
            for read in facts[name].assert_reads:
                # An assert that checks more (`... or FAST`) may check only dead names once a flag
                # in it is inlined: the prune pass looks at the inlined test before removing it.
                if read.subjects is None or read.subjects <= dead:
                    path = by_display[read.site.path]
                    removable = self.learnt.removable_asserts
                    removable[path] = removable.get(path, frozenset()) | {read.site.line}

    def original_facts(self, names: frozenset[str]) -> dict[str, NameFacts]:
        """Facts about names in the original texts, each name scanned once a run: the texts do not
        change, and every round asks again about all the names known dead (unless a file was
        skipped meanwhile, which takes its facts out)."""
        skipped = frozenset(self.repository.skipped)
        if skipped != self._original_skipped:
            self._original_known, self._original_skipped = {}, skipped
        missing = names - self._original_known.keys()
        if missing:
            self._original_known.update(self.repository.facts(frozenset(missing), original=True))
        return {name: self._original_known[name] for name in names}

    def reason(self, name: str, original: NameFacts, module_level: bool = False) -> str:
        flag = self.plan.flags.get(name)
        if flag is not None:
            return f"the flag is fixed at {flag.source} and every read of it was inlined"
        reads = original.global_reads if module_level else original.field_reads
        sites = [*reads, *(r.site for r in original.assert_reads)]
        if not sites:
            return "nothing reads it"
        shown = ", ".join(
            str(site) for site in sorted(set(sites), key=lambda s: (s.path, s.line))[:4]
        )
        return (
            f"its last read{'s were' if len(sites) > 1 else ' was'} in code this cleanup"
            f" removed ({shown})"
        )
