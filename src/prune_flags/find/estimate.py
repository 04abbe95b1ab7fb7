"""Counting a candidate's folds from the tree (the default): the branches it decides and the
lines that go with them, by the engine's rules, over only the parts of each file that read it."""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Iterable, Sequence
from concurrent.futures import Executor
from dataclasses import replace
from pathlib import Path
from typing import cast

from prune_flags.find.facts import (
    LITERAL_NAMES,
    PARAMETER,
    Candidate,
    FileFacts,
    Templates,
)
from prune_flags.find.syntax import (
    called_name,
    function_bindings,
    parameter_defaults,
    plain_literal,
    root_name,
)
from prune_flags.semantic.bindings import module_level_names
from prune_flags.source.files import SourceError, read_source
from prune_flags.syntax.statements import merged_spans
from prune_flags.syntax.templates import Template, ast_unfold, template_read
from prune_flags.syntax.values import UNKNOWN, same_value
from prune_flags.workers.pool import chunked_map


class _FoldCounter:
    """The branches one flag folds in one module and the lines that go with them, from the `ast`,
    by the engine's rules: a test that is constant once the flag is inlined keeps only its live
    branch; comments just above a dead `if` go with it. Lines the cascade removes later (fields
    only the dead code read) are not counted: `exact` runs the engine for those."""

    def __init__(
        self,
        trees: Sequence[tuple[ast.Module, int]],
        lines: Sequence[str],
        name: str,
        value: object,
        parameter: bool = False,
        module_bound: bool = False,
        accessors: tuple[Template, ...] = (),
        outside: frozenset[str] = frozenset(),
    ) -> None:
        """Counts over `trees`: the module's, or the parts of it that read the flag in a test
        (whole functions and top-level statements), each with what to add to its line numbers;
        `lines` are the module's, split as the tokenizer splits them; `module_bound`: the module
        binds the name at its top level; `accessors`: the config's templates that read flags;
        `outside`: names bound to other libraries, whose attributes are theirs."""
        self.lines_of_text = lines
        self.outside = outside
        self.accessors = accessors
        self.name = name
        self.value = value
        # A parameter flag: its bare reads inside a function that has it as a parameter with
        # that default (the function's nested scopes included) are the flag.
        self.parameter = parameter
        self.in_parameter = 0
        # The line from which the innermost such function has rebound the name: reads from there
        # on read what it was given (`if use_cache is None: use_cache = ...`), as the engine sees.
        self.rebound: list[float] = []
        # Only the statements whose lines spell the name can fold: the walk skips the rest.
        word = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")
        self.mentioned = [
            n for n, line in enumerate(lines, 1) if name in line and word.search(line)
        ]
        self.module_bound = module_bound
        self.shadowed = 0  # > 0 inside a function that binds the name itself
        self.branches = 0
        self.lines = 0
        self.used = False  # whether the flag's value went into the last truth
        self.offset = 0
        for tree, self.offset in trees:
            self.visit(tree)

    # -- values -------------------------------------------------------------------------------
    def constant(self, node: ast.expr) -> object:
        if self.accessors and (read := template_read(self.accessors, node, LITERAL_NAMES)):
            if read[0] != self.name:
                return UNKNOWN  # another flag's read (config.use_y.value), not an attribute `value`
            found = read[2].match(node, ast_unfold)
            assert found is not None
            self.used = True
            # A membership read is a bool, as the cleanup inlines it: `"x" in opts.enabled`.
            return bool(self.value) != found.negated if found.membership else self.value
        if (
            isinstance(node, ast.Attribute)
            and node.attr == self.name
            and isinstance(node.ctx, ast.Load)
            and root_name(node.value) not in self.outside
        ):
            self.used = True
            return self.value
        if (
            isinstance(node, ast.Name)
            and node.id == self.name
            and (
                self.in_parameter and node.lineno + self.offset < self.rebound[-1]
                if self.parameter
                else self.module_bound and not self.shadowed
            )
        ):
            self.used = True
            return self.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            truth = self.truth(node.operand)
            return UNKNOWN if truth is None else not truth
        if isinstance(node, ast.Compare):
            return self.compare(node)
        return plain_literal(node)

    def compare(self, node: ast.Compare) -> object:
        values = [self.constant(operand) for operand in (node.left, *node.comparators)]
        if any(value is UNKNOWN for value in values):
            return UNKNOWN
        try:
            return all(
                compare_constants(op, left, right)
                for op, left, right in zip(node.ops, values, values[1:])
            )
        except TypeError:
            return UNKNOWN

    def decided(self, test: ast.expr) -> bool | None:
        """The truth of a test the flag decides; None for one it does not (`if 0:`, `while True:`
        are the user's own constants, which the cleanup leaves alone)."""
        self.used = False
        truth = self.truth(test)
        return truth if self.used else None

    def truth(self, node: ast.expr) -> bool | None:
        """bool(node) once the flag is inlined, or None when it still depends on something else."""
        if isinstance(node, ast.BoolOp):
            truths = [self.truth(value) for value in node.values]
            deciding = isinstance(node.op, ast.Or)  # a true operand decides `or`, a false one `and`
            if deciding in truths:
                return deciding
            return (not deciding) if all(truth is not None for truth in truths) else None
        if isinstance(node, ast.Call) and called_name(node.func) == "bool" and len(node.args) == 1:
            return self.truth(node.args[0])
        value = self.constant(node)
        return None if value is UNKNOWN else bool(value)

    # -- the walk -----------------------------------------------------------------------------
    def mentions(self, node: ast.AST) -> bool:
        start = getattr(node, "lineno", None)
        if start is None:  # the module, arguments, comprehensions: no lines of their own
            return True
        after = bisect.bisect_left(self.mentioned, start + self.offset)
        return (
            after < len(self.mentioned)
            and self.mentioned[after] <= node.end_lineno + self.offset  # type: ignore[attr-defined]  # as a node with a lineno has
        )

    def visit(self, node: ast.AST) -> None:
        if not self.mentions(node):
            return
        if isinstance(node, ast.If):
            self.fold_if(node, is_elif=False)
        elif isinstance(node, ast.While):
            self.fold_while(node)
        elif isinstance(node, ast.IfExp):
            self.fold_ternary(node)
        elif isinstance(node, ast.Assert) and self.decided(node.test):
            self.lines += statement_span(node)  # `assert True` goes
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            if self.parameter:
                arguments = node.args
                self.visit_all([*node.args.defaults, *(d for d in arguments.kw_defaults if d)])
                defines = self.defines_parameter(arguments)
                self.in_parameter += defines
                body = node.body if isinstance(node.body, list) else [node.body]
                if defines:
                    self.rebound.append(self.first_store(body))
                self.visit_all(body)
                if defines:
                    self.rebound.pop()
                self.in_parameter -= defines
                return
            binds = self.module_bound and self.name in function_bindings(node)
            self.shadowed += binds
            self.visit_all(ast.iter_child_nodes(node))
            self.shadowed -= binds
        else:
            self.visit_all(ast.iter_child_nodes(node))

    def visit_all(self, nodes: Iterable[ast.AST]) -> None:
        for node in nodes:
            self.visit(node)

    def defines_parameter(self, arguments: ast.arguments) -> bool:
        return any(
            argument.arg == self.name
            and default is not None
            and same_value(plain_literal(default), self.value)
            for _, argument, default in parameter_defaults(arguments)
        )

    def first_store(self, body: list[ast.stmt] | list[ast.expr]) -> float:
        """The first line (in the module) where a function's body binds the flag's name, or
        infinity."""
        lines = [
            node.lineno
            for statement in body
            for node in ast.walk(statement)
            if isinstance(node, ast.Name)
            and node.id == self.name
            and not isinstance(node.ctx, ast.Load)
        ]
        return min(lines) + self.offset if lines else float("inf")

    def fold_if(self, node: ast.If, is_elif: bool) -> None:
        truth = self.decided(node.test)
        orelse = node.orelse
        has_elif = (
            len(orelse) == 1
            and isinstance(orelse[0], ast.If)
            and orelse[0].col_offset == node.col_offset
        )
        if truth is None:
            self.visit_all([node.test, *node.body])
            if has_elif:
                self.fold_if(cast(ast.If, orelse[0]), is_elif=True)  # has_elif says so
            else:
                self.visit_all(orelse)
            return
        self.branches += 1
        header = node.test.end_lineno - node.lineno + 1  # type: ignore[operator]  # parsed: not None
        if truth:
            # The header goes (an elif's becomes `else:`), the body stays dedented, later branches
            # go.
            after = node.end_lineno - node.body[-1].end_lineno if orelse else 0  # type: ignore[operator]  # parsed: not None
            self.lines += header - is_elif + after
            self.visit_all(node.body)
        elif not orelse:
            self.lines += statement_span(node) + (
                0 if is_elif else self.comments_above(node, deleted=True)
            )
        else:
            # Header and body go; an `elif` below becomes the `if`, an `else:` line goes with them.
            gone = orelse[0].lineno - node.lineno - (1 if is_elif and not has_elif else 0)
            self.lines += gone + (0 if is_elif else self.comments_above(node))
            if has_elif:
                self.fold_if(cast(ast.If, orelse[0]), is_elif)  # has_elif says so
            else:
                self.visit_all(orelse)

    def fold_while(self, node: ast.While) -> None:
        if self.decided(node.test) is False:
            self.branches += 1
            self.lines += statement_span(node) + self.comments_above(node, deleted=True)
        else:
            self.visit_all([node.test, *node.body, *node.orelse])

    def fold_ternary(self, node: ast.IfExp) -> None:
        truth = self.decided(node.test)
        if truth is None:
            self.visit_all([node.test, node.body, node.orelse])
        else:
            self.branches += 1
            self.visit(node.body if truth else node.orelse)

    def comments_above(self, node: ast.stmt, deleted: bool = False) -> int:
        """Comment lines right above a statement: the engine removes them with it. But a comment
        heading a paragraph (a blank line or the block's header above it) over a statement
        `deleted` whole, that the next statement goes on from without a blank line, may stay with
        that one (see passes/body.py): it is not counted."""
        text = self.lines_of_text
        count = 0
        line = node.lineno + self.offset - 2  # the index of the line above
        while line >= 0 and text[line].lstrip().startswith("#"):
            count += 1
            line -= 1
        heads = line < 0 or not text[line].strip() or text[line].rstrip().endswith(":")
        below = node.end_lineno + self.offset  # type: ignore[operator]  # parsed: not None; the index of the line below
        indent = text[node.lineno + self.offset - 1][: node.col_offset]
        goes_on = (
            below < len(text)
            and text[below].startswith(indent)
            and text[below][len(indent) :][:1] not in ("", " ", "\t")
        )
        return 0 if deleted and count and heads and goes_on else count


def statement_span(node: ast.stmt) -> int:
    return node.end_lineno - node.lineno + 1  # type: ignore[operator]  # parsed: not None


def compare_constants(op: ast.cmpop, left: object, right: object) -> bool:
    # Equality by type as well as value, as the engine folds: 1 == True is no constant test.
    if isinstance(op, (ast.Eq, ast.NotEq)):
        return same_value(left, right) == isinstance(op, ast.Eq)
    if isinstance(op, (ast.Is, ast.IsNot)):
        if not any(value is None or isinstance(value, bool) for value in (left, right)):
            raise TypeError("identity of other constants is not defined")
        return (left is right) == isinstance(op, ast.Is)
    if isinstance(op, (ast.In, ast.NotIn)):
        return (left in right) == isinstance(op, ast.In)  # type: ignore[operator]  # else TypeError, which the caller takes
    comparisons = {ast.Lt: "__lt__", ast.LtE: "__le__", ast.Gt: "__gt__", ast.GtE: "__ge__"}
    result = getattr(left, comparisons[type(op)])(right)
    if result is NotImplemented:
        raise TypeError("not comparable")
    return bool(result)


def count_folds(
    path: Path,
    flags: Sequence[tuple[str, object] | tuple[str, object, bool]],
    spans: Sequence[tuple[int, int]] = (),
    module_bound: frozenset[str] | None = None,
    templates: Templates = Templates(),
    outside: frozenset[str] = frozenset(),
) -> dict[str, tuple[int, int]]:
    """(branches, lines) each flag folds in one file; a file that no longer reads or parses counts
    nothing. A flag is (name, value), or (name, value, True) for a parameter flag; its reads
    through the `templates`' accessors are the flag too.

    With `spans` (the lines of the functions and top-level statements where the scan saw the
    flags read in a test) and `module_bound` (the names the module binds at its top level), only
    those parts are parsed again, not the whole file; if one does not parse alone, the file does."""
    try:
        text = read_source(path).text
    except SourceError:
        return {}
    lines = _LINE_BREAK.split(text)
    trees = _span_trees(lines, spans) if spans and module_bound is not None else None
    if trees is None:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return {}
        trees, module_bound = [(tree, 0)], frozenset(module_level_names(tree))
    assert module_bound is not None
    accessors, _ = templates.parsed()
    counted = (
        _FoldCounter(  # type: ignore[misc]  # a flag is (name, value) or (name, value, parameter)
            trees,
            lines,
            *flag,
            module_bound=flag[0] in module_bound,
            accessors=accessors,
            outside=outside,
        )
        for flag in flags
    )
    return {counter.name: (counter.branches, counter.lines) for counter in counted}


_LINE_BREAK = re.compile(
    r"\r\n|\r|\n"
)  # the tokenizer's lines (str.splitlines also splits at \f, \x1c...)


def _span_trees(
    lines: Sequence[str], spans: Iterable[tuple[int, int]]
) -> list[tuple[ast.Module, int]] | None:
    """The statements on those lines, each run parsed on its own, with what to add to its line
    numbers; a run that starts indented (a method) inside a `class _:` that is dropped again.
    None if one does not parse alone. Runs a few lines apart are parsed as one, lines between
    included (whole statements too, or the headers of those around the next run)."""
    trees = []
    for start, end in merged_spans(spans, gap=_SPAN_GAP):
        chunk = lines[start - 1 : end]
        indented = chunk[0][:1] in (" ", "\t")
        try:
            module = ast.parse(("class _:\n" if indented else "") + "\n".join(chunk))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        if indented:
            wrapper = module.body[0]
            assert isinstance(wrapper, ast.ClassDef)
            module = ast.Module(body=[*wrapper.body, *module.body[1:]], type_ignores=[])
        trees.append((module, start - 1 - indented))
    return trees


_SPAN_GAP = 20  # lines between two runs that are parsed with them rather than apart


_CountTask = tuple[
    Path,
    Sequence[tuple[str, object, bool]],
    Sequence[tuple[int, int]],
    frozenset[str],
    Templates,
    frozenset[str],
]


def _count_chunk(tasks: Sequence[_CountTask]) -> list[dict[str, tuple[int, int]]]:
    return [count_folds(*task) for task in tasks]


def estimate_all(
    candidates: Sequence[Candidate],
    files: Sequence[Path],
    all_facts: Sequence[FileFacts],
    pool: Executor | None,
    templates: Templates = Templates(),
) -> list[Candidate]:
    """Candidates with their folds counted from the tree; those that fold nothing are dropped,
    but for named flags (the user asked about them)."""
    wanted = {c.name: c for c in candidates}
    tasks = []
    for path, facts in zip(files, all_facts):
        flags = [
            (name, wanted[name].value, is_parameter)
            for is_parameter, reads in (
                (False, facts.condition_reads),
                (True, facts.parameter_condition_reads),
            )
            for name in reads
            if name in wanted and (PARAMETER in wanted[name].kinds) == is_parameter
        ]
        if flags:
            spans = {span for name, _, _ in flags for span in facts.segments.get(name, ())}
            tasks.append((path, flags, tuple(spans), facts.module_bound, templates, facts.outside))
    totals: dict[str, list[int]] = {name: [0, 0] for name in wanted}
    for counts in chunked_map(pool, _count_chunk, tasks):
        for name, (branches, lines) in counts.items():
            totals[name][0] += branches
            totals[name][1] += lines
    estimated = []
    for name, (branches, lines) in totals.items():
        candidate = wanted[name]
        if branches or candidate.named:
            # The flag's own definitions go as well, a line each (a parameter: no line of its own);
            # of one left re-exported, only the writes the config overrides.
            own = 0 if candidate.kinds == (PARAMETER,) else len(candidate.definitions)
            own = len(candidate.overridden) if candidate.left else own
            estimated.append(replace(candidate, branches=branches, lines_removed=lines + own))
    return estimated
