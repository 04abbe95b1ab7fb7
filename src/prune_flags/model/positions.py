"""Arguments that pass a flag's parameter by position: the calls that fill its place (through
subclasses and `*args` forwarders too), and which of those arguments can go."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from prune_flags.config import Flag
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
from prune_flags.syntax.expressions import ast_dotted
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
        through = repository.calls(frozenset(aliases)) if aliases else []
        forwarded.update(_forwarded(repository, through, strict))
        reaching = [
            call
            for call in through
            if call.positional
            + (forwarded.get(call.forwarder, 0) if call.forwarder is not None else 0)
            > parameter.position
        ]
        if reaching:
            problems += [
                f"{call.site} (passes {owner}'s parameter by position through"
                f" {call.callee}, bound to {owner} at {aliases[call.callee]})"
                for call in reaching
            ]
            continue
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
            arguments.append(
                Write(
                    Site(call.site.path, argument.line),
                    WriteKind.ARGUMENT,
                    argument.value,
                    parameter.owner,
                )
            )
        problems += _subclass_passes(repository, parameter)
    return problems, arguments, positions


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
            value = node.value
            spelled = (
                value.id
                if isinstance(value, ast.Name)
                else value.attr if isinstance(value, ast.Attribute) else None
            )
            if spelled != name:
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                alias = ast_dotted(target).rsplit(".", 1)[-1]
                if alias and alias != name:
                    found.setdefault(alias, Site(repository.display(path), node.lineno))
    return found


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
