"""The held-aside bug set of bench_builtin_heldout.py: bugs planted by inverse mutation in real
pure-Python PyPI projects, chosen at run time with a fixed seed, never used to develop operators.

How they are chosen (recorded with the results): each project's sdist (pinned version) is
downloaded with `pip download` into a cache folder outside the repository and unpacked; its
source files (not tests) are parsed and every site of a planting kind inside a function is listed;
the sites are shuffled with `random.Random(SEED)` and tried in that order. A planted bug is kept
when the project's own test suite, run once, has between 1 and MAX_FAILING newly failing tests
and no collection error, and finishes within 60 s (tests that fail without any bug are ignored); at most PER_KIND bugs of one kind and PER_PROJECT per
project. A site found twice (a nested function) is kept once, and the suites run without writing
.pyc files, so the seed alone decides (sets frozen before these two rules were chosen without them).
Test files are repofix's own rule (`testfiles.is_test_file`, `*_test.py` modules too) from heldout12
on: sets up to heldout11 left `*_test.py` modules among the sources, so a project that has one
shuffles other sites now (no frozen bug is in such a file).
The planting code is this file's own (it shares nothing with repofix/repair)."""

from __future__ import annotations

import ast
import json
import os
import random
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from sdists import download_sdist

from repofix.testfiles import is_test_file

SEED = 20261123
PROJECTS = [
    "inflection==0.5.1",
    "toolz==1.2.0",
    "isodate==0.7.2",
    "cachetools==8.0.0",
    "semver==3.1.1",
    "more-itertools==11.2.1",
]
PER_PROJECT, PER_KIND, MAX_FAILING = 9, 2, 12
CONFIG_FILES = ["pyproject.toml", "setup.cfg", "tox.ini", "pytest.ini", "setup.py"]
PYTEST_INI = "[pytest]\naddopts = -p no:hypothesispytest -p no:benchmark -p no:cacheprovider\n"


@dataclass
class Bug:
    project: str
    path: str  # source file, relative to the project root
    line: int
    kind: str
    before: str  # the original (fixed) segment
    after: str  # the planted (buggy) segment
    start: int  # byte offsets of the segment in the original file
    end: int
    failing: list[str]  # tests the bug makes fail (FAIL_TO_PASS)
    known: list[str]  # tests that fail here without any bug (say, a missing installed version): ignored


def fetch(spec: str, cache: Path) -> Path:
    """The unpacked sdist of `spec` in `cache` (downloaded once with pip); ValueError, nothing left
    unpacked, for one without a single top folder or with a link out of it or to nothing."""
    name, version = spec.split("==")
    folder = cache / "unpacked" / f"{name}-{version}"
    if folder.is_dir():
        return folder
    archive = download_sdist(spec, cache / "sdists")
    (cache / "unpacked").mkdir(parents=True, exist_ok=True)
    # a folder of this process's own: two benchmark processes (an engine and its baseline) may
    # unpack the same sdist at once on a fresh cache, and the first to finish puts it in place
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=cache / "unpacked"))
    try:
        with tarfile.open(archive) as tar:
            tar.extractall(tmp, filter="data")
        entries = sorted(tmp.iterdir())
        if len(entries) != 1 or entries[0].is_symlink() or not entries[0].is_dir():
            # repo-helper-pycharm 0.3.0's sdist holds one 120-byte file in its place
            named = ", ".join(p.name for p in entries[:3]) or "nothing"
            raise ValueError(f"{archive.name} holds no single top folder (its top: {named})")
        if stray := stray_links(entries[0]):
            # optmatch 1.0.0's `LICENSE.txt -> ../LICENSE.txt`: inside the archive, so the "data"
            # filter lets it in, but out of the project's folder once that is moved into place,
            # where it reads a neighbour's file or nothing (copying the tree then failed)
            raise ValueError(f"{archive.name} holds a link out of its folder or to nothing: {stray[0]}")
        try:
            entries[0].rename(folder)
        except OSError:
            if not folder.is_dir():
                raise
    finally:
        shutil.rmtree(tmp)
    return folder


def stray_links(top: Path) -> list[str]:
    """The links under `top` (links to folders not walked into) that lead out of it or to nothing,
    as `path -> target`."""
    inside = top.resolve()
    stray = []
    for folder, dirs, files in os.walk(top):
        for name in [*dirs, *files]:
            path = Path(folder) / name
            if path.is_symlink() and not _lands_inside(path, inside):
                stray.append(f"{path.relative_to(top).as_posix()} -> {os.readlink(path)}")
    return sorted(stray)


def _lands_inside(link: Path, inside: Path) -> bool:
    """`link` ends at something that exists under `inside` (a loop of links ends nowhere)."""
    try:
        target = link.resolve()
    except RuntimeError:  # a loop: 3.11 raises, later versions return a path that does not exist
        return False
    return target.is_relative_to(inside) and target.exists()


def project_tree(sdist: Path, into: Path) -> Path:
    """A runnable copy: src/ layout flattened, the project's own test configuration replaced by a
    plain pytest.ini (coverage flags and warnings-as-errors need plugins the sandbox lacks)."""
    shutil.copytree(sdist, into, ignore=shutil.ignore_patterns("*.egg-info", "docs", "PKG-INFO"))
    src = into / "src"
    if src.is_dir():
        # a name in both places (a .ipynb_checkpoints folder at the top and in src/) cannot be
        # flattened without losing one of them
        if clashes := sorted(c.name for c in src.iterdir() if (into / c.name).exists()):
            raise ValueError(f"src/ and the top folder both hold {', '.join(clashes[:3])}: no flat tree")
        for child in src.iterdir():
            child.rename(into / child.name)
        src.rmdir()
    for name in CONFIG_FILES:
        (into / name).unlink(missing_ok=True)
    (into / "pytest.ini").write_text(PYTEST_INI)
    return into


def sites(text: str) -> list[tuple[str, int, int, str, int]]:
    """(kind, start, end, planted text, line) for every plantable site inside a function."""
    tree = ast.parse(text)
    starts = [0] + [i + 1 for i, c in enumerate(text.encode()) if c == 10]
    data = text.encode()

    def span(node: ast.AST) -> tuple[int, int]:
        return starts[node.lineno - 1] + node.col_offset, starts[node.end_lineno - 1] + node.end_col_offset

    def seg(node: ast.AST) -> str:
        a, b = span(node)
        return data[a:b].decode()

    def grouped(node: ast.expr, test: ast.BoolOp) -> str:
        """`node`'s text as one of two or more operands of `test`'s `and`/`or`."""
        looser = isinstance(node, ast.BoolOp) and isinstance(test.op, ast.And) and isinstance(node.op, ast.Or)
        loose = looser or isinstance(node, (ast.IfExp, ast.Lambda, ast.NamedExpr))
        return f"({seg(node)})" if loose and len(test.values) > 2 else seg(node)

    out = []
    flips = {ast.Lt: "<=", ast.LtE: "<", ast.Gt: ">=", ast.GtE: ">", ast.Eq: "!=", ast.NotEq: "=="}
    for func in ast.walk(tree):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(func):
            if (
                isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Call)
                and getattr(node.value.func, "attr", "")
                in ("add", "append", "appendleft", "extend", "update")
            ):
                out.append(("missing-statement", *span(node), "pass", node.lineno))
            elif isinstance(node, (ast.If, ast.While)) and isinstance(node.test, ast.BoolOp):
                for i in range(len(node.test.values)):
                    # an operand that binds looser than the join keeps its parentheses: without
                    # them `a and b and (c or d)` lost `a` as `b and c or d` (patiencediff in
                    # heldout15, tomlite in heldout34: a clause lost and the rest regrouped)
                    rest = [grouped(v, node.test) for j, v in enumerate(node.test.values) if j != i]
                    op = " and " if isinstance(node.test.op, ast.And) else " or "
                    out.append(("missing-clause", *span(node.test), op.join(rest), node.lineno))
            elif (
                isinstance(node, ast.BinOp)
                and isinstance(node.op, (ast.Add, ast.Sub))
                and isinstance(node.right, ast.Constant)
                and node.right.value == 1
            ):
                out.append(("off-by-one", *span(node), seg(node.left), node.lineno))
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and len(node.args) == 1
                and not node.keywords
                and not isinstance(node.args[0], ast.Starred)
            ):
                out.append(("missing-wrapper", *span(node), seg(node.args[0]), node.lineno))
            elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
                out.append(("missing-slice", *span(node), seg(node.value), node.lineno))
            elif isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in flips:
                a, b = span(node.left)[1], span(node.comparators[0])[0]
                gap = data[a:b].decode()
                sym = gap.strip()
                if sym in ("<", "<=", ">", ">=", "==", "!="):
                    out.append(("comparison", a, b, gap.replace(sym, flips[type(node.ops[0])]), node.lineno))
            elif (
                isinstance(node, ast.List)
                and len(node.elts) == 1
                and isinstance(node.elts[0], ast.List)
                and not node.elts[0].elts
            ):
                out.append(("literal", *span(node), "[]", node.lineno))
    return out


# pytest's "FAILED <id>" summary line cuts a node id at its first space ("test_compose[Short"): the
# ids are written whole, one JSON string per line, by this plugin instead
FAILED_IDS_PLUGIN = """import json, os
def pytest_runtest_logreport(report):
    if report.failed:
        with open(os.environ["FAILED_IDS_OUT"], "a") as out:
            out.write(json.dumps(report.nodeid) + "\\n")
"""


def failing_tests(
    root: Path, env: dict[str, str] | None = None, args: tuple[str, ...] = (), timeout: float = 60
) -> tuple[list[str], int] | None:
    """Failing node ids (whole, as pytest names them) and pytest's exit code, or None when the
    suite hangs."""
    with tempfile.TemporaryDirectory(prefix="failed-ids-") as tmp:
        (Path(tmp) / "_failedids.py").write_text(FAILED_IDS_PLUGIN)
        out = Path(tmp) / "failed.jsonl"
        paths = [tmp, *filter(None, [(env or {}).get("PYTHONPATH")])]
        try:
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pytest",
                    "-q",
                    "--tb=no",
                    "-p",
                    "no:randomly",
                    "-p",
                    "_failedids",
                    *args,
                ],
                cwd=root,
                capture_output=True,
                text=True,
                timeout=timeout,
                env={
                    "PATH": "/usr/bin:/bin",
                    "PYTHONHASHSEED": "0",
                    "HOME": str(root),
                    "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
                    **(env or {}),
                    "PYTHONPATH": os.pathsep.join(paths),
                    "FAILED_IDS_OUT": str(out),
                },
            )
        except subprocess.TimeoutExpired:
            return None
        ids = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    return sorted(set(ids)), done.returncode


def choose(
    cache: Path, scratch: Path, log=print, seed: int = SEED, projects: list[str] = PROJECTS
) -> list[Bug]:
    """The bugs of one set: the first set is SEED in PROJECTS; a later set names its own (the rules
    and caps are the same for every set)."""
    rng = random.Random(seed)
    bugs = []
    for spec in projects:
        name = spec.split("==")[0]
        tree = project_tree(fetch(spec, cache), scratch / f"{name}-clean")
        found = failing_tests(tree)
        if found is None or found[1] not in (0, 1):
            log(f"{spec}: its own suite does not run here; skipped")
            continue
        known = found[0]
        candidates = []
        for path in sorted(tree.rglob("*.py")):
            rel = path.relative_to(tree).as_posix()
            # repofix's own rule, `*_test.py` modules too (strsimpy's and python-mimeparse's tests)
            if is_test_file(rel) or rel.startswith(("tlz/", "examples/")):
                continue
            # no newline translation: a site's offsets are the file's own bytes (read_text turned
            # latexcodec's CRLF into LF, and heldout10's 4 latexcodec bugs were planted off their mark)
            text = path.read_bytes().decode("utf-8")
            candidates += [(rel, site) for site in sites(text)]
        rng.shuffle(candidates)
        kept, per_kind = [], {}
        for rel, (kind, start, end, planted, line) in candidates:
            if len(kept) >= PER_PROJECT:
                break
            if per_kind.get(kind, 0) >= PER_KIND:
                continue
            # a function nested in another is walked twice by sites(): one bug is kept once
            if any((b.path, b.start, b.end, b.after) == (rel, start, end, planted) for b in kept):
                continue
            path = tree / rel
            original = path.read_bytes()
            path.write_bytes(original[:start] + planted.encode() + original[end:])
            try:
                # no .pyc: two same-sized plants within one second would otherwise run the first's bytecode
                result = failing_tests(tree, env={"PYTHONDONTWRITEBYTECODE": "1"})
            finally:
                path.write_bytes(original)
            new = [t for t in result[0] if t not in known] if result and result[1] == 1 else []
            if not 1 <= len(new) <= MAX_FAILING:
                continue
            per_kind[kind] = per_kind.get(kind, 0) + 1
            kept.append(
                Bug(spec, rel, line, kind, original[start:end].decode(), planted, start, end, new, known)
            )
            log(f"  {spec} {rel}:{line} {kind}: {len(new)} failing")
        bugs += kept
    return bugs


def plant(bug: Bug, cache: Path, into: Path) -> Path:
    root = project_tree(fetch(bug.project, cache), into)
    path = root / bug.path
    data = path.read_bytes()
    path.write_bytes(data[: bug.start] + bug.after.encode() + data[bug.end :])
    return root


def record(bugs: list[Bug]) -> list[dict]:
    return [asdict(b) for b in bugs]
