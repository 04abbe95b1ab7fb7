"""Command-line options that define a flag: argparse/optparse `add_argument("--use-x", ...)`
(or a wrapper of it the config's `option_calls` declares, `add_toggle(parser, "--use-x")`) and
click `@click.option("--use-x", ...)` with the parameter it feeds.

Reads (`args.use_x`, and the click parameter inside its function) are inlined like any
other; once the flag has no reader left, the option goes: the `add_argument` statement,
or the decorator (the parameter goes with the flag parameters, see params.py).
"""

from __future__ import annotations

from typing import cast

import libcst as cst

from prune_flags.rewrite.constants import constant_value
from prune_flags.rewrite.editors.shapes import without_decorators
from prune_flags.rewrite.editors.statements import BodyEditor
from prune_flags.rewrite.purity import dotted_name
from prune_flags.syntax.options import CLICK_OPTIONS, defines_option, option_dest
from prune_flags.vocabulary import Action


def option_call_dest(call: cst.Call, wrappers: tuple[str, ...] = ()) -> str | None:
    """The flag an option call defines (argparse's, click's or a declared wrapper's), if it is
    one."""
    func = dotted_name(call.func) or ""
    if not (defines_option(func, wrappers) or func in CLICK_OPTIONS):
        return None
    strings = [
        v
        for arg in call.args
        if arg.keyword is None and isinstance(v := constant_value(arg.value), str)
    ]
    explicit = next(
        (constant_value(a.value) for a in call.args if a.keyword and a.keyword.value == "dest"),
        None,
    )
    return option_dest(strings, explicit if isinstance(explicit, str) else None)


def click_flags(function: cst.FunctionDef) -> set[str]:
    """Parameters of a click command that its option decorators fill."""
    found = set()
    for decorator in function.decorators:
        if isinstance(decorator.decorator, cst.Call):
            dest = option_call_dest(decorator.decorator)
            if dest and (dotted_name(decorator.decorator.func) or "") in CLICK_OPTIONS:
                found.add(dest)
    return found


class PruneOptions(BodyEditor):
    def _dead_flag(self, name: str | None) -> bool:
        return name is not None and name in self.context.flags and name in self.context.dead_names

    def edit_small_statement(
        self, original: cst.BaseSmallStatement, updated: cst.BaseSmallStatement
    ) -> list[cst.BaseSmallStatement] | None:
        if isinstance(updated, cst.Expr) and isinstance(updated.value, cst.Call):
            wrappers = self.context.option_calls
            dest = option_call_dest(updated.value, wrappers)
            if self._dead_flag(dest) and defines_option(
                dotted_name(updated.value.func) or "", wrappers
            ):
                assert dest is not None
                death = self.context.dead_names[dest]
                self.record(
                    original,
                    Action.REMOVED_OPTION,
                    f"the option fills {dest}: {death.reason}",
                    death.flag,
                )
                return []
        return super().edit_small_statement(original, updated)

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef:
        # Every pass's leave_FunctionDef gives back a function, LibCST's the one it is given.
        updated_node = cast(cst.FunctionDef, super().leave_FunctionDef(original_node, updated_node))
        kept = []
        for original, decorator in zip(original_node.decorators, updated_node.decorators):
            call = decorator.decorator
            dest = option_call_dest(call) if isinstance(call, cst.Call) else None
            if (
                isinstance(call, cst.Call)  # (dest is None otherwise)
                and self._dead_flag(dest)
                and (dotted_name(call.func) or "") in CLICK_OPTIONS
            ):
                assert dest is not None
                death = self.context.dead_names[dest]
                self.record(
                    original,
                    Action.REMOVED_OPTION,
                    f"the option fills {dest}: {death.reason}",
                    death.flag,
                )
                continue
            kept.append(decorator)
        return without_decorators(updated_node, kept)
