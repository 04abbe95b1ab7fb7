"""find's output: the JSON, the evidence line of a candidate, and the config `--config-out`
writes."""

from __future__ import annotations

import re

from prune_flags.find.facts import Candidate, FindResult


def to_json(result: FindResult) -> dict[str, object]:
    """The candidates with their evidence; named flags say so, with the writes they override;
    `flags` (each key named, with its value) and `refused` as in apply's report; `held_back`, the
    names find's rules found that apply would refuse, in the same form."""
    return {
        "version": 1,
        "files": result.files,
        "exact": result.exact,
        "flags": {flag.key: flag.source for flag in result.named},
        "candidates": [
            {
                "name": c.key,
                "value": c.source,
                "kinds": list(c.kinds),
                "defined_at": [str(site) for site in c.definitions],
                "functions": list(c.functions),
                "reads": c.reads,
                "condition_reads": c.condition_reads,
                "branches": c.branches,
                "lines": c.lines,
                "lines_removed": c.lines_removed,
                "lines_added": c.lines_added,
                "named": c.named,
                "overridden": [
                    {"location": str(write.site), "reason": write.reason} for write in c.overridden
                ],
            }
            for c in result.candidates
        ],
        "skipped": [{"path": s.display, "error": s.error} for s in result.skipped],
        "refused": [refusal.to_json() for refusal in result.refused],
        "held_back": [refusal.to_json() for refusal in result.held_back],
    }


def evidence(candidate: Candidate) -> str:
    where = ", ".join(str(site) for site in candidate.definitions) or "no definition seen"
    if candidate.functions:
        functions = ", ".join(f"{function}()" for function in candidate.functions)
        # Find's own rules checked the calls; for a named flag the engine decided instead.
        checked = "" if candidate.named else "; no call passes another value"
        where += f" (default of a parameter of {functions}{checked})"
    return (
        f"{'named: ' if candidate.named else ''}{candidate.source} at {where}; "
        f"{_count(candidate.reads, 'read')}, "
        f"{candidate.condition_reads} in conditions; folds"
        f" {_count(candidate.branches, 'branch', 'es')}, "
        f"removes {_count(candidate.lines, 'line')}"
    )


def _count(number: int, word: str, plural: str = "s") -> str:
    return f"{number} {word}{'' if number == 1 else plural}"


def config_toml(result: FindResult) -> str:
    """A config `prune-flags apply --config FILE` takes as it is, one commented flag per candidate
    (a named flag's comment lists the writes apply would override), each refused named flag
    commented out with apply's reason, and a comment for each name held back (judge.py)."""
    counted = (
        "by the cleanup itself"
        if result.exact
        else "from the folds alone; --exact adds the cascade"
    )
    lines = [
        f"# Written by `prune-flags find` (lines counted {counted}). Review each flag"
        " before applying.",
        *(f"{key} = [{', '.join(map(_toml_string, patterns))}]" for key, patterns in result.shapes),
        "[flags]",
    ]
    for candidate in result.candidates:
        lines.append(f"# {evidence(candidate)}")
        lines += [f"#   overrides {write}" for write in candidate.overridden]
        lines.append(f"{_toml_key(candidate.key)} = {_toml_value(candidate.value)}")
    for flag in result.named:
        refusals = [refusal for refusal in result.refused if refusal.flag == flag.name]
        for refusal in refusals:
            lines.append(f"# refused ({refusal.why}), as apply would: {refusal.message}")
        if refusals:
            lines.append(f"# {_toml_key(flag.key)} = {_toml_value(flag.value)}")
    lines += [
        f"# held back ({refusal.why}), as apply would refuse it: {refusal.message}"
        for refusal in result.held_back
    ]
    return "\n".join(lines) + "\n"


def _toml_key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else _toml_string(name)


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str) and value.isprintable():
        return _toml_string(value)
    # None, tuples and strings TOML cannot hold as they are: the Python source.
    return "{ python = " + _toml_string(repr(value)) + " }"


def _toml_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + re.sub(r"[\x00-\x1f\x7f]", lambda m: f"\\u{ord(m.group()):04x}", escaped) + '"'
