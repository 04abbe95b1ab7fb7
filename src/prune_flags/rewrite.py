"""One file through the LibCST passes, with the safety gate around it.

This is the only place LibCST parses: the round-trip check before, the passes,
the import cleanup, and the `ast` parse after. Failures are values.
"""

from __future__ import annotations

import ast
import difflib
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper

from prune_flags.index import attribute_load_counts
from prune_flags.passes import RemoveUnusedImports, RewriteContext, Rewriter
from prune_flags.report import Change


class FileFailure(Exception):
    """A file the tool leaves untouched, with the reason."""


@dataclass(frozen=True)
class Rewritten:
    text: str
    changes: tuple[Change, ...]


def parse_exactly(text: str) -> cst.Module:
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as err:
        raise FileFailure(f"does not parse: {err.message} (line {err.raw_line}, column {err.raw_column})") from None
    if module.code != text:
        raise FileFailure("skipped: LibCST does not give back this file's exact bytes, so it cannot be edited safely")
    return module


def rewrite(text: str, context: RewriteContext, is_package_init: bool) -> Rewritten:
    """Run the passes over `text`; the context collects the changes, keyed to original lines."""
    module = parse_exactly(text)
    new_module = MetadataWrapper(module, unsafe_skip_copy=True).visit(Rewriter(context))
    new_text = new_module.code
    if new_text == text:
        return Rewritten(text, tuple(context.changes))
    before, after = _parse(text), _parse(new_text)
    unused = _imports_made_unused(before, after, is_package_init)
    if unused:
        import_context = RewriteContext(path=context.path, flags=context.flags, inlined=context.inlined)
        new_text = MetadataWrapper(new_module, unsafe_skip_copy=True).visit(
            RemoveUnusedImports(import_context, unused)
        ).code
        _parse(new_text)
        line_map = _line_map(text, new_module.code)
        context.changes.extend(
            Change(line_map.get(c.line, c.line), c.flag, c.action, c.reason) for c in import_context.changes
        )
    return Rewritten(new_text, tuple(context.changes))


def _parse(text: str) -> ast.Module:
    try:
        return ast.parse(text)
    except SyntaxError as err:
        raise FileFailure(f"internal error: the rewritten file does not parse ({err.msg}, line {err.lineno})") from None


def _imports_made_unused(before: ast.Module, after: ast.Module, is_package_init: bool) -> frozenset[str]:
    """Names the rewrite took the last load of: only those imports may go, never one already unused."""
    if is_package_init:
        return frozenset()  # an __init__.py re-exports what it imports
    old, new = attribute_load_counts(before), attribute_load_counts(after)
    lost = {name for name, count in old.items() if count and not new.get(name) and not name.startswith(".")}
    exported = {
        node.value for node in ast.walk(after) if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    return frozenset(lost - exported)


def _line_map(original: str, rewritten: str) -> dict[int, int]:
    """Lines of the rewritten text -> lines of the original, for changes found after the first walk."""
    mapping: dict[int, int] = {}
    matcher = difflib.SequenceMatcher(None, original.split("\n"), rewritten.split("\n"), autojunk=False)
    for block in matcher.get_matching_blocks():
        for offset in range(block.size):
            mapping[block.b + offset + 1] = block.a + offset + 1
    return mapping
