"""A project's pristine tree and its interpreter, cached in the workdir:

    WORKDIR/sdists/NAME-VERSION/*.tar.gz    `pip download NAME==VERSION --no-deps --no-binary :all:`
    WORKDIR/src/NAME-VERSION/               the sdist unpacked (its top directory), never written
    WORKDIR/venvs/NAME-VERSION/             `python -m venv`, the sdist and the test deps installed

A failed install is remembered (its log beside the venv) and not tried again until the list of
what to install changes; the imports and tests of that project are then "n/a".
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from .config import Project

ARCHIVES = (".tar.gz", ".tgz", ".tar.bz2", ".zip")
INSTALLED = ".realcode-installed"  # in the venv: what was installed, when it worked
FAILED = ".realcode-failed"  # in the venv: what failed to install, and pip's output


class PrepareError(Exception):
    """The sdist could not be had or unpacked: the project cannot be run."""


@dataclass(frozen=True)
class Environment:
    archive: Path
    pristine: Path
    python: Path | None  # None: the install failed (imports and tests are n/a)
    install_error: str = ""


def prepare(project: Project, workdir: Path, want_venv: bool) -> Environment:
    archive = download(project, workdir)
    pristine = unpack(archive, workdir / "src" / project.slug)
    if not want_venv:
        return Environment(archive, pristine, None, "not asked for")
    python, error = install(project, archive, workdir / "venvs" / project.slug)
    return Environment(archive, pristine, python, error)


def download(project: Project, workdir: Path) -> Path:
    folder = workdir / "sdists" / project.slug
    found = _archives(folder)
    if not found:
        folder.mkdir(parents=True, exist_ok=True)
        spec = f"{project.package}=={project.version}"
        command = [sys.executable, "-m", "pip", "download", "-q", spec, "--no-deps"]
        command += ["--no-binary", ":all:", "-d", str(folder)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=900)
        found = _archives(folder)
        if done.returncode != 0 or not found:
            raise PrepareError(f"pip download {spec} failed: {_tail(done.stderr)}")
    if len(found) > 1:
        raise PrepareError(f"{folder}: more than one archive: {', '.join(p.name for p in found)}")
    return found[0]


def _archives(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.name.lower().endswith(ARCHIVES))


def unpack(archive: Path, pristine: Path) -> Path:
    """The sdist's top directory, unpacked once; a half-unpacked tree is never left in place."""
    if pristine.is_dir():
        return pristine
    pristine.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=pristine.parent) as scratch:
        target = Path(scratch)
        try:
            if archive.name.endswith(".zip"):
                with zipfile.ZipFile(archive) as opened:
                    opened.extractall(target)
            else:
                with tarfile.open(archive) as opened:
                    if hasattr(tarfile, "data_filter"):
                        opened.extractall(target, filter="data")
                    else:  # pragma: no cover - an old 3.10 without extraction filters
                        opened.extractall(target)
        except (OSError, tarfile.TarError, zipfile.BadZipFile) as error:
            raise PrepareError(f"{archive.name}: cannot unpack: {error}") from error
        tops = list(target.iterdir())
        top = tops[0] if len(tops) == 1 and tops[0].is_dir() else target
        if not any(top.rglob("*.py")):
            raise PrepareError(f"{archive.name}: the sdist holds no Python sources")
        if top != target:
            top.rename(pristine)
        else:
            shutil.copytree(target, pristine)
    return pristine


def install(project: Project, archive: Path, venv: Path) -> tuple[Path | None, str]:
    """The venv's interpreter with the sdist (and its dependencies, and the test deps)
    installed; (None, why) when that failed."""
    wanted = "\n".join([archive.name, *project.test_deps])
    python = venv / "bin" / "python"
    if (venv / INSTALLED).is_file() and (venv / INSTALLED).read_text() == wanted:
        return python, ""
    if (venv / FAILED).is_file():
        recorded = (venv / FAILED).read_text().split("\n\n", 1)
        if recorded[0] == wanted:
            return None, _tail(recorded[-1])
    shutil.rmtree(venv, ignore_errors=True)
    steps = [
        [sys.executable, "-m", "venv", str(venv)],
        [str(python), "-m", "pip", "install", "-q", str(archive), *project.test_deps],
    ]
    for command in steps:
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=1800)
            output, failed = done.stdout + done.stderr, done.returncode != 0
        except (OSError, subprocess.TimeoutExpired) as error:
            output, failed = str(error), True
        if failed:
            venv.mkdir(parents=True, exist_ok=True)
            (venv / FAILED).write_text(f"{wanted}\n\n{output}")
            return None, _tail(output)
    (venv / INSTALLED).write_text(wanted)
    return python, ""


def _tail(text: str, lines: int = 3) -> str:
    kept = [line for line in text.strip().splitlines() if not line.startswith("WARNING:")]
    return " | ".join(kept[-lines:])
