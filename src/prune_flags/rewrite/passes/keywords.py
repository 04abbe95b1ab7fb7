"""Library keywords (opt-in, see model/library.py): a keyword argument the inlining made the
installed callee's default goes, with its comma."""

# Library keywords (opt-in, see model/library.py): a keyword argument that the inlining made a
# constant (`torch.compile(model, fullgraph=self.fast)` -> `fullgraph=False`) goes, with its comma,
# where the engine found that the installed library's callee defaults to that same value.
#
# The engine names the places (line and keyword, from the original's `ast`) with each default; this
# pass only checks that the rewrite made the value a constant, from a value that was none, and that
# the constant is the default.

from __future__ import annotations

import libcst as cst
from libcst.metadata import PositionProvider

from prune_flags.model.library import same_default
from prune_flags.rewrite.constants import constant_value
from prune_flags.rewrite.editors.shapes import without_element
from prune_flags.rewrite.editors.statements import BodyEditor
from prune_flags.rewrite.purity import dotted_name
from prune_flags.syntax.values import UNKNOWN
from prune_flags.vocabulary import Action


class PruneLibraryKeywords(BodyEditor):
    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        result = super().leave_Call(original_node, updated_node)
        if not self.context.library_keywords or not isinstance(result, cst.Call):
            return result
        callee = dotted_name(original_node.func)
        if callee is None or any(arg.star for arg in original_node.args):
            return result  # (`*args` or `**kwargs` could pass the keyword again: never asked about)
        positionals = sum(1 for arg in original_node.args if arg.keyword is None)
        originals = {
            arg.keyword.value: arg for arg in original_node.args if arg.keyword is not None
        }
        args = list(result.args)
        for index in reversed(range(len(args))):
            keyword = args[index].keyword
            if keyword is None or keyword.value not in originals:
                continue
            if self._is_default(
                (callee, keyword.value, positionals), originals[keyword.value], args[index]
            ):
                args = without_element(args, index)
        return result.with_changes(args=args) if len(args) < len(result.args) else result

    def _is_default(self, call: tuple[str, str, int], original: cst.Arg, arg: cst.Arg) -> bool:
        """Whether the keyword goes: the engine knows its callee's default at this place (callee,
        keyword and positional arguments on the line), the value was no constant as written (a
        literal there is the author's) and the rewrite made it that default."""
        callee, keyword, positionals = call
        found = self.context.library_keywords.get(
            (self.line_of(original), callee, keyword, positionals)
        )
        value = constant_value(arg.value)
        if found is None or value is UNKNOWN or constant_value(original.value) is not UNKNOWN:
            return False
        if not same_default(value, found.default):
            return False
        span = self.get_metadata(PositionProvider, original)
        flag = next(iter(self.context.flags_within(span)), None) or self.context.flag_near(
            span.start.line
        )
        reason = f"`{keyword}={value!r}` is `{callee}`'s default"
        self.record(original, Action.REMOVED_DEFAULT_KEYWORD, reason, flag)
        return True
