"""Build the feedback corpus: real failing pytest runs of real projects' own test suites.

For each pinned, pure-Python sdist from PyPI (whose tests pass on Python 3.11 here) we inject
realistic bugs one at a time (flipped comparison, off-by-one, wrong variable, removed line,
wrong exception, flipped boolean), run the project's tests exactly as `repofix test` runs them
(`repofix.testing.command.wrap`: JUnit XML + progress stream outside the repository), and keep
the mutants that make tests fail. A few cases are built on purpose: collection errors (a syntax
error, a renamed function), a timeout (a loop that never ends) and two-bug runs.

Each case is stored under evals/.cache/feedback/corpus/<case>/ (gitignored: regenerate with
`python evals/feedback_corpus.py`): output.txt (pytest's full output), report.xml,
progress.jsonl and meta.json. Deterministic: fixed versions, fixed seed.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))
from repofix.testing.command import PLUGIN_MODULE, wrap  # noqa: E402

CACHE = ROOT / ".cache" / "feedback"
CORPUS = CACHE / "corpus"
SEED = 20261122
TIMEOUT = 120.0
HANG_TIMEOUT = 15.0
MUTANTS = Path("/tmp/repofix-feedback-mutants")


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    sources: tuple[str, ...]  # files bugs are injected into, relative to the sdist root
    pythonpath: str = "."
    tests: str = ""  # extra pytest arguments (test paths)


PACKAGES = (
    Package("toolz", "0.12.1", ("toolz/itertoolz.py", "toolz/dicttoolz.py", "toolz/functoolz.py")),
    Package("parse", "1.20.1", ("parse.py",)),
    Package("inflection", "0.5.1", ("inflection/__init__.py",)),
    Package("tabulate", "0.9.0", ("tabulate/__init__.py",), tests="test"),
    Package(
        "cachetools", "5.3.2", ("src/cachetools/__init__.py", "src/cachetools/func.py"), pythonpath="src"
    ),
    Package("more-itertools", "10.2.0", ("more_itertools/more.py", "more_itertools/recipes.py")),
    Package("jmespath", "1.0.1", ("jmespath/functions.py", "jmespath/lexer.py", "jmespath/parser.py")),
    Package("idna", "3.6", ("idna/core.py",)),
)

# (kind, pattern, replacement): line-level mutation operators.
OPERATORS = (
    ("flipped comparison", r"(?<![<>=!])<(?![<=])", "<="),
    ("flipped comparison", r"(?<![<>=!])<=", "<"),
    ("flipped comparison", r"(?<![<>=!-])>(?![>=])", ">="),
    ("flipped comparison", r"(?<![<>=!])>=", ">"),
    ("flipped comparison", r"(?<![<>=!])==(?!=)", "!="),
    ("flipped comparison", r"!=", "=="),
    ("off-by-one", r"\+ 1\b", "+ 2"),
    ("off-by-one", r"- 1\b", ""),
    ("off-by-one", r"\[1:\]", "[2:]"),
    ("off-by-one", r"\[:-1\]", "[:-2]"),
    ("flipped boolean", r"\band\b", "or"),
    ("flipped boolean", r"\bif not\b", "if"),
    ("flipped boolean", r"\bTrue\b", "False"),
    ("wrong exception", r"\braise ValueError\b", "raise TypeError"),
    ("wrong exception", r"\braise TypeError\b", "raise ValueError"),
    ("wrong exception", r"\bexcept KeyError\b", "except IndexError"),
    ("wrong exception", r"\bexcept (TypeError|ValueError)\b", "except AttributeError"),
)


@dataclass(frozen=True)
class Mutation:
    kind: str
    file: str
    line: int  # 1-based
    before: str
    after: str  # None-like "" never: a removed line becomes `pass`


def prepare(pkg: Package) -> Path:
    """The unpacked, pristine sdist (downloaded once with pip)."""
    sdists = CACHE / "sdists"
    sdists.mkdir(parents=True, exist_ok=True)
    tarball = next(sdists.glob(f"{pkg.name.replace('-', '?')}-{pkg.version}.tar.gz"), None)
    if tarball is None:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--no-binary",
                ":all:",
                f"{pkg.name}=={pkg.version}",
                "-d",
                str(sdists),
            ],
            check=True,
        )
        tarball = next(sdists.glob(f"{pkg.name.replace('-', '?')}-{pkg.version}.tar.gz"))
    pristine = CACHE / "pristine" / f"{pkg.name}-{pkg.version}"
    if not pristine.exists():
        with tarfile.open(tarball) as tar:
            tar.extractall(pristine.parent, filter="data")
    return pristine


def candidates(root: Path, pkg: Package) -> list[Mutation]:
    found: list[Mutation] = []
    for rel in pkg.sources:
        text = (root / rel).read_text(encoding="utf-8")
        lines = text.splitlines()
        code_lines = _code_lines(text)
        for number in sorted(code_lines):
            line = lines[number - 1]
            for kind, pattern, replacement in OPERATORS:
                if re.search(pattern, line):
                    found.append(
                        Mutation(kind, rel, number, line, re.sub(pattern, replacement, line, count=1))
                    )
            stripped = line.strip()
            if re.match(r"^[\w.\[\]]+ ?[+-]?= ", stripped) or re.match(r"^[\w.]+\(.*\)$", stripped):
                indent = line[: len(line) - len(line.lstrip())]
                found.append(Mutation("removed line", rel, number, line, indent + "pass"))
        found.extend(_wrong_variable(text, rel))
    return found


def _code_lines(text: str) -> set[int]:
    """Lines of executable statements inside functions (no docstrings, comments or signatures)."""
    tree = ast.parse(text)
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for stmt in ast.walk(node):
                if (
                    isinstance(stmt, ast.stmt)
                    and not isinstance(stmt, (ast.FunctionDef, ast.ClassDef))
                    and not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))
                    and stmt.lineno == getattr(stmt, "end_lineno", stmt.lineno)
                ):
                    lines.add(stmt.lineno)
    return lines


def _wrong_variable(text: str, rel: str) -> list[Mutation]:
    """`return a` -> `return b` where both are parameters of the function."""
    lines = text.splitlines()
    out = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef):
            params = [a.arg for a in node.args.args if a.arg not in ("self", "cls")]
            for stmt in ast.walk(node):
                if (
                    isinstance(stmt, ast.Return)
                    and isinstance(stmt.value, ast.Name)
                    and stmt.value.id in params
                ):
                    others = [p for p in params if p != stmt.value.id]
                    line = lines[stmt.lineno - 1]
                    if others:
                        new = re.sub(rf"\breturn {stmt.value.id}\b", f"return {others[0]}", line, count=1)
                        out.append(Mutation("wrong variable", rel, stmt.lineno, line, new))
    return out


def run_case(root: Path, pkg: Package, timeout: float) -> dict:
    """Run the package's tests the way the runner does, keeping everything it produced."""
    report_dir = Path(f"/tmp/repofix-corpus-{pkg.name}")
    shutil.rmtree(report_dir, ignore_errors=True)
    report_dir.mkdir(parents=True)
    shutil.copy(ROOT.parent / "repofix" / "testing" / "pytest_plugin.py", report_dir / f"{PLUGIN_MODULE}.py")
    command = f'PYTHONPATH={pkg.pythonpath}:"$PYTHONPATH" python -m pytest {pkg.tests}'.strip()
    line = wrap(command, workdir=str(root), report_dir=str(report_dir))
    started = time.monotonic()
    proc = subprocess.Popen(
        ["bash", "-c", line], stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the whole tree of this one run, by its process group
        stdout, stderr = proc.communicate()
        timed_out = True
    exit_code = None if timed_out else proc.returncode
    out = _text(stdout) + _text(stderr)
    record = {
        "command": command,
        "exit_code": exit_code,
        "timed_out": timed_out,
        "duration": time.monotonic() - started,
        "output": out,
        "workdir": str(root),
    }
    for name in ("report.xml", "progress.jsonl"):
        path = report_dir / name
        record[name] = path.read_bytes() if path.exists() else None
    shutil.rmtree(report_dir, ignore_errors=True)
    return record


def _text(data: bytes | str | None) -> str:
    return data.decode("utf-8", "replace") if isinstance(data, bytes) else (data or "")


def failures(record: dict) -> int:
    events = [json.loads(ln) for ln in (record["progress.jsonl"] or b"").decode().splitlines() if ln.strip()]
    return len(
        {e["id"] for e in events if e.get("event") == "report" and e["outcome"] in ("failed", "error")}
    )


def save(case: str, record: dict, meta: dict) -> None:
    target = CORPUS / case
    tmp = CORPUS / f".{case}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    (tmp / "output.txt").write_text(record["output"], encoding="utf-8")
    for name in ("report.xml", "progress.jsonl"):
        if record[name] is not None:
            (tmp / name).write_bytes(record[name])
    meta = {**meta, **{k: record[k] for k in ("command", "exit_code", "timed_out", "duration", "workdir")}}
    (tmp / "meta.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
    shutil.rmtree(target, ignore_errors=True)
    tmp.rename(target)


def apply(root: Path, mutations: list[Mutation]) -> None:
    for m in mutations:
        path = root / m.file
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        lines[m.line - 1] = m.after + "\n"
        path.write_text("".join(lines), encoding="utf-8")


def build(per_package: int, only: set[str] | None) -> int:
    rng = random.Random(SEED)
    made = 0
    for pkg in PACKAGES:
        if only and pkg.name not in only:
            continue
        pristine = prepare(pkg)
        work = MUTANTS / pkg.name  # outside this repository, or pytest would take our rootdir
        pool = candidates(pristine, pkg)
        rng.shuffle(pool)
        kept: list[Mutation] = []
        kinds_seen: dict[str, int] = {}
        for mutation in pool:
            if len(kept) >= per_package:
                break
            if kinds_seen.get(mutation.kind, 0) >= 2:  # spread the bug kinds
                continue
            shutil.rmtree(work, ignore_errors=True)
            shutil.copytree(pristine, work)
            apply(work, [mutation])
            record = run_case(work, pkg, TIMEOUT)
            if record["timed_out"] or failures(record) < 1:
                continue
            kept.append(mutation)
            kinds_seen[mutation.kind] = kinds_seen.get(mutation.kind, 0) + 1
            save(f"{pkg.name}-{len(kept):02d}", record, _meta(pkg, [mutation]))
            made += 1
            print(
                f"{pkg.name}-{len(kept):02d}: {mutation.kind} at {mutation.file}:{mutation.line} "
                f"-> {failures(record)} failing",
                flush=True,
            )
        if len(kept) >= 2:  # a two-bug run: the first two kept bugs together
            shutil.rmtree(work, ignore_errors=True)
            shutil.copytree(pristine, work)
            apply(work, kept[:2])
            save(f"{pkg.name}-two-bugs", run_case(work, pkg, TIMEOUT), _meta(pkg, kept[:2]))
            made += 1
        made += _special_cases(pkg, pristine, work, pool)
        shutil.rmtree(work, ignore_errors=True)
    return made


def _special_cases(pkg: Package, pristine: Path, work: Path, pool: list[Mutation]) -> int:
    """Collection errors and a timeout, for two of the packages."""
    made = 0
    if pkg.name in ("toolz", "parse"):  # a syntax error: every test module importing it fails
        line_mut = next(m for m in pool if m.kind == "removed line")
        broken = Mutation(
            "syntax error", line_mut.file, line_mut.line, line_mut.before, line_mut.before + " +"
        )
        for name, mutation in (("syntax-error", broken),):
            shutil.rmtree(work, ignore_errors=True)
            shutil.copytree(pristine, work)
            apply(work, [mutation])
            save(f"{pkg.name}-{name}", run_case(work, pkg, TIMEOUT), _meta(pkg, [mutation]))
            made += 1
    if pkg.name in ("inflection", "cachetools"):  # a renamed public function: ImportError in tests
        source = (pristine / pkg.sources[0]).read_text(encoding="utf-8").splitlines()
        number = next(i for i, ln in enumerate(source, 1) if re.match(r"^def [a-z]\w+\(", ln))
        line = source[number - 1]
        renamed = Mutation(
            "renamed function", pkg.sources[0], number, line, re.sub(r"^def (\w+)", r"def \1_renamed", line)
        )
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(pristine, work)
        apply(work, [renamed])
        save(f"{pkg.name}-renamed", run_case(work, pkg, TIMEOUT), _meta(pkg, [renamed]))
        made += 1
    if pkg.name == "toolz":  # a loop that never ends: the run times out mid-way
        text = (pristine / "toolz/itertoolz.py").read_text(encoding="utf-8").splitlines()
        number = next(i for i, ln in enumerate(text, 1) if ln.startswith("def frequencies("))
        body = next(
            i for i in range(number + 1, len(text) + 1) if text[i - 1].strip().startswith("for item in seq")
        )
        indent = text[body - 1][: len(text[body - 1]) - len(text[body - 1].lstrip())]
        hang = Mutation(
            "endless loop",
            "toolz/itertoolz.py",
            body,
            text[body - 1],
            f"{indent}while True:\n{indent}    pass\n{text[body - 1]}",
        )
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(pristine, work)
        apply(work, [hang])
        save("toolz-timeout", run_case(work, pkg, HANG_TIMEOUT), _meta(pkg, [hang]))
        made += 1
    return made


def _meta(pkg: Package, mutations: list[Mutation]) -> dict:
    return {
        "package": f"{pkg.name}=={pkg.version}",
        "bugs": [
            {"kind": m.kind, "file": m.file, "line": m.line, "before": m.before, "after": m.after}
            for m in mutations
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-package", type=int, default=5)
    parser.add_argument("--only", nargs="*", help="package names")
    args = parser.parse_args()
    made = build(args.per_package, set(args.only) if args.only else None)
    print(f"{made} cases in {CORPUS}")


if __name__ == "__main__":
    main()
