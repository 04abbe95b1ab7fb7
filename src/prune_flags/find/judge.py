"""find's own candidates judged by the model apply plans from, each as if the user had named it at
the value find found; one the model refuses is held back with apply's reason."""

# find's own candidates judged by the model of a flag (model.py), the one apply plans from: each as
# if the user had named it at the value find found. A name the model refuses (unrelated definitions
# carry it, a parameter sharing it is linked to it by no call, something passes it where no argument
# can go) is no proposal: apply would leave it as it is. One model for every candidate, over the
# same files, from the `ast` index; no LibCST.

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from prune_flags.config import Config
from prune_flags.config_files import find_project_root
from prune_flags.find.facts import Candidate
from prune_flags.model.build import build, resolve_flags
from prune_flags.report import Refusal
from prune_flags.semantic.repository import load


def pruned_by_model(
    candidates: Sequence[Candidate], settings: Config, paths: Sequence[Path], cwd: Path
) -> tuple[list[Candidate], tuple[Refusal, ...]]:
    """The candidates the model prunes, and the refusals of those it holds back; the flags the
    user named are the engine's run's already (find.run.decide) and stay."""
    own = [candidate for candidate in candidates if not candidate.named]
    if not own:
        return list(candidates), ()
    config = replace(settings, flags=tuple(candidate.flag() for candidate in own), strict=False)
    repository = load(paths, config, cwd, find_project_root(paths[0] if paths else cwd))
    refusals = build(repository, resolve_flags(repository, config)).refused
    refused = {refusal.flag for refusal in refusals}
    kept = [
        candidate for candidate in candidates if candidate.named or candidate.name not in refused
    ]
    return kept, refusals
