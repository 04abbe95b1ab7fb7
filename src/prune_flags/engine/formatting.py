"""Run black on just the lines a codemod changed, with the target repository's black settings."""

# `format = "auto"` formats where the repository shows that it formats: black's `[tool.black]`, a
# black hook in `.pre-commit-config.yaml` (its `args` on top, its `rev` checked against the
# installed black), a CI or task file running black, or ruff's formatter (a `ruff-format` hook, a
# `[format]` table in ruff's settings, a CI step running `ruff format`), whose settings
# (`ruff.toml`, `.ruff.toml`, `[tool.ruff]`) map onto black's: ruff format is black-compatible by
# design. ruff settings alone are no evidence: many repositories run only `ruff check`.
#
# `black` is imported inside the functions that format, never at module level: most runs format
# nothing, and importing black costs about 0.3 s.

from __future__ import annotations

import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

from prune_flags.engine.precommit import CONFIG_NAME, Hook, hooks
from prune_flags.syntax.lines import line_opcodes

if TYPE_CHECKING:
    import black

__all__ = [
    "BlackSettings",
    "Formatting",
    "detect_formatting",
    "format_lines",
    "formats_as",
    "load_black_settings",
]


@dataclass(frozen=True)
class BlackSettings:
    line_length: int = 88
    string_normalization: bool = True  # False when skip-string-normalization = true
    magic_trailing_comma: bool = True  # False when skip-magic-trailing-comma = true
    target_versions: tuple[str, ...] = ()  # as written in the config, e.g. ("py310", "py311")
    preview: bool = False
    is_pyi: bool = False
    # True when the repository says how it formats (black's or ruff's settings, a pre-commit hook)
    configured: bool = False
    # Format a file's touched lines only when the file as it was is what these settings write:
    # ruff's settings with nothing showing that its formatter runs.
    if_formatted: bool = False


@dataclass(frozen=True)
class Formatting:
    """How a run formats the lines it touched: with black and these settings, or not at all
    (None); and what the user should know about it (a pinned black of another major, a ruff
    style black cannot write)."""

    settings: BlackSettings | None
    notices: tuple[str, ...] = ()


def detect_formatting(project_root: Path, choice: str = "auto") -> Formatting:
    """The formatting of a run whose config says `format = choice` ("auto", "black" or "none").

    black's own settings come first: a black hook in the pre-commit config (its args on top of
    `[tool.black]`, as on black's command line), else `[tool.black]`. Else ruff's formatter, when
    something shows it runs (a `ruff-format` hook, a `[format]` table, a CI step), else black run
    by a CI step. Under "auto", ruff's settings alone format only files already in their style,
    and nothing else formats; "black" formats everywhere, with black's defaults where the
    repository says nothing."""
    if choice == "none":
        return Formatting(None)
    found = hooks(project_root / CONFIG_NAME)
    settings = load_black_settings(project_root)
    black_hook = next((hook for hook in found if _is_black(hook)), None)
    if black_hook is not None:
        return Formatting(_with_black_args(settings, black_hook.args), _version_notices(black_hook))
    if settings.configured:
        return Formatting(settings)
    ran = _formatters_run(project_root)
    ruff = _ruff_table(project_root)
    if not (
        "ruff" in ran
        or any(_is_ruff_format(hook) for hook in found)
        or (ruff is not None and isinstance(ruff[1].get("format"), dict))
    ):
        if "black" in ran:
            return Formatting(replace(settings, configured=True))
        if ruff is None or choice == "black":
            return Formatting(settings if choice == "black" else None)
        # ruff's settings alone may be its linter's: its style is followed only in the files
        # already written in it (see formats_as).
        style, unmatched = _from_ruff(ruff[1], ruff[0])
        return Formatting(replace(style, if_formatted=True) if unmatched is None else None)
    source, table = ruff or (CONFIG_NAME, {})  # (a hook or CI step alone: ruff's defaults)
    ruff_settings, unmatched = _from_ruff(table, source)
    if unmatched is None:
        return Formatting(ruff_settings)
    if choice == "black":
        return Formatting(
            ruff_settings, (f'{unmatched}: formatted in black\'s style (format = "black")',)
        )
    return Formatting(None, (f"the touched lines are not formatted: {unmatched}",))


def _is_black(hook: Hook) -> bool:
    # black-jupyter is black that also formats notebooks: the same style on .py files.
    return hook.id in ("black", "black-jupyter") and hook.from_repository(
        "psf/black", "psf/black-pre-commit-mirror"
    )


def _is_ruff_format(hook: Hook) -> bool:
    return hook.id == "ruff-format" and hook.from_repository(
        "astral-sh/ruff-pre-commit", "charliermarsh/ruff-pre-commit"
    )


# black's command-line options that change its style, long and short; the others (--check,
# --quiet, --config, ...) say nothing about it.
_BLACK_OPTIONS = {
    "--line-length": "line_length",
    "-l": "line_length",
    "--target-version": "target_version",
    "-t": "target_version",
    "--skip-string-normalization": "skip_string_normalization",
    "-S": "skip_string_normalization",
    "--skip-magic-trailing-comma": "skip_magic_trailing_comma",
    "-C": "skip_magic_trailing_comma",
    "--preview": "preview",
}
_TAKES_VALUE = frozenset({"line_length", "target_version"})
_QUIET_SWITCHES = frozenset("qv")  # short switches that may share a dash with -S or -C


def _with_black_args(settings: BlackSettings, args: Sequence[str]) -> BlackSettings:
    """`settings` with a hook's arguments on top: they win over pyproject's, as on black's
    command line (where the skip options and --preview can only be switched on)."""
    options = _black_options(args)
    switches = {name for name, _ in options}
    lengths = [value for name, value in options if name == "line_length"]
    length = int(lengths[-1]) if lengths and lengths[-1].isdigit() else None
    targets = tuple(value for name, value in options if name == "target_version" and value)
    normalize = "skip_string_normalization" not in switches
    trailing_comma = "skip_magic_trailing_comma" not in switches
    return replace(
        settings,
        line_length=_line_length(length, settings.line_length),
        string_normalization=settings.string_normalization and normalize,
        magic_trailing_comma=settings.magic_trailing_comma and trailing_comma,
        target_versions=targets or settings.target_versions,  # given ones replace pyproject's list
        preview=settings.preview or "preview" in switches,
        configured=True,
    )


def _black_options(args: Sequence[str]) -> list[tuple[str, str]]:
    """Each style option of black's arguments with its value ("" for a switch), in order:
    `--line-length=100`, `--line-length 100`, `-l 100`, `-l100`, `-S`, `-SC`."""
    options: list[tuple[str, str]] = []
    tokens = iter(args)
    for token in tokens:
        if token.startswith("--"):
            name, equals, value = token.partition("=")
            option = _BLACK_OPTIONS.get(name)
            if option in _TAKES_VALUE and not equals:
                value = next(tokens, "")
            if option is not None:
                options.append((option, value))
        elif token.startswith("-"):
            options += _short_options(token[1:], tokens)
    return options


def _short_options(letters: str, tokens: Iterator[str]) -> list[tuple[str, str]]:
    """The options of one dash's letters: switches, then perhaps one taking the rest (or the
    next argument) as its value."""
    found: list[tuple[str, str]] = []
    for position, letter in enumerate(letters):
        option = _BLACK_OPTIONS.get("-" + letter)
        if option in _TAKES_VALUE:
            found.append((option, letters[position + 1 :] or next(tokens, "")))
            break
        if option is not None:
            found.append((option, ""))
        elif letter not in _QUIET_SWITCHES:
            break  # an option of no interest whose value may be the rest of the letters
    return found


def _version_notices(hook: Hook) -> tuple[str, ...]:
    """A notice when the pre-commit config pins black at another major than the installed one:
    black changes its stable style once a year, with the major version."""
    pinned = re.match(r"v?(\d+)\.", hook.rev)
    installed = metadata.version("black")
    if pinned is None or pinned[1] == installed.split(".")[0]:
        return ()  # same major, or a rev that names no version (a commit)
    return (
        f"{CONFIG_NAME} pins black {hook.rev}; the touched lines are formatted with the installed "
        f"black {installed}, whose style may differ in places",
    )


_RUFF_FILES = (".ruff.toml", "ruff.toml")  # ruff's own order, before pyproject.toml


# Where a repository's CI or tasks run its formatter, and how a run of each is spelled:
# `black .`, `python -m black --check src`, `ruff format --check`.
_TASK_FILES = ("tox.ini", "noxfile.py", "Makefile", ".gitlab-ci.yml", "azure-pipelines.yml")
_FORMATTER_RUNS = {
    "black": re.compile(r"(?:^|[\s;&|(\"'])(?:python3? -m )?black[ \t]+(?:-|\.|\w)"),
    "ruff": re.compile(r"\bruff[ \t]+format\b"),
}


def _formatters_run(project_root: Path) -> frozenset[str]:
    """The formatters ("black", "ruff") a CI workflow or task file of the repository runs."""
    workflows = project_root / ".github" / "workflows"
    files = [project_root / name for name in _TASK_FILES]
    if workflows.is_dir():
        files += sorted(workflows.glob("*.y*ml"))
    texts = []
    for path in files:
        try:
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue  # absent or unreadable: it shows nothing
    # `pip install black ruff` installs them; it runs neither.
    lines = [line for text in texts for line in text.splitlines() if "install" not in line]
    return frozenset(
        name for name, run in _FORMATTER_RUNS.items() if any(run.search(line) for line in lines)
    )


def _ruff_table(project_root: Path) -> tuple[str, Mapping[str, Any]] | None:
    """ruff's settings and where they are, the first of .ruff.toml, ruff.toml and pyproject's
    [tool.ruff], as ruff looks for them."""
    for name in _RUFF_FILES:
        data = _toml(project_root / name)
        if data is not None:
            return name, data
    table = _tool_table(project_root / "pyproject.toml", "ruff")
    return None if table is None else ("pyproject.toml [tool.ruff]", table)


def _from_ruff(options: Mapping[str, Any], source: str) -> tuple[BlackSettings, str | None]:
    """black settings for ruff's `line-length`, `target-version` and `[format]`
    (`quote-style`, `skip-magic-trailing-comma`); ruff's `preview` is its own and not mapped."""
    # ruff spells its keys with dashes only (it rejects `line_length`), so they are read as written.
    format_table = options.get("format")
    style = format_table if isinstance(format_table, dict) else {}
    target = options.get("target-version")
    settings = BlackSettings(
        line_length=_line_length(options.get("line-length"), BlackSettings().line_length),
        # "preserve" leaves quotes as written, as black's skip-string-normalization does.
        string_normalization=style.get("quote-style") != "preserve",
        magic_trailing_comma=not _flag(style.get("skip-magic-trailing-comma")),
        target_versions=(target,) if isinstance(target, str) else (),
        configured=True,
    )
    return settings, _without_black_equivalent(options, style, source)


def _without_black_equivalent(
    options: Mapping[str, Any], style: Mapping[str, Any], source: str
) -> str | None:
    """Why black cannot write ruff's style, when it cannot: black always writes double quotes
    (or leaves them) and indents with four spaces."""
    if style.get("quote-style") == "single":
        return f'ruff format\'s quote-style = "single" ({source}) has no black equivalent'
    if style.get("indent-style") == "tab":
        return f'ruff format\'s indent-style = "tab" ({source}) has no black equivalent'
    if options.get("indent-width", 4) != 4:
        return (
            f"ruff's indent-width = {options['indent-width']!r} ({source}) has no black equivalent"
        )
    return None


def load_black_settings(project_root: Path) -> BlackSettings:
    """Read [tool.black] from project_root/pyproject.toml; defaults when it is absent or broken."""
    table = _tool_table(project_root / "pyproject.toml", "black")
    if table is None:
        return BlackSettings()
    # black accepts both spellings because it normalizes dashes to underscores; later keys win,
    # as in black's own loader.
    options = {key.replace("-", "_"): value for key, value in table.items()}
    defaults = BlackSettings()
    return BlackSettings(
        line_length=_line_length(options.get("line_length"), defaults.line_length),
        string_normalization=not _flag(options.get("skip_string_normalization")),
        magic_trailing_comma=not _flag(options.get("skip_magic_trailing_comma")),
        target_versions=_target_versions(options.get("target_version")),
        preview=_flag(options.get("preview")),
        configured=True,
    )


def _tool_table(pyproject: Path, tool_name: str) -> Mapping[str, Any] | None:
    """pyproject's [tool.<tool_name>] table, or None when it, the file or valid TOML is missing."""
    tool = (_toml(pyproject) or {}).get("tool")
    table = tool.get(tool_name) if isinstance(tool, dict) else None
    return table if isinstance(table, dict) else None


def _toml(path: Path) -> dict[str, Any] | None:
    """The TOML document at `path`, or None when it is missing, unreadable or malformed."""
    try:
        with path.open("rb") as stream:
            return tomllib.load(stream)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        # A missing file means "not configured"; unreadable or malformed files are reported by the
        # config loader, so formatting just falls back to black's defaults.
        return None


def _line_length(value: object, default: int) -> int:
    # bool is a subclass of int, and `line-length = true` is a mistake, not a width of 1.
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return default


def _flag(value: object) -> bool:
    # Only a real TOML `true` enables an option; anything else leaves black's default.
    return value is True


def _target_versions(value: object) -> tuple[str, ...]:
    # Names are kept as written; versions this black does not know are dropped later, by
    # `_known_target_versions`, because checking them here would mean importing black.
    if not isinstance(value, list):
        return ()
    return tuple(item for item in value if isinstance(item, str))


def format_lines(
    source: str, line_ranges: Sequence[tuple[int, int]], settings: BlackSettings
) -> str:
    """Format only `line_ranges` (1-based, inclusive) of `source`; return `source` on any
    failure."""
    if not line_ranges:
        return source
    crlf = "\r\n" in source
    if crlf and source.count("\n") != source.count("\r\n"):
        # Mixed line endings cannot round-trip through black's "\n"-only text without rewriting
        # the endings of lines outside the ranges, which would put unrelated lines in the diff.
        return source
    text = source.replace("\r\n", "\n") if crlf else source
    formatted = _run_black(text, line_ranges, settings)
    if formatted is None:
        return source
    formatted = _blank_lines_outside(text, formatted, line_ranges)
    if not text.endswith("\n") and formatted.endswith("\n"):
        # black always ends the file with a newline; adding one the file never had is not cleanup.
        formatted = formatted[:-1]
    return formatted.replace("\n", "\r\n") if crlf else formatted


def _blank_lines_outside(text: str, formatted: str, line_ranges: Sequence[tuple[int, int]]) -> str:
    """black's output with the blank lines it added or took away outside the ranges it was given
    put back as they were. Formatting only some lines, black sizes the gap around them as if it
    saw only them: it puts a blank line under a `class` header above a changed first method, or
    takes one of the two below a changed import, which formatting the whole file (or the
    repository's own formatter) undoes; the cleanup owns the blank lines around its edits."""
    before, after = text.splitlines(keepends=True), formatted.splitlines(keepends=True)
    inside = {line for start, end in line_ranges for line in range(start, end + 1)}
    result: list[str] = []
    for tag, i1, i2, j1, j2 in line_opcodes(before, after):
        old, new = before[i1:i2], after[j1:j2]
        blank_only = not any(line.strip() for line in old + new)
        # (1-based: old lines i1+1..i2; an insertion touches the lines on either side of it)
        touched = range(i1 + 1, i2 + 1) if i2 > i1 else (i1, i1 + 1)
        if tag != "equal" and blank_only and not all(line in inside for line in touched):
            result += old
        else:
            result += new
    return "".join(result)


def formats_as(source: str, settings: BlackSettings) -> bool:
    """Whether black with these settings leaves `source` as it is: the file is written in that
    style, so formatting the lines a cleanup touched keeps it so."""
    import black

    text = source.replace("\r\n", "\n")
    try:
        return black.format_str(text, mode=_black_mode(settings)) == text
    except Exception:  # (as in _run_black: a file black cannot read is not in its style)
        return False


def _run_black(
    text: str, line_ranges: Sequence[tuple[int, int]], settings: BlackSettings
) -> str | None:
    """black's output for `text`, or None when black fails."""
    import black

    try:
        return black.format_str(text, mode=_black_mode(settings), lines=list(line_ranges))
    except Exception:
        # Formatting is a nicety and never a reason to lose the edit: whatever black raises
        # (InvalidInput on unparseable code, an internal error, ...) means "keep the source".
        # format_str never raises NothingChanged (only format_file_contents does); it returns
        # the text unchanged instead, which needs no special case.
        return None


def _black_mode(settings: BlackSettings) -> black.Mode:
    import black

    return black.Mode(
        target_versions=_known_target_versions(settings.target_versions),
        line_length=settings.line_length,
        string_normalization=settings.string_normalization,
        magic_trailing_comma=settings.magic_trailing_comma,
        preview=settings.preview,
        is_pyi=settings.is_pyi,
    )


def _known_target_versions(names: Sequence[str]) -> set[black.TargetVersion]:
    import black

    # The repository may target a Python this black predates (or has dropped); skipping the name
    # beats failing, since black still formats correctly without that hint.
    known = black.TargetVersion.__members__
    return {known[name.upper()] for name in names if name.upper() in known}
