"""The results as a table, a list of failures and notes, and JSON."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .run import FlagRun, ProjectRun

CHECKS = ("run", "compile", "comment", "undefined", "pyflakes", "import", "format", "test")
HEADERS: tuple[str, ...] = ("project", "flag", "from", "exit", "files", "-lines", "+lines")
HEADERS += ("compile", "comment", "undef", "flakes", "import", "format", "tests", "imported")
HEADERS += ("suite",)


def rows(results: Iterable[ProjectRun]) -> list[tuple[str, ...]]:
    table: list[tuple[str, ...]] = []
    for project in results:
        if project.error:
            table.append((project.project.slug, "-", "-", "error", *[""] * (len(HEADERS) - 4)))
            continue
        for run in project.flags:
            counts = [str(run.count(check) or ".") for check in CHECKS[1:]]
            exit_code = "-" if run.exit_code is None else str(run.exit_code)
            if run.count("run"):
                exit_code += "!"
            table.append(
                (
                    project.project.slug,
                    _short(run.flag.label, 40),
                    run.flag.source,
                    exit_code,
                    str(len(run.files)),
                    str(run.lines_removed),
                    str(run.lines_added),
                    *counts,
                    run.imports,
                    _short(run.tests, 24),
                )
            )
    return table


def table(results: list[ProjectRun]) -> str:
    lines = [HEADERS, *rows(results)]
    widths = [max(len(row[i]) for row in lines) for i in range(len(HEADERS))]
    return "\n".join(_line(row, widths) for row in lines)


def _line(row: tuple[str, ...], widths: list[int]) -> str:
    cells = (c.ljust(w) if i < 3 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
    return "  ".join(cells).rstrip()


def details(results: list[ProjectRun]) -> str:
    out: list[str] = []
    for project in results:
        head = f"== {project.project.slug}: {project.files} .py files, formatter "
        head += f"{project.formatter or 'none'} (prune-flags formats: {project.tool_formats}), "
        head += f"{project.seconds:.0f} s"
        out.append(head)
        for line in (project.error, project.install_error, project.find_note, project.test_summary):
            if line:
                out.append(f"   {line}")
        for run in project.flags:
            out.extend(_flag_lines(run))
    return "\n".join(out)


def _flag_lines(run: FlagRun) -> list[str]:
    note = f" - {run.flag.note}" if run.flag.note else ""
    head = f" {run.flag.label} ({run.flag.source}{note}): exit {run.exit_code}"
    lines = [f"{head}, {run.seconds:.0f} s"]
    if run.diff:
        lines.append(f"   diff: {run.diff}")
    for failure in run.failures:
        lines.append(f"   FAIL {failure.check}: {failure.path}: {failure.message}")
    lines.extend(f"   note: {note}" for note in run.notes)
    return lines


def failures(results: Iterable[ProjectRun]) -> int:
    return sum(len(run.failures) for project in results for run in project.flags)


def write_json(path: Path, results: list[ProjectRun], seconds: float) -> None:
    payload = {
        "version": 1,
        "seconds": round(seconds, 1),
        "failures": failures(results),
        "projects": [_plain(dataclasses.asdict(project)) for project in results],
    }
    path.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, Path):
        return str(value)
    return value


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "~"
