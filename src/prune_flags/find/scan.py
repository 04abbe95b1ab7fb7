"""Scanning one file: the scanner (its state and handlers in the scan_* modules) and `scan_file`,
which a worker runs on each file: a file that cannot be read or parsed rules out every word in it.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from prune_flags.find.facts import FileFacts, Templates
from prune_flags.find.scan_bindings import Bindings
from prune_flags.find.scan_calls import Calls
from prune_flags.find.scan_definitions import Definitions
from prune_flags.find.scan_state import EXTERNAL_BUILTINS
from prune_flags.source.files import SourceError, read_source

_IDENTIFIER = re.compile(r"[^\W\d]\w*")


class Scanner(Bindings, Definitions, Calls):
    """One pass over a module's tree; every handler records facts, then visits what it holds."""

    def visit(self, node: ast.AST) -> None:
        # Names and strings, a third of a tree, are handled first, strings without a call of their
        # own.
        kind = node.__class__
        if kind is _NAME:  # a name used other than as a callee: as a value it may escape
            if not (self.naming and id(node) in self.naming):  # not `use_x` of `use_x.value`
                self.value_refs.add(node.id)  # type: ignore[attr-defined]  # a Name: mypy cannot narrow by `kind`
            self.read_name(node)  # type: ignore[arg-type]  # a Name (as above)
            return
        if kind is _CONSTANT:
            value = node.value  # type: ignore[attr-defined]  # a Constant: mypy cannot narrow by `kind`
            if value.__class__ is str and len(value) < 80:
                if not (self.naming and id(node) in self.naming):
                    self.string(value)
            return
        # Every other kind: its handler, or its children.
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, node)
            return
        # By hand rather than ast.iter_child_nodes: this loop runs for many nodes of the tree.
        fields = _CHILD_FIELDS.get(kind)
        if fields is None:
            fields = _child_fields(kind)
        visit = self.visit
        for name in fields:
            child = getattr(node, name)
            if child.__class__ is list:
                for item in child:
                    if item is not None and item.__class__ is not str:
                        visit(item)
            elif child is not None and isinstance(child, ast.AST):
                visit(child)

    # -- result -----------------------------------------------------------------------------
    def facts(self) -> FileFacts:
        # A bare name read counts for a module-level flag only where the module binds it.
        module_names = self.module_names
        reads = (
            Counter(self.attribute_reads)
            + Counter({n: c for n, c in self.name_reads.items() if n in module_names})
            + Counter(self.template_reads)
        )
        condition_reads = (
            Counter(self.attribute_condition_reads)
            + Counter({n: c for n, c in self.name_condition_reads.items() if n in module_names})
            + Counter(self.template_condition_reads)
        )
        return FileFacts(
            path=self.path,
            definitions=tuple(self.definitions),
            disqualified=frozenset(self.disqualified),
            local_bindings=frozenset(self.local_bindings),
            stored=frozenset(self.stored),
            mentions=frozenset(self.mentions),
            reads=dict(reads),
            condition_reads=dict(condition_reads),
            parameter_reads=self.parameter_reads,
            parameter_condition_reads=self.parameter_condition_reads,
            environment=frozenset(self.environment),
            keyword_values={
                name: frozenset(values) for name, values in self.keyword_values.items()
            },
            imports=tuple(self.imports),
            calls=self.calls,
            splat_calls=frozenset(self.splat_calls),
            value_refs=frozenset(self.value_refs),
            spelled=frozenset(self.spelled),
            computed_names=frozenset(self.computed_names),
            functions=frozenset(self.functions),
            keyword_callees=frozenset(self.keyword_callees),
            classes=tuple(self.classes),
            self_reads=frozenset(self.self_reads),
            segments={
                name: tuple(sorted(spans))
                for name, spans in self.segments.items()
                if name in condition_reads or name in self.parameter_condition_reads
            },
            module_bound=frozenset(self.top_level.intersection(self.name_condition_reads)),
            outside=frozenset(self.external - EXTERNAL_BUILTINS),
            template_reads=self.template_reads,
            named_template_reads=frozenset(self.named_template_reads),
            bare_template_reads=frozenset(self.bare_template_reads),
        )


_NAME, _CONSTANT = ast.Name, ast.Constant
_HANDLERS: dict[type, Callable[[Scanner, Any], None]] = {
    ast.Assign: Scanner.assign, ast.AnnAssign: Scanner.ann_assign, ast.AugAssign: Scanner.rebind,
    ast.Delete: Scanner.rebind, ast.For: Scanner.loop, ast.AsyncFor: Scanner.loop,
    ast.With: Scanner.with_, ast.AsyncWith: Scanner.with_,
    ast.ExceptHandler: Scanner.except_handler,
    ast.Import: Scanner.import_, ast.ImportFrom: Scanner.import_from,
    ast.FunctionDef: Scanner.function, ast.AsyncFunctionDef: Scanner.function,
    ast.Lambda: Scanner.lambda_, ast.ClassDef: Scanner.class_, ast.Global: Scanner.global_,
    ast.NamedExpr: Scanner.named_expr,
    ast.ListComp: Scanner.comprehension, ast.SetComp: Scanner.comprehension,
    ast.GeneratorExp: Scanner.comprehension, ast.DictComp: Scanner.comprehension,
    ast.If: Scanner.test_first, ast.While: Scanner.test_first, ast.IfExp: Scanner.test_first,
    ast.Assert: Scanner.test_first, ast.BoolOp: Scanner.bool_op,
    ast.Attribute: Scanner.attribute, ast.Call: Scanner.call, ast.Subscript: Scanner.subscript,
    ast.Expr: Scanner.expression_statement, ast.Module: Scanner.module,
    ast.Compare: Scanner.compare,
    ast.MatchAs: Scanner.match_capture, ast.MatchStar: Scanner.match_capture,
    ast.MatchMapping: Scanner.match_capture,
}  # fmt: skip

_CHILD_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {}


def _child_fields(node_type: type[ast.AST]) -> tuple[str, ...]:
    """The fields of a node type that may hold nodes worth visiting (not contexts or operators)."""
    fields = _CHILD_FIELDS.get(node_type)
    if fields is None:
        skipped = ("ctx", "op", "ops", "type_comment")
        fields = _CHILD_FIELDS[node_type] = tuple(
            name for name in node_type._fields if name not in skipped
        )
    return fields


def scan_file(
    path: Path,
    display: str,
    internal_modules: frozenset[str],
    mentions: bool = True,
    templates: Templates = Templates(),
) -> FileFacts:
    """Facts about every name in one file, the reads and writes through the config's
    `templates` included. A file that cannot be read or parsed disqualifies every identifier in
    its text: it might write any of them. `mentions` (every name the file mentions) only serve
    to measure with the engine; without them the facts travel lighter."""
    try:
        text = read_source(path).text
    except SourceError as err:
        return _unparsed(display, _raw_text(path), str(err))
    with collector_paused():
        try:
            scanner = Scanner(display, internal_modules, templates)
            scanner.visit(ast.parse(text))
            facts = scanner.facts()
        except SyntaxError as err:
            return _unparsed(display, text, f"does not parse: {err.msg} (line {err.lineno})")
        except (RecursionError, MemoryError, ValueError):
            return _unparsed(display, text, "too deeply nested to analyse")
    return facts if mentions else replace(facts, mentions=frozenset())


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Trees and facts hold no cycles: the collector would only rescan them, over and over, as
    they grow (a parse makes a million objects; the facts of a big repository as many)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _raw_text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""


def _unparsed(display: str, text: str, error: str) -> FileFacts:
    words = frozenset(_IDENTIFIER.findall(text))
    return FileFacts(
        path=display, disqualified=words, local_bindings=words, mentions=words, error=error
    )
