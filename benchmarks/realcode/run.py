"""One project's runs: find's proposals, then for each flag a fresh copy of the pristine tree,
`prune-flags apply .` in it with that flag alone, and the checks of what it changed."""

from __future__ import annotations

import difflib
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import checks
from .comments import dropped_comments
from .config import Flag, Project
from .prepare import Environment, PrepareError, _tail, prepare

TOOL_FORMATS = (
    "import sys; from pathlib import Path; "
    "from prune_flags.engine.formatting import detect_formatting; "
    "s = detect_formatting(Path(sys.argv[1])).settings; "
    "print('no' if s is None else f'black {s.line_length}')"
)


@dataclass(frozen=True)
class Options:
    workdir: Path
    src: Path  # the prune_flags source tree to run
    find: bool = True
    max_find: int = 4
    imports: bool = True
    tests: bool = True


@dataclass(frozen=True)
class Failure:
    check: str  # "run", "compile", "comment", "undefined", "pyflakes", "import", "format", "test"
    path: str
    message: str


@dataclass
class FlagRun:
    flag: Flag
    exit_code: int | None = None
    files: list[str] = field(default_factory=list)
    lines_removed: int = 0
    lines_added: int = 0
    failures: list[Failure] = field(default_factory=list)
    imports: str = "off"  # "ok" when checked, "n/a" when the venv is missing, "off"
    tests: str = "off"
    notes: list[str] = field(default_factory=list)  # refusals, deleted tests, stderr's last line
    diff: str = ""  # where the diff of the run was written
    seconds: float = 0.0

    def count(self, check: str) -> int:
        return sum(failure.check == check for failure in self.failures)


@dataclass
class ProjectRun:
    project: Project
    error: str = ""
    install_error: str = ""
    formatter: str | None = None
    tool_formats: str = "?"
    files: int = 0
    find_note: str = ""
    test_summary: str = ""
    flags: list[FlagRun] = field(default_factory=list)
    seconds: float = 0.0


def run_project(project: Project, options: Options, log: Any = print) -> ProjectRun:
    started = time.monotonic()
    result = ProjectRun(project)
    try:
        env = prepare(project, options.workdir, options.imports or options.tests)
    except PrepareError as error:
        result.error = str(error)
        return result
    result.install_error = env.install_error
    runs = options.workdir / "runs" / project.slug
    shutil.rmtree(runs, ignore_errors=True)
    runs.mkdir(parents=True)
    config = _config_file(project, runs)
    pristine = checks.python_files(env.pristine)
    result.files = len(pristine)
    result.formatter = project.formatter if project.formatter else checks.formatter_of(env.pristine)
    result.formatter = None if result.formatter == "none" else result.formatter
    result.tool_formats = _tool_formats(options.src, env.pristine)
    flags = list(project.flags)
    if options.find:
        proposed, result.find_note = _find(options, env.pristine, config)
        names = {flag.name for flag in flags}
        flags += [flag for flag in proposed if flag.name not in names][: options.max_find]
    baseline = Baseline(env, pristine, result.formatter)
    if options.tests and project.tests is not None and env.python is not None:
        log(f"{project.slug}: tests before")
        baseline.tests, result.test_summary = _tests(env, project, runs / "tests-before")
    for flag in flags:
        log(f"{project.slug}: {flag.label}")
        result.flags.append(run_flag(project, flag, options, baseline, runs, config))
    result.seconds = time.monotonic() - started
    return result


class Baseline:
    """What the pristine tree gives, each computed once when first asked for."""

    def __init__(self, env: Environment, files: dict[str, bytes], formatter: str | None) -> None:
        self.env, self.files, self.formatter = env, files, formatter
        self.tests: dict[str, str] | None = None
        self._pyflakes: dict[str, tuple[checks.Messages, dict[Any, str]]] = {}
        self._formats: dict[str, str] = {}
        self._imports: dict[tuple[str, str], str] = {}
        self._imported: dict[str, frozenset[str]] = {}

    def pyflakes(self, path: str) -> checks.Messages:
        if path not in self._pyflakes:
            self._pyflakes[path] = checks.pyflakes_messages(self.files.get(path, b""), path)
        return self._pyflakes[path][0]

    def format_state(self, path: str) -> str:
        if path not in self._formats and self.formatter is not None:
            self._formats[path] = checks.format_state(self.formatter, self.env.pristine, path)
        return self._formats.get(path, "n/a")

    def imports(self, modules: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
        missing = [module for module in modules if module not in self._imports]
        if missing and self.env.python is not None:
            self._imports.update(checks.probe(self.env.python, self.env.pristine, missing))
        return {module: self._imports.get(module, "n/a") for module in modules}

    def imported(self, path: str, tree: Path, source: bytes) -> frozenset[str]:
        """What the module at `path` imports, cached for the files the run did not change."""
        module = checks.module_of(tree, path)
        if module is None:
            return frozenset()
        unchanged = self.files.get(path) == source
        if unchanged and path in self._imported:
            return self._imported[path]
        found = checks.imported_modules(source, module[1], path.endswith("__init__.py"))
        if unchanged:
            self._imported[path] = found
        return found


def run_flag(
    project: Project, flag: Flag, options: Options, baseline: Baseline, runs: Path, config: Path
) -> FlagRun:
    started = time.monotonic()
    result = FlagRun(flag)
    stem = "".join(c if c.isalnum() or c in "_-" else "_" for c in flag.label)[:80]
    tree = runs / stem
    shutil.copytree(baseline.env.pristine, tree, symlinks=True)
    report = runs / f"{stem}.report.json"
    command = [sys.executable, "-m", "prune_flags", "apply", ".", "--flag", flag.label]
    command += ["--report", str(report), "--no-color", "--config", str(config)]
    env = dict(os.environ, PYTHONPATH=str(options.src), NO_COLOR="1")
    try:
        done = subprocess.run(
            command, cwd=tree, env=env, capture_output=True, text=True, timeout=1800
        )
        result.exit_code, stderr = done.returncode, done.stderr
    except subprocess.TimeoutExpired:
        result.exit_code, stderr = None, "timed out"
    _read_report(result, report)
    if result.exit_code not in (0, 123):
        result.failures.append(Failure("run", ".", f"exit {result.exit_code}: {_tail(stderr)}"))
    after = checks.python_files(tree)
    result.files = checks.changed(baseline.files, after)
    if result.files:
        result.diff = str(_write_diff(runs / f"{stem}.diff", baseline.files, after, result.files))
    for path in result.files:
        if path in after:
            _check_file(result, baseline, tree, path, after[path])
    if result.files and options.imports:
        _check_imports(result, baseline, tree, after)
    if result.files and baseline.tests is not None:
        _check_tests(result, baseline, project, tree, runs / f"{stem}.junit.xml")
    result.seconds = time.monotonic() - started
    return result


def _read_report(result: FlagRun, report: Path) -> None:
    try:
        data = json.loads(report.read_text())
    except (OSError, ValueError):
        result.notes.append("no JSON report")
        return
    summary = data.get("summary", {})
    result.lines_removed = summary.get("lines_removed", 0)
    result.lines_added = summary.get("lines_added", 0)
    for refused in data.get("refused", []):
        where = ", ".join(refused.get("locations", [])[:4])
        result.notes.append(f"refused ({refused.get('why')}): {where}")
    for warning in data.get("warnings", []):
        where = ", ".join(warning.get("locations", [])[:4])
        result.notes.append(f"warning ({warning.get('why')}): {where}")
    for skipped in data.get("skipped", []):
        result.notes.append(f"skipped {skipped.get('path')}: {skipped.get('error', '')[:200]}")
    overridden = []
    for entry in data.get("files", []):
        for change in entry.get("changes", []):
            if change.get("action") == "removed-test":
                result.notes.append(f"deleted test {entry['path']}:{change['line']}")
            elif change.get("action") == "overridden":
                overridden.append(f"{entry['path']}:{change['line']}")
    if overridden:
        shown = ", ".join(overridden[:6]) + (", ..." if len(overridden) > 6 else "")
        result.notes.append(f"overrode {len(overridden)} writes of another value: {shown}")


def _check_file(result: FlagRun, baseline: Baseline, tree: Path, path: str, source: bytes) -> None:
    error = checks.compile_error(source, path)
    if error is not None:
        result.failures.append(Failure("compile", path, error))
        return
    if path in baseline.files:
        old, new = checks.text_of(baseline.files[path]), checks.text_of(source)
        for message in dropped_comments(old, new):
            result.failures.append(Failure("comment", path, message))
    before = baseline.pyflakes(path)
    after, shown = checks.pyflakes_messages(source, path)
    for key, count in (after - before).items():
        message = f"{key[0]}: {shown[key]}" + (f" (x{count})" if count > 1 else "")
        if key[0] == "UnusedImport" and path.endswith("__init__.py"):
            # The documented rule: imports in __init__.py stay, unused or not (re-exports).
            result.notes.append(f"{path}: {message} (kept: imports in __init__.py stay)")
            continue
        kind = "undefined" if key[0] in checks.UNDEFINED else "pyflakes"
        result.failures.append(Failure(kind, path, message))
    if baseline.formatter is not None and baseline.format_state(path) == "ok":
        state = checks.format_state(baseline.formatter, tree, path)
        if state != "ok":
            result.failures.append(Failure("format", path, f"{baseline.formatter}: {state}"))


def _check_imports(
    result: FlagRun, baseline: Baseline, tree: Path, after: dict[str, bytes]
) -> None:
    if baseline.env.python is None:
        result.imports = "n/a"
        return
    modules = {p: m for p in result.files if p in after and (m := checks.module_of(tree, p))}
    targets = {name for _, name in modules.values()}
    for path, source in after.items():
        imported = baseline.imported(path, tree, source)
        if path in modules or not checks.imports_any(imported, targets):
            continue
        module = checks.module_of(tree, path)
        if module is not None:
            modules[path] = module
    before = baseline.imports(list(modules.values()))
    importable = {p: m for p, m in modules.items() if before[m] == "ok"}
    outcome = checks.probe(baseline.env.python, tree, list(importable.values()))
    for path, module in importable.items():
        if outcome[module] != "ok":
            how = "" if path in result.files else " (unchanged; imports a changed module)"
            result.failures.append(Failure("import", path, f"{module[1]}{how}: {outcome[module]}"))
    result.imports = f"{len(importable)}/{len(modules)}"


def _check_tests(
    result: FlagRun, baseline: Baseline, project: Project, tree: Path, report: Path
) -> None:
    assert baseline.tests is not None and baseline.env.python is not None
    outcomes, summary = checks.run_tests(baseline.env.python, tree, project.tests or (), report)
    if outcomes is None:
        result.failures.append(Failure("test", ".", f"the suite did not run: {summary}"))
        result.tests = "n/a"
        return
    result.tests = summary
    for test, before in sorted(baseline.tests.items()):
        now = outcomes.get(test)
        if before == "passed" and now is None:
            result.notes.append(f"test gone (deleted, or no longer collected): {test}")
        elif before == "passed" and now in ("failed", "error"):
            module = test.split("::", 1)[0].replace(".", "/") + ".py"
            hint = "; the run rewrote its file" if module in result.files else ""
            result.failures.append(Failure("test", test, f"passed before, {now} after{hint}"))


def _tests(env: Environment, project: Project, tree: Path) -> tuple[dict[str, str] | None, str]:
    assert env.python is not None
    shutil.copytree(env.pristine, tree, symlinks=True)
    report = tree.parent / "tests-before.junit.xml"
    return checks.run_tests(env.python, tree, project.tests or (), report)


def _find(options: Options, pristine: Path, config: Path) -> tuple[list[Flag], str]:
    command = [sys.executable, "-m", "prune_flags", "find", ".", "--json", "--config", str(config)]
    env = dict(os.environ, PYTHONPATH=str(options.src))
    done = subprocess.run(
        command, cwd=pristine, env=env, capture_output=True, text=True, timeout=900
    )
    try:
        data = json.loads(done.stdout)
    except ValueError:
        return [], f"find exited {done.returncode}: {_tail(done.stderr)}"
    proposed = [
        Flag(c["name"], c["value"], "find", f"{c.get('lines', 0)} lines; {c['defined_at'][0]}")
        for c in data.get("candidates", [])
    ]
    return proposed, f"find: {len(proposed)} candidates (exit {done.returncode})"


def _config_file(project: Project, runs: Path) -> Path:
    """A config for the run: the project's excludes, nothing else (the flag comes by --flag)."""
    path = runs / "prune-flags.toml"
    path.write_text(f"exclude = {json.dumps(list(project.exclude))}\n")
    return path


def _tool_formats(src: Path, tree: Path) -> str:
    env = dict(os.environ, PYTHONPATH=str(src))
    command = [sys.executable, "-c", TOOL_FORMATS, str(tree)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    return done.stdout.strip() if done.returncode == 0 else "?"


def _write_diff(
    path: Path, before: dict[str, bytes], after: dict[str, bytes], files: list[str]
) -> Path:
    with path.open("w", encoding="utf-8") as out:
        for name in files:
            old = checks.text_of(before[name]).splitlines(True) if name in before else []
            new = checks.text_of(after[name]).splitlines(True) if name in after else []
            out.writelines(difflib.unified_diff(old, new, f"a/{name}", f"b/{name}"))
    return path
