""""""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Callable, Mapping, NoReturn

from prune_flags.config import ConfigError, Flag
from prune_flags.report import Refusal
from prune_flags.semantic.classes import (
    DOTTED_BASE,
    KEYWORDS,
    UNDEFINED,
    ancestry,
    base_name,
    class_statements,
    classes_in,
    flaws,
)
from prune_flags.semantic.facts import ITSELF, NameFacts, Site
from prune_flags.syntax.expressions import ast_dotted

if TYPE_CHECKING:
    from prune_flags.semantic.repository import Repository
from prune_flags.semantic.owners import (
    Foreign,
    FunctionNode,
    Owner,
    all_sites,
    owner_spans,
)

HOME, FOREIGN, UNKNOWN = "home", "foreign", "unknown"


def qualified(path: str, name: str) -> str:
    """`pkg/mod.py` and `helper` -> `pkg.mod.helper`, as `keep` and qualified flag keys spell names.
    A path above the working directory (`../repo/pkg/mod.py`, `/abs/repo/pkg/mod.py`) spells its
    directories without the `..` (a key may leave out the directories above the package)."""
    module = path[: -len(".py")] if path.endswith(".py") else path
    parts = [part for part in module.split("/") if part not in ("", ".", "..")]
    module = ".".join(parts[:-1] if parts[-1:] == ["__init__"] else parts)
    return f"{module}.{name}" if name else module


def names_module(path: str, module: str) -> bool:
    """Whether a file (by its display path) is the module a dotted name spells: the name may leave
    out the directories above the package (`pkg.mod` for `src/pkg/mod.py`)."""
    spelled = qualified(path, "")
    return spelled == module or spelled.endswith("." + module)


@dataclass(frozen=True)
class Scope:
    """Where a qualified key's definition lives: a module constant (`owner` empty), a class's
    attribute (`owner` the class) or a function's parameter (`owner` the function's dotted path
    in its module, `parameter` true)."""

    path: str  # display path of the module
    owner: str = ""
    parameter: bool = False


def string_named(repository: Repository, flag: Flag, accessors: bool) -> bool:
    """Whether a dotted key is a flag's string name (`"cart.page_size"`, which an accessor reads),
    not a qualified key: with accessors, a key whose first part names no module in scope."""
    first = flag.scope.split(".")[0]
    modules = (qualified(repository.display(path), "") for path in repository.raw)
    return (
        accessors and bool(flag.scope) and not any(first in module.split(".") for module in modules)
    )


def resolve(repository: Repository, flag: Flag) -> Scope:
    """Where a qualified key's definition lives, or a ConfigError naming the key when its module,
    class, function or parameter does not exist. A class attribute or module constant may be gone
    (a run before removed it): the flag is then read where it is still read, as any flag whose
    definition is gone."""
    parts = flag.scope.split(".")
    files = {repository.display(path): path for path in repository.raw}
    for split in range(len(parts), 0, -1):
        module, inner = ".".join(parts[:split]), parts[split:]
        paths = sorted(path for path in files if names_module(path, module))
        if not paths:
            continue
        if len(paths) > 1:
            _key_error(
                flag,
                f"{module} names more than one module: {', '.join(paths)}; spell more of its path",
            )
        path = files[paths[0]]
        tree = (
            repository.tree(path, repository.text(path))
            if repository.source(path) is not None
            else None
        )
        if tree is None:
            _key_error(flag, f"{paths[0]} does not parse, so {flag.key} cannot be found in it")
        return _scope_in(tree, paths[0], module, inner, flag)
    _key_error(
        flag,
        f"no module {parts[0]} among the files in scope; a qualified key is the module's "
        'dotted name, then the class or function, then the flag, e.g. "pkg.mod.Class.fast"',
    )


def _scope_in(tree: ast.Module, path: str, module: str, inner: list[str], flag: Flag) -> Scope:
    if not inner:
        return Scope(path)
    owner = _owner(tree.body, inner)
    if owner is None:
        no_module = len(inner) > 1 and _owner(tree.body, inner[:1]) is None
        missing = f"{module} has no class or function {inner[0] if no_module else '.'.join(inner)}"
        _key_error(
            flag, missing + (f", and there is no module {module}.{inner[0]}" if no_module else "")
        )
    if isinstance(owner, ast.ClassDef):
        return Scope(path, owner.name)
    arguments = owner.args
    if flag.name not in {
        a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    }:
        _key_error(
            flag,
            f"{module}.{'.'.join(inner)} has no parameter {flag.name} (if a run pruned it, drop the key)",
        )
    return Scope(path, ".".join(inner), parameter=True)


def _key_error(flag: Flag, message: str) -> NoReturn:
    raise ConfigError(flag.origin or "--flag", f"flags.{flag.key}", message)


def _owner(body: list[ast.stmt], path: list[str]) -> Owner | None:
    found = next(
        (
            s
            for s in body
            if isinstance(s, (ast.ClassDef, *FunctionNode.__args__)) and s.name == path[0]
        ),
        None,
    )
    if found is None or len(path) == 1:
        return found
    return _owner(found.body, path[1:])


def definitions(name: str, facts: NameFacts) -> tuple[dict[str, list[Site]], dict[str, str]]:
    """The name's definitions by qualified name (module constants, classes' attributes), with
    where each is; and the class of each class attribute's qualified name."""
    found: dict[str, list[Site]] = {}
    classes: dict[str, str] = {}
    for write in facts.writes:
        if write.value is ITSELF:
            continue  # `self.fast = config.fast` carries the flag itself along
        if write.kind == "module":
            found.setdefault(qualified(write.site.path, name), []).append(write.site)
        elif write.kind in ("class", "attribute") and write.owner:
            key = qualified(write.site.path, f"{write.owner}.{name}")
            found.setdefault(key, []).append(write.site)
            classes[key] = write.owner
    return found, classes


def unrelated(
    repository: Repository, keys: list[str], classes: Mapping[str, str]
) -> list[set[str]]:
    """The definitions grouped by what links them: a class's attribute is one with its ancestors'
    (a subclass overrides it), through the chain of bases the repository's class statements spell
    (by the bases' last names); siblings under a base that does not define it are not linked, nor
    is a module constant with anything."""
    defining = frozenset(classes.values())
    bases = class_bases(repository, defining)
    group = {name: name for name in defining}
    for name in sorted(defining):
        seen, stack = set(), list(bases.get(name, ()))
        while stack:
            ancestor = stack.pop()
            if ancestor in seen:
                continue
            seen.add(ancestor)
            if ancestor in defining:
                low, high = sorted((group[name], group[ancestor]))
                group = {
                    member: low if joined == high else joined for member, joined in group.items()
                }
            stack.extend(bases.get(ancestor, ()))
    groups: dict[str, set[str]] = {}
    for key in keys:
        groups.setdefault(group[classes[key]] if key in classes else key, set()).add(key)
    return list(groups.values())


def class_bases(repository: Repository, names: frozenset[str]) -> dict[str, set[str]]:
    """The bases' last names of each class named (every class statement of that name in the
    files in scope), and of their bases in turn, as far as the repository defines them."""
    steps = ancestry(sorted(names), partial(class_statements, repository))
    return {
        step.name: {base_name(base) for node in step.definitions for base in node.bases}
        for step in steps
    }


def with_subclasses(repository: Repository, names: frozenset[str]) -> frozenset[str]:
    """Classes' names and those of the classes the repository derives from them, at any depth
    (by the bases' last names)."""
    found, frontier = set(names), set(names)
    while frontier:
        derived = set()
        for path in repository.mentioning(frozenset(frontier)):
            tree = repository.tree(path, repository.text(path))
            for name, nodes in classes_in(tree).items() if tree is not None else ():
                if name not in found and any(
                    base_name(base) in frontier for node in nodes for base in node.bases
                ):
                    derived.add(name)
        found |= derived
        frontier = derived
    return frozenset(found)


HOOKS = ("__post_init__", "__del__")  # methods only the runtime calls: emptied, they may go


def droppable_hooks(
    repository: Repository,
    tree: ast.Module,
    folding: Callable[[ast.FunctionDef | ast.AsyncFunctionDef], bool],
) -> frozenset[str]:
    """The hooks of a module's classes (`Config.__post_init__`, by dotted path) whose method may go
    once its body folds away: nothing in the repository names the hook but its definitions (no
    `super().__del__()` in a class derived from it, that would then find none), and no ancestor
    defines it, which the class's
    bases (plain names or `object`, each defined in the repository) show. A base from outside the
    repository might define it, and then the empty method was what overrode it. Only hooks that
    `folding` says the cleanup may empty are looked at."""
    classes = {
        dotted: node for dotted, _, _, node in owner_spans(tree) if isinstance(node, ast.ClassDef)
    }
    found = set()
    for dotted, node in classes.items():
        hooks = [
            s.name
            for s in node.body
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
            and s.name in HOOKS
            and folding(s)
        ]
        for hook in hooks:
            if _inherits(repository, node, hook):
                continue
            # `super().__post_init__()` reaches the class's hook only from a class derived from it.
            derived = with_subclasses(repository, frozenset([node.name])) != {node.name}
            if not _hook_named_elsewhere(repository, hook, derived):
                found.add(f"{dotted}.{hook}")
    return frozenset(found)


def _hook_named_elsewhere(repository: Repository, hook: str, through_super: bool) -> bool:
    """Whether any file names the hook other than by defining it: a call, a string, a store;
    a call through `super()` only when `through_super` (a class derived from the hook's may make it).
    """
    for path in repository.mentioning(frozenset([hook])):
        tree = repository.tree(path, repository.text(path))
        if tree is None:
            return True
        for node in ast.walk(tree):
            if (
                (
                    isinstance(node, ast.Attribute)
                    and node.attr == hook
                    and (through_super or not _of_super(node))
                )
                or (isinstance(node, ast.Name) and node.id == hook)
                or (isinstance(node, ast.Constant) and node.value == hook)
            ):
                return True
    return False


def _of_super(node: ast.Attribute) -> bool:
    """`super().name`, `super(Cls, self).name`."""
    value = node.value
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "super"
    )


def _inherits(repository: Repository, node: ast.ClassDef, hook: str) -> bool:
    """Whether an ancestor of the class may define the hook: one the repository does not define,
    or gives a metaclass (which may hand the class anything), or not by a plain name, may; one it
    defines does when its body binds the hook."""
    if flaws([node]) & {KEYWORDS, DOTTED_BASE}:
        return True
    return any(
        step.flaws & {UNDEFINED, KEYWORDS, DOTTED_BASE}
        or any(_binds_hook(definition, hook) for definition in step.definitions)
        for step in ancestry(
            [base_name(base) for base in node.bases], partial(class_statements, repository)
        )
    )


def _binds_hook(node: ast.ClassDef, hook: str) -> bool:
    return any(
        isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Assign, ast.AnnAssign))
        and hook in _bound(s)
        for s in node.body
    )


def _bound(statement: ast.stmt) -> set[str]:
    """The names a class-body statement binds."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return {statement.name}
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]  # type: ignore[attr-defined]
    return {t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)}


def scope_flag(
    repository: Repository, flag: Flag, scope: Scope, facts: NameFacts
) -> Foreign | Refusal:
    """Where a scoped flag's name is another definition's; or, when a place could be either's,
    the refusal naming it."""
    verdicts = _verdicts(repository, flag, scope, facts)
    foreign: dict[str, set[str]] = {}
    unsure: list[str] = []
    for (path, owner), seen in sorted(verdicts.items()):
        mixed = bool(seen[HOME]) and bool(seen[FOREIGN])
        if seen[UNKNOWN] or mixed or (seen[FOREIGN] and owner == "" and _homes_in(verdicts, path)):
            unsure += sorted(f"{path}:{line}" for line in seen[UNKNOWN] | seen[FOREIGN])
            continue
        if seen[FOREIGN]:
            foreign.setdefault(path, set()).add(owner)
    if unsure:
        unsure.sort(key=lambda site: (site.rpartition(":")[0], int(site.rpartition(":")[2])))
        message = (
            f"{flag.name}: not pruned: scoped to {flag.key}, the name is still ambiguous at {', '.join(unsure)}: "
            "a use there may be another definition's, or shares its class or function with one (the cleanup "
            "leaves other definitions' classes and functions alone); name the receiver's class plainly there "
            "(an annotation, or the class itself)"
        )
        return Refusal(flag.name, "ambiguous", tuple(unsure), message, (flag.key,))
    return {path: frozenset(owners) for path, owners in foreign.items()}


def _homes_in(verdicts: Mapping[tuple[str, str], Mapping[str, set[int]]], path: str) -> bool:
    return any(seen[HOME] for (where, _), seen in verdicts.items() if where == path)


def _verdicts(
    repository: Repository, flag: Flag, scope: Scope, facts: NameFacts
) -> dict[tuple[str, str], dict[str, set[int]]]:
    """For each (file, innermost class or function, "" at module level) where the name is used:
    the lines where it is the flag's, another definition's, or could be either's."""
    judge = _Judge(repository, flag, scope, facts)
    verdicts: dict[tuple[str, str], dict[str, set[int]]] = {}
    by_display = repository.by_display()
    lines: dict[str, set[int]] = {}
    for site in all_sites(facts):
        lines.setdefault(site.path, set()).add(site.line)
    for display, found in lines.items():
        path = by_display.get(display)
        tree = repository.tree(path, repository.text(path)) if path in repository.sources else None
        if tree is None:
            continue  # a skipped file keeps what it reads (Repository._skipped_reads), whoever's it is
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
        for verdict in (HOME, FOREIGN, UNKNOWN):
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
        else:
            self.home = self.foreign = frozenset()
            self.foreign_modules = frozenset(
                qualified(w.site.path, "")
                for w in facts.writes
                if w.kind == "module" and w.site.path != scope.path
            )
        # Parameters of the name outside the home's classes are other functions' variables.
        self.parameters = {
            (w.site.path, w.site.line) for w in facts.writes if w.kind == "parameter"
        }
        self._aliases: dict[str, tuple[dict[str, str], dict[str, str]]] = {}

    def verdict(
        self, path: str, tree: ast.Module, enclosing: list[tuple[str, Owner]], line: int
    ) -> str | None:
        owners = [owner for owner, _ in enclosing]
        if self.scope.parameter:
            return self._parameter_verdict(path, tree, owners, line)
        if not self.scope.owner:
            return self._module_verdict(path, tree, line)
        cls, receiver = _method_receiver(enclosing)
        receivers = _receivers(tree, line, self.flag.name)
        if not receivers:
            if cls is not None:
                return self._class_verdict(cls)  # the class body's own definition
            # A bare name (another module's constant) or a parameter (another function's).
            return FOREIGN if self.foreign_modules or (path, line) in self.parameters else None
        # `self.fast` is its class's; `other.fast`, even inside a class, is whatever `other` is.
        found = {
            (
                self._class_verdict(cls)
                if cls is not None and ast_dotted(node) == receiver
                else self._receiver_verdict(node, enclosing)
            )
            for node in receivers
        }
        return found.pop() if len(found) == 1 else UNKNOWN

    def _class_verdict(self, name: str) -> str:
        return HOME if name in self.home else FOREIGN if name in self.foreign else UNKNOWN

    def _parameter_verdict(self, path: str, tree: ast.Module, owners: list[str], line: int) -> str:
        """Inside the function, the parameter; a keyword at a call of a function of its name, the
        parameter passed (as the cleanup matches calls, by the callee's last name); anything
        else is another function's parameter or an attribute that only shares the name."""
        if path == self.scope.path and self.scope.owner in owners:
            return HOME
        callee = self.scope.owner.rsplit(".", 1)[-1]
        callees = {
            ast_dotted(call.func).rsplit(".", 1)[-1]
            for call in ast.walk(tree)
            if isinstance(call, ast.Call)
            and any(k.arg == self.flag.name and k.lineno == line for k in call.keywords)
        }
        if callee == "__init__":
            callee = self.scope.owner.split(".")[0]  # the class is called
        return HOME if callee in callees else FOREIGN

    def _module_verdict(self, path: str, tree: ast.Module, line: int) -> str:
        if path == self.scope.path:
            return HOME
        if self._foreign_module(qualified(path, "")):
            return FOREIGN
        if path not in self._aliases:  # a file's imports, once for all its lines
            self._aliases[path] = _module_aliases(tree, path)
        sources, modules = self._aliases[path]
        receivers = _receivers(tree, line, self.flag.name)
        # `mod.FAST` by the module its receiver names; a bare `FAST` by the module it came from
        named = (
            {modules.get(ast_dotted(receiver)) for receiver in receivers}
            if receivers
            else {sources.get(self.flag.name)}
        )
        found = {
            (
                HOME
                if module and names_module(self.scope.path, module)
                else FOREIGN if module and self._foreign_module(module) else UNKNOWN
            )
            for module in named
        }
        if found == {UNKNOWN} and not self.foreign_modules:
            return HOME  # no other module defines it: whatever reads it reads the flag, as unscoped
        return found.pop() if len(found) == 1 else UNKNOWN

    def _foreign_module(self, module: str) -> bool:
        return any(
            foreign == module or foreign.endswith("." + module) for foreign in self.foreign_modules
        )

    def _receiver_verdict(self, receiver: ast.expr, enclosing: list[tuple[str, Owner]]) -> str:
        cls = _receiver_class(receiver, enclosing)
        if cls in self.home:
            return HOME
        if cls in self.foreign:
            return FOREIGN
        return UNKNOWN


def _method_receiver(enclosing: list[tuple[str, Owner]]) -> tuple[str | None, str]:
    """The innermost enclosing class's name, and what its method (around the line) calls its
    instance or class: the first parameter, unless a staticmethod ("" then, or outside a method)."""
    classes = [index for index, (_, node) in enumerate(enclosing) if isinstance(node, ast.ClassDef)]
    if not classes:
        return None, ""
    cls = enclosing[classes[-1]][1]
    method = enclosing[classes[-1] + 1][1] if classes[-1] + 1 < len(enclosing) else None
    if not isinstance(method, FunctionNode.__args__):
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


def _receiver_class(receiver: ast.expr, enclosing: list[tuple[str, Owner]]) -> str | None:
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
        if isinstance(node, FunctionNode.__args__):
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
