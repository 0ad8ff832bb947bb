"""Screening one candidate of a held-aside set (bench_builtin_screen.py `screen`): the sdist must be
pure Python with no dependency, import only the standard library, pytest and itself, have tests,
and its suite must pass in the tree bench_builtin_bugs.project_tree builds (the tree a freeze plants
bugs in). A passing project's record has what the qualifying rules and a human need: its tests, its
plantable sites per kind, its author."""

from __future__ import annotations

import ast
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from email.parser import Parser
from pathlib import Path

from bench_builtin_bugs import fetch, project_tree, sites
from screen_sandbox import run_suite, sandboxed_download

from repofix.testfiles import is_test_file

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: pyproject's dependencies are read by a pattern instead
    tomllib = None  # type: ignore[assignment]

NATIVE = {".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".pyx", ".pxd", ".pxi", ".so", ".pyd", ".dll", ".dylib"}
NATIVE |= {".f", ".f90", ".rs", ".go", ".swg", ".cu", ".m", ".mm", ".a", ".o", ".lib", ".exe", ".jar"}
ALLOWED_IMPORTS = set(sys.stdlib_module_names) | {"pytest", "_pytest"}
# as metadata() spells them (title case: PKG-INFO writes Author-email, Home-page, Project-URL)
AUTHOR_FIELDS = ["Author", "Author-Email", "Maintainer", "Maintainer-Email", "Home-Page", "Project-Url"]
SUITE_TIMEOUT = 60


class Rejected(Exception):
    """A candidate fails a screening rule; the message is the status line's reason."""


def metadata(root: Path) -> dict[str, list[str]]:
    """PKG-INFO's fields (each may repeat, as Requires-Dist and Project-URL do)."""
    path = root / "PKG-INFO"
    if not path.is_file():
        return {}
    message = Parser().parsestr(path.read_text(errors="replace"), headersonly=True)
    fields: dict[str, list[str]] = {}
    for key, value in message.items():
        fields.setdefault(key.title(), []).append(str(value).strip())
    return fields


def hard_requirements(fields: dict[str, list[str]]) -> list[str]:
    """Requires-Dist entries not under an extra (an extra is optional: the suite runs without it)."""
    return [r for r in fields.get("Requires-Dist", []) if not re.search(r"\bextra\s*==", r)]


def declared_dependencies(root: Path) -> list[str]:
    """Dependencies pyproject.toml, setup.cfg or setup.py declare (sdists built by old tools may
    carry no Requires-Dist in PKG-INFO for what their setup.py installs)."""
    found: list[str] = []
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        found += pyproject_requirements(pyproject.read_text(errors="replace"))
    setup_cfg = root / "setup.cfg"
    if setup_cfg.is_file():
        match = re.search(
            r"^install_requires\s*=(.*?)(?=^\S|\Z)", setup_cfg.read_text(errors="replace"), re.M | re.S
        )
        found += [line.strip() for line in (match.group(1) if match else "").splitlines() if line.strip()]
    setup_py = root / "setup.py"
    if setup_py.is_file():
        found += setup_py_requirements(setup_py.read_text(errors="replace"))
    return found


def pyproject_requirements(text: str) -> list[str]:
    """[project] dependencies and Poetry's (but `python`); build requirements do not count."""
    if tomllib is None:
        match = re.search(r"^dependencies\s*=\s*\[(.*?)\]", text, re.M | re.S)
        return re.findall(r"[\"']([^\"']+)[\"']", match.group(1)) if match else []
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return ["pyproject.toml does not parse"]
    found = list(data.get("project", {}).get("dependencies", []))
    poetry = data.get("tool", {}).get("poetry", {}).get("dependencies", {})
    return found + [name for name in poetry if name.lower() != "python"]


def setup_py_requirements(text: str) -> list[str]:
    """install_requires of setup.py's calls: a literal's items, or the expression's text when it is
    computed (read from a file, say), which counts as a dependency."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return ["setup.py does not parse"] if "install_requires" in text else []
    found = []
    for node in ast.walk(tree):
        for keyword in getattr(node, "keywords", []) if isinstance(node, ast.Call) else []:
            if keyword.arg != "install_requires":
                continue
            if isinstance(keyword.value, (ast.List, ast.Tuple)):
                found += [ast.unparse(e) for e in keyword.value.elts]
            else:
                found.append(ast.unparse(keyword.value))
    return found


def own_modules(tree: Path) -> set[str]:
    """Names the project's own code can be imported by: every module file and every folder holding
    Python files (tests import their helpers by the name of their folder or file)."""
    names = {p.stem for p in tree.rglob("*.py")}
    return names | {p.parent.name for p in tree.rglob("*.py") if p.parent != tree}


def foreign_imports(tree: Path) -> list[str]:
    """`file: module` for each import (at any depth) of a module neither the standard library, pytest
    nor the project's own; setup.py is the packaging's, not the project's code."""
    own, found = own_modules(tree), []
    for path in sorted(tree.rglob("*.py")):
        rel = path.relative_to(tree).as_posix()
        if rel == "setup.py":
            continue
        try:
            parsed = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError) as error:
            raise Rejected(f"{rel} does not parse: {error}") from None
        for node in ast.walk(parsed):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            else:
                continue
            found += [f"{rel}: {n}" for n in names if n.split(".")[0] not in ALLOWED_IMPORTS | own]
    return found


def source_files(tree: Path) -> list[str]:
    """The non-test sources a freeze plants in (bench_builtin_bugs.choose's rule)."""
    rels = [p.relative_to(tree).as_posix() for p in sorted(tree.rglob("*.py"))]
    return [r for r in rels if not is_test_file(r) and not r.startswith(("tlz/", "examples/"))]


def site_counts(tree: Path) -> dict[str, int]:
    """Plantable sites per kind in the non-test sources (what a freeze can choose among)."""
    counts: Counter[str] = Counter()
    for rel in source_files(tree):
        counts.update(kind for kind, *_ in sites((tree / rel).read_bytes().decode("utf-8", errors="replace")))
    return dict(sorted(counts.items()))


def author(fields: dict[str, list[str]]) -> dict[str, list[str]]:
    """Who made it, as PKG-INFO names them (names, e-mails and project URLs, which often name the
    owner's account), for the rule that no two picks of a set and no earlier set share an author."""
    return {key: fields[key] for key in AUTHOR_FIELDS if fields.get(key) and fields[key] != ["UNKNOWN"]}


def check_static(root: Path) -> dict[str, list[str]]:
    """The rules that need no run, on the unpacked sdist; returns PKG-INFO's fields."""
    native = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.suffix.lower() in NATIVE)
    if native:
        raise Rejected(f"native files: {', '.join(native[:3])}")
    fields = metadata(root)
    if required := hard_requirements(fields):
        raise Rejected(f"Requires-Dist: {', '.join(required[:3])}")
    if declared := declared_dependencies(root):
        raise Rejected(f"declared dependencies: {', '.join(declared[:3])}")
    return fields


def pip_error(words: str) -> str:
    """What failed in pip's words: the exception setup.py raised, else pip's last ERROR line, else its
    last line (pip's own last lines are often only a hint to look above)."""
    lines = [line.strip(" |│") for line in words.splitlines() if line.strip(" |│")]
    raised = [line for line in lines if re.match(r"[\w.]*(Error|Exception): ", line)]
    errors = [line for line in lines if line.lower().startswith("error")]
    return (raised or errors or lines or ["pip failed"])[-1][:300]


def screen(spec: str, cache: Path, python: Path | None = None, timeout: float = SUITE_TIMEOUT) -> dict:
    """One project's status record: a rejection's reason, or for a pass its tests, sites, author."""
    started = time.monotonic()
    record: dict = {"spec": spec}
    try:
        if problem := sandboxed_download(spec, cache / "sdists", cache / "pip-cache", python):
            raise Rejected(f"download: {pip_error(problem)}")
        try:
            root = fetch(spec, cache)
        except Exception as error:  # a broken archive, a link outside it, no top folder
            raise Rejected(f"unpack: {error}"[:300]) from None
        fields = check_static(root)
        with tempfile.TemporaryDirectory(prefix="screen-") as tmp:
            try:
                tree = project_tree(root, Path(tmp) / "tree")
            except ValueError as error:
                raise Rejected(f"layout: {error}"[:300]) from None
            if foreign := foreign_imports(tree):
                raise Rejected(f"imports: {', '.join(foreign[:3])}")
            if not any(is_test_file(p.relative_to(tree).as_posix()) for p in tree.rglob("*.py")):
                raise Rejected("no test file")
            run = run_suite(tree, timeout=timeout)
            if not run.passed:
                failed = [t for t, o in run.outcomes.items() if o in ("failed", "error")]
                raise Rejected(f"suite: exit {run.exit}, {len(run.outcomes)} tests, failing {failed[:3]}")
            record |= {"verdict": "pass", "tests": len(run.outcomes), "sites": site_counts(tree)}
            record["author"] = author(fields)
    except Rejected as reason:
        record |= {"verdict": "reject", "reason": str(reason)}
        shutil.rmtree(cache / "unpacked" / spec.replace("==", "-"), ignore_errors=True)
    record["seconds"] = round(time.monotonic() - started, 1)
    return record
