"""Whose each site of a scoped flag's name is: the flag's (home), another definition's (foreign),
or not known; the classes and functions where the name is another definition's."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import TYPE_CHECKING

from prune_flags.config import Flag
from prune_flags.model.scoping import Scope, definitions, unrelated
from prune_flags.report import Refusal
from prune_flags.semantic.classes import (
    with_subclasses,
)
from prune_flags.semantic.facts import NameFacts
from prune_flags.semantic.modules import qualified
from prune_flags.semantic.owners import Foreign, all_sites, owner_spans
from prune_flags.syntax.expressions import ast_dotted
from prune_flags.syntax.statements import DefinitionNode, FunctionNode
from prune_flags.vocabulary import Place, RefusalReason, WriteKind

if TYPE_CHECKING:
    from prune_flags.semantic.repository import Repository


def scope_flag(
    repository: Repository, flag: Flag, scope: Scope, facts: NameFacts
) -> Foreign | Refusal:
    """Where a scoped flag's name is another definition's; or, when a place could be either's,
    the refusal naming it."""
    verdicts = _verdicts(repository, flag, scope, facts)
    foreign: dict[str, set[str]] = {}
    unsure: list[str] = []
    for (path, owner), seen in sorted(verdicts.items()):
        mixed = bool(seen[Place.HOME]) and bool(seen[Place.FOREIGN])
        if (
            seen[Place.UNKNOWN]
            or mixed
            or (seen[Place.FOREIGN] and owner == "" and _homes_in(verdicts, path))
        ):
            unsure += sorted(f"{path}:{line}" for line in seen[Place.UNKNOWN] | seen[Place.FOREIGN])
            continue
        if seen[Place.FOREIGN]:
            foreign.setdefault(path, set()).add(owner)
    if unsure:
        unsure.sort(key=lambda site: (site.rpartition(":")[0], int(site.rpartition(":")[2])))
        message = (
            f"{flag.name}: not pruned: scoped to {flag.key}, the name is still ambiguous at"
            f" {', '.join(unsure)}: "
            "a use there may be another definition's, or shares its class or function with"
            " one (the cleanup "
            "leaves other definitions' classes and functions alone); name the receiver's"
            " class plainly there "
            "(an annotation, or the class itself)"
        )
        return Refusal(flag.name, RefusalReason.AMBIGUOUS, tuple(unsure), message, (flag.key,))
    return {path: frozenset(owners) for path, owners in foreign.items()}


def _homes_in(verdicts: Mapping[tuple[str, str], Mapping[Place, set[int]]], path: str) -> bool:
    return any(seen[Place.HOME] for (where, _), seen in verdicts.items() if where == path)


def _verdicts(
    repository: Repository, flag: Flag, scope: Scope, facts: NameFacts
) -> dict[tuple[str, str], dict[Place, set[int]]]:
    """For each (file, innermost class or function, "" at module level) where the name is used:
    the lines where it is the flag's, another definition's, or could be either's."""
    judge = _Judge(repository, flag, scope, facts)
    verdicts: dict[tuple[str, str], dict[Place, set[int]]] = {}
    by_display = repository.by_display()
    lines: dict[str, set[int]] = {}
    for site in all_sites(facts):
        lines.setdefault(site.path, set()).add(site.line)
    for display, found in lines.items():
        path = by_display.get(display)
        tree = repository.tree(path, repository.text(path)) if path in repository.sources else None
        if tree is None:
            # a skipped file keeps what it reads (Repository._skipped_reads), whoever's it is
            continue
        spans = owner_spans(tree)
        for line in found:
            enclosing = [
                (dotted, node) for dotted, start, end, node in spans if start <= line <= end
            ]
            owner = enclosing[-1][0] if enclosing else ""
            verdict = judge.verdict(display, tree, enclosing, line)
            if verdict is not None:
                verdicts.setdefault((display, owner), {}).setdefault(verdict, set()).add(line)
    for seen in verdicts.values():
        for verdict in (Place.HOME, Place.FOREIGN, Place.UNKNOWN):
            seen.setdefault(verdict, set())
    return verdicts


class _Judge:
    """Whose a use of the name at one line is, by the kind of definition the key scopes."""

    def __init__(self, repository: Repository, flag: Flag, scope: Scope, facts: NameFacts) -> None:
        self.flag, self.scope = flag, scope
        keys, classes = definitions(flag.name, facts)
        if scope.owner and not scope.parameter:
            groups = unrelated(repository, list(keys), classes)
            home_key = qualified(scope.path, f"{scope.owner}.{flag.name}")
            home = next((group for group in groups if home_key in group), {home_key})
            self.home = with_subclasses(
                repository, frozenset(classes.get(key, scope.owner) for key in home)
            )
            others = frozenset(classes[key] for key in keys if key in classes and key not in home)
            self.foreign = (
                with_subclasses(repository, others) - self.home if others else frozenset()
            )
            self.foreign_modules = frozenset(key for key in keys if key not in classes)
            self.home_modules: frozenset[str] = frozenset()
        else:
            self.home = self.foreign = frozenset()
            # The key's module with the settings overlays linked to it (scoping._overlays)
            home_key = qualified(scope.path, flag.name)
            modules = [key for key in keys if key not in classes]
            groups = unrelated(repository, modules, {})
            linked = next((group for group in groups if home_key in group), {home_key})
            self.home_modules = frozenset(key.rpartition(".")[0] for key in linked)
            self.foreign_modules = frozenset(
                qualified(w.site.path, "")
                for w in facts.writes
                if w.kind == WriteKind.MODULE
                and qualified(w.site.path, "") not in self.home_modules
            )
        # Parameters of the name outside the home's classes are other functions' variables.
        self.parameters = {
            (w.site.path, w.site.line) for w in facts.writes if w.kind == WriteKind.PARAMETER
        }
        self._aliases: dict[str, tuple[dict[str, str], dict[str, str]]] = {}
        self.repository = repository
        self._module_names: frozenset[str] | None = None  # the repository's modules, dotted

    def verdict(
        self, path: str, tree: ast.Module, enclosing: list[tuple[str, DefinitionNode]], line: int
    ) -> Place | None:
        owners = [owner for owner, _ in enclosing]
        if self.scope.parameter:
            return self._parameter_verdict(path, tree, owners, line)
        if not self.scope.owner:
            if enclosing and _binds_in_class_body(enclosing[-1][1], line, self.flag.name):
                return Place.FOREIGN  # `FAST = 1` of `class Mode(enum.Enum)`: the class's own
            return self._module_verdict(path, tree, line)
        cls, receiver = _method_receiver(enclosing)
        receivers = _receivers(tree, line, self.flag.name)
        if not receivers:
            if cls is not None:
                return self._class_verdict(cls)  # the class body's own definition
            # A bare name (another module's constant) or a parameter (another function's).
            return (
                Place.FOREIGN if self.foreign_modules or (path, line) in self.parameters else None
            )
        # `self.fast` is its class's; `other.fast`, even inside a class, is whatever `other` is.
        found = {
            (
                self._class_verdict(cls)
                if cls is not None and ast_dotted(node) == receiver
                else self._receiver_verdict(node, enclosing)
            )
            for node in receivers
        }
        return found.pop() if len(found) == 1 else Place.UNKNOWN

    def _class_verdict(self, name: str) -> Place:
        return (
            Place.HOME
            if name in self.home
            else Place.FOREIGN if name in self.foreign else Place.UNKNOWN
        )

    def _parameter_verdict(
        self, path: str, tree: ast.Module, owners: list[str], line: int
    ) -> Place | None:
        """Inside the function, the parameter; a keyword at a call of a function of its name, the
        parameter passed (as the cleanup matches calls, by the callee's last name); a bare name
        or a parameter elsewhere, another function's variable. An attribute or a string of the
        name is never a parameter's (the cleanup leaves them alone): no use of it at all."""
        if path == self.scope.path and self.scope.owner in owners:
            return Place.HOME
        if self.scope.local:  # no call passes a local; the name elsewhere is another variable
            return Place.FOREIGN
        callee = self.scope.owner.rsplit(".", 1)[-1]
        if callee == "__init__":
            callee = self.scope.owner.split(".")[0]  # the class is called
        name, variable = self.flag.name, False
        for node in ast.walk(tree):
            if getattr(node, "lineno", None) != line:
                continue
            if isinstance(node, ast.Call):
                keyword = any(k.arg == name and k.lineno == line for k in node.keywords)
                if keyword and ast_dotted(node.func).rsplit(".", 1)[-1] == callee:
                    return Place.HOME
                variable = variable or keyword
            elif isinstance(node, ast.Name | ast.arg):
                variable = variable or (node.id if isinstance(node, ast.Name) else node.arg) == name
        return Place.FOREIGN if variable else None

    def _module_verdict(self, path: str, tree: ast.Module, line: int) -> Place:
        if path not in self._aliases:  # a file's imports, once for all its lines
            self._aliases[path] = _module_aliases(tree, path)
        sources, modules = self._aliases[path]
        receivers = _receivers(tree, line, self.flag.name)
        if receivers and all(self._object_of_module(r, sources, modules) for r in receivers):
            return Place.FOREIGN  # `ColorSystem.WINDOWS`: an enum's member, no module's constant
        if qualified(path, "") in self.home_modules:
            return Place.HOME
        if self._foreign_module(qualified(path, "")):
            return Place.FOREIGN
        # `mod.FAST` by the module its receiver names; a bare `FAST` by the module it came from
        named = (
            {modules.get(ast_dotted(receiver)) for receiver in receivers}
            if receivers
            else {sources.get(self.flag.name)}
        )
        found = {
            (
                Place.HOME
                if module and _spells(self.home_modules, module)
                else Place.FOREIGN if module and self._foreign_module(module) else Place.UNKNOWN
            )
            for module in named
        }
        if found == {Place.UNKNOWN} and not self.foreign_modules:
            return (
                Place.HOME
            )  # no other module defines it: whatever reads it reads the flag, as unscoped
        return found.pop() if len(found) == 1 else Place.UNKNOWN

    def _object_of_module(
        self, receiver: ast.expr, sources: Mapping[str, str], modules: Mapping[str, str]
    ) -> bool:
        """Whether a receiver is a name imported from one of the repository's modules that is no
        module itself (`from rich.color import ColorSystem`): a class or function of it."""
        if not isinstance(receiver, ast.Name) or receiver.id not in sources:
            return False
        if self._module_names is None:
            self._module_names = frozenset(
                name for name, _ in self.repository.module_names().values()
            )
        known = self._module_names
        return sources[receiver.id] in known and modules[receiver.id] not in known

    def _foreign_module(self, module: str) -> bool:
        return _spells(self.foreign_modules, module)

    def _receiver_verdict(
        self, receiver: ast.expr, enclosing: list[tuple[str, DefinitionNode]]
    ) -> Place:
        cls = _receiver_class(receiver, enclosing)
        if cls in self.home:
            return Place.HOME
        if cls in self.foreign:
            return Place.FOREIGN
        return Place.UNKNOWN


def _method_receiver(enclosing: list[tuple[str, DefinitionNode]]) -> tuple[str | None, str]:
    """The innermost enclosing class's name, and what its method (around the line) calls its
    instance or class: the first parameter, unless a staticmethod ("" then, or outside a method)."""
    classes = [index for index, (_, node) in enumerate(enclosing) if isinstance(node, ast.ClassDef)]
    if not classes:
        return None, ""
    cls = enclosing[classes[-1]][1]
    method = enclosing[classes[-1] + 1][1] if classes[-1] + 1 < len(enclosing) else None
    if not isinstance(method, FunctionNode):
        return cls.name, ""
    arguments = [*method.args.posonlyargs, *method.args.args]
    static = any(ast_dotted(decorator) == "staticmethod" for decorator in method.decorator_list)
    return cls.name, arguments[0].arg if arguments and not static else ""


def _receivers(tree: ast.Module, line: int, name: str) -> list[ast.expr]:
    """What the name is an attribute of at a line: `x` of `x.fast`, `C` of `C(fast=...)`,
    `o` of `getattr(o, "fast")` or `mock.patch.object(o, "fast", ...)`."""
    found = []
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) != line and not (
            isinstance(node, ast.Call) and node.lineno <= line <= (node.end_lineno or node.lineno)
        ):
            continue
        if isinstance(node, ast.Attribute) and node.attr == name and node.lineno == line:
            found.append(node.value)
        elif isinstance(node, ast.Call):
            if any(keyword.arg == name and keyword.lineno == line for keyword in node.keywords):
                found.append(node.func)
            if (
                len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and node.args[1].value == name
            ):
                found.append(node.args[0])
    return found


def _receiver_class(receiver: ast.expr, enclosing: list[tuple[str, DefinitionNode]]) -> str | None:
    """The class a receiver plainly is an instance of, or is: `Engine`, `Engine()`, or a parameter
    of an enclosing function (the innermost that has one of that name) annotated `e: Engine` (or
    `Optional[Engine]`, "Engine")."""
    if isinstance(receiver, ast.Call):
        receiver = receiver.func
    if isinstance(receiver, ast.Attribute):
        return receiver.attr if receiver.attr[:1].isupper() else None
    if not isinstance(receiver, ast.Name):
        return None
    for _, node in reversed(enclosing):
        if isinstance(node, FunctionNode):
            arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
            parameter = next((a for a in arguments if a.arg == receiver.id), None)
            if parameter is not None:
                return _annotated_class(parameter.annotation) if parameter.annotation else None
    return receiver.id if receiver.id[:1].isupper() else None


def _annotated_class(annotation: ast.expr) -> str | None:
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(annotation, ast.Subscript):  # Optional[Engine]
        annotation = annotation.slice
    if isinstance(annotation, ast.BinOp):  # Engine | None
        sides = [side for side in (annotation.left, annotation.right) if ast_dotted(side) != "None"]
        annotation = sides[0] if len(sides) == 1 else annotation
    dotted = ast_dotted(annotation)
    return dotted.rsplit(".", 1)[-1] if dotted else None


def _binds_in_class_body(node: DefinitionNode, line: int, name: str) -> bool:
    """Whether a class body statement at `line` assigns the name: a class attribute."""
    if not isinstance(node, ast.ClassDef):
        return False
    for statement in node.body:
        if statement.lineno <= line <= (statement.end_lineno or statement.lineno):
            targets = (
                statement.targets
                if isinstance(statement, ast.Assign)
                else [statement.target] if isinstance(statement, ast.AnnAssign) else []
            )
            return any(isinstance(t, ast.Name) and t.id == name for t in targets)
    return False


def _module_aliases(tree: ast.Module, path: str) -> tuple[dict[str, str], dict[str, str]]:
    """What a file's imported names stand for, as absolute dotted names (a relative import
    resolved against the file's package): the module each name imported by `from` comes from
    (`FAST` of `from .a import FAST` -> `pkg.a`), and the module each name could be (`m` of
    `import pkg.a as m`, `a` of `from pkg import a` -> `pkg.a`)."""
    package = qualified(path, "").split(".")
    if not path.endswith("__init__.py"):
        package = package[:-1]
    sources: dict[str, str] = {}
    modules: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                stem = package[: len(package) - node.level + 1] if node.level > 1 else package
                base = ".".join([*stem, *([node.module] if node.module else [])])
            for alias in node.names:
                sources[alias.asname or alias.name] = base
                modules[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name
        elif isinstance(node, ast.Import):
            for alias in node.names:
                modules[alias.asname or alias.name] = alias.name
    return sources, modules


def _spells(modules: frozenset[str], module: str) -> bool:
    """Whether a dotted name spells one of the modules (it may leave out the directories above
    the package, as semantic.modules.names_module has it)."""
    return any(known == module or known.endswith("." + module) for known in modules)
