"""The whole find run: scan every file (in a pool when there is much to parse), merge, count
the folds, and decide the flags the user named with the engine's own run."""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import replace
from pathlib import Path

from prune_flags.config import Config
from prune_flags.config_files import find_project_root
from prune_flags.find.candidates import discover
from prune_flags.find.estimate import estimate_all
from prune_flags.find.facts import (
    SHAPE_KEYS,
    Decided,
    FileFacts,
    FindResult,
    Override,
    Templates,
)
from prune_flags.find.judge import pruned_by_model
from prune_flags.find.measure import MeasureIndex, measure, measure_all
from prune_flags.find.scan import collector_paused, scan_file
from prune_flags.report import Skipped
from prune_flags.semantic.facts import Site
from prune_flags.semantic.modules import internal_module_names
from prune_flags.source.discovery import discover_python_files
from prune_flags.vocabulary import Action
from prune_flags.workers.pool import chunked_map, process_pool

PARALLEL_MIN_BYTES = 2_000_000  # below this one process parses faster than a pool starts


def find(
    paths: Sequence[Path],
    cwd: Path,
    settings: Config | None = None,
    jobs: int | None = None,
    exact: bool = False,
) -> FindResult:
    """Stale-flag candidates under `paths`, most lines first.

    Folds are counted from the tree; with `exact`, by running the engine with each candidate
    as the only flag (the cascade included, but LibCST is slow on big files). The flags of
    `settings` are the ones the user named: the engine decides them (see `decide`).
    """
    settings = settings or Config(flags=())
    templates = Templates.of(settings)
    root = find_project_root(paths[0] if paths else cwd)
    files = discover_python_files(paths, root, settings.exclude)
    decided = decide(settings, paths, cwd, jobs) if settings.flags and files else Decided()
    internal = internal_module_names(files, root)
    displays = [Path(os.path.relpath(path, cwd)).as_posix() for path in files]
    workers = jobs or os.cpu_count() or 1
    if workers == 1 or sum(_size(path) for path in files) < PARALLEL_MIN_BYTES:
        workers = 1
    # Workers collect as usual (scan_file pauses the collector per file); this process, which
    # only gathers the facts, does not, or each collection would walk all gathered so far.
    pool_context = (
        process_pool(workers, initializer=gc.enable) if workers > 1 else contextlib.nullcontext()
    )
    with pool_context as pool, collector_paused():
        all_facts = _scan_all(pool, files, displays, internal, exact, templates)
        candidates = list(discover(all_facts, internal, decided))
        if not exact:  # those that fold nothing are no proposal: the model need not judge them
            candidates = estimate_all(candidates, files, all_facts, pool, templates)
        candidates, held_back = pruned_by_model(candidates, settings, paths, cwd)
    if exact:
        index = _measure_index(files, all_facts, {c.name for c in candidates})
        counted = measure_all(candidates, index, settings, cwd, workers)
    else:
        # Folds counted by name would count other definitions' too: the engine counts a scoped flag.
        counted = [(measure(c, settings, cwd, files) or c) if c.scope else c for c in candidates]
    skipped = tuple(Skipped(facts.path, facts.error) for facts in all_facts if facts.error)
    seen = {entry.display for entry in skipped}
    skipped += tuple(entry for entry in decided.skipped if entry.display not in seen)
    ordered = sorted(counted, key=lambda c: (-c.lines, -c.branches, c.name))
    return FindResult(
        candidates=tuple(ordered),
        files=len(files),
        skipped=skipped,
        exact=exact,
        named=settings.flags,
        refused=decided.refused,
        held_back=held_back,
        shapes=tuple(
            (key, tuple(getattr(settings, key))) for key in SHAPE_KEYS if getattr(settings, key)
        ),
    )


def decide(settings: Config, paths: Sequence[Path], cwd: Path, jobs: int | None) -> Decided:
    """What apply does with the flags the user named: the engine's own run over the same files
    (nothing written, no black), so that find and apply cannot disagree. The refused flags come
    with apply's words; every other one with the writes it overrides."""
    from prune_flags.engine.driver import run

    report = run(replace(settings, format="none"), paths, cwd, jobs=jobs)
    refused = {refusal.flag for refusal in report.refused}
    overridden: dict[str, list[Override]] = {
        flag.name: [] for flag in settings.flags if flag.name not in refused
    }
    for result in report.changed_files:
        for change in result.changes:
            if change.action == Action.OVERRIDDEN and change.flag in overridden:
                site = Site(result.display, change.line)
                overridden[change.flag].append(Override(site, change.reason))
    pruned = tuple(
        (flag, tuple(sorted(overridden[flag.name], key=lambda o: (o.site.path, o.site.line))))
        for flag in settings.flags
        if flag.name in overridden
    )
    left = frozenset(site.flag for site in report.left)
    return Decided(settings.flags, pruned, tuple(report.refused), tuple(report.skipped), left)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _scan_chunk(
    chunk: Sequence[tuple[Path, str, frozenset[str], bool, Templates]],
) -> list[FileFacts]:
    return [scan_file(*task) for task in chunk]


def _scan_all(
    pool: Executor | None,
    files: Sequence[Path],
    displays: Sequence[str],
    internal: frozenset[str],
    mentions: bool = True,
    templates: Templates = Templates(),
) -> list[FileFacts]:
    # Biggest files first, dealt round the chunks, so no worker is left with a long tail.
    tasks = sorted(
        ((path, display, internal, mentions, templates) for path, display in zip(files, displays)),
        key=lambda task: -_size(task[0]),
    )
    scanned = {facts.path: facts for facts in chunked_map(pool, _scan_chunk, tasks)}
    return [scanned[display] for display in displays]


def _measure_index(
    files: Sequence[Path], all_facts: Sequence[FileFacts], candidates: set[str]
) -> MeasureIndex:
    storable = candidates.union(*(facts.stored for facts in all_facts))
    mentions: dict[str, list[int]] = {}
    for number, facts in enumerate(all_facts):
        for name in facts.mentions & storable:
            mentions.setdefault(name, []).append(number)
    return MeasureIndex(tuple(files), {name: tuple(numbers) for name, numbers in mentions.items()})
