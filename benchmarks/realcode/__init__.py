"""Real-code harness: prune flags in pinned public projects and check what the rewrite broke.

Run from the repository root, as a module (the package lives in benchmarks/realcode/):

    pip install -r benchmarks/realcode/requirements.txt     # pyflakes, beside prune-flags's deps
    python -m benchmarks.realcode                           # every project of the list
    python -m benchmarks.realcode --only click --only attrs --no-tests
    python -m benchmarks.realcode --no-find --no-imports    # the named flags, static checks only
    python -m benchmarks.realcode --list

For each project of benchmarks/realcode.toml (a PyPI sdist at an exact version, downloaded and
unpacked once into --workdir, default ~/.cache/prune-flags-realcode) and each flag (those named
in the list, then up to --max-find of `prune-flags find --json`'s proposals), the pristine tree
is copied, and `prune-flags apply . --flag NAME=VALUE` runs in the copy, as a user would run it
(the tool formats only where the project configures black or ruff; the details say whether it
did). Every file the run changed is then checked against its pristine version:

1. it compiles (`compile()`), and no trailing comment was dropped from a line that stays (a
   comment gone while its line's code is still there as often as before);
2. pyflakes reports no undefined name and no message it did not report for the original file
   (compared by kind and names, not by line; an unused import in an `__init__.py` is only a
   note, since prune-flags keeps imports there by rule);
3. every module that imported before still imports: the changed modules and those that import
   them, each in a process of its own (forked from a clean interpreter of the project's venv,
   WORKDIR/venvs/, where the sdist is pip-installed with its dependencies; the tree's own
   directory comes first on sys.path). Where the install fails the imports are "n/a";
4. where the project formats with black or ruff format (its config, as prune-flags reads it), the
   installed formatter's `--check` on each changed file that passed it before;
5. for the projects with `tests` in the list, the test suite (pytest, junit XML) before and
   after: tests that passed before and fail after are listed, to be read (a test of the removed
   value may fail rightly), not judged.

It prints a table, one row per (project, flag): the exit code of apply, the files changed, the
lines removed and added (the JSON report's summary) and the count of failures of each check;
then the details, every failure with its file and message, the refusals and deleted tests, and
where the diff of each run was written (WORKDIR/runs/PROJECT/FLAG.diff, beside the rewritten
tree). `--json FILE` writes the same as JSON. The exit status is 1 when any failure was found
(or a project could not be had), 2 for a usage error, else 0. Nothing here is timed against a
limit: the seconds are figures to read.
"""
