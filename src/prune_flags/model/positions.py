"""Arguments that pass a flag's parameter by position: the calls that fill its place (through
subclasses and `*args` forwarders too), and which of those arguments can go."""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import TYPE_CHECKING

from prune_flags.config import Flag
from prune_flags.model.handoffs import HandOff, handed_on
from prune_flags.model.hooks import class_binds
from prune_flags.semantic.calls import parameter_places, scan_calls
from prune_flags.semantic.classes import with_subclasses
from prune_flags.semantic.facts import (
    Argument,
    CallSite,
    NameFacts,
    Site,
    Write,
)
from prune_flags.semantic.trees import calls_in
from prune_flags.syntax.expressions import ast_dotted, last_name
from prune_flags.vocabulary import WriteKind

if TYPE_CHECKING:
    from prune_flags.semantic.repository import Repository


def positional_passes(
    repository: Repository, flag: Flag, parameters: list[Write], strict: bool
) -> tuple[list[str], list[Write], dict[str, tuple[int, bool]]]:
    """Calls that fill a flag parameter by position, and whether that argument can go with the
    parameter: when it is the call's last positional argument, nothing starred after it, or when
    every call of the function passes it at that place, it goes (and when it gives another value,
    it is overridden); any other removal would shift the arguments after it onto other parameters,
    or cannot be seen to be right: a conflict. Under strict every such call is a conflict. Only
    arguments that reach its place count: a starred sequence of unknown length does not, unless it
    forwards the `*args` of a function whose own callers reach that far.
    Gives the conflicts, the arguments that go, and the callees that lose one."""
    # One of each place: functions of one name share their calls.
    positional = list(
        {
            (w.owner, w.position, w.method): w
            for w in parameters
            if w.position is not None and w.owner
        }.values()
    )
    calls = repository.calls(frozenset(w.owner for w in positional)) if positional else []
    forwarded = _forwarded(repository, calls, strict)
    problems, arguments, positions = [], [], {}
    for parameter in positional:
        assert parameter.position is not None
        owner = parameter.owner
        # Calls are matched by last name: an argument goes only where every function of that name
        # has the flag at that one place, and no skipped file may call one.
        places = (
            None if strict else parameter_places(repository.trees_naming(owner), owner, flag.name)
        )
        certain = places == {
            (parameter.position, parameter.method)
        } and not repository.skipped_holding(frozenset([owner]))
        # `environment.code_generator_class(env, name, ..., optimized)`, through
        # `code_generator_class = CodeGenerator`: its arguments would shift.
        aliases = {} if strict else _aliases(repository, owner)
        constructed = _constructed_as(repository, parameter)
        through = repository.calls(frozenset(aliases)) if aliases else []
        forwarded.update(_forwarded(repository, through, strict))
        reaching = [
            call
            for call in through
            if call.positional
            + (forwarded.get(call.forwarder, 0) if call.forwarder is not None else 0)
            > parameter.position
        ]
        # Through an alias bound to nothing else, the argument goes as at a call of the name
        # itself (the last one, or every call fills it); a method's self it may or may not imply.
        passed = {
            id(call): _removable(call, parameter, reaching)
            for call in reaching
            if certain
            and not parameter.method
            and call.forwarder is None
            and _bound_only_to(repository, call.callee, constructed)
        }
        unsure = [call for call in reaching if passed.get(id(call)) is None]
        if unsure:
            problems += [
                f"{call.site} (passes {owner}'s parameter by position through"
                f" {call.callee}, bound to {owner} at {aliases[call.callee]})"
                for call in unsure
            ]
            continue
        for call in reaching:
            argument = passed[id(call)]
            assert argument is not None
            positions[call.callee] = positions[owner] = (parameter.position, parameter.method)
            arguments.append(_argument_write(call, argument, owner))
        own = [call for call in calls if call.callee == owner]
        for call in own:
            offset = 1 if parameter.method and call.through_attribute else 0
            extra = forwarded.get(call.forwarder, 0) if call.forwarder is not None else 0
            if call.positional + offset + extra <= parameter.position:
                continue
            argument = _removable(call, parameter, own) if certain and not extra else None
            if argument is None:
                how = f" through {call.forwarder}'s *args" if extra else ""
                problems.append(
                    f"{call.site} (passes {parameter.owner}'s parameter by position{how})"
                )
                continue
            positions[parameter.owner] = (parameter.position, parameter.method)
            arguments.append(_argument_write(call, argument, parameter.owner))
        problems += _subclass_passes(repository, parameter)
        for receiver, hand_offs in _by_receiver(
            handed_on(repository, parameter, constructed | frozenset(aliases))
        ).items():
            received = repository.calls(frozenset([receiver]))
            landing = {hand_off.place for hand_off in hand_offs}
            place = landing.pop() if len(landing) == 1 else None
            # Every call of the receiver hands the flag's function on: the argument at the place
            # its *args carry to the flag's goes, as at a call of the function itself.
            whole = {call.site for call in received} <= {hand_off.site for hand_off in hand_offs}
            moved = (
                replace(parameter, position=place, method=False, owner=receiver)
                if certain and whole and place is not None
                else None
            )
            for call in received:
                argument = _removable(call, moved, received) if moved is not None else None
                if argument is None or place is None:
                    problems += [
                        f"{hand_off.site} (hands {owner} to {receiver}, which calls it with"
                        " arguments it is given by position)"
                        for hand_off in hand_offs
                        if hand_off.site == call.site
                    ]
                    continue
                positions[receiver] = (place, False)
                arguments.append(_argument_write(call, argument, owner))
    return problems, arguments, positions


def _argument_write(call: CallSite, argument: Argument, owner: str) -> Write:
    """The write an argument that goes with the flag's parameter makes (removed at its call)."""
    return Write(Site(call.site.path, argument.line), WriteKind.ARGUMENT, argument.value, owner)


def _by_receiver(hand_offs: list[HandOff]) -> dict[str, list[HandOff]]:
    grouped: dict[str, list[HandOff]] = {}
    for hand_off in hand_offs:
        grouped.setdefault(hand_off.receiver, []).append(hand_off)
    return grouped


def _aliases(repository: Repository, name: str) -> dict[str, Site]:
    """The names a function or class is bound to again (`code_generator_class = CodeGenerator`,
    `self.factory = Client`), by the alias's last name, with where: calls of an alias are calls
    of it that its own name does not show."""
    found: dict[str, Site] = {}
    for path in repository.mentioning(frozenset([name])):
        tree = repository.tree(path, repository.text(path))
        for node in ast.walk(tree) if tree is not None else ():
            if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
                continue
            if last_name(node.value) != name:
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                alias = ast_dotted(target).rsplit(".", 1)[-1]
                if alias and alias != name:
                    found.setdefault(alias, Site(repository.display(path), node.lineno))
    return found


def _bound_only_to(repository: Repository, alias: str, names: frozenset[str]) -> bool:
    """Whether every binding of the alias's name in the repository binds it to one of `names`
    (`code_generator_class = CodeGenerator`): no other store, definition, parameter or import of
    that name whose calls the alias's could be."""
    for path in repository.mentioning(frozenset([alias])):
        tree = repository.tree(path, repository.text(path))
        nodes = list(ast.walk(tree)) if tree is not None else []
        to_name = {
            id(target)
            for node in nodes
            if isinstance(node, (ast.Assign, ast.AnnAssign))
            and node.value is not None
            and last_name(node.value) in names
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        }
        for node in nodes:
            if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Store):
                bound = node.id if isinstance(node, ast.Name) else node.attr
                if bound == alias and id(node) not in to_name:
                    return False
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if node.name == alias:
                    return False
            elif isinstance(node, ast.arg) and node.arg == alias:
                return False
            elif isinstance(node, ast.alias):
                if (node.asname or node.name).rsplit(".", 1)[-1] == alias:
                    return False
    return True


def _constructed_as(repository: Repository, parameter: Write) -> frozenset[str]:
    """The names whose call runs the function holding the parameter: its own, and for a
    constructor the subclasses that inherit it, each with one base and no `__init__` or `__new__`
    of its own (`NativeCodeGenerator(CodeGenerator)` with only methods)."""
    names = {parameter.owner}
    if not parameter.scope.endswith(f"{parameter.owner}.__init__"):
        return frozenset(names)
    subclasses = with_subclasses(repository, frozenset(names)) - names
    classes = []
    for path in repository.mentioning(frozenset(subclasses)) if subclasses else []:
        tree = repository.tree(path, repository.text(path))
        classes += [
            node
            for node in (ast.walk(tree) if tree is not None else ())
            if isinstance(node, ast.ClassDef) and node.name in subclasses
        ]
    grown = True
    while grown:
        grown = False
        for node in classes:
            if (
                node.name not in names
                and len(node.bases) == 1
                and last_name(node.bases[0]) in names
                and not class_binds(node, "__init__")
                and not class_binds(node, "__new__")
            ):
                names.add(node.name)
                grown = True
    return frozenset(names)


def _subclass_passes(repository: Repository, parameter: Write) -> list[str]:
    """Calls that fill a base's constructor parameter by position through a subclass (`Quick(x,
    False)` with `Node.__init__(self, x, fast=False)`, when Quick inherits that `__init__`) or
    from a subclass's own `__init__` (`super().__init__(x, False)`): no argument of them goes."""
    assert parameter.position is not None
    if not parameter.scope.endswith(f"{parameter.owner}.__init__"):
        return []
    subclasses = with_subclasses(repository, frozenset([parameter.owner])) - {parameter.owner}
    inheriting, found = set(), []
    constructing: dict[int, str] = {}  # id of a call in a subclass's __init__ -> that subclass
    for path in repository.mentioning(frozenset(subclasses)) if subclasses else []:
        tree = repository.tree(path, repository.text(path))
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.ClassDef) and node.name in subclasses:
                initializers = [
                    s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"
                ]
                if not initializers:
                    inheriting.add(node.name)
                for (
                    initializer
                ) in initializers:  # `super().__init__(...)`, `Base.__init__(self, ...)`
                    calls = scan_calls(
                        calls_in(initializer), repository.display(path), frozenset(["__init__"])
                    )
                    found += calls
                    constructing.update((id(call), node.name) for call in calls)
    found += repository.calls(frozenset(inheriting)) if inheriting else []
    place = parameter.position

    def reaches(call: CallSite) -> bool:
        if call.forwarder is None:
            return call.positional > place
        subclass = constructing.get(id(call))
        if subclass is None or call.forwarder != "__init__":
            return True  # another function's `*args`: how far its callers reach is not told here
        return call.positional + _spilled(repository, subclass, call) > place

    return [
        f"{call.site} (passes {parameter.owner}'s parameter by position through {call.callee})"
        for call in found
        if reaches(call)
    ]


def _spilled(repository: Repository, subclass: str, forwarding: CallSite) -> int:
    """How many positional arguments the calls of a subclass put into the `*args` its `__init__`
    hands on (`super().__init__(*args, **kwargs)`): beyond the parameters before them (self is
    the class call's own); any such call forwarding a `*args` of its own reaches anywhere."""
    most = 0
    for call in repository.calls(frozenset([subclass])):
        if call.forwarder is not None:
            return _UNSEEN
        most = max(most, call.positional - (forwarding.forwarder_takes - 1))
    return most


def _removable(call: CallSite, parameter: Write, calls: list[CallSite]) -> Argument | None:
    """The argument a call fills a flag parameter with, when it can go (see positional_passes):
    it has no side effects, the call says whether a method's self is implied, and nothing after
    it shifts or every call passes it there."""
    assert parameter.position is not None
    index = parameter.position - (1 if parameter.method and call.through_attribute else 0)
    if (parameter.method and call.class_receiver) or index >= len(call.arguments):
        return None
    argument = call.arguments[index]
    if not argument.pure:
        return None
    last = index == len(call.arguments) - 1 and not call.starred
    if last or all(_fills_at(other, parameter) for other in calls):
        return argument
    return None


def _fills_at(call: CallSite, parameter: Write) -> bool:
    """Whether a call passes the parameter as one of its plain positional arguments, at its
    place."""
    assert parameter.position is not None
    offset = 1 if parameter.method and call.through_attribute else 0
    return not (
        parameter.method and call.class_receiver
    ) and 0 <= parameter.position - offset < len(call.arguments)


_UNSEEN = 1 << 20  # arguments forwarders that call each other in a cycle may pass on


def _forwarded(repository: Repository, calls: list[CallSite], strict: bool) -> dict[str, int]:
    """For each function forwarding its `*args` in one of the calls, how many positional arguments
    its callers may put into them: what they pass beyond its own positional parameters (a method's
    self implied through an attribute), and what a caller forwarding its own `*args` may put
    there in turn. Under strict, every plain positional argument its callers pass, as before."""
    signatures: dict[str, tuple[int, bool]] = (
        {}
    )  # forwarder -> the fewest parameters one of that name takes

    def note(found: list[CallSite]) -> None:
        for call in found:
            if call.forwarder is not None:
                takes, method = signatures.get(call.forwarder, (call.forwarder_takes, False))
                signatures[call.forwarder] = (
                    min(takes, call.forwarder_takes),
                    method or call.forwarder_method,
                )

    reach: dict[str, int] = {}

    def spill(name: str, seen: frozenset[str]) -> int:
        if name in seen:
            return _UNSEEN
        if name not in reach:
            takes, method = signatures[name]
            found = repository.calls(frozenset([name]))
            note(found)
            most = 0
            for call in found:
                if strict:
                    most = max(most, call.positional)
                    continue
                extra = spill(call.forwarder, seen | {name}) if call.forwarder is not None else 0
                most = max(
                    most,
                    call.positional
                    + extra
                    + (1 if method and call.through_attribute else 0)
                    - takes,
                )
            reach[name] = most
        return reach[name]

    note(calls)
    return {name: spill(name, frozenset()) for name in list(signatures)}


def positional_fields(repository: Repository, facts: NameFacts) -> list[str]:
    """Calls that fill a flag's field by position (`Options(3, False)` of a dataclass or a
    NamedTuple, or of a subclass): removing the field would shift them onto the next one."""
    problems = []
    by_display = repository.by_display()
    for write in facts.writes:
        path = by_display.get(write.site.path)
        if (
            write.kind != WriteKind.CLASS
            or not write.owner
            or path is None
            or repository.source(path) is None
        ):
            continue
        tree = repository.tree(path, repository.text(path))
        index = _field_index(tree, write.owner, write.site.line) if tree is not None else None
        if index is None:
            continue
        for call in repository.calls(with_subclasses(repository, frozenset([write.owner]))):
            if call.positional > index or call.forwarder is not None:
                problems.append(f"{call.site} (passes {write.owner}'s field by position)")
    return problems


def _field_index(tree: ast.Module, owner: str, line: int) -> int | None:
    """The position among the constructor's arguments of the annotated field at `line` of class
    `owner` when the class's constructor takes its fields (a decorated class such as a dataclass,
    or a NamedTuple, without an `__init__` of its own); None for any other class attribute."""
    for node in ast.walk(tree):
        if not (isinstance(node, ast.ClassDef) and node.name == owner):
            continue
        statements = [s for s in node.body if s.lineno <= line <= (s.end_lineno or s.lineno)]
        if not statements or not isinstance(statements[0], ast.AnnAssign):
            continue
        named_tuple = any(
            ast_dotted(base).rsplit(".", 1)[-1] == "NamedTuple" for base in node.bases
        )
        own_init = any(isinstance(s, ast.FunctionDef) and s.name == "__init__" for s in node.body)
        if own_init or not (node.decorator_list or named_tuple):
            return None
        fields = [
            s for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
        ]
        return fields.index(statements[0]) if statements[0] in fields else None
    return None
