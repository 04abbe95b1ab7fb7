"""Compare prune-flags with Polyglot Piranha on the same stale-flag jobs, timed as whole processes.

    pip install polyglot-piranha        # optional: without it, prune-flags's rows only
    python3 benchmarks/piranha.py --runs 5 --modules 1000 --flags 10 --mcore /tmp/mc/mcore

Trees (every run works on a fresh copy of its tree, made before the clock starts; the source
trees are never written):

- `seed`: fixtures/seed/schedule_node/before, shaped like Megatron-LM PR #4511 (5 files), with
  codemods/manual_release_grads.toml (`manual_release_grads = false`);
- `mcore`: a copy of the megatron-core tree given by --mcore (skipped when it does not exist),
  same config: the seed's two files among a few hundred others;
- `synthetic`: the tree benchmarks/bench.py builds (--modules, --flags), with its config.

Tools, one process per run, each rewriting its copy in place:

- `prune-flags`: `python -m prune_flags apply -q --config CONFIG .`, its whole job (inline, fold,
  cross-file cascade, black where the tree configures it, safety re-run);
- `piranha`: `python benchmarks/piranha.py --piranha-once CONFIG .`, a process that imports
  `polyglot_piranha` and calls `execute_piranha` with the rules below for the config's flags;
- `piranha+fields`: the same plus rules for the bookkeeping fields the flag's dead code kept
  alive, named by hand (`delay_grads_release|output_grads` for the seed job, the regex
  `aux_flag_[0-9]+_[0-9]+` for the synthetic tree): what a Piranha user has to know and write
  to get near the cascade prune-flags works out by itself.

Columns: median wall seconds over --runs; the peak resident memory of the run's largest process
(ru_maxrss from wait4: the process and the children it waited for, not their sum); the lines
changed, added plus removed, against the untouched tree after the last run; whether every changed
file still parses with `ast`; and `pf/this`, prune-flags's median divided by the row's (the
ratio prune-flags/Piranha on Piranha's rows). Nothing here asserts a time. Other load on the
machine skews wall times: the load average is printed before and after.

Piranha's rules. Piranha ships no cleanup rules for Python (only scope definitions for other
languages; 0.4.9 has none for Python, so "Function", "Class" and "File" edges panic and only
"Parent" edges work), so all of these are written here in its tree-sitter query language:

- reads: `x.flag` becomes the constant (one seed rule per value, the names joined in a regex hole
  `^(flag_a|flag_b|...)$`; the hole's value is also Piranha's grep pre-filter, so files naming no
  flag are never parsed), except as the target of a write to the flag;
- expressions, on "Parent" edges from each replaced read: `not True/False`, `and`/`or` with a
  boolean constant on either side, parentheses around a constant, `a if True else b`;
- statements, as seed rules applied after the reads (a "Parent" rule never sees the comment above
  a statement, a sibling): `self.flag = <its constant>`, `if False:` without `else`, `while False:`
  and `assert True` deleted with the comment lines just above them, or replaced by `pass` when no
  other statement would stay in their block; `elif False:` deleted; `if False: ... else: <one
  simple statement>` and `if True: <one simple statement> ...` replaced by that statement;
- `+fields`: writes (`=`, augmented), `del` and asserts of the named fields deleted the same
  way, then an `if <name or attribute>:` left holding only `pass`.

What these rules do not do, where prune-flags does:

- no analysis across files or even within one: a field whose last read was in the dead code is not
  found (hence `+fields`); the `+fields` rules delete the named fields wherever they are, without
  the check prune-flags makes that nothing else in the repository reads them (any `x.name`, any
  string literal); a flag given another value somewhere (a conflict prune-flags refuses) is
  pruned anyway;
- no dedent: Piranha replaces text, and a kept branch of more than one simple statement would
  keep its deeper indentation, which Python rejects, so such `if True:` and `else:` branches stay;
  so does `if False:` followed by `elif` (its first `elif` would have to become the `if`);
- `f() and False` becomes `False`, dropping the call (prune-flags keeps it); no purity check
  before deleting an emptied `if`; the statement rules also fold constant `if`s, `while`s and
  asserts the user wrote, not only those the flag produced; "the comment above" is the comment node
  before the statement, which can be the trailing comment of the line before;
- Piranha's own comment cleanup (cleanup_comments) does nothing for Python in 0.4.9, and
  delete_consecutive_new_lines collapses every blank line of a file, so it stays off: a deletion
  can leave two blank lines where there was one;
- no module constants, imports, parameters, CLI options, `getattr`/`os.environ` lookups, locals
  carrying the flag, code after `return`, definitions left without callers, unused imports,
  docstring entries, `# prune-flags: keep` pragmas;
- no formatting (black), no check that the result parses beyond tree-sitter's error recovery, no
  second run to check the result is stable.

On the seed fixture and on megatron-core, `piranha+fields` gives prune-flags's result but for one
blank line; plain `piranha` leaves the bookkeeping fields, the assert and their comments.

If `polyglot_piranha` is not installed the script says so, prints prune-flags's own rows and
exits 0.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import importlib
import os
import shutil
import statistics
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import build_tree, load_average, run_measured

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent
SEED_TREE = REPO / "fixtures" / "seed" / "schedule_node" / "before"
SEED_CONFIG = REPO / "codemods" / "manual_release_grads.toml"
SEED_FIELDS = "delay_grads_release|output_grads"
SYNTHETIC_FIELDS = "aux_flag_[0-9]+_[0-9]+"
SIMPLE_STATEMENTS = (
    "[(expression_statement) (return_statement) (pass_statement) (raise_statement)"
    " (break_statement) (continue_statement) (assert_statement) (delete_statement)]"
)


# ---------------------------------------------------------------------------------------------
# The Piranha job (runs in its own process: `--piranha-once`)


def read_flags(config: Path) -> dict[str, str]:
    """The flags of a prune-flags config, each with the Python source of its value."""
    table: dict[str, Any] = tomllib.loads(config.read_text())
    flags = table.get("flags") or table.get("tool", {}).get("prune-flags", {}).get("flags", {})
    sources = {}
    for name, value in flags.items():
        sources[name] = value["python"] if isinstance(value, dict) else repr(value)
    return sources


def _query_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def piranha_rules(flags: dict[str, str], dead_fields: str | None) -> tuple[Any, dict[str, str]]:
    """The rule graph and the hole substitutions for one run.

    Piranha applies the seed rules one after the other, each to every match in a file before the
    next, and follows a rule's edges after each of its edits. Only the expression rules hang on
    edges ("Parent" scope: the ancestors of the edit), because Piranha 0.4.9 has no scope
    definitions for Python ("Function", "Class", "File" panic) and a "Parent" rule never sees the
    comment above a statement, which is a sibling. The statement rules are therefore seed rules,
    listed after the reads they clean up after.
    """
    from polyglot_piranha import Filter, OutgoingEdges, Rule, RuleGraph

    rules: list[Rule] = []
    edges: list[OutgoingEdges] = []
    substitutions: dict[str, str] = {}
    by_value: dict[str, list[str]] = {}
    for name, source in flags.items():
        by_value.setdefault(source, []).append(name)

    def removal(
        name: str, pattern: str, predicates: str = "", holes: frozenset[str] = frozenset()
    ) -> None:
        """Seed rules deleting the statement `pattern`: first the comment lines just above it, then
        the statement itself while another statement (a node not starting with `#`) stays in its
        block, else `pass` in its place (an empty block does not parse). Piranha matches again
        after each edit, so a block of two dead statements loses one and keeps `pass`. (One rule
        per shape: an alternation whose branches capture different nodes never matches.)"""
        other = '(#not-match? @other "^#")'
        for suffix, query, replace in (
            ("comment", f"((comment) @stmt . {pattern} {predicates})", ""),
            ("after_other", f"((block (_) @other {pattern} @stmt) {other} {predicates})", ""),
            ("before_other", f"((block {pattern} @stmt (_) @other) {other} {predicates})", ""),
            ("top_level", f"((module {pattern} @stmt) {predicates})", ""),
            ("alone", f"((block . {pattern} @stmt .) {predicates})", "pass"),
        ):
            rule = Rule(
                name=f"{name}_{suffix}",
                query=query,
                replace_node="stmt",
                replace=replace,
                holes=set(holes),
            )
            rules.append(rule)

    for index, (source, names) in enumerate(sorted(by_value.items())):
        hole = f"stale_flags_{index}"
        substitutions[hole] = "|".join(sorted(names))
        match = f'(#match? @name "^(@{hole})$")'
        rules.append(
            Rule(
                name=f"replace_flag_read_{index}",
                query=f"((attribute attribute: (identifier) @name) @read {match})",
                replace_node="read",
                replace=source,
                holes={hole},
                filters={
                    Filter(
                        not_enclosing_node="((assignment left: (attribute attribute: (identifier) "
                        "@target)) @write"
                        f' (#match? @target "^(@{hole})$"))'
                    )
                },
            )
        )
        edges.append(OutgoingEdges(f"replace_flag_read_{index}", ["boolean_cleanup"], "Parent"))
        removal(
            f"delete_flag_definition_{index}",
            "(expression_statement (assignment left: (attribute attribute: (identifier) @name) "
            "right: (_) @value))",
            f'{match} (#eq? @value "{_query_string(source)}")',
            frozenset([hole]),
        )

    def expression(name: str, query: str, replace: str) -> None:
        rules.append(
            Rule(
                name=name,
                query=query,
                replace_node="e",
                replace=replace,
                groups={"boolean_cleanup"},
                is_seed_rule=False,
            )
        )

    expression("not_false", "(not_operator argument: (false)) @e", "True")
    expression("not_true", "(not_operator argument: (true)) @e", "False")
    expression("false_and", '(boolean_operator left: (false) operator: "and") @e', "False")
    expression("and_false", '(boolean_operator operator: "and" right: (false)) @e', "False")
    expression(
        "true_and", '(boolean_operator left: (true) operator: "and" right: (_) @kept) @e', "@kept"
    )
    expression(
        "and_true", '(boolean_operator left: (_) @kept operator: "and" right: (true)) @e', "@kept"
    )
    expression("true_or", '(boolean_operator left: (true) operator: "or") @e', "True")
    expression("or_true", '(boolean_operator operator: "or" right: (true)) @e', "True")
    expression(
        "false_or", '(boolean_operator left: (false) operator: "or" right: (_) @kept) @e', "@kept"
    )
    expression(
        "or_false", '(boolean_operator left: (_) @kept operator: "or" right: (false)) @e', "@kept"
    )
    expression(
        "parenthesized_constant",
        "(parenthesized_expression [(true) (false) (none)] @kept) @e",
        "@kept",
    )
    expression("ternary_true", "(conditional_expression (_) @kept (true) (_)) @e", "@kept")
    expression("ternary_false", "(conditional_expression (_) (false) (_) @kept) @e", "@kept")
    edges.append(OutgoingEdges("boolean_cleanup", ["boolean_cleanup"], "Parent"))

    removal("if_false", "(if_statement condition: (false) !alternative)")
    removal("while_false", "(while_statement condition: (false))")
    removal("assert_true", "(assert_statement . (true))")
    for name, query in (
        ("elif_false", "(elif_clause condition: (false)) @stmt"),
        (
            "if_false_else",
            "(if_statement condition: (false) consequence: (_) . alternative: "
            f"(else_clause body: (block . {SIMPLE_STATEMENTS} @kept .)) .) @stmt",
        ),
        (
            "if_true",
            f"(if_statement condition: (true) consequence: (block . {SIMPLE_STATEMENTS} "
            "@kept .)) @stmt",
        ),
    ):
        replace = "@kept" if "@kept" in query else ""
        rules.append(Rule(name=name, query=query, replace_node="stmt", replace=replace))

    if dead_fields:
        substitutions["dead_fields"] = dead_fields
        match = '(#match? @name "^(@dead_fields)$")'
        holes = frozenset(["dead_fields"])
        field = "(attribute attribute: (identifier) @name)"
        removal(
            "delete_field_write", f"(expression_statement (assignment left: {field}))", match, holes
        )
        removal(
            "delete_field_update",
            f"(expression_statement (augmented_assignment left: {field}))",
            match,
            holes,
        )
        removal("delete_field_del", f"(delete_statement {field})", match, holes)
        removal("delete_field_assert", f"(assert_statement . {field})", match, holes)
        removal(
            "if_only_pass",
            "(if_statement condition: [(identifier) (attribute)] consequence: (block . "
            "(pass_statement) .) !alternative)",
        )
    return RuleGraph(rules=rules, edges=edges), substitutions


def run_piranha_once(config: Path, path: Path, dead_fields: str | None) -> int:
    """One Piranha run over `path`, rewriting it in place; what the benchmark times."""
    from polyglot_piranha import PiranhaArguments, execute_piranha

    graph, substitutions = piranha_rules(read_flags(config), dead_fields)
    arguments = PiranhaArguments(
        language="python",
        paths_to_codebase=[str(path)],
        substitutions=substitutions,
        rule_graph=graph,
        dry_run=False,
        # a no-op for Python in 0.4.9 (no comment node kinds); the comment rules do it
        cleanup_comments=True,
    )
    summaries = execute_piranha(arguments)
    print(
        f"piranha: {len(summaries)} files changed, {sum(len(s.rewrites) for s in summaries)} edits"
    )
    return 0


# ---------------------------------------------------------------------------------------------
# The benchmark


@dataclass(frozen=True)
class Job:
    tree: str
    source: Path
    config: Path
    fields: str


@dataclass(frozen=True)
class Row:
    tree: str
    files: int
    tool: str
    seconds: float
    peak_mib: float
    lines_changed: int
    parses: bool
    failed: str


def python_files(root: Path) -> list[Path]:
    return sorted(path for path in root.rglob("*.py") if ".git" not in path.relative_to(root).parts)


def lines_changed(before: Path, after: Path) -> tuple[int, bool]:
    """Added plus removed lines over the .py files, and whether every changed file parses."""
    total, parses = 0, True
    for path in python_files(before):
        old, new = path.read_bytes(), (after / path.relative_to(before)).read_bytes()
        if old == new:
            continue
        old_lines, new_lines = (
            old.decode(errors="replace").splitlines(),
            new.decode(errors="replace").splitlines(),
        )
        diff = difflib.unified_diff(old_lines, new_lines, lineterm="", n=0)
        total += sum(1 for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---"))
        try:
            ast.parse(new)
        except SyntaxError:
            parses = False
    return total, parses


def measure(
    tree: str, tool: str, command: list[str], job: Job, scratch: Path, runs: int, keep: Path | None
) -> Row:
    """Run `command` in a fresh copy of the job's tree `runs` times; the copy is made off the
    clock."""
    times, peak, failed = [], 0, ""
    work = scratch / "work"
    for _ in range(runs):
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(job.source, work, symlinks=True)
        seconds, peak_kib, returncode, stderr = run_measured(command, work)
        times.append(seconds)
        peak = max(peak, peak_kib)
        if returncode not in (0, 123):
            failed = (
                f"exit {returncode}: {stderr.strip().splitlines()[-1] if stderr.strip() else ''}"[
                    :120
                ]
            )
    changed, parses = lines_changed(job.source, work)
    if keep is not None:
        label = "".join(c if c.isalnum() else "_" for c in tree)
        shutil.copytree(
            work, keep / label / tool.replace("+", "_"), symlinks=True, dirs_exist_ok=True
        )
    files = len(python_files(job.source))
    return Row(tree, files, tool, statistics.median(times), peak / 1024, changed, parses, failed)


def build_jobs(scratch: Path, modules: int, flags: int, mcore: Path | None) -> list[Job]:
    jobs = []
    seed = scratch / "seed"
    shutil.copytree(SEED_TREE, seed)
    jobs.append(Job("seed", seed, SEED_CONFIG, SEED_FIELDS))
    if mcore is not None and mcore.is_dir():
        copy = scratch / "mcore"
        shutil.copytree(mcore, copy, symlinks=True)  # never the given tree itself
        jobs.append(Job("mcore", copy, SEED_CONFIG, SEED_FIELDS))
    elif mcore is not None:
        print(f"note: {mcore} is not a directory; the mcore tree is skipped", file=sys.stderr)
    synthetic = scratch / "synthetic"
    config = build_tree(synthetic, modules, flags)
    jobs.append(Job(f"synthetic {modules}m/{flags}f", synthetic, config, SYNTHETIC_FIELDS))
    return jobs


def print_table(rows: Sequence[Row]) -> None:
    print(
        f"{'tree':22} {'files':>6} {'tool':15} {'median s':>9} {'peak MiB':>9} {'lines':>7} "
        f"{'parses':>7} {'pf/this':>8}"
    )
    reference = {row.tree: row.seconds for row in rows if row.tool == "prune-flags"}
    for row in rows:
        ratio = (
            reference[row.tree] / row.seconds
            if row.tree in reference and row.seconds
            else float("nan")
        )
        parses = "yes" if row.parses else "NO"
        print(
            f"{row.tree:22} {row.files:>6} {row.tool:15} {row.seconds:>9.2f} {row.peak_mib:>9.0f} "
            f"{row.lines_changed:>7}"
            f" {parses:>7} {ratio:>8.2f}" + (f"  FAILED {row.failed}" if row.failed else "")
        )


def piranha_installed() -> bool:
    try:
        importlib.import_module("polyglot_piranha")
    except ImportError:
        return False
    return True


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=5,
        help="runs per tool and tree; the median is shown (default 5)",
    )
    parser.add_argument(
        "--modules", type=int, default=1000, help="modules of the synthetic tree (default 1000)"
    )
    parser.add_argument(
        "--flags", type=int, default=10, help="flags injected into the synthetic tree (default 10)"
    )
    parser.add_argument(
        "--mcore",
        type=Path,
        default=Path("/tmp/mc/mcore"),
        help="a megatron-core tree to copy (default /tmp/mc/mcore)",
    )
    parser.add_argument("--no-mcore", action="store_true", help="skip the megatron-core tree")
    parser.add_argument(
        "--keep",
        type=Path,
        help="copy each tool's result tree of the last run under this directory",
    )
    parser.add_argument(
        "--piranha-once",
        nargs=2,
        metavar=("CONFIG", "PATH"),
        type=Path,
        help="run only Piranha's job once over PATH, in place, with the flags of CONFIG (what the "
        "benchmark times)",
    )
    parser.add_argument(
        "--dead-fields",
        help="with --piranha-once: a regex of bookkeeping field names to delete too",
    )
    options = parser.parse_args(argv)
    if options.piranha_once:
        config, path = options.piranha_once
        return run_piranha_once(config, path, options.dead_fields)

    have_piranha = piranha_installed()
    if not have_piranha:
        print(
            "polyglot-piranha is not installed (pip install polyglot-piranha): prune-flags's "
            "figures only"
        )
    prune = [sys.executable, "-m", "prune_flags", "apply", "-q", "--config"]
    this = [sys.executable, str(Path(__file__).resolve()), "--piranha-once"]
    print(f"load average before: {load_average()}  ({os.cpu_count()} cores)")
    rows = []
    with tempfile.TemporaryDirectory(prefix="piranha-bench-") as scratch_dir:
        scratch = Path(scratch_dir)
        jobs = build_jobs(
            scratch, options.modules, options.flags, None if options.no_mcore else options.mcore
        )
        for job in jobs:
            rows.append(
                measure(
                    job.tree,
                    "prune-flags",
                    [*prune, str(job.config), "."],
                    job,
                    scratch,
                    options.runs,
                    options.keep,
                )
            )
            if have_piranha:
                piranha = [*this, str(job.config), "."]
                rows.append(
                    measure(job.tree, "piranha", piranha, job, scratch, options.runs, options.keep)
                )
                fields = [*piranha, "--dead-fields", job.fields]
                rows.append(
                    measure(
                        job.tree, "piranha+fields", fields, job, scratch, options.runs, options.keep
                    )
                )
    print_table(rows)
    print(f"load average after: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
