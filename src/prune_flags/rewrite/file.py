"""One file through the LibCST passes, with the safety gate around it.

This is the only place LibCST parses: the round-trip check before, the passes,
the import cleanup, and the `ast` parse after. Failures are values.
"""

from __future__ import annotations

import ast
import functools
from collections import Counter
from collections.abc import Collection, Iterable, Iterator
from dataclasses import replace

import libcst as cst
from libcst.metadata import MetadataWrapper

from prune_flags.report import Change
from prune_flags.rewrite.context import Death, RewriteContext, Rewritten
from prune_flags.rewrite.passes.imports import RemoveUnusedImports
from prune_flags.rewrite.rewriter import Rewriter
from prune_flags.rewrite.view import View, view_of
from prune_flags.semantic.locals import function_locals
from prune_flags.semantic.scan import scan
from prune_flags.semantic.trees import TreeNames, tree_names
from prune_flags.source.parsing import parse_ast
from prune_flags.source.words import lines_naming
from prune_flags.syntax.lines import LineMap
from prune_flags.syntax.options import spells_option
from prune_flags.syntax.statements import (
    nested_blocks,
    statements_holding,
    statements_holding_sorted,
)
from prune_flags.syntax.templates import module_writers


class FileFailure(Exception):
    """A file the tool leaves untouched, with the reason."""


@functools.lru_cache(maxsize=64)
def _wrapped(text: str) -> MetadataWrapper:
    """A file's tree with its positions, parsed once however many rounds rewrite it."""
    return MetadataWrapper(parse_exactly(text), unsafe_skip_copy=True)


def parse_exactly(text: str) -> cst.Module:
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as err:
        raise FileFailure(
            f"does not parse: {err.message} (line {err.raw_line}, column {err.raw_column})"
        ) from None
    if module.code != text:
        raise FileFailure(
            "skipped: LibCST does not give back this file's exact bytes, so it cannot be"
            " edited safely"
        )
    return module


def rewrite(text: str, context: RewriteContext, is_package_init: bool) -> Rewritten:
    """Run the passes over `text`; the context collects the changes, keyed to original lines.

    Each local that loses its last read sends the passes over the original text once more
    with that local dead too, so that a chain `a = f(); b = a` goes in as many rounds.
    A text that names nothing the run acts on is left as it is without being parsed: the whole
    run never opens such a file, so neither does its second run. Otherwise LibCST parses only
    the statements that name something (see `window`), or the whole file when the rewrite
    reaches past them.
    """
    lines = lines_naming(text, context.acted_on()) | context.removable_asserts
    if context.tests is not None:
        lines |= context.tests.lines()
    if not lines:
        return Rewritten(text, ())
    before = _parse(text)
    context = replace(
        context, writers=module_writers(before, context.writers)
    )  # Django's, where imported
    if not context.removable_asserts and not _acts_on(before, text, context):
        return Rewritten(
            text, ()
        )  # the names only in longer strings and comments: nothing to parse
    carriers = _carriers(
        text, before, lines, context.flags.keys()
    )  # their lines are the flag's too
    lines |= lines_naming(text, carriers)
    # An import an inlined helper needs joins the module's import block, which the view may not
    # hold; the tests' edits are planned by the whole file's lines.
    calls = [*context.helpers.values(), *context.method_calls.values()]
    whole = any(call.imports for call in calls) or context.tests is not None
    while True:
        view = View(text) if whole else view_of(text, before, lines)
        try:
            attempt, new_module = _rewrite_view(view, replace(context, relevant_lines=lines))
        except FileFailure:
            if not view.partial:
                raise
            whole = (
                True  # a view LibCST does not take as it is (`@(` on a line of its own): the file
            )
            continue
        new_view_text = new_module.code
        new_text = view.splice(new_view_text)
        if new_text is None or (view.partial and attempt.unreachable_outside_functions):
            whole = True  # the rewrite reached past a run: the whole file's statements decide
            continue
        if new_text == text:
            return Rewritten(text, ())
        view_tree, new_view_tree = _parse(view.text), _parse(new_view_text)
        loads_before, after = _counts(
            text, before, view, tree_names(view_tree), tree_names(new_view_tree)
        )
        lost = _names_made_unused(loads_before, after)
        new_locals = _locals_made_dead(view_tree, new_view_tree, context.dead_locals.keys())
        if not new_locals:
            break
        reason = "its last read went with the code this cleanup removed"
        causes = _causes(view.text, new_view_text, {name for _, name in new_locals}, attempt)
        dead_locals = {local: Death(causes[local[1]], reason) for local in new_locals}
        context = replace(context, dead_locals={**context.dead_locals, **dead_locals})
        lines = lines_naming(text, context.acted_on() | carriers) | context.removable_asserts
        if context.tests is not None:
            lines |= context.tests.lines()
    changes = [replace(change, line=view.file_line(change.line)) for change in attempt.changes]
    inlined = [(view.file_line(line), column, flag) for line, column, flag in attempt.inlined]
    causes = _causes(view.text, new_view_text, loads_before, attempt)
    # An __init__.py re-exports what it imports; a name in a string (`__all__`) counts as used.
    unused_imports = {}
    if lost and not is_package_init:
        unused = (lost & set(after.imported)) - set(after.strings) - context.kept_imports
        unused_imports = {name: causes[name] for name in unused}
    if unused_imports:
        import_context = RewriteContext(path=context.path, flags=context.flags, inlined=inlined)
        line_map = LineMap(text, new_text).kept
        new_text = (
            MetadataWrapper(parse_exactly(new_text), unsafe_skip_copy=True)
            .visit(RemoveUnusedImports(import_context, unused_imports))
            .code
        )
        _parse(new_text)
        changes += [
            Change(line_map.get(c.line, c.line), c.flag, c.action, c.reason)
            for c in import_context.changes
        ]
    # What a deleted test read still counts for the rest of the repository: a test is a user of
    # the code it calls, not a reason to keep it (its imports here go, what they name stays).
    loads_after = after.loads + _deleted_tests_loads(before, context)
    return Rewritten(
        new_text,
        tuple(changes),
        loads_before,
        loads_after,
        causes,
        frozenset(attempt.inlined_helpers),
    )


def _deleted_tests_loads(tree: ast.Module, context: RewriteContext) -> Counter[str]:
    """The loads in the tests, fixtures and test classes the tests pass deletes whole."""
    removals = context.tests.removals if context.tests is not None else {}
    deleted = {line for place, line in removals if place == "deleted"}
    if not deleted:
        return Counter()
    nodes = [
        node
        for statement in tree.body
        for node in [statement, *(statement.body if isinstance(statement, ast.ClassDef) else [])]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and node.lineno in deleted
    ]
    outermost: list[ast.stmt] = [
        node
        for node in nodes
        if not any(
            other is not node and node in other.body
            for other in nodes
            if isinstance(other, ast.ClassDef)
        )
    ]
    return tree_names(ast.Module(outermost, [])).loads


def _acts_on(tree: ast.Module, text: str, context: RewriteContext) -> bool:
    """Whether the `ast` holds something a pass acts on: a read, write or definition of a name the
    run acts on as the index sees them (an attribute, a bare name, a string equal to it, a keyword,
    a parameter, an option), or a string spelling a dead switch's option (`"--use-x"`). A file that
    names them only inside longer strings or in comments (`pydoc_data/topics.py`) is never handed
    to LibCST."""
    names = context.acted_on()
    shapes = (context.writers, context.accessors)
    if scan(tree, context.path, names, *shapes, text, context.name_constants, context.option_calls):
        return True
    options = context.gone_options()
    return bool(options) and any(
        isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and any(
            spells_option(node.value.partition("=")[0], flag, strings)
            for flag, strings in options.items()
        )
        for _, _, statement in statements_holding(tree.body, lines_naming(text, names))
        for node in ast.walk(statement)
    )


def _rewrite_view(view: View, context: RewriteContext) -> tuple[RewriteContext, cst.Module]:
    """One traversal of the passes over the view; the attempt's lines are the view's own. The
    blocks it walks are those holding the lines the view was chosen for (the context's
    relevant lines, in the file)."""
    asserts = view.view_lines(context.removable_asserts)
    relevant = None if context.relevant_lines is None else view.view_lines(context.relevant_lines)
    library = {
        (line, callee, keyword, positionals): default
        for (file_line, callee, keyword, positionals), default in context.library_keywords.items()
        for line in view.view_lines(frozenset([file_line]))
    }
    attempt = replace(
        context,
        changes=[],
        inlined=[],
        inlined_helpers=set(),
        relevant_lines=relevant,
        removable_asserts=asserts,
        library_keywords=library,
        method_calls={
            (line, name): call
            for (file_line, name), call in context.method_calls.items()
            for line in view.view_lines(frozenset([file_line]))
        },
        overridden_writes={
            line: flag
            for file_line, flag in context.overridden_writes.items()
            for line in view.view_lines(frozenset([file_line]))
        },
        unreachable_outside_functions=False,
    )
    return attempt, _wrapped(view.text).visit(Rewriter(attempt))


def _carriers(
    text: str, tree: ast.Module, lines: frozenset[int], flags: Collection[str]
) -> frozenset[str]:
    """Names the passes read as a flag without being spelled like it: a module's import alias
    (`from settings import FAST as F`) and a local bound to a flag's read (`f = self.fast`,
    `f = F`, or a lookup by name on the flag's line: `f = os.environ.get("FAST")`, and locals
    bound to those). A line reading one is as relevant as a line naming the flag: the view holds it
    and the passes walk its block. This finds a superset of what the passes inline (see
    `passes.scopes.flag_bindings` and `flag_locals`); a name too many only walks a block more.
    Only the statements holding the flag's lines (or an alias's) are looked into."""
    aliases = {
        alias.asname
        for statement in tree.body
        if isinstance(statement, ast.ImportFrom)
        for alias in statement.names
        if alias.asname and alias.name in flags
    }
    read_as_flag = {*flags, *aliases}
    carried: set[str] = set()
    searched = lines | lines_naming(text, aliases)
    while True:  # an alias of a carrier carries too: look again on its lines
        found = {
            assign.targets[0].id
            for assign in _assignments(tree.body, searched)
            if len(assign.targets) == 1
            and isinstance(assign.targets[0], ast.Name)
            and (
                isinstance(assign.value, (ast.Attribute, ast.Call, ast.Subscript, ast.Compare))
                or (
                    isinstance(assign.value, ast.Name) and assign.value.id in read_as_flag | carried
                )
            )
        } - carried
        if not found:
            return frozenset((aliases | carried).difference(flags))
        carried |= found
        searched |= lines_naming(text, found)


def _assignments(body: list[ast.stmt], lines: frozenset[int]) -> Iterator[ast.Assign]:
    """The assignments among the statements holding one of the lines, in blocks at any depth."""
    return _assignments_at(body, sorted(lines))


def _assignments_at(body: list[ast.stmt], ordered: list[int]) -> Iterator[ast.Assign]:
    for _, _, statement in statements_holding_sorted(body, ordered):
        if isinstance(statement, ast.Assign):
            yield statement
        for block in nested_blocks(statement):
            yield from _assignments_at(block, ordered)


@functools.lru_cache(maxsize=16)
def _parse(text: str) -> ast.Module:
    try:
        return parse_ast(text)
    except SyntaxError as err:
        raise FileFailure(
            f"internal error: the rewritten file does not parse ({err.msg}, line {err.lineno})"
        ) from None


def _counts(
    text: str, tree: ast.Module, view: View, old_view: TreeNames, new_view: TreeNames
) -> tuple[Counter[str], TreeNames]:
    """The file's loads, before and after, of the names the rewrite took loads of, and how the
    rewritten file uses those names. Only the view changed, so the rest of the file is walked
    only where its statements left out of the view name one of them."""
    dropped = {name for name, count in old_view.loads.items() if new_view.loads[name] < count}
    holding = lines_naming(text, {name.lstrip(".") for name in dropped})
    outside = tree_names(ast.Module(list(_left_out(tree.body, view, holding)), []))
    loads_before = Counter({name: outside.loads[name] + old_view.loads[name] for name in dropped})
    return loads_before, outside.plus(new_view)


def _left_out(body: list[ast.stmt], view: View, lines: frozenset[int]) -> Iterator[ast.stmt]:
    """The statements holding one of the lines that the view leaves out: those outside its runs,
    and the body statements cut out of a class whose header is in it."""
    for start, _, statement in statements_holding(body, lines):
        if not view.holds(start):
            yield statement
        elif isinstance(statement, ast.ClassDef):
            yield from _left_out(statement.body, view, lines)


def _locals_made_dead(
    before: ast.Module, after: ast.Module, known: Collection[tuple[str, str]]
) -> set[tuple[str, str]]:
    """The locals (function, name) the rewrite took the last load of, as `_names_made_unused`
    has it for the names of a module, in the function and the scopes nested in it: no read
    elsewhere can reach them. A function that reads its locals by name (`locals()`, `eval`)
    keeps them all."""
    old = function_locals(before)
    return {
        (qualname, name)
        for qualname, function in function_locals(after).items()
        if qualname in old and not function.introspects
        for name in function.bound
        if (qualname, name) not in known
        and function.loads[name] < old[qualname].loads[name]
        and function.loads[name] - function.own_updates[name] <= 0
    }


def _names_made_unused(old: Counter[str], after: TreeNames) -> set[str]:
    """Bare names the rewrite took the last load of (`old`: the loads before it): only those
    imports and locals may go. A load in the name's own update (`x = x or {}`) does not keep it,
    but a name whose loads the rewrite did not touch is none of its business."""
    return {
        name
        for name, count in old.items()
        if not name.startswith(".")
        and after.loads[name] < count
        and after.loads[name] - after.own_updates[name] <= 0
    }


def _causes(
    old_view: str, new_view: str, keys: Iterable[str], attempt: RewriteContext
) -> dict[str, str]:
    """For each name (`.attr` or bare) that lost loads in the view, the flag whose change removed
    them: the change nearest above the first line naming it that the rewrite did not keep as it
    was. Two flags cleaned up in one file each take their own bookkeeping with them."""
    kept = set(LineMap(old_view, new_view).kept.values())
    causes = {}
    for key in keys:
        lost_on = sorted(lines_naming(old_view, [key.lstrip(".")]) - kept)
        causes[key] = attempt.flag_changed_near(lost_on[0] if lost_on else 0)
    return causes
