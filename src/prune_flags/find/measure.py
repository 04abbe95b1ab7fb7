"""Measuring a candidate with the engine itself (`--exact`, and scoped flags): the cleanup run with
the candidate as its only flag, over the files that mention it and those its cascade reaches."""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from prune_flags.config import Config
from prune_flags.find.facts import Candidate
from prune_flags.report import Report
from prune_flags.vocabulary import Action
from prune_flags.workers.pool import process_pool

BRANCH_ACTIONS = frozenset(
    {
        Action.REMOVED_BRANCH,
        Action.FOLDED_BRANCH,
        Action.FOLDED_BRANCH_KEPT_CALL,
        Action.REMOVED_LOOP,
    }
)


@dataclass(frozen=True)
class MeasureIndex:
    """Which files mention each name that a definition stores: the engine's files for a candidate,
    and for the fields and constants the cascade may find dead on the way."""

    files: tuple[Path, ...]
    mentions: Mapping[str, tuple[int, ...]]

    def files_mentioning(self, names: Iterable[str]) -> set[Path]:
        return {self.files[i] for name in names for i in self.mentions.get(name, ())}


_index: MeasureIndex | None = None  # set in each worker once, so tasks do not carry it


def _set_index(index: MeasureIndex) -> None:
    global _index
    _index = index


def measure(
    candidate: Candidate, settings: Config, cwd: Path, files: Sequence[Path] | None = None
) -> Candidate | None:
    """The candidate with the engine's counts, or None when the engine would refuse it or fold
    nothing. A named flag is kept whatever its counts (the engine decided it with the others),
    and counted over `files` (default: the index's, every file): it may be read where its name is
    not spelt (an accessor given a constant that holds it)."""
    from prune_flags.engine.driver import run

    config = replace(settings, flags=(candidate.flag(),))
    if candidate.named:
        everywhere = files if files is not None else _index.files if _index is not None else ()
        return _with_counts(candidate, run(config, sorted(everywhere), cwd))
    assert _index is not None
    paths = _index.files_mentioning([candidate.name])
    while True:
        report = run(config, sorted(paths), cwd)
        if report.conflicts:
            return None
        # The cascade deleted fields and constants whose readers it saw gone; files outside this
        # set may still read them, so run again with those files in view, until nothing new.
        wider = paths | _index.files_mentioning(_names_losing_writes(report) - {candidate.name})
        if wider == paths:
            return _with_counts(candidate, report)
        paths = wider


def _names_losing_writes(report: Report) -> set[str]:
    lost: set[str] = set()
    for changed in report.changed_files:
        before = _store_counts(ast.parse(changed.old_text))
        after = _store_counts(ast.parse(changed.new_text))
        lost |= {name for name, count in before.items() if count > after.get(name, 0)}
    return lost


def _store_counts(tree: ast.Module) -> Counter[str]:
    """Attribute writes anywhere and module-level assignments: what the cascade deletes across
    files."""
    counts = Counter(
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load)
    )
    for statement in tree.body:
        if isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            counts.update(target.id for target in targets if isinstance(target, ast.Name))
    return counts


def _with_counts(candidate: Candidate, report: Report) -> Candidate | None:
    """The counts, or None when nothing folds: a constant that is only inlined is no stale flag
    (unless the user named it). A scoped flag's reads are those the engine inlined (find's own
    counts are by name, other definitions' included), and one in a condition for each fold (a
    read decides one branch)."""
    branches = folded_branches(report)
    if branches <= 0 and not candidate.named:
        return None
    removed, added = report.line_counts()
    counted = replace(candidate, branches=branches, lines_removed=removed, lines_added=added)
    if not candidate.scope:
        return counted
    changes = [change for changed in report.changed_files for change in changed.changes]
    reads = sum(change.action == Action.INLINED for change in changes)
    return replace(counted, reads=reads, condition_reads=branches)


def folded_branches(report: Report) -> int:
    """The branches a cleanup run folded."""
    changes = (change for changed in report.changed_files for change in changed.changes)
    branches = sum(change.action in BRANCH_ACTIONS for change in changes)
    # The engine records folded statements; a folded `a if FLAG else b` shows only in the tree.
    return branches + sum(
        _ternaries(f.old_text) - _ternaries(f.new_text) for f in report.changed_files
    )


def _ternaries(text: str) -> int:
    return sum(isinstance(node, ast.IfExp) for node in ast.walk(ast.parse(text)))


def measure_all(
    candidates: Sequence[Candidate], index: MeasureIndex, settings: Config, cwd: Path, workers: int
) -> list[Candidate]:
    if not candidates:
        return []
    import prune_flags.engine.driver  # noqa: F401  loaded before forking, so workers inherit it

    count = len(candidates)
    if workers == 1 or count == 1:
        _set_index(index)
        results = [measure(candidate, settings, cwd) for candidate in candidates]
    else:
        # The most mentioned names take longest: start them first.
        ordered = sorted(candidates, key=lambda c: -len(index.mentions.get(c.name, ())))
        with process_pool(workers, initializer=_set_index, initargs=(index,)) as pool:
            results = list(pool.map(measure, ordered, [settings] * count, [cwd] * count))
    return [candidate for candidate in results if candidate is not None]
