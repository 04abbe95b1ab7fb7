"""What one rewrite of one file knows and records (the flags, the dead names, the events), and
what it gives back.

The engine builds these without importing LibCST (see `warm`); only the passes read them.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from prune_flags.config import Flag
from prune_flags.model.helpers import HelperCall
from prune_flags.model.library import KeywordPlace, LibraryDefault
from prune_flags.model.pinned import TestEdits
from prune_flags.report import Change
from prune_flags.syntax.templates import Template
from prune_flags.vocabulary import Action

if TYPE_CHECKING:
    from libcst.metadata import CodeRange

_Value = TypeVar("_Value")


class Death(NamedTuple):
    """Why a name has no reader left, and which flag's cleanup caused it."""

    flag: str
    reason: str


@dataclass
class RewriteContext:
    path: str
    flags: Mapping[str, Flag]
    # Flags that are a function's parameter: only the bare name reads one (see `attribute_flag`).
    parameters: frozenset[str] = frozenset()
    # expression templates that read a flag (templates.Template)
    accessors: tuple[Template, ...] = ()
    writers: tuple[
        Template, ...
    ] = ()  # writer templates (templates.parse_writer): calls that write a flag
    # For each flag, the functions and classes that take it: `flag=` goes only from calls of these.
    flag_owners: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # For each flag, the functions of this file whose parameter of its name is the flag whatever
    # its default (a chain of calls links it), by qualified name in the module (`Class.method`).
    flag_functions: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # Flags that are a function's local, by the function's qualified name in this file: every
    # bare read of the name there (and in the scopes nested in it) is the flag.
    local_flags: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # For each flag, the callees whose calls lose the argument filling it by position: its place
    # (self counted) and whether the callee is a method.
    flag_positions: Mapping[str, Mapping[str, tuple[int, bool]]] = field(default_factory=dict)
    # Dead flags whose command-line option went, with the option's long strings: their
    # names go from option tables.
    option_flags: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # The words each of those options takes after its string (`--size 3`), None when not known.
    option_arities: Mapping[str, int | None] = field(default_factory=dict)
    option_calls: tuple[str, ...] = ()  # the config's wrappers of add_argument (`add_toggle`)
    # Calls (callee by last name, keyword) whose keyword goes when the cleanup empties its dict:
    # an empty dict is the same as none there (defaults.empty_dict_is_default).
    emptiable_keywords: frozenset[tuple[str, str]] = frozenset()
    # With `library_keywords`: keywords reading a flag at calls of installed libraries, by place
    # (library.KeywordPlace), with the callee's default: each goes once the rewrite makes it that.
    library_keywords: Mapping[KeywordPlace, LibraryDefault] = field(default_factory=dict)
    # Constants anywhere in the repository that hold a flag's name, for accessor calls.
    name_constants: Mapping[str, str] = field(default_factory=dict)
    # Fields, class attributes and module constants with no reader left in the repository,
    # each with the reason a reviewer reads.
    dead_names: Mapping[str, Death] = field(default_factory=dict)
    # The flags' attribute writes of another value that the config overrides, by line in the
    # original text: they go in every round, even while something keeps the name alive (a
    # re-export left as it is keeps the definition it reads, not `util.IS_X = True`).
    overridden_writes: Mapping[int, str] = field(default_factory=dict)
    # Module-level names of this module with no reader left (a flag defined as a module constant).
    dead_globals: Mapping[str, Death] = field(default_factory=dict)
    # Function locals of this module that lost their last read in this run, by (the function's
    # dotted path, the name).
    dead_locals: Mapping[tuple[str, str], Death] = field(default_factory=dict)
    # Helpers the cleanup folded to a constant or to one of their parameters, by the callee as
    # this file spells it (`_get_channel`, `channels._get_channel`): their calls are inlined.
    helpers: Mapping[str, HelperCall] = field(default_factory=dict)
    # Calls of method helpers through a receiver (`self.checker.should_skip(t)`), by (line, method
    # name): every call of that name on the line reaches that helper (helpers.method_calls).
    method_calls: Mapping[tuple[int, str], HelperCall] = field(default_factory=dict)
    # Names that files the run skipped read: however unused the cleanup leaves them, their imports
    # stay (a skipped file may import them from this module).
    kept_imports: frozenset[str] = frozenset()
    # The names the file binds only to other libraries: what is read through them is theirs
    # (rewrite.scopes.elsewhere).
    outside: frozenset[str] = frozenset()
    # Lines of the asserts whose every subject is a dead name.
    removable_asserts: frozenset[int] = frozenset()
    # In a test file: the tests, parametrize entries and writes that pin another value
    # (model/test_file.py).
    tests: TestEdits | None = None
    # Lines that name something this run acts on; a block without any is not walked (None: walk
    # all).
    relevant_lines: frozenset[int] | None = None
    # Scoped flags: the classes and functions of this file (dotted paths, "" for the whole module)
    # where the name is another definition's, which the passes leave alone.
    foreign: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # The hooks of this file's classes that go once their body folds away (scoping.droppable_hooks).
    droppable_hooks: frozenset[str] = frozenset()
    changes: list[Change] = field(default_factory=list)
    # A fold exposed an exit outside any function: what it makes unreachable may lie past the
    # statements a view holds, so the rewrite is done again on the whole file.
    unreachable_outside_functions: bool = False
    inlined: list[tuple[int, int, str]] = field(default_factory=list)  # (line, column, flag)
    inlined_helpers: set[str] = field(default_factory=set)  # the qualnames of the helpers inlined
    # `inlined` by position, each with its index there, kept up as it grows: what the questions
    # below bisect, so that a file's many folds ask them in log time each.
    _by_position: list[tuple[int, int, int, str]] = field(
        default_factory=list, repr=False, compare=False
    )
    _positions_of: list[tuple[int, int, str]] | None = field(
        default=None, repr=False, compare=False
    )  # the `inlined` list _by_position was made from

    def acted_on(self) -> frozenset[str]:
        """Every name whose mention makes a line relevant to the passes."""
        names = {
            *self.flags,
            *self.dead_names,
            *self.dead_globals,
            *(name for _, name in self.dead_locals),
            *self.name_constants,
        }
        names |= {spelling.rpartition(".")[2] for spelling in self.helpers}
        # A file given imports for an inlined helper is rewritten whole (see rewrite), and the
        # top-level import binding the root of the call's spelling counts too.
        names |= {
            spelling.partition(".")[0] for spelling, call in self.helpers.items() if call.imports
        }
        names |= {name for _, name in self.method_calls}
        names.update(callee for positions in self.flag_positions.values() for callee in positions)
        # Dead switches are among them (files.lines_naming knows `--use-x`); `--turbo` may fill one.
        return frozenset(names.union(*self.option_flags.values()))

    def gone_options(self) -> dict[str, frozenset[str]]:
        """The flags whose spellings go from tables and argument lists (passes/tables.py): those
        whose option went, with its own strings, and the other flags that went (a field: a CLI
        built from it may spell it `--section.use_x`)."""
        gone = dict(self.option_flags)
        gone.update(
            (name, frozenset())
            for name in self.flags
            if name in self.dead_names and name not in gone
        )
        return gone

    def without(self, names: frozenset[str]) -> RewriteContext:
        """The context inside a class or function where these flags' names are not the flags:
        the same records (changes, inlinings), nothing known of those names."""

        def kept(mapping: Mapping[str, _Value]) -> dict[str, _Value]:
            return {name: value for name, value in mapping.items() if name not in names}

        return replace(
            self,
            flags=kept(self.flags),
            flag_owners=kept(self.flag_owners),
            option_flags=kept(self.option_flags),
            dead_names=kept(self.dead_names),
            dead_globals=kept(self.dead_globals),
            name_constants={
                c: name for c, name in self.name_constants.items() if name not in names
            },
        )

    def attribute_flag(self, name: object) -> Flag | None:
        """The flag an attribute of the name reads or writes, or a string spelling it names
        (`getattr(cfg, "use_x")`, a table's entry); a function's parameter has none of those."""
        if not isinstance(name, str) or name in self.parameters:
            return None
        return self.flags.get(name)

    def record(self, line: int, action: Action, reason: str, flag: str) -> None:
        self.changes.append(Change(line=line, flag=flag, action=action, reason=reason))

    def flags_within(self, span: CodeRange) -> list[str]:
        """The flags inlined inside `span`, in order of appearance."""
        ordered = self._positions()
        first = bisect_left(ordered, (span.start.line, span.start.column))
        last = bisect_left(ordered, (span.end.line, span.end.column))
        inside = sorted(ordered[first:last], key=lambda entry: entry[2])  # in order of appearance
        return list(dict.fromkeys(flag for *_, flag in inside))

    def flag_near(self, line: int) -> str:
        """The flag a change at `line` is due to: the nearest inlining at or above it (the
        greatest flag name of those on that line)."""
        ordered = self._positions()
        index = bisect_left(ordered, (line + 1,))
        if not index:
            return next(iter(self.flags), "")
        nearest, flags = ordered[index - 1][0], []
        while index and ordered[index - 1][0] == nearest:
            index -= 1
            flags.append(ordered[index][3])
        return max(flags)

    def _positions(self) -> list[tuple[int, int, int, str]]:
        # Inlinings come while the questions are asked: each new one is put in its place (most
        # come in order, at the end), never the whole list sorted again.
        if self._positions_of is not self.inlined or len(self._by_position) > len(self.inlined):
            # A copy of the context (replace) with inlinings of its own starts over.
            self._by_position, self._positions_of = [], self.inlined
        for index in range(len(self._by_position), len(self.inlined)):
            line, column, flag = self.inlined[index]
            insort(self._by_position, (line, column, index, flag))
        return self._by_position

    def flag_changed_within(self, span: CodeRange) -> str:
        """The flag of the first change recorded inside `span`: what emptied a body there. Without
        one, the nearest inlining."""
        lines = range(span.start.line, span.end.line + 1)
        return next(
            (change.flag for change in self.changes if change.line in lines),
            self.flag_near(span.start.line),
        )

    def flag_changed_near(self, line: int) -> str:
        """The flag of the change recorded nearest at or above `line` (the last one on that line):
        what removed the code there. Without one, the nearest inlining."""
        above = [
            (change.line, index, change.flag)
            for index, change in enumerate(self.changes)
            if change.line <= line
        ]
        return max(above)[2] if above else self.flag_near(line)


@dataclass(frozen=True)
class Rewritten:
    text: str
    changes: tuple[Change, ...]
    # The loads of each name before and after (see semantic.trees.tree_names): what lost its
    # readers.
    loads_before: Mapping[str, int] = field(default_factory=dict)
    loads_after: Mapping[str, int] = field(default_factory=dict)
    # For each name that lost loads, the flag whose cleanup took them.
    causes: Mapping[str, str] = field(default_factory=dict)
    # The helpers (functions and methods, by qualname) inlined at a call here.
    inlined_helpers: frozenset[str] = frozenset()


# A file's rewrite as the workers are sent it: its path, its original text, what it is given,
# and whether it is a package's `__init__.py`.
RewriteTask = tuple[Path, str, RewriteContext, bool]
