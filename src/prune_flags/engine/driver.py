"""The driver: files in scope -> the model of the flags -> the cascade's rounds (cascade.py) ->
format -> safety gate -> Report."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping, Sequence, TypeVar

from prune_flags.config import Config, Flag, find_project_root
from prune_flags.cascade.rounds import Cascade
from prune_flags.source.files import SourceError, SourceFile, read_source, remove_stale_temporaries, write_atomic
from prune_flags.semantic.index import parse_ast
from prune_flags.rewrite.context import RewriteContext, Rewritten
from prune_flags.model.library import LibraryKeywords, library_keywords, repository_names
from prune_flags.engine.derived import settle
from prune_flags.workers import warm
from prune_flags.workers.pool import process_pool
from prune_flags.report import FileResult, FlagWarning, Report, Skipped
from prune_flags.model.unmatched import appearances, unmatched
from prune_flags.source.parsing import deeply, too_deep
from prune_flags.model.build import build, resolve_flags
from prune_flags.semantic.repository import Progress, Repository, load
from prune_flags.model.verdicts import read_as_objects, still_written

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

    from prune_flags.engine.formatting import BlackSettings


Task = TypeVar("Task")
Outcome = TypeVar("Outcome")


def run(
    config: Config,
    paths: Sequence[Path],
    cwd: Path,
    progress: Progress | None = None,
    jobs: int | None = None,
    contents: Mapping[Path, bytes] | None = None,
) -> Report:
    """The whole cleanup over the files under `paths`; nothing is written here. `contents` stands
    in for some files' bytes (interactive review: its texts with declined lines marked kept)."""
    project_root = find_project_root(paths[0] if paths else cwd)
    repository = load(paths, config, cwd, project_root, progress, contents)
    first = _cleanup(repository, config, project_root, jobs)
    # Fields and parameters the cleanup left constant are flags of their own (derived.py).
    return settle(
        repository, config, first, lambda more: _cleanup(repository, more, project_root, jobs)
    )


def _cleanup(
    repository: Repository, config: Config, project_root: Path, jobs: int | None
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
    workers = Workers(jobs if jobs is not None else (os.cpu_count() or 1))
    try:
        # A file skipped once others were planned around its rewrite (a later round, or the safety
        # gate) still reads what it read, and a flag still read as an object is refused: the
        # cleanup starts over without them. Each start skips a file or refuses a flag more, so
        # this ends.
        while True:
            repository.rewritten.clear()
            cascade = Cascade(repository, config, model, workers, library.files)
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
            undecided = [
                flag
                for flag in active.values()
                if to_go[flag.name] and not cascade.decided(flag, to_go[flag.name])
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
    )
    report.warnings = _unmatched(repository, config.flags, report)
    report.notices[:0] = library.notices
    return report, cascade


def _library_keywords(
    repository: Repository, flags: frozenset[str], config: Config, root: Path
) -> LibraryKeywords:
    """The keywords at library calls that may go (library.py): one probe for the whole run."""
    trees = [
        (path, tree)
        for path in repository.mentioning(flags, original=True)
        if (tree := repository.tree(path, repository.text(path, original=True))) is not None
    ]
    names = repository_names(root, repository.raw)
    return library_keywords(trees, flags, names, root, config.library_python)


def _unmatched(repository: Repository, flags: Sequence[Flag], report: Report) -> list[FlagWarning]:
    """A warning for each flag the run neither changed anything of nor refused: nothing of it was
    in a form the tool acts on, so the config likely misses how it is read (see unmatched)."""
    acted = {refusal.flag for refusal in report.refused}
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
        found.append(unmatched(flag.name, places, bool(mentioning)))
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
    from prune_flags.engine.formatting import format_lines, touched_line_ranges

    return format_lines(text, touched_line_ranges(source.text, text), black)


def recheck(task: tuple[str, RewriteContext, bool]) -> str | None:
    """The safety gate after the edit: the result parses, and a second run changes nothing.
    (The context is not the original's: see Contexts.context.)"""
    from prune_flags.rewrite.file import FileFailure, rewrite  # LibCST, in the process that rewrites (see warm)

    text, context, is_package_init = task
    flags = ", ".join(sorted(context.flags))
    try:
        parse_ast(text)
        again = deeply(rewrite, text, context, is_package_init)
    except (SyntaxError, FileFailure) as err:
        return f"internal error while pruning {flags}: the result does not parse ({err}); left untouched"
    except RecursionError:
        return too_deep("run again for the safety gate")
    except Exception as err:  # a bug of ours must cost one file, never the run
        return f"internal error while pruning {flags}: {_brief(err)}; left untouched"
    if again.text != text:
        return f"internal error while pruning {flags}: a second run would change the result again; left untouched"
    return None


def rewrite_outcome(task: tuple[Path, str, RewriteContext, bool]) -> Rewritten | str:
    """One file's rewrite, or why it is left untouched: a value, so that it crosses processes."""
    from prune_flags.rewrite.file import FileFailure, rewrite  # LibCST, in the process that rewrites (see warm)

    path, text, context, is_package_init = task
    try:
        return deeply(rewrite, text, context, is_package_init)
    except FileFailure as failure:
        return str(failure)
    except RecursionError:
        return too_deep("rewrite")
    except Exception as error:  # a bug of ours must cost one file, never the run
        return f"internal error while pruning {', '.join(sorted(context.flags))}: {_brief(error)}"


class Workers:
    """Rewrites in the process `warm` started, or in this one, or in a pool of processes once a
    round has enough files to pay for starting one (the pool is started once, on first need,
    and shut down with the run)."""

    THRESHOLD = 16  # files in a round: below this the pool costs more than it saves

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self._pool: ProcessPoolExecutor | None = None

    def map(self, function: Callable[[Task], Outcome], tasks: list[Task]) -> list[Outcome]:
        if self.jobs <= 1 or len(tasks) < self.THRESHOLD:
            child = warm.rewriter()
            outcomes = child.map(function, tasks) if child is not None and tasks else None
            return outcomes if outcomes is not None else [function(task) for task in tasks]
        if self._pool is None:
            import prune_flags.rewrite.file  # noqa: F401  (imported once here, inherited by the forked workers)

            self._pool = process_pool(self.jobs)
        return list(
            self._pool.map(function, tasks, chunksize=max(1, len(tasks) // (4 * self.jobs)))
        )

    def rewrite(self, tasks: list[tuple[Path, str, RewriteContext, bool]]) -> list[Rewritten | str]:
        """Each file's rewrite, or why it is left untouched (rewrite_outcome)."""
        return self.map(rewrite_outcome, tasks)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()


def _brief(error: Exception) -> str:
    """An unexpected error in one line: its type and the start of its message."""
    first = str(error).strip().split("\n", 1)[0]
    return f"{type(error).__name__}: {first[:200]}"
