"""The files a run reads and the `ast` index over them: bytes read once, texts decoded and trees
parsed only for files that mention what is asked, behind the text pre-filter. No LibCST."""

# The files a run reads and the `ast` index over them: their bytes (read once), their texts (decoded
# only for files that mention a name the run asks about), their texts once rewritten, and the trees
# parsed so far. Every question the engine and the model of a flag ask of the code (which files
# mention a name, what the index says of it, which calls reach a function) is asked here, behind the
# text pre-filter, so that unrelated files are never decoded or parsed. No LibCST: `find` builds the
# model of its candidates from it too.

from __future__ import annotations

import ast
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from prune_flags.config import Config
from prune_flags.semantic.calls import scan_calls
from prune_flags.semantic.facts import CallSite, NameFacts, Site
from prune_flags.semantic.modules import internal_module_names, module_names
from prune_flags.semantic.owners import Foreign, foreign_spans, without_foreign
from prune_flags.semantic.scan import scan
from prune_flags.semantic.trees import TreeFacts
from prune_flags.source.discovery import discover_python_files
from prune_flags.source.files import SourceError, SourceFile, decode_source, read_bytes
from prune_flags.source.parsing import deeply, parse_ast, too_deep
from prune_flags.source.words import mentions_any, names_in, text_words
from prune_flags.syntax.spellings import module_strings, spellings
from prune_flags.syntax.templates import Template, parse_template, parse_writer
from prune_flags.vocabulary import WriteKind

_FEW_NAMES = (
    16  # lookups answered by reading every file's bytes before the files' words are indexed
)
_BYTE_WORD = re.compile(rb"\w+")


@dataclass
class Repository:
    """The files in scope: their bytes, their texts (decoded only for files that mention a name
    the run asks about), their current texts once rewritten, and the `ast` trees parsed so far."""

    cwd: Path
    writers: tuple[Template, ...] = ()  # the config's writer templates: calls that write flags
    accessors: tuple[
        Template, ...
    ] = ()  # the config's accessor templates: expressions that read flags
    option_calls: tuple[str, ...] = ()  # the config's wrappers of add_argument: they define options
    flag_constants: dict[str, str] = field(default_factory=dict)  # see name_constants
    raw: dict[Path, bytes] = field(default_factory=dict)
    sources: dict[Path, SourceFile] = field(default_factory=dict)
    rewritten: dict[Path, str] = field(default_factory=dict)
    skipped: dict[Path, str] = field(default_factory=dict)
    # The top-level names of the repository's modules and packages: an import of anything else
    # reaches another library (TreeFacts.outside_names).
    internal: frozenset[str] = frozenset()
    # The repository's files outside the paths the run was given: read as skipped files are (what
    # they read stays defined), never rewritten, and not reported as skipped.
    outside: frozenset[Path] = frozenset()
    # Scoped flags: per file, the classes and functions where the name is another definition's;
    # the index leaves out what is in them (see scoping).
    foreign: dict[str, Foreign] = field(default_factory=dict)
    # Flags that are a function's parameter: the index keeps only what a parameter can be.
    parameters: frozenset[str] = frozenset()
    _trees: dict[tuple[Path, str], TreeFacts] = field(default_factory=dict)
    _modules: dict[Path, tuple[str, bool]] | None = None  # see module_names
    _candidate_cache: dict[frozenset[str], list[Path]] = field(default_factory=dict)
    _word_files: dict[bytes, list[Path]] | None = None  # each word of the files' bytes -> the files
    _displays: dict[Path, str] = field(default_factory=dict)
    _order: dict[Path, int] | None = None  # each file's place in the tree's order
    # The words of each file's original text and of its last rewritten one, with the text
    _words: dict[tuple[Path, bool], tuple[str, frozenset[str]]] = field(default_factory=dict)

    def display(self, path: Path) -> str:
        """The path as the report names it (relative to the working directory), worked out once."""
        if path not in self._displays:
            self._displays[path] = Path(os.path.relpath(path, self.cwd)).as_posix()
        return self._displays[path]

    def source(self, path: Path) -> SourceFile | None:
        """The decoded file, decoding it on first need; None (and skipped) when it cannot be."""
        if path not in self.sources and path not in self.skipped:
            try:
                self.sources[path] = decode_source(path, self.raw[path])
            except SourceError as err:
                self.skipped[path] = str(err)
        return self.sources.get(path)

    def text(self, path: Path, original: bool = False) -> str:
        source = self.sources[path]
        return source.text if original else self.rewritten.get(path, source.text)

    def _candidates(self, names: frozenset[str]) -> list[Path]:
        """Files whose bytes contain one of the names: the only ones worth decoding; and rewritten
        files whose text came to name one (a helper's call inlined as `CHANNEL`, with its import).
        """
        if names not in self._candidate_cache:
            holding = set().union(
                *(self._files_with(word) for name in names for word in spellings(name))
            )
            if self._order is None:
                self._order = {path: place for place, path in enumerate(self.raw)}
            self._candidate_cache[names] = sorted(
                holding, key=self._order.__getitem__
            )  # in the tree's order
        cached = self._candidate_cache[names]
        if self.rewritten:
            known = set(cached)
            cached = cached + [
                path
                for path, text in self.rewritten.items()
                if path not in known and self._names_any(path, text, names)
            ]
        return [path for path in cached if path not in self.skipped and self.source(path)]

    def _names_any(self, path: Path, text: str, names: frozenset[str]) -> bool:
        """Whether a text of the file names one of the names; its words are kept with it, since a
        cascade asks of the same texts about many sets of names."""
        key = (path, text is self.sources[path].text)
        kept = self._words.get(key)
        if kept is None or kept[0] is not text:
            kept = self._words[key] = (text, text_words(text))
        return mentions_any(text, names, kept[1])

    def _files_with(self, name: str) -> list[Path]:
        """The files holding a name. The first few lookups read every file's bytes; past that,
        every file's words are indexed once, so that thousands of names (many flags,
        or the fields a big cascade kills) cost a lookup each, not a pass over the tree each."""
        key = frozenset([name])
        if key not in self._candidate_cache:
            if self._word_files is None and len(self._candidate_cache) > _FEW_NAMES:
                self._word_files = {}
                for path, data in self.raw.items():
                    for word in set(_BYTE_WORD.findall(data)):
                        self._word_files.setdefault(word, []).append(path)
            needle = name.encode()
            if self._word_files is not None and name.isidentifier() and name.isascii():
                self._candidate_cache[key] = self._word_files.get(needle, [])
            else:
                self._candidate_cache[key] = [
                    path for path, data in self.raw.items() if needle in data
                ]
        return self._candidate_cache[key]

    def by_display(self) -> dict[str, Path]:
        """Decoded files, and skipped ones (the index reads them too), by the path it names them
        with."""
        return {self.display(path): path for path in [*self.sources, *self.skipped]}

    def mentioning(self, names: frozenset[str], original: bool = False) -> list[Path]:
        if not names:
            return []
        return [
            path
            for path in self._candidates(names)
            if self._names_any(path, self.text(path, original), names)
        ]

    def mentioning_write(self, name: str) -> bool:
        """Whether any file has text that may assign `name` as an attribute or class attribute, or
        define it as a private method (a public one is never removed)."""
        word = re.escape(name)
        pattern = re.compile(
            rf"(\.|^[ \t]+){word}\s*(:[^=\n]*)?([-+*/%&|^@]|//|>>|<<|\*\*)?=(?!=)"
            rf"|\bdel\b.*\.{word}\b"
            rf"|[\"']{word}[\"']" + (rf"|\b(def|class)\s+{word}\b" if name.startswith("_") else ""),
            re.M,
        )
        return any(pattern.search(self.text(path)) for path in self._candidates(frozenset([name])))

    def name_constants(self, flags: frozenset[str]) -> tuple[dict[str, str], frozenset[str]]:
        """Module constants that hold a flag's name (`EXPRESS = "express-shipping"`): an accessor
        or a writer call may name the flag through them, from any module that imports them (see
        spellings.FlagNames). Also those among them that another module binds to another string:
        a use of one may be the flag's (the index counts it) or not (no pass acts on it).
        Without accessors or writers, none is looked for."""
        if not (self.accessors or self.writers):
            return {}, frozenset()
        found: dict[str, str] = {}
        for path in self.mentioning(flags):
            tree = self.tree(path, self.text(path))
            constants = module_strings(tree) if tree is not None else {}
            found.update(
                (name, value)
                for name, value in constants.items()
                if value is not None and value in flags
            )
        ambiguous: set[str] = set()
        for path in self.mentioning(frozenset(found)):
            tree = self.tree(path, self.text(path))
            constants = module_strings(tree) if tree is not None else {}
            ambiguous.update(
                name for name, value in constants.items() if name in found and found[name] != value
            )
        return found, frozenset(ambiguous)

    def defines(self, name: str) -> bool:
        """Whether a function or class of this name is defined in the files in scope."""
        pattern = re.compile(rf"\b(def|class)\s+{re.escape(name)}\b")
        return any(pattern.search(self.text(path)) for path in self._candidates(frozenset([name])))

    def calls(self, callees: frozenset[str]) -> list[CallSite]:
        """Every call of the functions named (by their last names) in the files as they now read."""
        found: list[CallSite] = []
        for path in self.mentioning(callees):
            tree = self.tree_facts(path, self.text(path))
            if tree is not None:
                found += scan_calls(tree.calls, self.display(path), callees)
        return found

    def trees_naming(self, name: str) -> list[TreeFacts]:
        """The trees of the files that mention a name, as they now read."""
        trees = [
            self.tree_facts(path, self.text(path)) for path in self.mentioning(frozenset([name]))
        ]
        return [tree for tree in trees if tree is not None]

    def read_names_through(self, constants: dict[str, str]) -> None:
        """From now on the index counts a use of one of these constants (name -> the flag's name
        it holds, see name_constants) as naming that flag."""
        self.flag_constants = constants

    def leave_out(self, foreign: dict[str, Foreign], parameters: frozenset[str]) -> None:
        """From now on the index leaves out, for each scoped flag, the classes and functions where
        its name is another definition's; and for a flag that is a function's parameter, whatever
        a parameter cannot be (an attribute of its name, a string spelling it)."""
        self.foreign.update(foreign)
        self.parameters |= parameters

    def module_names(self) -> dict[Path, tuple[str, bool]]:
        """Each file's dotted module name and whether it is a package's `__init__.py`, for the
        files whose name no other file shares (semantic.modules.module_names); once a run."""
        if self._modules is None:
            self._modules = module_names(self.raw, lambda path: path in self.raw)
        return self._modules

    def tree(self, path: Path, text: str) -> ast.Module | None:
        """A text of the file parsed; None, and the file skipped, when it does not parse."""
        facts = self.tree_facts(path, text)
        return facts.tree if facts is not None else None

    def tree_facts(self, path: Path, text: str) -> TreeFacts | None:
        """A text of the file parsed, with the facts several questions read of it (TreeFacts);
        None, and the file skipped, when it does not parse."""
        key = (path, text)
        if key not in self._trees:
            try:
                self._trees[key] = TreeFacts(deeply(parse_ast, text))
            except SyntaxError as err:
                self.skipped[path] = f"does not parse: {err.msg} (line {err.lineno})"
                return None
            except RecursionError:
                self.skipped[path] = too_deep("parse")
                return None
            if (
                len(self._trees) > TREE_CACHE
            ):  # trees of a big tree do not all fit in memory at once
                del self._trees[next(iter(self._trees))]
        return self._trees[key]

    def facts(self, names: frozenset[str], original: bool = False) -> dict[str, NameFacts]:
        merged: dict[str, NameFacts] = {name: NameFacts() for name in names}
        constants = {
            constant: name for constant, name in self.flag_constants.items() if name in names
        }
        for path in self.mentioning(names | frozenset(constants), original):
            for name, facts in (self.scanned(path, self.text(path, original), names) or {}).items():
                merged[name].merge(facts)
        for path in self.skipped_holding(names):  # found skipped by the loop above too
            for name, facts in self._skipped_reads(path, names).items():
                merged[name].merge(facts)
        return merged

    def scanned(self, path: Path, text: str, names: frozenset[str]) -> dict[str, NameFacts] | None:
        """The facts about `names` in one text of a file; None, and the file skipped, when it does
        not parse or nests too deeply to walk."""
        parsed = self.tree_facts(path, text)
        if parsed is None:
            return None
        tree = parsed.tree
        display = self.display(path)
        try:
            found = deeply(
                scan,
                tree,
                display,
                names,
                self.writers,
                self.accessors,
                text,
                self.flag_constants,
                self.option_calls,
                parsed.outside_names(self.internal),
            )
        except RecursionError:
            self.skipped[path] = too_deep("analyse")
            return None
        for name, facts in found.items():
            if owners := self.foreign.get(name, {}).get(display):
                facts = without_foreign(facts, foreign_spans(tree, owners))
            found[name] = facts.of_parameter() if name in self.parameters else facts
        return found

    def skipped_holding(self, names: frozenset[str]) -> list[Path]:
        """Skipped files whose bytes hold one of the names."""
        if not self.skipped or not names:
            return []
        holding = set().union(*(self._files_with(name) for name in names))
        return [path for path in self.skipped if path in holding]

    def skipped_displays(self) -> frozenset[str]:
        return frozenset(self.display(path) for path in self.skipped)

    def _skipped_reads(self, path: Path, names: frozenset[str]) -> dict[str, NameFacts]:
        """What a skipped file reads of `names`, in its original text: it runs as it is, so what it
        reads must stay defined. A file `ast` parses is scanned, its asserts being plain reads (they
        do not go with what they check); in one that does not, each place naming a name reads it.
        A bare name that the file binds at its top level is its own, not another module's."""
        source = self.sources.get(path)
        text = source.text if source is not None else self.raw[path].decode("utf-8", "replace")
        display = self.display(path)
        try:
            shapes = (self.writers, self.accessors)
            found = deeply(
                scan, deeply(parse_ast, text), display, names, *shapes, text, {}, self.option_calls
            )
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return {name: _unparsed_reads(text, name, display) for name in names_in(text, names)}
        for facts in found.values():
            facts.attribute_reads += [read.site for read in facts.assert_reads]
            facts.assert_reads = []
            if any(
                write.kind in (WriteKind.MODULE, WriteKind.MODULE_DEF, WriteKind.GLOBAL)
                for write in facts.writes
            ):
                facts.name_reads = []
        return found


def _unparsed_reads(text: str, name: str, display: str) -> NameFacts:
    """The reads of `name` in a text `ast` cannot parse: every place it is spelt, but for bare
    ones (not `.name`) when the file binds it at its top level (`name = ...`, `def name`)."""
    word = re.escape(name)
    own = (
        re.search(rf"^((def|class)\s+{word}\b|{word}\s*(:[^=\n]*)?=(?!=))", text, re.M) is not None
    )
    reads = []
    for match in re.finditer(rf"(?<!\w){word}(?!\w)", text):
        if not own or text[max(0, match.start() - 80) : match.start()].rstrip().endswith("."):
            reads.append(Site(display, text.count("\n", 0, match.start()) + 1))
    return NameFacts(string_reads=sorted(set(reads), key=lambda site: site.line))


class NoPythonFiles(Exception):
    """The paths hold no Python file in scope: most likely the wrong directory, so it is said."""


Progress = Callable[[int, int], None]  # (files read, files in scope)
TREE_CACHE = 512  # parsed files kept between index queries


def load(
    paths: Sequence[Path],
    config: Config,
    cwd: Path,
    project_root: Path,
    progress: Progress | None = None,
    contents: Mapping[Path, bytes] | None = None,
) -> Repository:
    repository = Repository(
        cwd,
        tuple(parse_writer(pattern) for pattern in config.writers),
        tuple(parse_template(pattern) for pattern in config.accessors),
        option_calls=config.option_calls,
    )
    files = discover_python_files(paths, project_root, config.exclude)
    if not files:
        raise NoPythonFiles(", ".join(str(path) for path in paths))
    # The paths say where to write; what the code reads is looked up in the whole repository.
    outside = _outside(paths, files, project_root, config.exclude)
    repository.outside = frozenset(outside)
    files = files + outside
    for done, path in enumerate(files, 1):
        if progress is not None:
            progress(done, len(files))
        try:
            repository.raw[path] = (
                contents[path] if contents and path in contents else read_bytes(path)
            )
        except SourceError as err:
            repository.skipped[path] = str(err)
    for path in outside:
        repository.skipped.setdefault(path, OUTSIDE)
    repository.internal = internal_module_names(files, project_root)
    return repository


OUTSIDE = "outside the paths given"


def _outside(
    paths: Sequence[Path], files: list[Path], root: Path, exclude: Sequence[str]
) -> list[Path]:
    """The repository's files in scope that the paths leave out (never written: absolute paths
    do)."""
    real_root = os.path.realpath(root)
    if any(os.path.realpath(path) == real_root for path in paths):
        return []
    given = {os.path.realpath(path) for path in files}
    return [
        path
        for path in discover_python_files([root], root, exclude)
        if os.path.realpath(path) not in given
    ]
