"""Test infrastructure: the files that decide how tests run and what their outcome is. The verdict
never uses the model's version of them: they come from the reference tree (the user's baseline,
plus accepted red tests), as SWE-bench restores test files before grading.

- whole files: every `conftest.py`, `pytest.ini` / `.pytest.ini` / `pytest.toml` /
  `.pytest.toml` (pytest 9 reads the last two), `sitecustomize.py`, `usercustomize.py`, `*.pth`,
  and every test file. A test file the reference lacks is left out: the verdict judges the
  reference's tests only, and a new test module's import-time code runs in pytest's process, where
  it could rewrite other tests' reports;
- what pytest loads before any test: packaging metadata (`*.dist-info/`, `*.egg-info/`, whose
  `entry_points.txt` declares plugins pytest loads by itself from anything on `sys.path`) and
  bytecode (`*.pyc`, `__pycache__/`; a hash-based `.pyc` is run without a look at its source);
- a module the reference lacks that would shadow pytest's own imports (`shadows_runner`): `python -m
  pytest` puts the workspace first on `sys.path`, so a new `pytest.py`, `pluggy/__init__.py` or
  `inspect.py` there would be imported instead of the real one, by pytest itself;
- sections: pytest's section of `pyproject.toml` (`[tool.pytest...]`), `setup.cfg` (`[tool:pytest]`)
  and `tox.ini` (`[pytest]`); the rest of those files (dependencies, metadata) stays the model's.
"""

from __future__ import annotations

import configparser
import re
import sys
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, from PyPI (a dependency there only)
    import tomli as tomllib

from repofix.testfiles import is_test_file

WHOLE_FILES = {
    "conftest.py",
    "pytest.ini",
    ".pytest.ini",
    "pytest.toml",
    ".pytest.toml",
    "sitecustomize.py",
    "usercustomize.py",
}
METADATA_DIRS = (".dist-info", ".egg-info")  # entry_points.txt there declares pytest plugins
BYTECODE = (".pyc", ".pyo")
# What `python -m pytest` imports besides the standard library: pytest and what it depends on
# (pytest 7 to 9), and the plugins a sandbox may hold (`pytest_*`, `xdist`)
RUNNER_MODULES = frozenset(
    {
        "pytest",
        "_pytest",
        "py",
        "pluggy",
        "iniconfig",
        "packaging",
        "exceptiongroup",
        "tomli",
        "pygments",
        "xdist",
    }
)
# a module file's name: `x.py`, `x.pyc`, `x.so`, `x.cpython-311-x86_64-linux-gnu.so`, `x.pyd`
_MODULE_FILE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?:\.[^./]*)?\.(?:py|pyc|pyo|pyw|so|pyd)$")
SECTIONS = {
    "pyproject.toml": ("tool.pytest",),
    "setup.cfg": ("tool:pytest", "pytest"),
    "tox.ini": ("pytest", "tool:pytest"),
}
_HEADER = re.compile(rb"^[ \t]*\[\[?[ \t]*([^\]\n]+?)[ \t]*\]\]?[ \t]*(?:[#;].*)?$", re.MULTILINE)


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def is_infra_file(path: str) -> bool:
    """A file that only configures or hooks into the test run: never taken from the model."""
    name = _name(path)
    folders = path.split("/")[:-1]
    return (
        name in WHOLE_FILES
        or name.endswith((".pth", *BYTECODE))
        or "__pycache__" in folders
        or any(folder.endswith(METADATA_DIRS) for folder in folders)
    )


def module_name(path: str) -> tuple[str, str] | None:
    """(the folder, the name) of the module a file defines when its folder is on `sys.path`:
    `pkg/x.py` -> ("pkg", "x"), `x/__init__.py` -> ("", "x"); None for other files."""
    folder, _, name = path.rpartition("/")
    if name == "__init__.py" and folder:
        folder, _, name = folder.rpartition("/")
        return folder, name
    match = _MODULE_FILE.match(name)
    return (folder, match.group(1)) if match and name != "__init__.py" else None


def shadows_runner(path: str, packages: set[str]) -> bool:
    """Whether this file would be imported in place of a module of the standard library or of
    pytest's own: a top-level module (its folder is no package of `packages`, the folders holding
    an `__init__.py`) of that name. A folder with no `__init__.py` shadows nothing: a regular
    package or module found later on `sys.path` wins over a namespace package."""
    found = module_name(path)
    if found is None or found[0] in packages:
        return False
    name = found[1]
    return name in sys.stdlib_module_names or name in RUNNER_MODULES or name.startswith("pytest_")


def is_protected(path: str) -> bool:
    """Taken whole from the reference for the verdict (left out if the reference lacks it)."""
    return is_infra_file(path) or is_test_file(path)


def has_sections(path: str) -> bool:
    return _name(path) in SECTIONS


def _is_test_section(path: str, header: str) -> bool:
    header = header.replace('"', "").replace("'", "").replace(" ", "")
    return any(header == s or header.startswith(s + ".") for s in SECTIONS[_name(path)])


def _chunks(data: bytes) -> list[tuple[str | None, bytes]]:
    """The file cut at every section header: (header name or None for the preamble, text)."""
    starts = [(m.start(), m.group(1).decode("utf-8", "replace")) for m in _HEADER.finditer(data)]
    chunks: list[tuple[str | None, bytes]] = [(None, data[: starts[0][0]] if starts else data)]
    for index, (start, name) in enumerate(starts):
        end = starts[index + 1][0] if index + 1 < len(starts) else len(data)
        chunks.append((name, data[start:end]))
    return chunks


def pytest_settings(path: str, data: bytes | None) -> Any:
    """pytest's settings in this file, parsed; None when it has none. Unparsable files compare by
    their raw bytes, so any change to them counts as a change."""
    if not data:
        return None
    text = data.decode("utf-8", "replace")
    if _name(path) == "pyproject.toml":
        try:
            return tomllib.loads(text).get("tool", {}).get("pytest")
        except tomllib.TOMLDecodeError:
            return ("unparsable", data)
    parser = configparser.RawConfigParser(strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return ("unparsable", data)
    found = {name: dict(parser.items(name)) for name in parser.sections() if _is_test_section(path, name)}
    return found or None


def splice(path: str, candidate: bytes, reference: bytes | None) -> bytes:
    """`candidate` with pytest's sections replaced by the reference's (removed if it has none).
    When the sections cannot be told apart textually (dotted keys, odd layouts), the reference's
    whole file is used: the user's own version is the safe one."""
    wanted = [chunk for name, chunk in _chunks(reference or b"") if name and _is_test_section(path, name)]
    out: list[bytes] = []
    placed = False
    for name, chunk in _chunks(candidate):
        if name and _is_test_section(path, name):
            if not placed:
                out += wanted
                placed = True
            continue
        out.append(chunk)
    if not placed and wanted:
        if out and not out[-1].endswith(b"\n"):
            out.append(b"\n")
        out += wanted
    result = b"".join(out)
    if pytest_settings(path, result) != pytest_settings(path, reference):
        return reference or b""
    return result
