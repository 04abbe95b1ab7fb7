"""The documentation against the repository: the module table of docs/design.md lists every
module of src/prune_flags and nothing else, and every relative link of README.md into docs/
names a file that exists."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "prune_flags"
DESIGN = ROOT / "docs" / "design.md"
README = ROOT / "README.md"

MODULES_HEADING = "## Modules"
# A row of a module table: its first cell is one module's path in backticks.
ROW = re.compile(r"^\|\s*`(?P<path>[^`]+)`\s*\|\s*(?P<holds>[^|]*\S)\s*\|\s*$")
# A Markdown link or image target: [text](target) or [text](target "title").
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?(?P<target>[^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def source_modules() -> set[str]:
    """Every .py file under src/prune_flags, relative to it, packages' __init__.py left out."""
    return {
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if path.name != "__init__.py"
    }


def modules_section(text: str) -> list[str]:
    """The lines of design.md's "## Modules" section, up to the next second-level heading."""
    lines = text.splitlines()
    assert MODULES_HEADING in lines, f"{DESIGN.name} has no {MODULES_HEADING!r} section"
    start = lines.index(MODULES_HEADING) + 1
    end = next(
        (i for i in range(start, len(lines)) if lines[i].startswith("## ")),
        len(lines),
    )
    return lines[start:end]


def listed_modules() -> list[str]:
    """The modules the table rows of that section name, in order, duplicates kept."""
    listed = []
    for line in modules_section(DESIGN.read_text(encoding="utf-8")):
        if not line.startswith("|") or set(line) <= set("|- "):
            continue  # prose, headings, and the tables' separator rows
        match = ROW.match(line)
        if match is None:
            assert line.replace(" ", "") == "|module|holds|", f"a row that names no module: {line}"
            continue
        listed.append(match["path"])
    return listed


def test_the_module_table_lists_every_module_and_no_other() -> None:
    listed = listed_modules()
    duplicates = sorted({path for path in listed if listed.count(path) > 1})
    missing = sorted(source_modules() - set(listed))
    extra = sorted(set(listed) - source_modules())
    assert (missing, extra, duplicates) == ([], [], []), (
        f"docs/design.md's module table and src/prune_flags disagree:\n"
        f"  missing from the table: {missing}\n"
        f"  in the table but not in the source: {extra}\n"
        f"  listed more than once: {duplicates}"
    )


def readme_links_into_docs() -> list[str]:
    """The relative link targets of README.md that point under docs/ (anchors dropped)."""
    targets = []
    for match in LINK.finditer(README.read_text(encoding="utf-8")):
        target = match["target"].split("#", 1)[0]
        if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("/"):
            continue  # an anchor in the README itself, a URL, or an absolute path
        if Path(target).parts[:1] == ("docs",) or target.startswith("./docs/"):
            targets.append(target)
    return targets


def test_every_readme_link_into_docs_exists() -> None:
    targets = readme_links_into_docs()
    assert targets, "README.md links to nothing under docs/"
    missing = sorted({target for target in targets if not (ROOT / target).is_file()})
    assert missing == [], f"README.md links to files under docs/ that do not exist: {missing}"


SET_UP = "## Set-up"
INSTALL = "python3 -m pip install . && "


def test_the_readmes_first_command_shows_the_whole_cleanup_of_the_bundled_example(
    tmp_path: Path,
) -> None:
    """The README's first set-up command, but for the install (this venv has the package) and
    with its scratch directory in the test's: its diff is the bundled example's expected one."""
    section = README.read_text(encoding="utf-8").split(SET_UP, 1)[1]
    command = next(line.strip() for line in section.splitlines() if INSTALL in line)
    scratch = str(tmp_path / "schedule_node")
    script = command.removeprefix(INSTALL).replace("/tmp/schedule_node", scratch)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    run = subprocess.run(
        ["bash", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    assert run.returncode == 1, run.stderr  # changes shown
    expected = ROOT / "fixtures" / "seed" / "schedule_node" / "after"
    changed = sorted(
        line.split(" b/")[1] for line in run.stdout.splitlines() if line.startswith("diff --git")
    )
    assert changed == sorted(p.relative_to(expected).as_posix() for p in expected.rglob("*.py"))
    assert run.stderr.splitlines()[-1] == "2 files changed, 21 lines removed, 0 added"
