"""Library keywords (opt-in, `library_keywords = true`): a keyword the cleanup made a constant goes
from a call of an installed library whose signature defaults to that same value."""

# Library keywords (opt-in, `library_keywords = true`): a keyword the cleanup made a constant goes
# from a call of an installed library when the library's signature default is that same value
# (`torch.compile(model, fullgraph=self.fast)` with fast = false: `fullgraph=False` is the default).
#
# Like the index, this module reads `ast` only and never imports LibCST. The engine asks it once a
# run, before the rewrite:
#
# - `keyword_calls`: in a file's original tree, the keyword arguments whose value reads a flag
#   (`fullgraph=self.fast`, `check=not FAST`) at calls whose callee resolves through the file's
#   imports to a module outside the repository (`from lib import Lib; Lib(...)`, `import lib;
#   lib.sub.f(...)`). A callee the repository defines, a name the file binds otherwise (anywhere, in
#   any scope, or under a condition), a method on another receiver, and a call with `*args` or
#   `**kwargs` (which could pass the keyword again) are never asked about.
# - `probe`: one subprocess for every callee the run needs, with the configured interpreter (or the
#   one running prune-flags), isolated (`-I`: no user site, no current directory on `sys.path`, no
#   PYTHONPATH) in an empty directory, so the target repository is never imported; a module the
#   repository holds (an editable install) is refused before it is imported. It imports each module
#   and reads `inspect.signature(callee).parameters[keyword].default` (a class's is its
#   constructor's). A callee it cannot read (the module does not import, no such attribute, no
#   signature, the keyword only through `**kwargs`) keeps its keywords, named once in a notice; so
#   does every callee when the probe fails or takes longer than `PROBE_TIMEOUT` seconds.
#
# The pass (passes/keywords.py) then drops a keyword at one of these places whose value the rewrite
# made a constant that is the default by `same_default`.

from __future__ import annotations

import ast
import functools
import json
import os
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from prune_flags.semantic.bindings import Binding, module_bindings
from prune_flags.semantic.modules import internal_module_names
from prune_flags.syntax.expressions import ast_dotted
from prune_flags.syntax.values import same_value

PROBE_TIMEOUT = 30.0  # seconds for the whole probe: importing every module it asks about
_NOTICE = "library_keywords"


class Target(NamedTuple):
    """A callee as an import reaches it: `import a.b` then `a.b.c.f(...)` is ("a.b", "a", ("b", "c",
    "f"))."""

    module: str  # what the import statement imports
    base: str  # the module the file's name is bound to (the root package for `import a.b`)
    attrs: tuple[str, ...]  # attributes from it to the callee

    @property
    def dotted(self) -> str:
        return ".".join((self.base, *self.attrs))


@dataclass(frozen=True)
class KeywordCall:
    """A keyword argument reading a flag at a call of a library's callee."""

    line: int  # of the keyword, in the original file
    keyword: str
    callee: str  # as the file spells it
    target: Target
    positionals: int  # the positional arguments before it: they must not reach its parameter


class Parameter(NamedTuple):
    """A keyword's parameter in the library's signature, when it has a literal default."""

    default: object
    position: int | None  # its place among the positional parameters; None when keyword-only


class LibraryDefault(NamedTuple):
    """What the pass knows of a keyword at calls of a callee on a line: the default it may go
    for."""

    default: object


# (line of the keyword, callee as the file spells it, keyword, positional arguments before it): two
# calls at one place (`f(a, k=X) + f(b, k=X)` on a line) are the same question.
KeywordPlace = tuple[int, str, str, int]


@dataclass
class LibraryKeywords:
    """The run's answer: per file, the keyword places that may go, with their defaults."""

    files: dict[Path, dict[KeywordPlace, LibraryDefault]] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)


def same_default(value: object, default: object) -> bool:
    """The project's equality of literals (bool True is not 1), and the same source (-0.0 is not
    0.0)."""
    return same_value(value, default) and repr(value) == repr(default)


def library_keywords(
    trees: Iterable[tuple[Path, ast.Module]],
    flags: frozenset[str],
    repository_names: frozenset[str],
    root: Path,
    python: str = "",
    timeout: float = PROBE_TIMEOUT,
) -> LibraryKeywords:
    """The keywords of the files that may go, asking the library once for every callee."""

    def outside(module: str) -> bool:
        return module.split(".")[0] not in repository_names

    calls = {path: found for path, tree in trees if (found := keyword_calls(tree, flags, outside))}
    wanted: dict[Target, set[str]] = {}
    for found in calls.values():
        for call in found:
            wanted.setdefault(call.target, set()).add(call.keyword)
    if not wanted:
        return LibraryKeywords()
    parameters, notices = probe(
        {target: frozenset(kws) for target, kws in wanted.items()}, root, python, timeout
    )
    answer = LibraryKeywords(notices=notices)
    for path, found in calls.items():
        for call in found:
            parameter = parameters.get(call.target, {}).get(call.keyword)
            if parameter is not None and _fits(call, parameter):
                place = (call.line, call.callee, call.keyword, call.positionals)
                answer.files.setdefault(path, {})[place] = LibraryDefault(parameter.default)
    return answer


def _fits(call: KeywordCall, parameter: Parameter) -> bool:
    """Whether no positional argument of the call reaches the keyword's parameter (it would be
    passed twice: an error the keyword's removal would hide)."""
    return parameter.position is None or call.positionals <= parameter.position


def repository_names(root: Path, paths: Iterable[Path]) -> frozenset[str]:
    """Top-level names an import could find in the repository: each directory and module name on
    the paths of its files (a superset: `scripts/json.py` makes `json` the repository's), and what
    the repository's root and its `src/` hold."""
    names = set(internal_module_names(paths, root))
    for directory in (root, root / "src"):
        if directory.is_dir():
            names.update(entry.name.removesuffix(".py") for entry in directory.iterdir())
    return frozenset(names)


# -- the analysis ----------------------------------------------------------------------------------
def keyword_calls(
    tree: ast.Module, flags: frozenset[str], outside: Callable[[str], bool]
) -> list[KeywordCall]:
    """The keyword arguments reading a flag at calls of library callees (see the module's doc)."""
    bindings, star = module_bindings(tree, "")
    if star:
        return []  # a star import may rebind any name
    # (a relative import is the repository's own, whatever module name it resolves to)
    relative = {
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.level
        for alias in node.names
    }
    bindings = {name: found for name, found in bindings.items() if name not in relative}
    counts: Counter[str] | None = None
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.keywords:
            continue
        flagged = [
            keyword
            for keyword in node.keywords
            if keyword.arg is not None and _reads_flag(keyword.value, flags)
        ]
        if (
            not flagged
            or any(isinstance(arg, ast.Starred) for arg in node.args)
            or any(k.arg is None for k in node.keywords)
        ):
            continue
        if counts is None:
            counts = _binding_counts(tree)
        target = _target(node.func, bindings, counts, outside)
        if target is not None:
            callee = ast_dotted(node.func)
            found += [
                KeywordCall(k.lineno, k.arg, callee, target, len(node.args))
                for k in flagged
                if k.arg
            ]
    return found


def _reads_flag(value: ast.expr, flags: frozenset[str]) -> bool:
    """Whether an argument's value names a flag (`self.fast`, `FAST`, `not fast`): the inlining may
    make it a constant. (The pass checks that it did.)"""
    return any(
        (isinstance(node, ast.Name) and node.id in flags)
        or (isinstance(node, ast.Attribute) and node.attr in flags)
        for node in ast.walk(value)
    )


def _target(
    func: ast.expr,
    bindings: Mapping[str, list[Binding]],
    counts: Counter[str],
    outside: Callable[[str], bool],
) -> Target | None:
    """The library callee a call's function names through the file's one import of its root name."""
    chain: list[str] = []
    while isinstance(func, ast.Attribute):
        chain.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return None  # a method on a value (`make().f`, `self.lib.f`)
    root, attrs = func.id, tuple(reversed(chain))
    found = bindings.get(root, [])
    if len(found) != 1 or found[0].conditional or counts[root] != 1:
        return None  # bound otherwise too: a parameter, a local, another import, under a condition
    kind, *key = found[0].key
    if kind == "import" and attrs:
        target = Target(key[0], root, attrs)
    elif kind == "import-as" and attrs:
        target = Target(key[0], key[0], attrs)
    elif kind == "from":
        target = Target(key[0], key[0], (key[1], *attrs))
    else:
        return None
    return target if outside(target.module) else None


def _binding_counts(tree: ast.Module) -> Counter[str]:
    """How many times each name is bound anywhere in the file, in any scope."""
    counts: Counter[str] = Counter()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            counts[node.id] += 1
        elif isinstance(node, ast.arg):
            counts[node.arg] += 1
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            counts[node.name] += 1
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            counts.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            counts.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            counts[node.name] += 1
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            counts[node.name] += 1
        elif isinstance(node, ast.MatchMapping) and node.rest:
            counts[node.rest] += 1
    return counts


# -- the probe -------------------------------------------------------------------------------------
# Run by the library's interpreter (any Python 3 the user points at), so kept to plain old Python.
# What a module prints while imported goes to stderr: stdout carries the answer only.
_PROBE = r"""
import importlib, importlib.util, inspect, json, os, sys

def inside(path, root):
    path = os.path.realpath(path) if path else ""
    return path == root or path.startswith(root + os.sep)

def check_outside(module, root):
    top = module.split(".")[0]
    spec = importlib.util.find_spec(top)
    if spec is None:
        raise ModuleNotFoundError("No module named %r" % top)
    places = [spec.origin] + list(spec.submodule_search_locations or [])
    if any(inside(place, root) for place in places):
        raise ImportError("%s is installed from the repository itself" % top)

def resolve(target):
    importlib.import_module(target["module"])
    found = sys.modules[target["base"]]
    for attr in target["attrs"]:
        try:
            found = getattr(found, attr)
        except AttributeError:
            if not inspect.ismodule(found):
                raise
            name = found.__name__ + "." + attr
            try:
                # a submodule, as `from m import sub` finds it
                found = importlib.import_module(name)
            except ModuleNotFoundError as error:
                if error.name != name:
                    raise
                raise AttributeError("module %r has no attribute %r" % (found.__name__, attr))
    return found

def plain(value):
    if type(value) is tuple:
        return all(plain(item) for item in value)
    return value is None or type(value) in (bool, int, float, str)

def parameter(signature, keyword):
    found = signature.parameters.get(keyword)
    unnamed = (found.POSITIONAL_ONLY, found.VAR_POSITIONAL, found.VAR_KEYWORD) if found else ()
    if found is None or found.kind in unnamed:
        if any(p.kind == p.VAR_KEYWORD for p in signature.parameters.values()):
            return {"notice": "takes %s only through **kwargs" % keyword}
        return {"notice": "takes no keyword %s" % keyword}
    if found.default is found.empty or not plain(found.default):
        return {}
    by_position = found.kind == found.POSITIONAL_OR_KEYWORD
    position = list(signature.parameters).index(keyword) if by_position else None
    return {"default": repr(found.default), "position": position}

def check(target, root):
    try:
        check_outside(target["module"], root)
        signature = inspect.signature(resolve(target))
    except BaseException as error:
        return {"error": ("%s: %s" % (type(error).__name__, error))[:300]}
    keywords = target["keywords"]
    return {"keywords": dict((keyword, parameter(signature, keyword)) for keyword in keywords)}

request = json.loads(sys.stdin.read())
answer = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
root = os.path.realpath(request["root"])
answer.write(json.dumps([check(target, root) for target in request["targets"]]))
answer.flush()
os._exit(0)
"""


def probe(
    wanted: Mapping[Target, frozenset[str]],
    root: Path,
    python: str = "",
    timeout: float = PROBE_TIMEOUT,
) -> tuple[dict[Target, dict[str, Parameter]], list[str]]:
    """Each callee's keywords that have a literal default in the installed library, and the
    notices: one a callee whose keywords all stay for want of its signature. The same question
    asked again in a process (`apply -i` plans again after each declined hunk) is answered from
    the first answer: a heavy library takes seconds to import."""
    question = tuple((target, tuple(sorted(keywords))) for target, keywords in wanted.items())
    found, notices = _asked(question, str(root), python or sys.executable, timeout)
    return {target: dict(parameters) for target, parameters in found}, list(notices)


@functools.lru_cache(maxsize=8)
def _asked(
    question: tuple[tuple[Target, tuple[str, ...]], ...],
    root: str,
    interpreter: str,
    timeout: float,
) -> tuple[tuple[tuple[Target, tuple[tuple[str, Parameter], ...]], ...], tuple[str, ...]]:
    found, notices = _run_probe(dict(question), root, interpreter, timeout)
    return tuple(
        (target, tuple(parameters.items())) for target, parameters in found.items()
    ), tuple(notices)


def _run_probe(
    wanted: Mapping[Target, tuple[str, ...]], root: str, interpreter: str, timeout: float
) -> tuple[dict[Target, dict[str, Parameter]], list[str]]:
    import subprocess  # only for a run that asks (the option is off by default)
    import tempfile

    targets = list(wanted)
    request = {
        "root": root,
        "targets": [
            {
                "module": t.module,
                "base": t.base,
                "attrs": list(t.attrs),
                "keywords": list(wanted[t]),
            }
            for t in targets
        ],
    }
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    try:
        with tempfile.TemporaryDirectory(prefix="prune-flags-probe-") as empty:
            completed = subprocess.run(
                [interpreter, "-I", "-c", _PROBE],
                input=json.dumps(request),
                capture_output=True,
                text=True,
                cwd=empty,
                env=environment,
                timeout=timeout,
            )
        answers = json.loads(completed.stdout)
        if not isinstance(answers, list) or len(answers) != len(targets):
            raise ValueError("an answer of another shape")
    except subprocess.TimeoutExpired:
        return {}, [
            f"{_NOTICE}: reading the libraries' signatures took longer than {timeout:g} s;"
            " every library keyword stays"
        ]
    except (OSError, ValueError) as error:
        why = f"{interpreter} could not read the libraries' signatures ({error})"
        return {}, [f"{_NOTICE}: {why}; every library keyword stays"]
    found: dict[Target, dict[str, Parameter]] = {}
    notices = []
    for target, answer in zip(targets, answers):
        if "error" in answer:
            notices.append(
                f"{_NOTICE}: cannot read {target.dotted}'s signature ({answer['error']});"
                " its keywords stay"
            )
            continue
        keywords = answer.get("keywords", {})
        found[target] = {
            keyword: p
            for keyword, given in keywords.items()
            if (p := _parameter(given)) is not None
        }
        unread = [given["notice"] for given in keywords.values() if "notice" in given]
        if unread:
            notices.append(f"{_NOTICE}: {target.dotted} {' and '.join(unread)}: the keyword stays")
    return found, notices


def _parameter(given: Mapping[str, object]) -> Parameter | None:
    """The probe's answer for a keyword, when it is a default written as a literal."""
    source, position = given.get("default"), given.get("position")
    if not isinstance(source, str):
        return None
    try:
        default = ast.literal_eval(source)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None  # `nan`, `inf`: no literal to compare with
    return Parameter(default, position if isinstance(position, int) else None)
