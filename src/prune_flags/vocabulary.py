"""The tool's typed vocabularies: what a write of a flag's name is, what a change did, why a flag
was refused, whose a site is. Each member is its string (the JSON and the explain lines show the
values as they always were)."""

from __future__ import annotations

import sys
from enum import Enum

if sys.version_info >= (3, 11):
    from enum import StrEnum
else:

    class StrEnum(str, Enum):
        """Python 3.11's `enum.StrEnum`: a member formats and prints as its value."""

        __str__ = str.__str__
        __format__ = str.__format__  # type: ignore[assignment]  # str's, as 3.11's StrEnum has


class WriteKind(StrEnum):
    """What gives a name a value (`semantic.facts.Write.kind`)."""

    ATTRIBUTE = "attribute"  # `obj.name = ...`
    CLASS = "class"  # `name = ...` in a class body
    MODULE = "module"  # `name = ...` at a module's top level
    GLOBAL = "global"  # `name = ...` in a function declaring it global
    MODULE_DEF = "module-def"  # a module-level def or class nothing outside the code may call
    CLASS_DEF = "class-def"  # a method that nothing outside the code may call
    REGISTERED_DEF = "registered-def"  # a def a decorator may register, a dunder, a public method
    SETATTR = "setattr"  # `setattr(obj, "name", ...)`
    AUGMENTED = "augmented"  # `name += ...`
    DELETE = "del"  # `del obj.name`
    UNPACK = "unpack"  # a target of unpacking or of a loop
    KEYWORD = "keyword"  # `name=...` at a call
    PARAMETER = "parameter"  # a parameter, its default the value
    ARGUMENT = "argument"  # a positional argument passing a flag's parameter (model.plumbing)
    ENVIRON = "environ"  # `os.environ["NAME"] = ...`
    OPTION = "option"  # a command-line option defining the name (`--name`)
    PATCH = "patch"  # a test double: `mock.patch`, `monkeypatch.setattr`
    TEMPLATE = "template"  # a store through an accessor template, `options["name"] = ...`
    WRITER = "writer"  # a call of a writer template


class Action(StrEnum):
    """What a change did (`report.Change.action`)."""

    INLINED = "inlined"
    INLINED_HELPER = "inlined-helper"
    ADDED_IMPORT = "added-import"
    FOLDED_BRANCH = "folded-branch"
    FOLDED_BRANCH_KEPT_CALL = "folded-branch-kept-call"
    REMOVED_BRANCH = "removed-branch"
    REMOVED_EMPTY_IF = "removed-empty-if"
    REMOVED_LOOP = "removed-loop"
    REMOVED_ASSERT = "removed-assert"
    REMOVED_UNREACHABLE = "removed-unreachable"  # what follows an exit that folding exposed
    REMOVED_RETURN = "removed-return"
    REMOVED_CONTINUE = "removed-continue"
    REMOVED_WRITE = "removed-write"
    REMOVED_WRITE_KEPT_VALUE = "removed-write-kept-value"  # its value's effects stay
    REMOVED_SETTER = "removed-setter"
    REMOVED_DEAD_STORE = "removed-dead-store"
    REMOVED_HANDLER = "removed-handler"
    REMOVED_EMPTY_TRY = "removed-empty-try"  # a `try` whose body went: its handlers never run
    REMOVED_CLASS = "removed-class"
    REMOVED_FUNCTION = "removed-function"
    REMOVED_METHOD = "removed-method"
    EMPTIED_FUNCTION = "emptied-function"
    REMOVED_CALL = "removed-call"
    REMOVED_SELF_ASSIGNMENT = "removed-self-assignment"
    REMOVED_PARAMETER = "removed-parameter"
    REMOVED_ARGUMENT = "removed-argument"
    REMOVED_OPTION = "removed-option"
    REMOVED_OPTION_ARGUMENT = "removed-option-argument"
    REMOVED_OPTION_ENTRY = "removed-option-entry"
    REMOVED_OPTION_KEYWORD = "removed-option-keyword"
    REMOVED_OPTION_NAME = "removed-option-name"
    REMOVED_DEFAULT_KEYWORD = "removed-default-keyword"
    REMOVED_IMPORT = "removed-import"
    REMOVED_TEST = "removed-test"  # a test that existed only to exercise another value
    REMOVED_FIXTURE = "removed-fixture"
    OVERRIDDEN = "overridden"  # a removed write that gave a flag another value
    KEPT_BY_PRAGMA = "kept-by-pragma"
    KEPT_IN_REVIEW = "kept-in-review"  # a change the review declined


class RefusalReason(StrEnum):
    """Why a flag was left alone everywhere (`report.Refusal.why`)."""

    ANOTHER_VALUE = "another-value"  # given another value where that cannot go, or under strict
    AMBIGUOUS = "ambiguous"  # unrelated definitions carry its name
    READ_AS_OBJECT = "read-as-object"  # `FLAG.value`, `FLAG()`: it holds an object
    HANDED_ON = "handed-on"  # fixed at a list, dict or set that a read hands on: it may change


class LeftReason(StrEnum):
    """Why a site of a pruned flag was left as it was (`report.Left.why`)."""

    REEXPORTED = "re-exported"  # a package's `__init__.py` imports it: outside code may too


class WarningReason(StrEnum):
    """What a warning of a flag says (`report.FlagWarning.why`)."""

    UNMATCHED = "unmatched"  # its name appears only in forms the config does not declare
    NOWHERE = "nowhere"  # no file in scope names it
    EFFECTS = "effects"  # its only reads are lookups kept for their operands' side effects
    REGISTRATION_LEFT = "registration-left"  # pruned, its option still registered somewhere
    POSSIBLY_FAILING_TEST = "possibly-failing-test"  # pruned, a kept test asserts what went

    @property
    def untouched(self) -> bool:
        """Whether the warning says the run did nothing with the flag (its batch verdict)."""
        return self in (WarningReason.UNMATCHED, WarningReason.NOWHERE, WarningReason.EFFECTS)


class Place(StrEnum):
    """Whose a site of a scoped flag's name is (model.homes)."""

    HOME = "home"  # the flag's
    FOREIGN = "foreign"  # another definition's
    UNKNOWN = "unknown"  # not known: it may be either
