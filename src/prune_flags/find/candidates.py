"""Which names are candidates: nothing anywhere gives them another value, a condition reads
them; and the flags the user named, as the engine decided them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from prune_flags.config import Flag
from prune_flags.find.facts import (
    FIELD,
    FLAG_OBJECT,
    PARAMETER,
    Candidate,
    Decided,
    Definition,
    FileFacts,
    Override,
)
from prune_flags.find.merge import ScannedRepository
from prune_flags.semantic.modules import qualified
from prune_flags.syntax.values import same_value


class Candidates(ScannedRepository):
    """The merged facts, judged name by name."""

    # -- what can give a name another value ---------------------------------------------------
    def written_elsewhere(self, name: str) -> bool:
        """Anything but a literal definition: a write, setattr, keyword, option, env var, import."""
        return (
            name in self.disqualified
            or name.lower() in self.environment
            or not self.imports_resolve(name)
        )

    def imports_resolve(self, name: str) -> bool:
        """`from m import name` binds the repository's constant only if m is ours and name no
        submodule."""
        found = self.imports.get(name)
        if not found:
            return True
        return found == {True} and name not in self.internal_modules

    def field_set_by_constructor(self, definition: Definition) -> bool:
        """A field that a call of its class (or a subclass) may fill positionally or from
        **kwargs."""
        assert definition.owner is not None and definition.position is not None
        return any(
            constructor in self.splat_calls or self.calls.get(constructor, 0) > definition.position
            for constructor in self.subclasses(definition.owner)
        )

    def parameter_holds(self, definition: Definition) -> bool:
        """Whether no call can give the parameter another value than its default: its function is
        called by name in the repository (one never called is an entry point, a hook or an API
        whose callers are elsewhere), never with *args or **kwargs, by no call that reaches its
        place, never used as a value (a callback, an alias, partial), spelled by no string
        (getattr(o, "f"), __all__) or name built at run time ("visit_" + kind), and is not a
        method of a class that code outside the repository may call (a base, or a subclass with a
        base, from outside). Keywords are checked by name, as for every kind."""
        function = definition.function
        if function is None or function not in self.calls:
            return False
        if function in self.value_refs or function in self.splat_calls or function in self.spelled:
            return False
        if any(
            function.startswith(prefix) and function.endswith(suffix)
            for prefix, suffix in self.computed_names
        ):
            return False
        owner = definition.owner
        if owner is not None and not all(self.plain(name) for name in self.subclasses(owner)):
            return False
        if definition.position is None:  # keyword-only: only a keyword replaces it
            return True
        # A bound method's first positional argument fills place 1; a plain call fills place 0.
        reach = self.calls[function] + (1 if definition.method else 0)
        return reach <= definition.position

    def object_holds(self, name: str) -> bool:
        """A flag object is the flag only where the accessors read it by its identifier
        (`config.use_x.value`, `use_x.value`): any other read (`if use_x:`, `use_x.set(True)`,
        `f(config.use_x)`) uses the object, and a template naming it by a string
        (`features.has("use_x")`) reads something else than its default."""
        only_templates = self.reads[name] == self.template_reads[name]
        return only_templates and name not in self.named_template_reads

    def definition_holds(self, definition: Definition) -> bool:
        if definition.kind == PARAMETER:
            return self.parameter_holds(definition)
        if definition.kind == FLAG_OBJECT:
            return self.object_holds(definition.name)
        if definition.owner is not None and not self.plain(definition.owner):
            return False
        return not (definition.kind == FIELD and self.field_set_by_constructor(definition))

    # -- candidates -----------------------------------------------------------------------
    def candidate(self, name: str) -> Candidate | None:
        if name.startswith("__") or self.written_elsewhere(name):
            return None
        # `use_x.value` in a function with a local `use_x` reads the local, which the cleanup
        # leaves alone while find's counts would fold it.
        if name in self.bare_template_reads and name in self.local_bindings:
            return None
        definitions = self.definitions[name]
        shared = [d for d in definitions if d.kind != PARAMETER]
        if shared:
            found = self.listed(name, shared, self.reads[name], self.condition_reads[name])
            # The cleanup takes a parameter that defaults to the flag's value for the flag too.
            same = [
                d
                for d in definitions
                if d.kind == PARAMETER and found is not None and same_value(d.value, found.value)
            ]
            return found if all(self.parameter_holds(d) for d in same) else None
        # A parameter is a local name: any other local binding of the name may be it, rebound.
        # The cleanup inlines `x.name` as the flag too: an attribute of that name is out.
        if name in self.local_bindings or self.reads[name] or self.keyword_elsewhere(name):
            return None
        found = self.listed(
            name, definitions, self.parameter_reads[name], self.parameter_condition_reads[name]
        )
        functions = tuple(sorted({d.function for d in definitions if d.function is not None}))
        return replace(found, functions=functions) if found is not None else None

    def keyword_elsewhere(self, name: str) -> bool:
        """`name=` passed to a function or class of the repository that has no such parameter
        (it may forward it anywhere): the cleanup would refuse the flag."""
        owners = {d.function for d in self.definitions[name]} | {"__init__"}
        return any(
            callee not in owners and (callee in self.functions or callee in self.classes)
            for callee in self.keyword_callees.get(name, ())
        )

    def listed(
        self, name: str, definitions: list[Definition], reads: int, condition_reads: int
    ) -> Candidate | None:
        # One value everywhere, keywords at calls included; repr tells False from 0 and 0.0.
        values = {repr(d.value) for d in definitions} | self.keyword_values.get(name, set())
        if (
            len(values) != 1
            or not condition_reads
            or not all(self.definition_holds(d) for d in definitions)
        ):
            return None
        return Candidate(
            name=name,
            value=definitions[0].value,
            kinds=tuple(sorted({d.kind for d in definitions})),
            definitions=tuple(
                sorted({d.site for d in definitions}, key=lambda s: (s.path, s.line))
            ),
            reads=reads,
            condition_reads=condition_reads,
        )

    def named(self, flag: Flag, overridden: tuple[Override, ...]) -> Candidate:
        """A flag the user named and the engine prunes, at the configured value, whatever find's
        own rules say: its definitions are the literal ones seen (a parameter only where the name
        has no other kind, as `candidate` takes them) and the writes it overrides (a computed
        definition among them); its reads those of that kind."""
        found = self.definitions.get(flag.name, [])
        definitions = [d for d in found if self.in_scope(d, flag.scope)]
        shared = [d for d in definitions if d.kind != PARAMETER]
        parameter = not shared and bool(definitions)
        chosen = shared or definitions
        reads, condition_reads = (
            (self.parameter_reads, self.parameter_condition_reads)
            if parameter
            else (self.reads, self.condition_reads)
        )
        sites = {d.site for d in chosen} | {write.site for write in overridden}
        return Candidate(
            name=flag.name,
            value=flag.value,
            kinds=tuple(sorted({d.kind for d in chosen})),
            definitions=tuple(sorted(sites, key=lambda s: (s.path, s.line))),
            reads=reads[flag.name],
            condition_reads=condition_reads[flag.name],
            functions=tuple(sorted({d.function for d in chosen if d.function is not None})),
            named=True,
            overridden=overridden,
            scope=flag.scope,
        )

    def in_scope(self, definition: Definition, scope: str) -> bool:
        """Whether a definition is the one a qualified key's scope names (`pkg.mod` for a module
        constant, `pkg.mod.Class` for a class's attribute or field, `pkg.mod.func` for a
        parameter), or an override of that attribute in a subclass; every one is, unscoped."""
        if not scope:
            return True
        if definition.kind == PARAMETER:
            inner = ".".join(part for part in (definition.owner, definition.function) if part)
        else:
            inner, scoped_class = definition.owner or "", scope.rpartition(".")[2]
            if inner != scoped_class and inner in self.subclasses(scoped_class):
                return True
        home = qualified(definition.site.path, inner)
        # The key may leave out the directories above the package, as scoping.names_module.
        return home == scope or home.endswith("." + scope)


def discover(
    facts: Iterable[FileFacts],
    internal_modules: frozenset[str] = frozenset(),
    decided: Decided | None = None,
) -> tuple[Candidate, ...]:
    """Names with one literal value everywhere that a condition reads, before measuring, and the
    flags the user named that the engine prunes (see `decide`), each at its configured value; a
    named flag the engine refuses is no candidate, whatever find's own rules say of its name.

    Where the name has attribute, class-level or module-level definitions, only those are
    listed (a parameter sharing the name is a different variable); otherwise parameters.
    """
    repository = Candidates(internal_modules)
    for file_facts in facts:
        repository.add(file_facts)
    repository.rule_out_inherited_attributes()
    decided = decided or Decided()
    named = {flag.name for flag in decided.flags}
    own = (repository.candidate(n) for n in sorted(repository.definitions) if n not in named)
    listed = [
        replace(repository.named(flag, overridden), left=flag.name in decided.left)
        for flag, overridden in decided.pruned
    ]
    return tuple(candidate for candidate in own if candidate is not None) + tuple(listed)
