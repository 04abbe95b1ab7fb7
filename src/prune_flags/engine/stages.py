"""Several scoped flags of one name in one run: a cleanup per stage, each on the last one's texts.

A real removal of plumbing names every link of a chain (`"pkg.trainer.Trainer.__init__.prepare"`
and `"pkg.connectors.Connector.setup.prepare"`). The passes know a flag by its name, so the config's
flags are split into stages in which each name is one flag (the config's order kept: the first key
of each name in the first stage, the second in the second, ...), and each stage cleans up the texts
the one before left, as a second run would. The report is one: each file from its original text to
its last, every change, left site and refusal at its line in the original file.
"""

from __future__ import annotations

from dataclasses import replace

from prune_flags.config import Config, Flag
from prune_flags.report import FileResult, Report
from prune_flags.syntax.lines import LineMap


def stages(config: Config) -> list[Config]:
    """The config's flags split so that each stage holds one flag of each name it names."""
    split: list[list[Flag]] = []
    for flag in config.flags:
        stage = next((s for s in split if all(f.name != flag.name for f in s)), None)
        if stage is None:
            split.append(stage := [])
        stage.append(flag)
    return [replace(config, flags=tuple(flags)) for flags in split] or [config]


def compose(earlier: Report, later: Report) -> Report:
    """One report of two stages: `later` ran on the texts `earlier` left."""
    mapping = {
        result.display: LineMap(result.old_text, result.new_text) for result in earlier.files
    }
    by_display = {result.display: result for result in earlier.files}
    files: list[FileResult] = []
    for result in later.files:
        before = by_display.pop(result.display, None)
        lines = mapping.get(result.display)
        changes = tuple(
            replace(change, line=lines.original(change.line)) if lines else change
            for change in result.changes
        )
        if before is None:
            files.append(replace(result, changes=changes))
        else:
            files.append(
                replace(result, old_text=before.old_text, changes=before.changes + changes)
            )
    files += by_display.values()  # what only the earlier stage changed
    files.sort(key=lambda result: result.display)
    flags = dict(earlier.flags)
    for name, source in later.flags.items():
        flags[name if flags.get(name, source) == source else f"{name} ({source})"] = source
    skipped = {entry.display: entry for entry in [*earlier.skipped, *later.skipped]}
    return Report(
        flags=flags,
        files=files,
        skipped=list(skipped.values()),
        refused=earlier.refused
        + [
            replace(refusal, locations=tuple(_located(site, mapping) for site in refusal.locations))
            for refusal in later.refused
        ],
        left=earlier.left
        + [
            (
                replace(left, line=mapping[left.path].original(left.line))
                if left.path in mapping
                else left
            )
            for left in later.left
        ],
        warnings=earlier.warnings + later.warnings,
        notices=list(dict.fromkeys(earlier.notices + later.notices)),
    )


def _located(site: str, mapping: dict[str, LineMap]) -> str:
    """A `path:line` of a later stage's text as the line of the original file."""
    path, colon, line = site.rpartition(":")
    if not colon or not line.isdigit() or path not in mapping:
        return site
    return f"{path}:{mapping[path].original(int(line))}"
