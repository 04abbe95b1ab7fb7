"""An import a folded branch leaves unread in its own module stays exactly when another module of
the repository reads the name from it: by name, by `*`, or as an attribute of the module."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import invoke_in, make_tree

XML = (
    "import platform\n"
    "from functools import partial\n\n"
    "from pkg.settings import FAST_JSON\n\n"
    "if FAST_JSON:\n"
    "    from json import loads\n\n"
    "    loads = partial(loads, strict=platform.system() != 'Windows')\n"
    "else:\n"
    "    from json import loads\n"
)


@pytest.mark.parametrize(
    "reader, kept",
    [
        ("from pkg.xml import loads\n\nprint(loads('[1]'))\n", True),
        ("from pkg.xml import *\n\nprint(loads('[1]'))\n", True),
        ("from pkg import xml\n\nprint(xml.loads('[1]'))\n", True),
        ("import pkg.xml\n\nprint(pkg.xml.loads('[1]'))\n", True),
        ("from pkg import xml as x\n\nprint(x.loads('[1]'))\n", True),
        # Another object's attribute of the name is not the module's.
        ("import json\n\nfrom pkg import xml\n\nprint(json.loads('[1]'), xml)\n", False),
    ],
)
def test_an_import_another_module_reads_from_the_file_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reader: str, kept: bool
) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/settings.py": "FAST_JSON = False\n",
        "pkg/xml.py": XML,
        "pkg/reader.py": reader,
    }
    root = make_tree(tmp_path / "repo", files)
    result = invoke_in(monkeypatch, root, "apply", "--flag", "FAST_JSON=False", ".")
    assert result.exit_code == 0, result.output
    expected = "from json import loads\n" if kept else ""
    if "*" in reader:  # every name it imported, but the flag, whose definition went
        expected = "import platform\nfrom functools import partial\n\n" + expected
    assert (root / "pkg" / "xml.py").read_text() == expected
    assert not (root / "pkg" / "settings.py").read_text()
    assert (root / "pkg" / "reader.py").read_text() == reader
