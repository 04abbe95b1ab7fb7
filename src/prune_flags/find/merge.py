"""Merging every file's facts by name, and what the merged facts tell of classes: which are
plain (their attributes hold what the repository writes), which derive from which."""

from __future__ import annotations

import builtins
from collections import Counter
from dataclasses import dataclass, field

from prune_flags.find.facts import ClassFacts, Definition, FileFacts

# Bases whose instances keep ordinary attribute semantics; any other base outside the
# repository may write attributes we cannot see (torch.nn.Module sets `training`).
SAFE_BASES = frozenset(
    {"ABC", "Generic", "Protocol", "NamedTuple"}
    | {name for name, value in vars(builtins).items() if isinstance(value, type)}
)


@dataclass
class ScannedRepository:
    """Every file's facts merged by name."""

    internal_modules: frozenset[str]
    definitions: dict[str, list[Definition]] = field(default_factory=dict)
    disqualified: set[str] = field(default_factory=set)
    local_bindings: set[str] = field(default_factory=set)
    environment: set[str] = field(default_factory=set)
    keyword_values: dict[str, set[str]] = field(default_factory=dict)
    imports: dict[str, set[bool]] = field(default_factory=dict)
    reads: Counter[str] = field(default_factory=Counter)
    condition_reads: Counter[str] = field(default_factory=Counter)
    parameter_reads: Counter[str] = field(default_factory=Counter)
    parameter_condition_reads: Counter[str] = field(default_factory=Counter)
    calls: dict[str, int] = field(default_factory=dict)
    splat_calls: set[str] = field(default_factory=set)
    value_refs: set[str] = field(default_factory=set)
    spelled: set[str] = field(default_factory=set)
    computed_names: set[tuple[str, str]] = field(default_factory=set)
    functions: set[str] = field(default_factory=set)
    keyword_callees: dict[str, set[str]] = field(default_factory=dict)
    classes: dict[str, list[ClassFacts]] = field(default_factory=dict)
    self_reads: set[tuple[str, str]] = field(default_factory=set)
    template_reads: Counter[str] = field(default_factory=Counter)
    named_template_reads: set[str] = field(default_factory=set)
    bare_template_reads: set[str] = field(default_factory=set)
    _plain: dict[str, bool] = field(default_factory=dict)
    _subclasses: dict[str, frozenset[str]] = field(default_factory=dict)
    _children: dict[str, set[str]] | None = None

    def add(self, facts: FileFacts) -> None:
        for definition in facts.definitions:
            self.definitions.setdefault(definition.name, []).append(definition)
        self.disqualified |= facts.disqualified
        self.local_bindings |= facts.local_bindings
        self.environment |= {name.lower() for name in facts.environment}
        for name, values in facts.keyword_values.items():
            self.keyword_values.setdefault(name, set()).update(values)
        for name, internal in facts.imports:
            self.imports.setdefault(name, set()).add(internal)
        self.reads.update(facts.reads)
        self.condition_reads.update(facts.condition_reads)
        self.parameter_reads.update(facts.parameter_reads)
        self.parameter_condition_reads.update(facts.parameter_condition_reads)
        for callee, count in facts.calls.items():
            self.calls[callee] = max(self.calls.get(callee, 0), count)
        self.splat_calls |= facts.splat_calls
        self.value_refs |= facts.value_refs
        self.spelled |= facts.spelled
        self.computed_names |= facts.computed_names
        self.functions |= facts.functions
        for name, callee in facts.keyword_callees:
            self.keyword_callees.setdefault(name, set()).add(callee)
        for class_facts in facts.classes:
            self.classes.setdefault(class_facts.name, []).append(class_facts)
        self.self_reads |= facts.self_reads
        self.template_reads.update(facts.template_reads)
        self.named_template_reads |= facts.named_template_reads
        self.bare_template_reads |= facts.bare_template_reads

    def rule_out_inherited_attributes(self) -> None:
        """`self.training` in a torch.nn.Module subclass is torch's to set, whatever the repository
        writes elsewhere: what a class outside the repository's reach reads of itself is out."""
        self.disqualified |= {name for owner, name in self.self_reads if not self.plain(owner)}

    def plain(self, class_name: str, seen: frozenset[str] = frozenset()) -> bool:
        """Whether the class's attributes hold what the repository writes: no metaclass, no base
        from outside the repository that could write them, no enum."""
        if class_name in SAFE_BASES:
            return True
        if class_name not in self.classes or class_name in seen:
            return False
        if class_name not in self._plain:
            self._plain[class_name] = all(
                facts.plain_header
                and all(
                    base is not None and self.plain(base, seen | {class_name})
                    for base in facts.bases
                )
                for facts in self.classes[class_name]
            )
        return self._plain[class_name]

    def subclasses(self, class_name: str) -> frozenset[str]:
        """The class and every class below it, by name."""
        children = self._children
        if children is None:
            children = self._children = {}
            for facts_list in self.classes.values():
                for facts in facts_list:
                    for base in facts.bases:
                        if base is not None:
                            children.setdefault(base, set()).add(facts.name)
        known = self._subclasses.get(class_name)
        if known is None:
            found, stack = {class_name}, [class_name]
            while stack:
                for child in children.get(stack.pop(), ()):
                    if child not in found:
                        found.add(child)
                        stack.append(child)
            known = self._subclasses[class_name] = frozenset(found)
        return known
