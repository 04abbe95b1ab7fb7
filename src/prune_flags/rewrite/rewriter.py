"""The passes composed into one bottom-up traversal: inlining at the leaves, simplifying the
expressions above them and folding the statements above those happen in a single walk, every
decision seeing its children already rewritten."""

from prune_flags.rewrite.passes.fold import FoldBranches
from prune_flags.rewrite.passes.helpers import InlineHelpers
from prune_flags.rewrite.passes.inline import InlineFlags
from prune_flags.rewrite.passes.keywords import PruneLibraryKeywords
from prune_flags.rewrite.passes.lookups import InlineLookups
from prune_flags.rewrite.passes.options import PruneOptions
from prune_flags.rewrite.passes.params import PruneFlagParameters
from prune_flags.rewrite.passes.prune import PruneDeadWrites
from prune_flags.rewrite.passes.simplify import SimplifyBooleans
from prune_flags.rewrite.passes.stores import PruneDeadStores
from prune_flags.rewrite.passes.tables import PruneOptionTables
from prune_flags.rewrite.passes.tests import PruneTests


class Rewriter(
    InlineLookups,
    InlineFlags,
    InlineHelpers,
    SimplifyBooleans,
    FoldBranches,
    PruneDeadStores,
    PruneTests,
    PruneDeadWrites,
    PruneFlagParameters,
    PruneLibraryKeywords,
    PruneOptions,
    PruneOptionTables,
):
    """Inline (lookups by name, plain reads, calls of helpers that folded to a constant) -> simplify
    -> fold (and the stores and handlers it left without a purpose) -> prune (tests that pin
    another value before dead writes: a test's write is theirs), in one traversal."""
