"""The classes and functions of a module by their dotted paths, and a name's facts less what
stands inside some of them (where a scoped flag's name is another definition's)."""

from __future__ import annotations

import ast

from prune_flags.semantic.facts import NameFacts, Site
from prune_flags.syntax.statements import (
    DefinitionNode,
    first_line,
    nested_blocks,
)


def owner_spans(tree: ast.Module) -> list[tuple[str, int, int, DefinitionNode]]:
    """Every class and function of a module with its dotted path inside the module (`Car`,
    `Car.drive`, `tune`), its lines (decorators included) and itself; outer ones first."""
    found = []

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, DefinitionNode):
                found.append(
                    (prefix + node.name, first_line(node), node.end_lineno or node.lineno, node)
                )
                walk(node.body, prefix + node.name + ".")
            else:
                for block in nested_blocks(node):
                    walk(block, prefix)

    walk(tree.body, "")
    return found


def foreign_spans(tree: ast.Module, owners: frozenset[str]) -> list[tuple[int, int]]:
    """The lines of the classes and functions named (by dotted path), "" standing for the module."""
    if "" in owners:
        return [(1, 1 << 30)]
    return [(start, end) for path, start, end, _ in owner_spans(tree) if path in owners]


def without_foreign(facts: NameFacts, spans: list[tuple[int, int]]) -> NameFacts:
    """The facts less the sites inside the spans (of one file's facts)."""

    def outside(site: Site) -> bool:
        return not any(start <= site.line <= end for start, end in spans)

    return NameFacts(
        attribute_reads=[s for s in facts.attribute_reads if outside(s)],
        name_reads=[s for s in facts.name_reads if outside(s)],
        string_reads=[s for s in facts.string_reads if outside(s)],
        table_mentions=[s for s in facts.table_mentions if outside(s)],
        assert_reads=[r for r in facts.assert_reads if outside(r.site)],
        writes=[w for w in facts.writes if outside(w.site)],
        object_reads=[r for r in facts.object_reads if outside(r.site)],
        passed=[w for w in facts.passed if outside(w.site)],
    )


def all_sites(facts: NameFacts) -> list[Site]:
    return [
        *facts.attribute_reads, *facts.name_reads, *facts.string_reads, *facts.table_mentions,
        *(read.site for read in facts.assert_reads), *(write.site for write in facts.writes),
        *(passed.site for passed in facts.passed),
    ]  # fmt: skip


Foreign = dict[
    str, frozenset[str]
]  # display path -> the dotted paths of the owners a flag is foreign in
