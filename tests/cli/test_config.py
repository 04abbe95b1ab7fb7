"""Config loading: where the keys come from, what they become, and what each mistake says."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from prune_flags.config import Config, ConfigError, Flag, parse_flag_option
from prune_flags.config_files import find_project_root, load_config

KNOWN = (
    "flags, accessors, writers, option_calls, strict, tests, keep, keep_asserts, format, "
    "exclude, library_keywords, library_python"
)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def repository(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir(parents=True)
    return tmp_path


def config_error(
    config_text: str, tmp_path: Path, flag_options: tuple[str, ...] = ()
) -> ConfigError:
    """The error loading a --config file with config_text raises."""
    config_file = write(tmp_path / "flags.toml", config_text)
    with pytest.raises(ConfigError) as caught:
        load_config([], config_file, flag_options)
    assert caught.value.file == str(config_file)
    return caught.value


# --- where the config comes from ---------------------------------------------------------


def test_pyproject_two_levels_above_the_first_path_is_found(tmp_path: Path) -> None:
    root = repository(tmp_path)
    pyproject = write(root / "pyproject.toml", "[tool.prune-flags.flags]\nold_path = false\n")
    module = write(root / "pkg" / "sub" / "module.py", "")

    config = load_config([module])

    assert config == Config(flags=(Flag("old_path", False, "False"),), source=pyproject, root=root)


def test_search_starts_at_the_first_path_only(tmp_path: Path) -> None:
    root = repository(tmp_path)
    write(root / "a" / "pyproject.toml", "[tool.prune-flags.flags]\nfrom_a = 1\n")
    write(root / "b" / "pyproject.toml", "[tool.prune-flags.flags]\nfrom_b = 2\n")

    config = load_config([root / "b", root / "a"])

    assert config.flags == (Flag("from_b", 2, "2"),)
    assert config.root == root / "b"


def test_search_stops_at_the_repository_root(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.prune-flags.flags]\nabove_repo = false\n")
    repo = repository(tmp_path / "repo")
    start = repo / "src"
    start.mkdir()

    with pytest.raises(ConfigError) as caught:
        load_config([start])

    assert caught.value.file == str(start)
    assert caught.value.key == "flags"
    assert caught.value.message == (
        "no config found: no pyproject.toml with [tool.prune-flags] and no prune-flags.toml here "
        f"or above (searched up to {repo}); add [tool.prune-flags.flags] to pyproject.toml, "
        "or pass --config FILE or --flag NAME=VALUE"
    )


def test_the_repository_root_itself_is_searched(tmp_path: Path) -> None:
    repo = repository(tmp_path)
    pyproject = write(repo / "pyproject.toml", "[tool.prune-flags.flags]\nat_root = true\n")
    (repo / "deep" / "er").mkdir(parents=True)

    assert load_config([repo / "deep" / "er"]).source == pyproject


def test_outside_a_repository_the_search_goes_on_upwards(tmp_path: Path) -> None:
    pyproject = write(tmp_path / "pyproject.toml", "[tool.prune-flags.flags]\nno_git = 0\n")
    (tmp_path / "a" / "b").mkdir(parents=True)

    assert load_config([tmp_path / "a" / "b"]).source == pyproject


def test_prune_flags_toml_is_read_where_pyproject_has_no_table(tmp_path: Path) -> None:
    root = repository(tmp_path)
    write(root / "pyproject.toml", "[tool.black]\nline-length = 100\n")
    standalone = write(root / "prune-flags.toml", "format = 'none'\n[flags]\nlegacy = 'v1'\n")

    config = load_config([root])

    assert config == Config(
        flags=(Flag("legacy", "v1", "'v1'"),), format="none", source=standalone, root=root
    )


def test_pyproject_table_wins_over_prune_flags_toml_in_the_same_directory(tmp_path: Path) -> None:
    root = repository(tmp_path)
    pyproject = write(root / "pyproject.toml", "[tool.prune-flags.flags]\nfrom_pyproject = 1\n")
    write(root / "prune-flags.toml", "[flags]\nfrom_standalone = 1\n")

    assert load_config([root]).source == pyproject


def test_a_nearer_pyproject_without_the_table_does_not_stop_the_search(tmp_path: Path) -> None:
    root = repository(tmp_path)
    pyproject = write(root / "pyproject.toml", "[tool.prune-flags.flags]\nup_here = false\n")
    write(root / "lib" / "pyproject.toml", "[project]\nname = 'lib'\n")

    config = load_config([root / "lib"])

    assert config.source == pyproject
    assert config.root == root


def test_without_paths_the_search_starts_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repository(tmp_path)
    pyproject = write(root / "pyproject.toml", "[tool.prune-flags.flags]\ncwd_flag = false\n")
    (root / "sub").mkdir()
    monkeypatch.chdir(root / "sub")

    assert load_config([]).source == pyproject


def test_config_option_reads_top_level_keys(tmp_path: Path) -> None:
    config_file = write(
        tmp_path / "cfg" / "flags.toml",
        """
accessors = ["features.has({name}, ...)", "state.get_config({name}, ...)"]
writers = ["set_config({name}, ...)"]
keep = ["pkg.module.helper"]
keep_asserts = true
tests = "report"
format = "black"
exclude = ["build/**", "vendor/"]

[flags]
manual_release_grads = false
async_grad_allreduce = { python = "None" }
""",
    )

    config = load_config([tmp_path], config_file)

    assert config == Config(
        flags=(
            Flag("manual_release_grads", False, "False"),
            Flag("async_grad_allreduce", None, "None"),
        ),
        accessors=("features.has({name}, ...)", "state.get_config({name}, ...)"),
        writers=("set_config({name}, ...)",),
        keep=("pkg.module.helper",),
        keep_asserts=True,
        tests="report",
        format="black",
        exclude=("build/**", "vendor/"),
        source=config_file,
        root=tmp_path / "cfg",
    )


def test_config_option_wins_over_a_pyproject_above_the_path(tmp_path: Path) -> None:
    root = repository(tmp_path)
    write(root / "pyproject.toml", "[tool.prune-flags.flags]\nfound = 1\n")
    config_file = write(tmp_path / "given.toml", "[flags]\ngiven = 2\n")

    assert load_config([root], config_file).flags == (Flag("given", 2, "2"),)


def test_config_option_naming_a_pyproject_reads_its_tool_table(tmp_path: Path) -> None:
    pyproject = write(
        tmp_path / "pyproject.toml",
        "[project]\nname = 'x'\n[tool.prune-flags]\nkeep_asserts = true\n"
        "[tool.prune-flags.flags]\nold = true\n",
    )

    config = load_config([], pyproject)

    assert config.flags == (Flag("old", True, "True"),)
    assert config.keep_asserts is True


def test_config_option_naming_a_pyproject_without_the_table(tmp_path: Path) -> None:
    pyproject = write(tmp_path / "pyproject.toml", "[project]\nname = 'x'\n")

    with pytest.raises(ConfigError) as caught:
        load_config([], pyproject)

    assert str(caught.value) == f"{pyproject}: tool.prune-flags: no [tool.prune-flags] table"


def test_defaults(tmp_path: Path) -> None:
    config_file = write(tmp_path / "flags.toml", "[flags]\nx = 1\n")

    config = load_config([], config_file)

    assert (config.accessors, config.writers, config.keep, config.exclude) == ((), (), (), ())
    assert config.keep_asserts is False
    assert config.tests == "delete"
    assert config.format == "auto"


# --- flag values ---------------------------------------------------------------------------


def test_toml_scalars_keep_their_python_type_and_source(tmp_path: Path) -> None:
    config_file = write(
        tmp_path / "flags.toml",
        '[flags]\nb = true\ni = -3\nf = 0.5\ns = "on"\nq = "it\'s"\n',
    )

    assert load_config([], config_file).flags == (
        Flag("b", True, "True"),
        Flag("i", -3, "-3"),
        Flag("f", 0.5, "0.5"),
        Flag("s", "on", "'on'"),
        Flag("q", "it's", '"it\'s"'),
    )


def test_a_toml_array_is_the_list_it_reads_as(tmp_path: Path) -> None:
    config_file = write(tmp_path / "flags.toml", '[flags]\nchecks = ["a", 1, [true]]\nno = []\n')

    with pytest.raises(ConfigError) as caught:
        load_config([], config_file)
    assert caught.value.key == "flags.checks"
    config_file = write(tmp_path / "flags.toml", '[flags]\nchecks = ["a", 1, true]\nno = []\n')

    assert load_config([], config_file).flags == (
        Flag("checks", ["a", 1, True], "['a', 1, True]"),
        Flag("no", [], "[]"),
    )


@pytest.mark.parametrize(
    ("python", "value", "source"),
    [
        ("None", None, "None"),
        ("(1, 'a')", (1, "a"), "(1, 'a')"),
        ("((), (None, True))", ((), (None, True)), "((), (None, True))"),
        ("(1,)", (1,), "(1,)"),
        ("0x10", 16, "16"),
        (" 'x' ", "x", "'x'"),
        ("-2.5", -2.5, "-2.5"),
        ("['trailing-comma', 'dict-separator']", ["trailing-comma", "dict-separator"],
         "['trailing-comma', 'dict-separator']"),
        ("{'a': 1, 'b': (2,)}", {"a": 1, "b": (2,)}, "{'a': 1, 'b': (2,)}"),
        ("set()", set(), "set()"),
        ("{1}", {1}, "{1}"),
        ("frozenset()", frozenset(), "frozenset()"),
        ("frozenset({'x'})", frozenset({"x"}), "frozenset({'x'})"),
        ("(frozenset([1]), ())", (frozenset({1}), ()), "(frozenset({1}), ())"),
    ],
)  # fmt: skip
def test_python_table_values(tmp_path: Path, python: str, value: object, source: str) -> None:
    config_file = write(tmp_path / "flags.toml", f"[flags]\nf = {{ python = {python!r} }}\n")

    assert load_config([], config_file).flags == (Flag("f", value, source),)


def test_flag_names_with_accessors_may_be_any_string_without_whitespace(tmp_path: Path) -> None:
    config_file = write(
        tmp_path / "flags.toml",
        'accessors = ["features.has({name})"]\n[flags]\n"new-ui.v2" = false\nclass = 1\n',
    )

    names = [flag.name for flag in load_config([], config_file).flags]

    assert names == ["new-ui.v2", "class"]


# --- --flag --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "flag"),
    [
        ("a=False", Flag("a", False, "False")),
        ("a=true", Flag("a", True, "True")),
        ("a=FALSE", Flag("a", False, "False")),
        ("a=None", Flag("a", None, "None")),
        ("a=3", Flag("a", 3, "3")),
        ("a=-1.5", Flag("a", -1.5, "-1.5")),
        ("a='offline'", Flag("a", "offline", "'offline'")),
        ('a="x=y"', Flag("a", "x=y", "'x=y'")),
        ("a=(1, None)", Flag("a", (1, None), "(1, None)")),
        ("a=['x', 'y']", Flag("a", ["x", "y"], "['x', 'y']")),
        ("a={'k': None}", Flag("a", {"k": None}, "{'k': None}")),
        (" a = 0 ", Flag("a", 0, "0")),
    ],
)
def test_parse_flag_option(text: str, flag: Flag) -> None:
    assert parse_flag_option(text) == flag


@pytest.mark.parametrize(
    ("text", "key", "message"),
    [
        (
            "MODE=offline",
            "MODE",
            "'offline' is not a Python literal; quote strings, e.g. --flag MODE=\"'offline'\"",
        ),
        (
            "a=1 +",
            "a",
            "'1 +' is not a Python literal; "
            "write True, False, None, a number, a quoted string, or a tuple, list, dict or set of"
            " those",
        ),
        (
            "a=([1],)",
            "a",
            "'([1],)' holds a list inside a tuple; only the outermost value may be a list, dict or"
            " set",
        ),
        (
            "a={'k': {2}}",
            "a",
            "\"{'k': {2}}\" holds a set inside a dict; only the outermost value may be a list, dict"
            " or set",
        ),
        (
            "a={[1]}",
            "a",
            "'{[1]}' is not a Python literal; write True, False, None, a number, a"
            " quoted string, or a tuple, list, dict or set of those",
        ),
        (
            "a=frozenset(1)",
            "a",
            "'frozenset(1)' is not a Python literal; write True, False, None,"
            " a number, a quoted string, or a tuple, list, dict or set of those",
        ),
        ("a=1e999", "a", "'1e999' is not a finite number"),
        ("a=", "a", "missing value after '=', e.g. --flag a=False"),
        ("justaname", "justaname", "expected NAME=VALUE, e.g. --flag my_flag=False"),
        ("=1", "=1", "expected NAME=VALUE, e.g. --flag my_flag=False"),
    ],
)
def test_parse_flag_option_errors(text: str, key: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_flag_option(text)

    assert (caught.value.file, caught.value.key, caught.value.message) == ("--flag", key, message)


def test_flag_options_replace_config_flags_in_place_and_append_new_ones(tmp_path: Path) -> None:
    config_file = write(tmp_path / "flags.toml", "[flags]\nfirst = 1\nsecond = 2\nthird = 3\n")

    config = load_config([], config_file, ["second=None", "fourth='x'", "first=true"])

    assert config.flags == (
        Flag("first", True, "True"),
        Flag("second", None, "None"),
        Flag("third", 3, "3"),
        Flag("fourth", "x", "'x'"),
    )


def test_only_flag_options_without_any_config_file(tmp_path: Path) -> None:
    root = repository(tmp_path)
    (root / "src").mkdir()

    config = load_config([root / "src"], None, ["legacy=False"])

    assert config == Config(flags=(Flag("legacy", False, "False"),), source=None, root=root)


def test_flag_option_name_must_be_an_identifier_without_accessors(tmp_path: Path) -> None:
    repository(tmp_path)

    with pytest.raises(ConfigError) as caught:
        load_config([tmp_path], None, ["new-ui=False"])

    assert str(caught.value) == (
        "--flag: new-ui: 'new-ui' is not a Python identifier; flags read by a string name "
        "need `accessors` that say how they are read"
    )


def test_flag_option_name_may_be_any_string_with_accessors(tmp_path: Path) -> None:
    config_file = write(tmp_path / "flags.toml", 'accessors = ["has({name})"]\n')

    assert load_config([], config_file, ["new-ui=0"]).flags == (Flag("new-ui", 0, "0"),)


# --- errors --------------------------------------------------------------------------------


def test_error_text_and_attributes() -> None:
    error = ConfigError("flags.toml", "format", "expected something")

    assert str(error) == "flags.toml: format: expected something"
    assert (error.file, error.key, error.message) == ("flags.toml", "format", "expected something")


def test_error_survives_pickling_for_worker_processes() -> None:
    error = pickle.loads(pickle.dumps(ConfigError("f.toml", "flags.x", "bad")))

    assert str(error) == "f.toml: flags.x: bad"
    assert error.key == "flags.x"


@pytest.mark.parametrize(
    ("text", "key", "message"),
    [
        (
            "keep_assert = true\n",
            "keep_assert",
            f"unknown key; did you mean 'keep_asserts'? known keys: {KNOWN}",
        ),
        ("colour = 1\n", "colour", f"unknown key; known keys: {KNOWN}"),
        ('keep_asserts = "yes"\n', "keep_asserts", "expected true or false, got 'yes'"),
        ("strict = 1\n", "strict", "expected true or false, got 1"),
        ('library_keywords = "yes"\n', "library_keywords", "expected true or false, got 'yes'"),
        (
            "library_python = 3\n",
            "library_python",
            'expected a path to a Python executable, e.g. library_python = ".venv/bin/python"',
        ),
        (
            'format = "fast"\n',
            "format",
            'expected one of "auto", "black", "none", got \'fast\'',
        ),
        ("format = 1\n", "format", 'expected one of "auto", "black", "none", got 1'),
        ('tests = "keep"\n', "tests", 'expected one of "delete", "report", got \'keep\''),
        ("tests = false\n", "tests", 'expected one of "delete", "report", got False'),
        (
            'accessors = "has({name})"\n',
            "accessors",
            'expected an array of strings, e.g. accessors = ["..."]',
        ),
        (
            'accessors = ["has({name})", "get_flag(...)"]\n',
            "accessors[1]",
            "'get_flag(...)' has no {name}; write {name} where the flag's name goes, "
            'e.g. "features.has({name}, ...)"',
        ),
        (
            'writers = ["set({flag})"]\n',
            "writers[0]",
            "'set({flag})' has no {name}; write {name} where the flag's name goes, "
            'e.g. "features.has({name}, ...)"',
        ),
        (
            'writers = ["set_config({name}, ...)", "config.{name}.value"]\n',
            "writers[1]",
            "'config.{name}.value' is not a call such as \"set_config({name}, ...)\" or "
            '"config.{name}(...)"',
        ),
        ('keep = ["ok", 3]\n', "keep[1]", "expected a non-empty string"),
        ('exclude = [""]\n', "exclude[0]", "expected a non-empty string"),
        ('option_calls = ["add_toggle", 3]\n', "option_calls[1]", "expected a non-empty string"),
        (
            'option_calls = "add_toggle"\n',
            "option_calls",
            'expected an array of strings, e.g. option_calls = ["..."]',
        ),
        (
            'option_calls = ["add_toggle", "add-flag()"]\n',
            "option_calls[1]",
            "'add-flag()' is not a qualified name like \"parser.add_flag\"",
        ),
        (
            'keep = ["pkg.mod-ule.f"]\n',
            "keep[0]",
            "'pkg.mod-ule.f' is not a qualified name like \"pkg.module.helper\"",
        ),
        ("flags = 3\n", "flags", "expected a table of NAME = VALUE, e.g. [flags] my_flag = false"),
        (
            "[flags]\nx = [[1], 2]\n",
            "flags.x",
            "'[[1], 2]' holds a list inside a list; only the outermost value may be a list, dict"
            " or set",
        ),
        (
            "[flags]\nx = [2024-01-01T00:00:00]\n",
            "flags.x",
            "'[datetime.datetime(2024, 1, 1, 0, 0)]' holds a datetime; expected None, a bool, int,"
            " float or string, or a tuple, list, dict, set or frozenset of those",
        ),
        (
            "[flags]\nx = 2024-01-01T00:00:00\n",
            "flags.x",
            'expected a bool, int, float, string or array, or a table {python = "..."}, got a'
            " datetime",
        ),
        ("[flags]\nx = nan\n", "flags.x", "nan is not a finite number"),
        (
            '[flags]\nx = { python = "None", default = 1 }\n',
            "flags.x.default",
            "unknown key; a flag table takes: python",
        ),
        (
            "[flags]\nx = {}\n",
            "flags.x.python",
            'expected the value as a string of Python source, e.g. {python = "None"}',
        ),
        (
            "[flags]\nx = { python = 3 }\n",
            "flags.x.python",
            'expected the value as a string of Python source, e.g. {python = "None"}',
        ),
        (
            '[flags]\nx = { python = "os.sep" }\n',
            "flags.x.python",
            "'os.sep' is not a Python literal; "
            'write Python source such as "None", "(1, 2)" or "\'text\'"',
        ),
        (
            '[flags]\nx = { python = "[{}]" }\n',
            "flags.x.python",
            "'[{}]' holds a dict inside a list; only the outermost value may be a list, dict"
            " or set",
        ),
        (
            "[flags]\nx = { python = \"b'x'\" }\n",
            "flags.x.python",
            "\"b'x'\" holds a bytes; expected None, a bool, int, float or string, or a tuple, list,"
            " dict, set or frozenset of those",
        ),
        (
            "[flags]\n1st = true\n",
            "flags.1st",
            "'1st' is not a Python identifier; flags read by a string name need `accessors` "
            "that say how they are read",
        ),
        (
            "[flags]\nlambda = true\n",
            "flags.lambda",
            "'lambda' is a Python keyword, not a flag name",
        ),
        (
            'accessors = ["has({name})"]\n[flags]\n"a b" = true\n',
            "flags.a b",
            "expected a non-empty name without whitespace",
        ),
        (
            'accessors = ["has({name})"]\n[flags]\n"" = true\n',
            "flags.",
            "expected a non-empty name without whitespace",
        ),
        ('exclude = ["!"]\n', "exclude[0]", "not a valid glob: Invalid git pattern: '!'"),
        (
            "format = 'none'\n",
            "flags",
            "no flags to prune; add them under [flags] or pass --flag NAME=VALUE",
        ),
    ],
)
def test_config_errors(tmp_path: Path, text: str, key: str, message: str) -> None:
    error = config_error(text, tmp_path)

    assert (error.key, error.message) == (key, message)


def test_toml_syntax_error_names_line_and_column(tmp_path: Path) -> None:
    error = config_error("[flags]\nx = \n", tmp_path)

    assert error.key == "(toml)"
    assert error.message == "invalid TOML: Invalid value (at line 2, column 5)"


def test_missing_config_file(tmp_path: Path) -> None:
    missing = tmp_path / "missing.toml"

    with pytest.raises(ConfigError) as caught:
        load_config([], missing)

    assert str(caught.value) == f"{missing}: (file): cannot read: No such file or directory"


def test_config_file_that_is_a_directory(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config([], tmp_path)

    assert str(caught.value) == f"{tmp_path}: (file): cannot read: Is a directory"


def test_config_file_that_is_not_utf8(tmp_path: Path) -> None:
    config_file = tmp_path / "flags.toml"
    config_file.write_bytes(b"[flags]\nx = '\xff'\n")

    with pytest.raises(ConfigError) as caught:
        load_config([], config_file)

    assert str(caught.value) == (
        f"{config_file}: (file): not valid UTF-8 at byte 13; TOML files must be UTF-8"
    )


def test_broken_pyproject_met_during_the_search_is_an_error(tmp_path: Path) -> None:
    root = repository(tmp_path)
    pyproject = write(root / "pyproject.toml", "[tool\n")

    with pytest.raises(ConfigError) as caught:
        load_config([root])

    assert caught.value.file == str(pyproject)
    assert caught.value.key == "(toml)"
    assert "(at line 1, column 6)" in caught.value.message


def test_tool_entry_that_is_not_a_table(tmp_path: Path) -> None:
    root = repository(tmp_path)
    pyproject = write(root / "pyproject.toml", '[tool]\nprune-flags = "yes"\n')

    with pytest.raises(ConfigError) as caught:
        load_config([root])

    assert (
        str(caught.value) == f"{pyproject}: tool.prune-flags: expected a table [tool.prune-flags]"
    )


def test_pyproject_without_flags_and_no_flag_option(tmp_path: Path) -> None:
    root = repository(tmp_path)
    pyproject = write(root / "pyproject.toml", "[tool.prune-flags]\nformat = 'none'\n")

    with pytest.raises(ConfigError) as caught:
        load_config([root])

    assert str(caught.value) == (
        f"{pyproject}: flags: no flags to prune; add them under [tool.prune-flags.flags] "
        "or pass --flag NAME=VALUE"
    )


def test_flag_option_supplies_the_flags_a_config_lacks(tmp_path: Path) -> None:
    config_file = write(tmp_path / "flags.toml", "format = 'none'\n")

    assert load_config([], config_file, ["x=1"]).flags == (Flag("x", 1, "1"),)


def test_bad_flag_option_is_reported_before_the_config_is_searched(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config([tmp_path], None, ["MODE=offline"])

    assert (caught.value.file, caught.value.key) == ("--flag", "MODE")


# --- Config helpers and the project root ---------------------------------------------------


def test_flag_lookup_and_names() -> None:
    config = Config(flags=(Flag("a", 1, "1"), Flag("b", None, "None")))

    assert config.flag("b") == Flag("b", None, "None")
    assert config.flag("c") is None
    assert config.flag_names == frozenset({"a", "b"})


def test_project_root_is_the_nearest_directory_with_git(tmp_path: Path) -> None:
    repository(tmp_path)
    inner = tmp_path / "vendor" / "lib"
    inner.mkdir(parents=True)
    (inner / ".git").write_text("gitdir: ../../.git/modules/lib\n")  # a submodule's .git file
    module = write(inner / "pkg" / "mod.py", "")

    assert find_project_root(module) == inner
    assert find_project_root(tmp_path / "vendor") == tmp_path


def test_project_root_without_git_is_the_start_directory(tmp_path: Path) -> None:
    module = write(tmp_path / "a" / "mod.py", "")

    assert find_project_root(module) == tmp_path / "a"
    assert find_project_root(tmp_path / "a") == tmp_path / "a"


def test_the_same_flag_given_two_values_on_the_command_line_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config([tmp_path], None, ["fast=False", "fast=True"])
    assert (
        str(caught.value)
        == "--flag: fast: given twice, as False and True; give each flag one value"
    )


def test_qualified_keys_of_one_name_on_the_command_line_are_flags_of_their_own(
    tmp_path: Path,
) -> None:
    config = load_config([tmp_path], None, ["a.A.fast=False", "b.B.fast=True"])
    assert [(flag.key, flag.value) for flag in config.flags] == [
        ("a.A.fast", False),
        ("b.B.fast", True),
    ]
    with pytest.raises(ConfigError) as caught:
        load_config([tmp_path], None, ["a.A.fast=False", "fast=True"])
    assert str(caught.value) == (
        "--flag: fast: a.A.fast and fast are the same flag name, and the bare name is every"
        " definition of it; give one, or a qualified key for each definition"
    )


def test_an_override_replaces_the_entries_of_its_key_or_of_its_bare_name(tmp_path: Path) -> None:
    config_file = write(
        tmp_path / "prune-flags.toml",
        '[flags]\n"a.A.fast" = false\n"b.B.fast" = false\neco = true\n',
    )
    keyed = load_config([tmp_path], config_file, ["b.B.fast=True"])
    assert [(flag.key, flag.value) for flag in keyed.flags] == [
        ("a.A.fast", False),
        ("b.B.fast", True),
        ("eco", True),
    ]
    bare = load_config([tmp_path], config_file, ["fast=True"])
    assert [(flag.key, flag.value) for flag in bare.flags] == [("fast", True), ("eco", True)]


def test_library_keywords_and_their_interpreter(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python").write_text("")
    config_file = tmp_path / "prune-flags.toml"
    config_file.write_text(
        'library_keywords = true\nlibrary_python = "bin/python"\n[flags]\nx = false\n'
    )
    config = load_config([tmp_path], config_file)
    assert config.library_keywords is True
    assert config.library_python == str(tmp_path / "bin" / "python")
    config_file.write_text('library_python = "bin/missing"\n[flags]\nx = false\n')
    with pytest.raises(ConfigError) as error:
        load_config([tmp_path], config_file)
    assert error.value.key == "library_python" and "no such file" in error.value.message
    config_file.write_text("[flags]\nx = false\n")
    assert load_config([tmp_path], config_file).library_keywords is False
