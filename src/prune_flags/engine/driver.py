"""The driver: files in scope -> the model of the flags -> the cascade's rounds (cascade/rounds.py)
-> format -> safety gate -> Report."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from prune_flags.cascade.rounds import Cascade
from prune_flags.config import Config, ConfigError, Flag
from prune_flags.config_files import find_project_root
from prune_flags.engine.derived import settle
from prune_flags.engine.left_sites import reexports_left
from prune_flags.engine.registrations import registrations_left
from prune_flags.engine.stages import compose, stages
from prune_flags.engine.tests_left import tests_left_failing
from prune_flags.model.build import build, resolve_flags
from prune_flags.model.library import (
    LibraryKeywords,
    library_keywords,
    repository_names,
)
from prune_flags.model.scoping import local_homes, resolve
from prune_flags.model.unmatched import appearances, unmatched
from prune_flags.model.verdicts import read_as_objects, still_written, toml_value
from prune_flags.report import FileResult, FlagWarning, Left, Report, Skipped
from prune_flags.semantic.facts import NameFacts, Write
from prune_flags.semantic.repository import OUTSIDE, Progress, Repository, load
from prune_flags.source.files import (
    SourceError,
    SourceFile,
    read_source,
    remove_stale_temporaries,
    write_atomic,
)
from prune_flags.workers.heartbeat import Say
from prune_flags.workers.runner import Workers
from prune_flags.workers.tasks import recheck

if TYPE_CHECKING:
    from prune_flags.engine.formatting import BlackSettings


def run(
    config: Config,
    paths: Sequence[Path],
    cwd: Path,
    progress: Progress | None = None,
    jobs: int | None = None,
    contents: Mapping[Path, bytes] | None = None,
    slow: Say | None = None,
) -> Report:
    """The whole cleanup over the files under `paths`; nothing is written here. `contents` stands
    in for some files' bytes (interactive review: its texts with declined lines marked kept);
    `slow` is told now and then while a rewrite takes long."""
    project_root = find_project_root(paths[0] if paths else cwd)
    first_stage, *later = stages(config)
    repository = load(paths, first_stage, cwd, project_root, progress, contents)
    for flag in (flag for stage in later for flag in stage.flags if flag.scope):
        resolve(repository, flag)  # a key naming nothing is an error before anything runs
    report = _settled(repository, first_stage, project_root, jobs, slow)
    for stage in later:
        texts = {
            result.path: repository.sources[result.path].encode(result.new_text)
            for result in report.changed_files
        }
        repository = load(paths, stage, cwd, project_root, progress, {**(contents or {}), **texts})
        # (a key whose definition an earlier stage removed, a parameter passed down, is done)
        remaining = tuple(flag for flag in stage.flags if _names_something(repository, flag))
        if remaining:
            later_report = _settled(
                repository, replace(stage, flags=remaining), project_root, jobs, slow
            )
            report = compose(report, later_report)
    return report


def _settled(
    repository: Repository,
    config: Config,
    project_root: Path,
    jobs: int | None,
    slow: Say | None = None,
):
    """One stage's cleanup, with the flags it derives carried out."""
    first = _cleanup(repository, config, project_root, jobs, slow)
    # Fields and parameters the cleanup left constant are flags of their own (engine/derived.py).
    return settle(
        repository,
        config,
        first,
        lambda more: _cleanup(repository, more, project_root, jobs, slow),
    )


def _names_something(repository: Repository, flag: Flag) -> bool:
    if not flag.scope:
        return True
    try:
        resolve(repository, flag)
    except ConfigError:
        return False
    return True


def _cleanup(
    repository: Repository,
    config: Config,
    project_root: Path,
    jobs: int | None,
    slow: Say | None = None,
) -> tuple[Report, Cascade]:
    """One cleanup of the loaded files with the config's flags, and the cascade that did it."""
    config = resolve_flags(repository, config)
    report = Report(flags={flag.name: flag.source for flag in config.flags})
    flag_names = frozenset(flag.name for flag in config.flags)
    model = build(repository, config)
    library = (
        _library_keywords(repository, flag_names, config, project_root)
        if config.library_keywords
        else LibraryKeywords()
    )
    workers = Workers(jobs if jobs is not None else (os.cpu_count() or 1), slow)
    try:
        # A file skipped once others were planned around its rewrite (a later round, or the safety
        # gate) still reads what it read, and a flag still read as an object is refused: the
        # cleanup starts over without them. Each start skips a file or refuses a flag more, so
        # this ends.
        while True:
            repository.rewritten.clear()
            cascade = Cascade(repository, config, model, workers.rewrite, library.files)
            active = cascade.plan.flags
            cascade.run()
            if cascade.unsettled:
                continue
            # (named at their lines in the original texts, which are the ones the report speaks of)
            left = repository.facts(
                frozenset(name for name in active if model.flags[name].tried_as_object)
            )
            still_objects = {
                name: model.flags[name].facts for name, found in left.items() if found.object_reads
            }
            if still_objects:
                model = model.refusing(read_as_objects(still_objects))
                continue
            # A flag whose writes of another value were to go but that something still reads
            # (a skipped file, a kept statement) would keep them: its reads would disagree with
            # its definitions; so would a write the rewrite could not remove. Such a flag is
            # refused as before the config became the decision.
            to_go = {
                name: model.writes_to_go(name, cascade.unread(flag))
                for name, flag in active.items()
            }
            # ... unless all that keeps it is a re-export, left as it is with its definition.
            read = [flag for flag in active.values() if not cascade.unread(flag)]
            facts = repository.facts(frozenset(flag.name for flag in read))
            left_sites = {
                flag.name: _left(repository, cascade, flag, facts[flag.name], to_go[flag.name])
                for flag in read
            }
            undecided = [
                flag
                for flag in active.values()
                if to_go[flag.name]
                and not cascade.decided(flag, to_go[flag.name])
                and left_sites.get(flag.name) is None
            ]
            if undecided:
                model = model.refusing(still_written(flag, to_go[flag.name]) for flag in undecided)
                continue
            edited = {
                path: (source, rewritten.text)
                for path, source in list(repository.sources.items())
                if (rewritten := cascade.learnt.results.get(path)) is not None
                and path not in repository.skipped
                and rewritten.text != source.text
            }
            black = (
                _black_settings(config, project_root, report) if edited else None
            )  # read once for all files
            finished = {
                path: _finish(black, source, text) for path, (source, text) in edited.items()
            }
            checks = [
                (
                    text,
                    cascade.contexts.context(path, by_original_lines=False),
                    path.name == "__init__.py",
                )
                for path, text in finished.items()
            ]
            problems = {
                path: problem
                for path, problem in zip(finished, workers.map(recheck, checks))
                if problem
            }
            if not problems:
                break
            repository.skipped.update(problems)
    finally:
        workers.close()
    report.refused = list(model.refused)
    report.left = [site for sites in left_sites.values() for site in sites or ()]
    for path, text in finished.items():
        source = repository.sources[path]
        report.files.append(
            FileResult(
                path,
                repository.display(path),
                source.text,
                text,
                cascade.learnt.results[path].changes,
                source.encoding,
            )
        )
    kept = cascade.kept_by_skipped()
    report.skipped.extend(
        Skipped(repository.display(path), error + kept.get(repository.display(path), ""))
        for path, error in sorted(repository.skipped.items())
        if path not in repository.outside
    )
    report.notices.extend(_kept_outside(repository, cascade.learnt.kept))
    # (a flag whose definitions stay for a file outside the paths was acted on: no warning)
    report.warnings = _unmatched(repository, config.flags, report, frozenset(cascade.learnt.kept))
    flag_facts = {name: flag.facts for name, flag in model.flags.items()}
    report.warnings += registrations_left(repository, config.flags, flag_facts, report)
    report.warnings += tests_left_failing(repository, report)
    report.notices[:0] = library.notices
    return report, cascade


def _left(
    repository: Repository, cascade: Cascade, flag: Flag, facts: NameFacts, to_go: list[Write]
) -> list[Left] | None:
    """The sites of a flag something still reads (`facts`, of the rewritten texts) once the
    cascade did all it could, when each is a re-export (see engine/left_sites.py); None when
    something else reads it."""
    if facts.object_reads or facts.passed:
        return None
    reads = facts.global_reads + [read.site for read in facts.assert_reads]
    return reexports_left(repository, flag.name, reads, cascade.not_gone(flag, to_go))


def _library_keywords(
    repository: Repository, flags: frozenset[str], config: Config, root: Path
) -> LibraryKeywords:
    """The keywords at library calls that may go (model/library.py): one probe for the whole run."""
    trees = [
        (path, tree)
        for path in repository.mentioning(flags, original=True)
        if (tree := repository.tree(path, repository.text(path, original=True))) is not None
    ]
    names = repository_names(root, repository.raw)
    return library_keywords(trees, flags, names, root, config.library_python)


def _kept_outside(repository: Repository, kept: Mapping[str, set[str]]) -> list[str]:
    """What files outside the paths keep alive by reading it, said once a file."""
    outside = {repository.display(path) for path in repository.outside}
    by_file: dict[str, list[str]] = {}
    for name, displays in sorted(kept.items()):
        for display in sorted(displays & outside):
            by_file.setdefault(display, []).append(name)
    return [
        f"{display} reads {', '.join(names)}, so {'its' if len(names) == 1 else 'their'}"
        f" definitions stay: the file is {OUTSIDE} (run over the whole repository to clean it"
        " up too)"
        for display, names in sorted(by_file.items())
    ]


def _unmatched(
    repository: Repository, flags: Sequence[Flag], report: Report, kept: frozenset[str]
) -> list[FlagWarning]:
    """A warning for each flag the run neither changed anything of nor refused: nothing of it was
    in a form the tool acts on, so the config likely misses how it is read (see unmatched)."""
    acted = {refusal.flag for refusal in report.refused} | kept
    acted.update(change.flag for result in report.files for change in result.changes)
    found = []
    for flag in flags:
        if flag.name in acted:
            continue
        places = []
        mentioning = repository.mentioning(frozenset([flag.name]), original=True)
        for path in sorted(mentioning, key=repository.display):
            text = repository.text(path, original=True)
            tree = repository.tree(path, text)
            if tree is not None:
                places += [
                    (appearance, text)
                    for appearance in appearances(tree, repository.display(path), flag.name)
                ]
        local_keys = sorted(
            f"{home}.{flag.name}"
            for home, unfit in local_homes(repository, flag.name, original=True)
            if unfit is None
        )
        found.append(unmatched(flag.name, places, bool(mentioning), local_keys, toml_value(flag)))
    return found


def write_changes(report: Report) -> None:
    """Write every changed file of the report atomically; a file that fails moves to `skipped`.
    First, temporary files that a killed earlier run left beside them go."""
    remove_stale_temporaries(result.path for result in report.changed_files)
    for changed in list(report.changed_files):
        try:
            source = read_source(changed.path)
            if source.text != changed.old_text:
                raise SourceError(changed.path, "changed on disk during the run; left untouched")
            write_atomic(changed.path, source.encode(changed.new_text))
        except (SourceError, OSError) as err:
            report.files.remove(changed)
            report.skipped.append(Skipped(changed.display, str(err)))


def _black_settings(config: Config, project_root: Path, report: Report) -> BlackSettings | None:
    """The target's black settings, or None when the run formats nothing; what the user should
    know about them (see formatting.detect_formatting) becomes the report's notices."""
    from prune_flags.engine.formatting import detect_formatting

    formatting = detect_formatting(project_root, config.format)
    report.notices = list(formatting.notices)
    return formatting.settings


def _finish(black: BlackSettings | None, source: SourceFile, text: str) -> str:
    if text == source.text:
        return text
    if not text.strip():
        return ""  # a module the cleanup emptied is an empty file, as black leaves one
    if black is None:
        return text
    from prune_flags.engine.formatting import format_lines, formats_as
    from prune_flags.engine.line_ranges import touched_line_ranges

    if black.if_formatted and not formats_as(source.text, black):
        return text
    ranges = touched_line_ranges(source.text, text, black.magic_trailing_comma)
    return format_lines(text, ranges, black)
