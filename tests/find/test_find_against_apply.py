"""find against apply, on every fixture with a config.

With the fixture's flags named, find lists as candidates exactly the flags apply prunes, each with
the writes apply reports overridden, and refuses the others with apply's words. And its counts
from the trees (without --exact) are a lower bound: the cleanup run with one such flag alone folds
at least as many branches and removes at least as many lines (the cascade adds to both; the
estimate never counts what the cleanup keeps); a flag decided only with the others, as a field
computed from their parameters is, is measured against the whole run. Files apply cannot
rewrite (LibCST does not give them back) are left out of the bound's view, or find would count
folds apply leaves in place.

And on every fixture, what find proposes on its own (the config's flags left out, its templates
kept) is what apply prunes: named all at once, apply refuses none of them.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from prune_flags.config import Config
from prune_flags.config_files import load_config
from prune_flags.engine.driver import run
from prune_flags.find.measure import folded_branches
from prune_flags.find.run import find
from prune_flags.report import Report
from prune_flags.vocabulary import Action
from tests.support import CASES, fixture_path

ALL = CASES
CONFIGURED = sorted(name for name in CASES if (fixture_path(name) / "config.toml").is_file())


def overridden_sites(report: Report, flag: str) -> list[str]:
    return sorted(
        f"{changed.display}:{change.line}"
        for changed in report.changed_files
        for change in changed.changes
        if change.flag == flag and change.action == Action.OVERRIDDEN
    )


@pytest.mark.parametrize("fixture", CONFIGURED)
def test_find_decides_as_apply_and_counts_at_most_what_it_does(
    tmp_path: Path, fixture: str
) -> None:
    root = tmp_path / "repo"
    shutil.copytree(fixture_path(fixture) / "before", root)
    (root / ".git").mkdir()
    settings = replace(load_config([root], fixture_path(fixture) / "config.toml"), format="none")
    report = run(settings, [root], root)
    result = find([root], root, settings, jobs=1)
    refused = {refusal.flag for refusal in report.refused}
    named = {candidate.name: candidate for candidate in result.candidates if candidate.named}
    assert set(named) == {flag.name for flag in settings.flags} - refused
    assert result.refused == tuple(report.refused)
    for name, candidate in named.items():
        assert sorted(str(write.site) for write in candidate.overridden) == overridden_sites(
            report, name
        )
    assert not refused & {
        candidate.name for candidate in result.candidates
    }  # not proposed by find's own rules

    skipped = {entry.display for entry in report.skipped}
    paths = sorted(
        path for path in root.rglob("*.py") if path.relative_to(root).as_posix() not in skipped
    )
    if skipped:
        named = {c.name: c for c in find(paths, root, settings, jobs=1).candidates if c.named}
    for candidate in named.values():
        alone = run(replace(settings, flags=(candidate.flag(),)), paths, root)
        if candidate.name in {refusal.flag for refusal in alone.refused}:
            # decided only with the run's other flags (a field computed from their parameters)
            alone = run(settings, paths, root)
        removed, _ = alone.line_counts()
        branches = folded_branches(alone)
        counts = (
            f"{candidate.name}: find {candidate.branches} branches, "
            f"{candidate.lines_removed} lines; apply {branches}, {removed}"
        )
        assert candidate.branches <= branches, counts
        assert candidate.lines_removed <= removed, counts


@pytest.mark.parametrize("fixture", ALL)
def test_apply_prunes_what_find_proposes_on_its_own(tmp_path: Path, fixture: str) -> None:
    root = tmp_path / "repo"
    shutil.copytree(fixture_path(fixture) / "before", root)
    (root / ".git").mkdir()
    config = fixture_path(fixture) / "config.toml"
    settings = load_config([root], config) if config.is_file() else Config(flags=())
    shapes = replace(settings, flags=(), format="none")
    proposed = find([root], root, shapes, jobs=1).candidates
    if proposed:
        report = run(
            replace(shapes, flags=tuple(candidate.flag() for candidate in proposed)), [root], root
        )
        assert [refusal.message for refusal in report.refused] == []
