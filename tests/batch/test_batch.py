"""`prune-flags batch` over real git repositories whose origins are bare repositories on disk."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner, Result

from prune_flags.batch.command import batch
from prune_flags.batch.display import print_table
from prune_flags.batch.job import commit_message
from prune_flags.batch.repos import parse_repo_list
from prune_flags.batch.result import RepoResult
from prune_flags.config import Config, parse_flag_options
from prune_flags.report import Change, FileResult, FlagWarning, Left, Refusal, Report
from prune_flags.vocabulary import LeftReason, WarningReason

FLAGGED = """\
class Node:
    def __init__(self):
        self.fast = False

    def run(self):
        if self.fast:
            return 1
        return 2
"""
PRUNED = """\
class Node:
    def run(self):
        return 2
"""
CLEAN = "def other():\n    return 3\n"
# Another module gives the flag the other value: the cleanup changes what quick() returns.
OVERRIDING = (
    "from node import Node\n\n\ndef quick():\n    node = Node()\n    node.fast = True\n"
    "    return node\n"
)
OVERRIDE = "quick.py:6: overrode fast = True (the config fixes it at False)"
BRANCH = "prune-flags"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with a flags config, and a caller git config holding an identity."""
    gitconfig = tmp_path / "caller.gitconfig"
    gitconfig.write_text("[user]\n\tname = Campaign Bot\n\temail = bot@example.com\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    (tmp_path / "flags.toml").write_text("[flags]\nfast = false\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def git(cwd: Path, *args: str, input_text: str | None = None) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, input=input_text, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def make_source(root: Path, name: str, files: dict[str, str]) -> Path:
    source = root / "sources" / name
    source.mkdir(parents=True)
    git(source, "init", "-q", "-b", "main")
    for path, text in files.items():
        (source / path).parent.mkdir(parents=True, exist_ok=True)
        (source / path).write_text(text)
    git(source, "add", ".")
    git(source, "commit", "-q", "-m", "initial")
    return source


def make_origins(root: Path, source: Path, names: list[str]) -> list[Path]:
    root.mkdir(exist_ok=True)
    origins = []
    for name in names:
        origin = root / "origins" / f"{name}.git"
        git(root, "clone", "-q", "--bare", "--", str(source), str(origin))
        origins.append(origin)
    return origins


def write_list(root: Path, lines: list[str]) -> Path:
    listing = root / "repos.txt"
    listing.write_text("".join(f"{line}\n" for line in lines))
    return listing


def invoke(*args: str) -> Result:
    app = typer.Typer()
    app.command()(batch)
    return CliRunner().invoke(app, ["--repos", "repos.txt", "--config", "flags.toml", *args])


def report_lines(path: Path) -> dict[str, dict[str, object]]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert len({line["repo"] for line in lines}) == len(lines), "one line per repository"
    return {Path(str(line["repo"])).name: line for line in lines}


def branch_head(origin: Path) -> str | None:
    try:
        return git(origin, "rev-parse", "--verify", "-q", f"refs/heads/{BRANCH}")
    except subprocess.CalledProcessError:
        return None


def plant_hooks(clone: Path, marker: Path) -> None:
    hooks = clone / ".git" / "hooks"
    for hook in (
        "pre-commit",
        "prepare-commit-msg",
        "commit-msg",
        "post-commit",
        "post-checkout",
        "reference-transaction",
        "pre-push",
        "post-index-change",
    ):
        script = hooks / hook
        script.write_text(f"#!/bin/sh\ntouch '{marker}'\n")
        script.chmod(script.stat().st_mode | stat.S_IXUSR)


def test_fleet_gets_one_pushed_commit_per_flagged_repository_and_a_rerun_redoes_nothing(
    home: Path,
) -> None:
    flagged = make_source(home, "flagged", {"node.py": FLAGGED, "other.py": CLEAN})
    clean = make_source(home, "clean", {"other.py": CLEAN})
    flagged_origins = make_origins(home, flagged, [f"flagged{i}" for i in range(10)])
    clean_origins = make_origins(home, clean, ["clean0", "clean1"])
    write_list(home, ["# the fleet", "", *(str(o) for o in flagged_origins + clean_origins)])

    result = invoke("--push", "-j", "2", "--report", "run.jsonl")

    assert result.exit_code == 0, result.output
    lines = report_lines(home / "run.jsonl")
    assert {name: line["status"] for name, line in lines.items()} == {
        **{origin.name: "changed" for origin in flagged_origins},
        **{origin.name: "unchanged" for origin in clean_origins},
    }
    for origin in flagged_origins:
        line = lines[origin.name]
        assert (line["branch"], line["files_changed"], line["error"]) == (BRANCH, 1, None)
        assert line["commit"] == branch_head(origin)
        assert git(origin, "rev-list", "--count", f"main..{BRANCH}") == "1"
        assert git(origin, "rev-parse", f"{BRANCH}^") == git(origin, "rev-parse", "main")
        assert git(origin, "diff", "--name-only", "main", BRANCH) == "node.py"
        assert git(origin, "show", f"{BRANCH}:node.py") + "\n" == PRUNED
        message = git(origin, "log", "-1", "--format=%an <%ae>%n%B", BRANCH)
        assert message.startswith("Campaign Bot <bot@example.com>\nRemove stale flag fast\n")
        assert "- fast = False: 4 changes in 1 file" in message
        assert line["flags"] == {"fast": "pruned"}
    for origin in clean_origins:
        assert branch_head(origin) is None
        assert lines[origin.name]["flags"] == {"fast": "nowhere"}
    assert "12 repositories: 10 changed, 2 unchanged, 0 failed, 0 skipped" in result.stderr

    pushed = {origin.name: branch_head(origin) for origin in flagged_origins}
    again = invoke("--push", "-j", "2", "--report", "run.jsonl")

    assert again.exit_code == 0, again.output
    relines = report_lines(home / "run.jsonl")
    # Each line is the earlier run's, with the outcome it had kept as `previous`.
    assert relines == {
        name: {**line, "status": "skipped", "previous": line["status"]}
        for name, line in lines.items()
    }
    assert "12 repositories: 0 changed, 0 unchanged, 0 failed, 12 skipped" in again.stderr
    assert {origin.name: branch_head(origin) for origin in flagged_origins} == pushed
    assert {name: line["commit"] for name, line in relines.items()} == {
        name: line["commit"] for name, line in lines.items()
    }
    clone = home / "prune-flags-batch" / "flagged0"
    assert git(clone, "rev-list", "--count", BRANCH) == "2"


def test_hostile_lines_are_refused_run_nothing_and_the_batch_goes_on(home: Path) -> None:
    source = make_source(home, "flagged", {"node.py": FLAGGED})
    [origin] = make_origins(home, source, ["good"])
    upload_marker, ext_marker = home / "upload-pack-ran", home / "pwned"
    write_list(
        home,
        [f"--upload-pack=touch {upload_marker}", f"ext::sh -c touch% {ext_marker}", str(origin)],
    )

    result = invoke("--report", "run.jsonl")

    assert result.exit_code == 1
    assert not upload_marker.exists() and not ext_marker.exists()
    lines = [json.loads(line) for line in (home / "run.jsonl").read_text().splitlines()]
    assert [line["status"] for line in lines] == ["failed", "failed", "changed"]
    assert "line 1: " in lines[0]["error"] and "read as an option" in lines[0]["error"]
    assert "line 2: " in lines[1]["error"] and "ext::" in lines[1]["error"]
    assert sorted(p.name for p in (home / "prune-flags-batch").iterdir()) == ["good"]


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("--upload-pack=touch /tmp/x", "starts with '-'"),
        ("-oProxyCommand=x", "starts with '-'"),
        ("ext::sh -c touch% /tmp/pwned", "transport helpers"),
        ("fd::3", "transport helpers"),
        ("ssh://-oProxyCommand=touch/x", "ssh:// is not accepted"),
        ("file:///etc", "file:// is not accepted"),
        ("git@example.com:org/repo.git", "ssh addresses"),
        ("https://-oProxyCommand=touch/x", "is not a host name"),
        ("https://user:token@example.com/r.git", "credentials"),
        ("https://example.com/org/..", "'..' segments"),
        ("https://example.com", "no path"),
        ("https://example.com/a b", "whitespace"),
        ("/", "no repository name"),
    ],
)
def test_list_line_refused_with_reason(line: str, error: str) -> None:
    specs, refused = parse_repo_list(f"{line}\n", Path("/lists"))
    assert specs == []
    assert [r.line for r in refused] == [1]
    assert error in refused[0].error


def test_list_parsing_comments_paths_and_clone_names() -> None:
    text = """
        # comment line

        ../repos/app.git   # trailing comment
        https://example.com/org/app.git
        https://example.com/org/tool/
        ~/work/odd name#1
        ../repos/app.git
    """
    specs, refused = parse_repo_list(text, Path("/lists"))
    assert [(spec.line, spec.source) for spec in specs] == [
        (4, "/repos/app.git"),
        (5, "https://example.com/org/app.git"),
        (6, "https://example.com/org/tool/"),
        (7, os.path.expanduser("~/work/odd name#1")),
    ]
    app_names = [spec.name for spec in specs[:2]]
    assert all(name.startswith("app-") for name in app_names) and len(set(app_names)) == 2
    assert [spec.name for spec in specs[2:]] == ["tool", "odd-name-1"]
    assert [(r.line, r.error) for r in refused] == [
        (8, "line 8: '../repos/app.git': repeats line 4")
    ]


def test_dry_run_writes_a_patch_and_hooks_planted_in_the_clone_never_run(home: Path) -> None:
    source = make_source(home, "flagged", {"node.py": FLAGGED})
    [origin] = make_origins(home, source, ["app"])
    write_list(home, [str(origin)])

    dry = invoke("--dry-run")

    assert dry.exit_code == 0, dry.output
    workdir = home / "prune-flags-batch"
    patch = (workdir / "app.patch").read_text()
    assert patch.startswith("diff --git a/node.py b/node.py\n--- a/node.py\n+++ b/node.py\n")
    clone = workdir / "app"
    assert git(clone, "status", "--porcelain") == ""
    assert branch_head(origin) is None and git(clone, "branch", "--list", BRANCH) == ""
    git(clone, "apply", "--check", "-", input_text=patch)

    marker = home / "hook-ran"
    plant_hooks(clone, marker)
    done = invoke("--push", "--message", "Drop the fast flag")

    assert done.exit_code == 0, done.output
    assert not marker.exists()
    assert git(origin, "log", "-1", "--format=%B", BRANCH) == "Drop the fast flag"
    # The planted hooks are live: plain git in the same clone runs them.
    git(clone, "commit", "-q", "--allow-empty", "-m", "check")
    assert marker.exists()


def test_a_clone_whose_config_was_tampered_with_is_not_used(home: Path) -> None:
    source = make_source(home, "flagged", {"node.py": FLAGGED})
    [origin] = make_origins(home, source, ["app"])
    write_list(home, [str(origin)])
    assert invoke("--dry-run").exit_code == 0
    clone, marker = home / "prune-flags-batch" / "app", home / "fsmonitor-ran"
    monitor = home / "monitor.sh"
    monitor.write_text(f"#!/bin/sh\ntouch '{marker}'\n")
    monitor.chmod(0o755)
    git(clone, "config", "core.fsmonitor", str(monitor))

    result = invoke("--report", "run.jsonl")

    assert result.exit_code == 1
    [line] = report_lines(home / "run.jsonl").values()
    assert line["status"] == "failed"
    assert "sets core.fsmonitor" in str(line["error"]) and "delete the clone" in str(line["error"])
    assert not marker.exists() and branch_head(origin) is None


def test_failed_repositories_are_retried_and_done_ones_skipped(home: Path) -> None:
    source = make_source(home, "flagged", {"node.py": FLAGGED})
    [first] = make_origins(home, source, ["first"])
    later = home / "origins" / "later.git"
    write_list(home, [str(first), str(later)])

    result = invoke("--report", "run.jsonl")

    assert result.exit_code == 1
    lines = report_lines(home / "run.jsonl")
    assert (lines["first.git"]["status"], lines["later.git"]["status"]) == ("changed", "failed")
    assert "later.git" in str(lines["later.git"]["error"])

    make_origins(home, source, ["later"])
    again = invoke("--report", "run.jsonl")

    assert again.exit_code == 0, again.output
    relines = report_lines(home / "run.jsonl")
    assert (relines["first.git"]["status"], relines["later.git"]["status"]) == (
        "skipped",
        "changed",
    )
    assert relines["first.git"] == {
        **lines["first.git"],
        "status": "skipped",
        "previous": "changed",
    }
    assert list(relines["first.git"]) == [*lines["first.git"]]  # the same fields, in their order
    assert (
        f"skipped: {first} (done earlier: 1 file changed, 5 lines removed, 0 added)" in again.stderr
    )
    # A further rerun still says what became of it, not "skipped" again.
    invoke("--report", "run.jsonl")
    assert report_lines(home / "run.jsonl")["first.git"] == relines["first.git"]
    # Another config is another campaign: the done repository is redone.
    third = invoke("--report", "run.jsonl", "--message", "Another message")
    assert {line["status"] for line in report_lines(home / "run.jsonl").values()} == {"changed"}
    assert third.exit_code == 0


def test_a_repositorys_own_config_applies_on_top_of_the_campaign(home: Path) -> None:
    own = '[tool.prune-flags]\nexclude = ["vendored/**"]\nformat = "none"\n'
    source = make_source(
        home, "own", {"pyproject.toml": own, "node.py": FLAGGED, "vendored/node.py": FLAGGED}
    )
    broken = make_source(
        home,
        "broken",
        {"pyproject.toml": '[tool.prune-flags]\nformat = "yapf"\n', "node.py": FLAGGED},
    )
    [own_origin] = make_origins(home, source, ["own"])
    [broken_origin] = make_origins(home, broken, ["broken"])
    write_list(home, [str(own_origin), str(broken_origin)])

    result = invoke("--report", "run.jsonl")

    assert result.exit_code == 1
    lines = report_lines(home / "run.jsonl")
    assert lines["own.git"]["status"] == "changed"
    clone = home / "prune-flags-batch" / "own"
    assert git(clone, "show", "--name-only", "--format=", "HEAD") == "node.py"
    assert lines["broken.git"]["status"] == "failed"
    assert "broken/pyproject.toml: format: expected one of" in str(lines["broken.git"]["error"])


def test_a_symlink_leaving_the_repository_is_not_followed(home: Path) -> None:
    outside = home / "outside.py"
    outside.write_text(FLAGGED)
    source = make_source(home, "linked", {"node.py": FLAGGED})
    (source / "link.py").symlink_to(outside)
    git(source, "add", "link.py")
    git(source, "commit", "-q", "-m", "link out")
    [origin] = make_origins(home, source, ["linked"])
    write_list(home, [str(origin)])

    result = invoke("--push")

    assert result.exit_code == 0, result.output
    assert outside.read_text() == FLAGGED
    assert git(origin, "diff", "--name-only", "main", BRANCH) == "node.py"


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["--config", "missing.toml"], "missing.toml: --config: no such file"),
        (["--config", "bad.toml"], "bad.toml: flagz: unknown key"),
        (["--branch", "a..b"], "--branch 'a..b' is not a valid git branch name"),
        (["--branch", "-x"], "--branch '-x' is not a valid git branch name"),
        (["--scheduler", "tcp://127.0.0.1:1"], "--scheduler needs --executor dask"),
        (["--push", "--dry-run"], "--push and --dry-run exclude each other"),
        (["--message", " "], "--message is empty"),
        (["--report", "corrupt.jsonl"], "corrupt.jsonl:2: "),
        (["-j", "0"], "Invalid value for '-j'"),
        (["--executor", "ray"], "Invalid value for '--executor'"),
    ],
)
def test_usage_and_config_errors_exit_2_before_any_clone(
    home: Path, args: list[str], error: str
) -> None:
    source = make_source(home, "flagged", {"node.py": FLAGGED})
    [origin] = make_origins(home, source, ["app"])
    write_list(home, [str(origin)])
    (home / "bad.toml").write_text("flagz = 1\n")
    good = json.dumps({"repo": str(origin), "status": "failed"})
    (home / "corrupt.jsonl").write_text(f"{good}\n{{not json\n")

    result = invoke(*args)

    assert result.exit_code == 2
    assert error in " ".join(result.stderr.split())
    assert not (home / "prune-flags-batch" / "app").exists()


def test_dask_executor_gives_the_same_branches_and_report(home: Path) -> None:
    flagged = make_source(home, "flagged", {"node.py": FLAGGED, "other.py": CLEAN})
    clean = make_source(home, "clean", {"other.py": CLEAN})
    runs = {}
    for executor in ("local", "dask"):
        origins = make_origins(home / executor, flagged, ["a", "b"]) + make_origins(
            home / executor, clean, ["c"]
        )
        write_list(home, [str(origin) for origin in origins])
        result = invoke(
            "--push", "-j", "2", "--executor", executor, "--workdir", f"work-{executor}"
        )
        assert result.exit_code == 0, result.output
        lines = report_lines(home / f"work-{executor}" / "batch-report.jsonl")
        trees = {
            origin.name: branch_head(origin) and git(origin, "rev-parse", f"{BRANCH}^{{tree}}")
            for origin in origins
        }
        runs[executor] = (
            {
                name: {k: v for k, v in line.items() if k not in ("repo", "commit")}
                for name, line in lines.items()
            },
            trees,
        )
    assert "distributed" in sys.modules  # the dask run went through Dask, not the process pool
    assert runs["dask"] == runs["local"]
    assert (
        runs["local"][0]["a.git"]["status"] == "changed"
        and runs["local"][0]["c.git"]["status"] == "unchanged"
    )


def test_registering_the_command_imports_neither_dask_nor_the_engine() -> None:
    code = (
        "import sys, prune_flags.batch.command; print(sorted(m for m in ('distributed', 'dask', "
        "'rich', 'prune_flags.engine.driver', 'prune_flags.batch.launch', 'multiprocessing') if m "
        "in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "[]\n"


def test_the_table_shows_lines_added_and_what_a_skipped_repository_had(
    capsys: pytest.CaptureFixture[str],
) -> None:
    changed = RepoResult(
        "/r/a",
        "changed",
        BRANCH,
        "4f1c2a9e0b77",
        2,
        None,
        21,
        3,
        head="h",
        config_hash="c",
        overridden=("q.py:6: overrode fast = True",),
    )
    results = [
        changed,
        RepoResult("/r/b", "unchanged", head="h", config_hash="c").skipped(),
        changed.skipped().skipped(),
        RepoResult("/r/c", "failed", error="cannot clone"),
    ]
    print_table(results)
    assert capsys.readouterr().out == TABLE


TABLE = """\
┏━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┓
┃ repository ┃ status              ┃ files changed ┃ lines removed ┃ lines added ┃ overridden ┃ left ┃ branch or error              ┃
┡━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┩
│ /r/a       │ changed             │ 2             │ 21            │ 3           │ 1          │ 0    │ prune-flags (4f1c2a9e0b)     │
│            │                     │               │               │             │            │      │ q.py:6: overrode fast = True │
│ /r/b       │ skipped (unchanged) │ 0             │ 0             │ 0           │ 0          │ 0    │                              │
│ /r/a       │ skipped (changed)   │ 2             │ 21            │ 3           │ 1          │ 0    │ prune-flags (4f1c2a9e0b)     │
│            │                     │               │               │             │            │      │ q.py:6: overrode fast = True │
│ /r/c       │ failed              │ 0             │ 0             │ 0           │ 0          │ 0    │ cannot clone                 │
└────────────┴─────────────────────┴───────────────┴───────────────┴─────────────┴────────────┴──────┴──────────────────────────────┘
"""  # noqa: E501 (the table as rich prints it)


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ({"previous": "skipped"}, "\"previous\" is 'skipped'; expected changed, unchanged or null"),
        ({"previous": "failed"}, "\"previous\" is 'failed'; expected changed, unchanged or null"),
    ],
)
def test_a_report_line_with_a_wrong_previous_is_refused(
    line: dict[str, object], error: str
) -> None:
    with pytest.raises(ValueError) as raised:
        RepoResult.from_json({"repo": "/r/a", "status": "skipped", **line})
    assert str(raised.value) == error


def test_a_report_line_without_previous_still_reads() -> None:
    # Reports written before `previous` existed resume as before.
    assert RepoResult.from_json({"repo": "/r/a", "status": "skipped"}).previous is None


def test_the_commit_message_says_which_flags_were_left_and_why() -> None:
    config = Config(flags=tuple(parse_flag_options(["fast=False", "slow=True", "named=1"])))
    ambiguous = Refusal(
        "slow", "ambiguous", ("a.py:1", "b.py:1"), "slow: not pruned: ...", ("a.slow", "b.slow")
    )
    report = Report(
        flags={"fast": "False", "slow": "True", "named": "1"},
        files=[
            FileResult(
                Path("node.py"), "node.py", "x\n", "", (Change(1, "fast", "removed-field", "..."),)
            )
        ],
        refused=[ambiguous],
        warnings=[
            FlagWarning(
                "named",
                WarningReason.NOWHERE,
                (),
                None,
                "named: appears nowhere in the files in scope",
            ),
            # (a pruned flag's warning of what the run left leaves its verdict as it is)
            FlagWarning("fast", WarningReason.REGISTRATION_LEFT, ("a.py:1 (--fast)",), None, "."),
        ],
    )

    assert report.verdicts == {"fast": "pruned", "slow": "ambiguous", "named": "nowhere"}
    body = commit_message(report, config).split("\n\n")[1]
    assert body == (
        "- fast = False: 1 change in 1 file\n"
        "- slow = True: left as it is (ambiguous)\n"
        "- named = 1: left as it is (nowhere)"
    )


def test_the_commit_message_lists_each_site_left_as_it_was() -> None:
    config = Config(flags=tuple(parse_flag_options(["PY310_PLUS=True"])))
    site = Left("PY310_PLUS", "pkg/__init__.py", 3, LeftReason.REEXPORTED, "outside code may")
    report = Report(
        flags={"PY310_PLUS": "True"},
        files=[
            FileResult(
                Path("core.py"), "core.py", "x\n", "", (Change(1, "PY310_PLUS", "inlined", "."),)
            )
        ],
        left=[site],
    )
    body = commit_message(report, config).split("\n\n")[1]
    assert body == (
        "- PY310_PLUS = True: 1 change in 1 file\n"
        "- left as it is: pkg/__init__.py:3: left PY310_PLUS as it is (re-exported): outside code"
        " may"
    )


def test_a_report_line_with_flags_not_an_object_of_words_is_refused() -> None:
    with pytest.raises(ValueError) as raised:
        RepoResult.from_json({"repo": "/r/a", "status": "changed", "flags": {"fast": 1}})
    assert str(raised.value) == '"flags" is not an object of flag names and verdicts'
    line = {"repo": "/r/a", "status": "changed", "flags": {"fast": "pruned"}}
    assert RepoResult.from_json(line).to_json()["flags"] == {"fast": "pruned"}


def test_a_write_of_another_value_is_named_in_the_report_and_the_commit(home: Path) -> None:
    source = make_source(home, "flagged", {"node.py": FLAGGED, "quick.py": OVERRIDING})
    [origin] = make_origins(home, source, ["overridden"])
    write_list(home, [str(origin)])

    result = invoke("--report", "run.jsonl")

    assert result.exit_code == 0, result.output
    line = report_lines(home / "run.jsonl")["overridden.git"]
    assert (line["status"], line["overridden"], line["left"]) == ("changed", [OVERRIDE], [])
    clone = home / "prune-flags-batch" / "overridden"
    message = git(clone, "log", "-1", "--format=%B", BRANCH)
    assert f"- changes what the code did: {OVERRIDE}\n" in message
    header = next(row for row in result.stdout.splitlines() if "repository" in row)
    assert "overridden" in header and "left" in header


def test_fail_on_override_fails_the_repository_and_commits_nothing(home: Path) -> None:
    overriding = make_source(home, "overriding", {"node.py": FLAGGED, "quick.py": OVERRIDING})
    plain = make_source(home, "plain", {"node.py": FLAGGED})
    [first] = make_origins(home, overriding, ["first"])
    [second] = make_origins(home, plain, ["second"])
    write_list(home, [str(first), str(second)])

    result = invoke("--report", "run.jsonl", "--fail-on-override", "--push")

    assert result.exit_code == 1, result.output
    lines = report_lines(home / "run.jsonl")
    assert lines["first.git"]["status"] == "failed"
    assert lines["first.git"]["error"] == (
        "--fail-on-override: the cleanup changes what the code did at 1 place (see overridden);"
        " nothing committed"
    )
    assert lines["first.git"]["overridden"] == [OVERRIDE]
    assert branch_head(first) is None
    assert (home / "prune-flags-batch" / "first" / "quick.py").read_text() == OVERRIDING
    assert lines["second.git"]["status"] == "changed"  # the others go on as usual
    assert branch_head(second) is not None


def test_a_report_line_with_overridden_not_a_list_is_refused() -> None:
    with pytest.raises(ValueError) as raised:
        RepoResult.from_json({"repo": "/r/a", "status": "changed", "overridden": "x.py:1"})
    assert str(raised.value) == '"overridden" is not a list'
