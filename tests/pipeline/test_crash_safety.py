"""Crash safety: `apply` killed with SIGKILL at random moments, 50 times, over a tree of many files.

After every kill each file must be wholly its old bytes or wholly its new bytes, and no temporary
file may be left behind. Most trials aim at the write phase, where a crash can do harm: the tree's
cleanup is computed once, and a forked child writes it (`engine.write_changes`, exactly what
`apply` does after the engine has run) while the parent kills it after a random delay. The other
trials kill a real `python -m prune_flags apply` process at a random moment of its whole run.
The delays come from a fixed seed.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext
from pathlib import Path

import pytest

from prune_flags.config import Config, Flag
from prune_flags.engine import driver as engine
from prune_flags.source.files import STALE_TEMPORARY

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork and SIGKILL"),
]

FILES = 60
FORKED_TRIALS = 44
PROCESS_TRIALS = 6
SEED = 20240611


def module(index: int) -> str:
    # Padding makes each write take a little longer than a bare line would.
    padding = "".join(f"# line {j} of module {index}: {'=' * 60}\n" for j in range(40))
    return (
        f"fast = False\n\n\ndef f{index}(x):\n    if fast:\n        return {index}\n"
        f"    return x + {index}\n\n\n{padding}"
    )


@dataclass
class Trial:
    kind: str
    delay: float
    written: int = 0  # files already new when the kill landed
    mixed: list[str] = field(default_factory=list)  # files neither old nor new
    temporaries: list[str] = field(default_factory=list)
    temporaries_complete: list[bool] = field(default_factory=list)


@dataclass
class Trials:
    old: dict[str, bytes]
    new: dict[str, bytes]
    runs: list[Trial]
    rerun_complete: bool
    rerun_temporaries: list[str]
    orphans: list[int]


def snapshot(root: Path) -> tuple[dict[str, bytes], list[str]]:
    contents, temporaries = {}, []
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if path.name.endswith(".tmp"):
            temporaries.append(relative)
        elif path.is_file() and ".git" not in path.parts:
            contents[relative] = path.read_bytes()
    return contents, temporaries


def restore(template: Path, work: Path) -> None:
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(template, work, symlinks=True)


def judge(trial: Trial, work: Path, old: dict[str, bytes], new: dict[str, bytes]) -> Trial:
    contents, trial.temporaries = snapshot(work)
    for relative in trial.temporaries:
        match = STALE_TEMPORARY.match(Path(relative).name)
        target = (Path(relative).parent / match["name"]).as_posix() if match else ""
        trial.temporaries_complete.append((work / relative).read_bytes() == new.get(target))
    assert set(contents) == set(old), "a file vanished or appeared"
    for name, data in contents.items():
        if data == new[name] and data != old[name]:
            trial.written += 1
        elif data != old[name]:
            trial.mixed.append(name)
    return trial


def write_when_told(report: engine.Report, channel: Connection) -> None:
    """The child: write the cleanup, as `apply` does, once the parent starts its clock."""
    channel.send("ready")
    channel.recv()
    engine.write_changes(report)


def forked_write(forks: BaseContext, report: engine.Report, delay: float) -> None:
    ours, theirs = forks.Pipe()
    child = forks.Process(target=write_when_told, args=(report, theirs))
    child.start()
    ours.recv()
    ours.send("go")
    time.sleep(delay)
    child.kill()
    child.join()


APPLY = [sys.executable, "-m", "prune_flags", "apply", "--no-format", "--flag", "fast=False", "."]


@pytest.fixture(scope="module")
def trials(tmp_path_factory: pytest.TempPathFactory) -> Trials:
    base = tmp_path_factory.mktemp("crash")
    template, work = base / "template", base / "work"
    (template / ".git").mkdir(parents=True)
    for index in range(FILES):
        package = template / f"pkg{index % 8}"
        package.mkdir(exist_ok=True)
        (package / f"mod{index}.py").write_text(module(index))
    old, _ = snapshot(template)

    # The cleanup, computed once for the work directory's paths; its write phase takes `took`.
    restore(template, work)
    report = engine.run(Config(flags=(Flag("fast", False, "False"),), format="none"), [work], work)
    assert len(report.changed_files) == FILES
    started = time.perf_counter()
    engine.write_changes(report)
    took = time.perf_counter() - started
    new, _ = snapshot(work)
    assert all(new[name] != old[name] for name in old)

    # One whole run, not killed, to time the real command.
    restore(template, work)
    started = time.perf_counter()
    subprocess.run(APPLY, cwd=work, check=True, capture_output=True)
    full = time.perf_counter() - started
    assert snapshot(work)[0] == new

    # Forked by a fork server: this process may have threads by now (other tests' Dask), and a
    # child forked beside them may deadlock (Python 3.12+ warns of it).
    forks = multiprocessing.get_context("forkserver")
    forks.set_forkserver_preload(["prune_flags.engine.driver"])
    rng = random.Random(SEED)
    runs: list[Trial] = []
    rerun: tuple[bool, list[str]] | None = None
    for _ in range(FORKED_TRIALS):
        restore(template, work)
        trial = Trial("write phase", rng.uniform(0, took * 1.2))
        forked_write(forks, report, trial.delay)
        runs.append(judge(trial, work, old, new))
        if trial.temporaries and rerun is None:
            rerun = finish(work, new)
    for _ in range(PROCESS_TRIALS):
        restore(template, work)
        trial = Trial("whole apply", rng.uniform(0.3, 1.1) * full)
        process = subprocess.Popen(
            APPLY, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        time.sleep(trial.delay)
        process.send_signal(signal.SIGKILL)
        process.wait()
        runs.append(judge(trial, work, old, new))

    if rerun is None:
        rerun = finish(work, new)
    return Trials(old, new, runs, *rerun, orphans=orphans_in(base))


def orphans_in(base: Path, patience: float = 15.0) -> list[int]:
    """Processes still working in the trials' directories well after the last kill: the killed
    runs' pool workers, had they not ended with their parent. A worker checks five times a
    second; on a loaded machine it may be scheduled late, so this waits up to `patience`."""
    deadline = time.monotonic() + patience
    while True:
        found = []
        for proc in Path("/proc").iterdir():
            try:
                if proc.name.isdigit() and Path(os.readlink(proc / "cwd")).is_relative_to(base):
                    found.append(int(proc.name))
            except OSError:
                continue  # gone meanwhile, or not ours to read
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.5)


def finish(work: Path, new: dict[str, bytes]) -> tuple[bool, list[str]]:
    """Run apply again after a kill (one that left a temporary file, if any did)."""
    done = subprocess.run(APPLY, cwd=work, capture_output=True, text=True)
    contents, temporaries = snapshot(work)
    return done.returncode == 0 and contents == new, temporaries


def test_fifty_kills_happened_at_different_stages(trials: Trials) -> None:
    assert len(trials.runs) == 50
    written = [trial.written for trial in trials.runs]
    # The kills must land before and during the writes, or the test proves nothing.
    assert any(0 < count < FILES for count in written), written
    assert any(count == 0 for count in written), written


def test_every_file_is_wholly_old_or_wholly_new_after_each_kill(trials: Trials) -> None:
    mixed = [
        (trial.kind, round(trial.delay, 4), trial.mixed) for trial in trials.runs if trial.mixed
    ]
    assert mixed == []


def test_no_partial_temporary_file_is_left_behind_by_a_kill(trials: Trials) -> None:
    """The new text is written into an unnamed file and gets a name only once whole and synced,
    the instant before it is renamed into place. A kill can land between those two calls (no
    signal-proof way around it), so what may remain is a complete copy, never a partial one;
    the next run removes it (below)."""
    partial = [
        (trial.kind, round(trial.delay, 4), trial.temporaries)
        for trial in trials.runs
        if any(not complete for complete in trial.temporaries_complete)
    ]
    assert (
        partial == []
    ), f"{len(partial)} of {len(trials.runs)} kills left a partial temporary file: {partial[:3]}"
    left = sum(bool(trial.temporaries) for trial in trials.runs)
    assert (
        left <= len(trials.runs) // 10
    ), f"{left} of {len(trials.runs)} kills left a temporary file"


def test_apply_after_a_kill_finishes_the_job_and_leaves_no_temporary_file(trials: Trials) -> None:
    assert trials.rerun_complete
    assert trials.rerun_temporaries == []


def test_a_killed_run_leaves_no_process_behind(trials: Trials) -> None:
    """A whole `apply` over this tree starts a pool of workers; SIGKILL gives it no chance to stop
    them, so they watch their parent and end with it."""
    assert trials.orphans == []
