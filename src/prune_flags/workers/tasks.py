"""What the processes that rewrite are sent: a file's rewrite, and the safety gate's recheck;
each gives back a value, so that it crosses processes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prune_flags.rewrite.context import RewriteContext, RewriteTask, Rewritten
from prune_flags.source.parsing import deeply, parse_ast, too_deep

if TYPE_CHECKING:
    pass


def recheck(task: tuple[str, RewriteContext, bool]) -> str | None:
    """The safety gate after the edit: the result parses, and a second run changes nothing.
    (The context is not the original's: see Contexts.context.)"""
    from prune_flags.rewrite.file import (  # LibCST, in the process that rewrites (see warm)
        FileFailure,
        rewrite,
    )

    text, context, is_package_init = task
    flags = ", ".join(sorted(context.flags))
    try:
        parse_ast(text)
        again = deeply(rewrite, text, context, is_package_init)
    except (SyntaxError, FileFailure) as err:
        return (
            f"internal error while pruning {flags}: the result does not parse ({err});"
            " left untouched"
        )
    except RecursionError:
        return too_deep("run again for the safety gate")
    except Exception as err:  # a bug of ours must cost one file, never the run
        return f"internal error while pruning {flags}: {_brief(err)}; left untouched"
    if again.text != text:
        return (
            f"internal error while pruning {flags}: a second run would change the result"
            " again; left untouched"
        )
    return None


def rewrite_outcome(task: RewriteTask) -> Rewritten | str:
    """One file's rewrite, or why it is left untouched: a value, so that it crosses processes."""
    from prune_flags.rewrite.file import (  # LibCST, in the process that rewrites (see warm)
        FileFailure,
        rewrite,
    )

    path, text, context, is_package_init = task
    try:
        return deeply(rewrite, text, context, is_package_init)
    except FileFailure as failure:
        return str(failure)
    except RecursionError:
        return too_deep("rewrite")
    except Exception as error:  # a bug of ours must cost one file, never the run
        return f"internal error while pruning {', '.join(sorted(context.flags))}: {_brief(error)}"


def _brief(error: Exception) -> str:
    """An unexpected error in one line: its type and the start of its message."""
    first = str(error).strip().split("\n", 1)[0]
    return f"{type(error).__name__}: {first[:200]}"
