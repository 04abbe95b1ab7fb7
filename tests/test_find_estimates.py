"""find's counts from the trees are a lower bound on what apply does, on every fixture.

For each flag a fixture's config names and apply prunes, find (without --exact) lists the
branches that fold and the lines that go; the cleanup run with that flag alone then folds at
least as many branches and removes at least as many lines: the cascade adds to both, and the
estimate never counts what the cleanup keeps. Files apply cannot rewrite (LibCST does not give
them back) are left out of find's view too, or find would count folds apply leaves in place.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from prune_flags.config import load_config
from prune_flags.engine import run
from prune_flags.find import find
from prune_flags.find.measure import folded_branches

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CONFIGURED = sorted(
    path.name
    for path in FIXTURES.iterdir()
    if (path / "config.toml").is_file() and (path / "before").is_dir()
)


@pytest.mark.parametrize("fixture", CONFIGURED)
def test_find_counts_at_most_what_apply_does(tmp_path: Path, fixture: str) -> None:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURES / fixture / "before", root)
    (root / ".git").mkdir()
    settings = replace(load_config([root], FIXTURES / fixture / "config.toml"), format="none")
    skipped = {entry.display for entry in run(settings, [root], root).skipped}
    paths = sorted(
        path for path in root.rglob("*.py") if path.relative_to(root).as_posix() not in skipped
    )
    for candidate in find(paths, root, settings, jobs=1).candidates:
        if not candidate.named:
            continue
        report = run(replace(settings, flags=(candidate.flag(),)), paths, root)
        removed, _ = report.line_counts()
        branches = folded_branches(report)
        counts = f"{candidate.name}: find {candidate.branches} branches, {candidate.lines_removed} lines; apply {branches}, {removed}"
        assert candidate.branches <= branches, counts
        assert candidate.lines_removed <= removed, counts
