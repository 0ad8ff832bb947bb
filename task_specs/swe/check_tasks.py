"""Validate the bundled SWE-style task specs under task_specs/swe/.

For every task this copies ``repo/`` to a temporary directory, applies the patches with
``git apply`` and runs the task's test command with ``--junitxml``, then checks that:

* base + tests.patch: every FAIL_TO_PASS test fails (or is missing), every PASS_TO_PASS passes;
* gold.patch + tests.patch: every test passes, FAIL_TO_PASS and PASS_TO_PASS included;
* base alone: the visible suite passes, and so does every PASS_TO_PASS test that exists there;
* PASS_TO_PASS lists every test that passes both before and after the fix;
* tests.patch touches only test files and gold.patch touches none.

Stdlib and pytest only, so it runs before repofix is installed:
``python task_specs/swe/check_tasks.py [TASK_ID ...]``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

TASKS_DIR = Path(__file__).resolve().parent
REQUIRED_KEYS = (
    "id",
    "repo",
    "base_commit",
    "problem_statement",
    "environment",
    "test_cmd",
    "FAIL_TO_PASS",
    "PASS_TO_PASS",
    "test_patch",
    "patch",
    "time_limit",
    "tags",
)


class SpecError(Exception):
    """A task.yaml this checker cannot read; the message names the file and the line."""


# --- a small reader for the YAML subset the task specs use --------------------------------
# The checker must run without PyYAML, so it reads: top-level `key: value` pairs, `|` block
# scalars, `- item` block sequences, and one-line flow collections (`[a, "b"]`, `{k: v}`).
# When PyYAML is importable the result is cross-checked against it, so a spec that this reader
# understands differently from a real YAML loader is reported.

_SCALAR_RE = re.compile(r"^-?\d+$")


def _scalar(text: str) -> object:
    text = text.strip()
    if text.startswith('"'):
        return json.loads(text)
    if text.startswith("'"):
        return text[1:-1].replace("''", "'")
    if text in ("null", "~", ""):
        return None
    if text in ("true", "false"):
        return text == "true"
    if _SCALAR_RE.match(text):
        return int(text)
    return text


def _split_flow(body: str) -> list[str]:
    """Split the inside of a flow collection on top-level commas."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(body):
        if quote:
            if ch == quote and body[i - 1] != "\\":
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    if body[start:].strip():
        parts.append(body[start:])
    return [p.strip() for p in parts]


def _value(text: str) -> object:
    text = text.strip()
    if text.startswith("["):
        return [_value(p) for p in _split_flow(text[1:-1])]
    if text.startswith("{"):
        out = {}
        for part in _split_flow(text[1:-1]):
            key, _, val = part.partition(":")
            out[key.strip()] = _value(val)
        return out
    return _scalar(text)


def parse_spec(path: Path) -> dict:
    lines = path.read_text(encoding="utf-8").splitlines()
    spec: dict = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip() or line.lstrip().startswith("#"):
            i += 1
            continue
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*):(.*)$", line)
        if not m:
            raise SpecError(f"{path}:{i + 1}: expected a top-level 'key: value', got {line!r}")
        key, rest = m.group(1), m.group(2).strip()
        i += 1
        if rest == "|":
            block = []
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith(" ")):
                block.append(lines[i])
                i += 1
            indent = min((len(b) - len(b.lstrip()) for b in block if b.strip()), default=0)
            text = "\n".join(b[indent:] for b in block).rstrip("\n")
            spec[key] = text + "\n"
        elif rest == "":
            items = []
            while i < len(lines) and (not lines[i].strip() or lines[i].lstrip().startswith("- ")):
                if lines[i].strip():
                    items.append(_value(lines[i].lstrip()[2:]))
                i += 1
            spec[key] = items
        else:
            spec[key] = _value(rest)
    return spec


def load_spec(path: Path) -> dict:
    spec = parse_spec(path)
    try:
        import yaml
    except ImportError:
        return spec
    if yaml.safe_load(path.read_text(encoding="utf-8")) != spec:
        raise SpecError(f"{path}: PyYAML reads this file differently from the checker's reader")
    return spec


# --- running one state of a task -------------------------------------------------------------


def patch_paths(patch: Path) -> list[str]:
    """Repository-relative paths a unified diff touches (both sides)."""
    paths = set()
    for line in patch.read_text(encoding="utf-8").splitlines():
        if line.startswith(("--- a/", "+++ b/")):
            paths.add(line[6:].split("\t")[0])
    return sorted(paths)


def is_test_path(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return (
        path.startswith("tests/")
        or "/tests/" in path
        or name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
    )


def _nodeid(root: Path, classname: str, name: str) -> str:
    """Map a JUnit (classname, name) pair back to a pytest node id such as
    ``tests/test_x.py::TestA::test_b[1]``: the longest dotted prefix that is a .py file is the
    module, the rest are classes."""
    parts = classname.split(".") if classname else []
    for cut in range(len(parts), 0, -1):
        rel = "/".join(parts[:cut]) + ".py"
        if (root / rel).is_file():
            return "::".join([rel, *parts[cut:], name])
    return "::".join([*parts, name])


def parse_junit(xml_path: Path, root: Path) -> dict[str, str]:
    """Node id -> 'passed' | 'failed' | 'skipped'. A collection error shows up as a failed entry
    for the module, and the tests in it are simply missing (which counts as not passed)."""
    results: dict[str, str] = {}
    for case in ET.parse(xml_path).getroot().iter("testcase"):
        nodeid = _nodeid(root, case.get("classname", ""), case.get("name", ""))
        tags = {child.tag for child in case}
        if tags & {"failure", "error"}:
            status = "failed"
        elif "skipped" in tags:
            status = "skipped"
        else:
            status = "passed"
        # A teardown error adds a second entry for the same test; failures win.
        if results.get(nodeid) != "failed":
            results[nodeid] = status
    return results


def run_state(task_dir: Path, spec: dict, patches: Iterable[Path], workdir: Path) -> dict[str, str]:
    repo = workdir / "repo"
    shutil.copytree(
        task_dir / spec["repo"]["path"], repo, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache")
    )
    env = dict(os.environ)
    for var in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTHONPATH"):
        env.pop(var, None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    # The tasks need no pytest plugins; loading the host's (hypothesis, ...) costs ~1 s a run.
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    # Keep git from treating an enclosing directory as the repository.
    env["GIT_CEILING_DIRECTORIES"] = str(workdir)
    for patch in patches:
        proc = subprocess.run(
            ["git", "apply", "--whitespace=nowarn", str(patch)],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            raise SpecError(f"{patch.name} does not apply: {proc.stderr.strip()}")
    cmd = shlex.split(spec["test_cmd"])
    if cmd[0] in ("python", "python3"):
        cmd[0] = sys.executable
    junit = workdir / "junit.xml"
    cmd += ["-p", "no:cacheprovider", f"--junitxml={junit}"]
    try:
        proc = subprocess.run(
            cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=spec["time_limit"]
        )
    except subprocess.TimeoutExpired as exc:
        raise SpecError(f"test command timed out after {spec['time_limit']} s") from exc
    if not junit.exists():
        raise SpecError(
            f"no JUnit report (exit {proc.returncode}): {proc.stdout[-2000:]}{proc.stderr[-2000:]}"
        )
    return parse_junit(junit, repo)


# --- the checks ------------------------------------------------------------------------------


@dataclass
class TaskReport:
    task_id: str
    kind: str = "?"
    fail_to_pass: int = 0
    pass_to_pass: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _not_passing(results: dict[str, str], names: Iterable[str]) -> list[str]:
    return [f"{n} ({results.get(n, 'missing')})" for n in names if results.get(n) != "passed"]


def check_task(task_dir: Path) -> TaskReport:
    task_dir = Path(task_dir)
    report = TaskReport(task_dir.name)
    started = time.monotonic()
    try:
        _check(task_dir, report)
    except SpecError as exc:
        report.problems.append(str(exc))
    report.seconds = time.monotonic() - started
    return report


def _check(task_dir: Path, report: TaskReport) -> None:
    spec_path = task_dir / "task.yaml"
    spec = load_spec(spec_path)
    missing = [k for k in REQUIRED_KEYS if k not in spec]
    if missing:
        raise SpecError(f"{spec_path}: missing fields {missing}")
    problems = report.problems
    if spec["id"] != task_dir.name:
        problems.append(f"id {spec['id']!r} differs from the directory name")
    report.kind = spec["tags"][0] if spec["tags"] else "?"
    f2p, p2p = list(spec["FAIL_TO_PASS"]), list(spec["PASS_TO_PASS"])
    report.fail_to_pass, report.pass_to_pass = len(f2p), len(p2p)
    if not f2p:
        problems.append("FAIL_TO_PASS is empty")
    # Graders that read pytest's text output split on whitespace, so ids must not contain any.
    problems += [f"test id contains whitespace: {n!r}" for n in f2p + p2p if re.search(r"\s", n)]
    if len(set(f2p + p2p)) != len(f2p) + len(p2p):
        problems.append("FAIL_TO_PASS and PASS_TO_PASS overlap or repeat a test")
    if not (task_dir / spec["repo"]["path"]).is_dir():
        raise SpecError(f"{spec_path}: repo.path {spec['repo']['path']!r} is not a directory")
    tests_patch, gold_patch = task_dir / spec["test_patch"], task_dir / spec["patch"]
    for patch in (tests_patch, gold_patch):
        if not patch.is_file():
            raise SpecError(f"{spec_path}: patch file {patch.name} does not exist")
    problems += [
        f"tests.patch touches a non-test file: {p}" for p in patch_paths(tests_patch) if not is_test_path(p)
    ]
    problems += [f"gold.patch touches a test file: {p}" for p in patch_paths(gold_patch) if is_test_path(p)]

    with tempfile.TemporaryDirectory(prefix=f"swe-{task_dir.name}-") as tmp:
        tmp_path = Path(tmp)
        states = {}
        for name, patches in (
            ("base", []),
            ("base+tests", [tests_patch]),
            ("gold+tests", [gold_patch, tests_patch]),
        ):
            (tmp_path / name).mkdir()
            states[name] = run_state(task_dir, spec, patches, tmp_path / name)

    base, before, after = states["base"], states["base+tests"], states["gold+tests"]
    problems += [f"base: visible test does not pass: {n}" for n, s in base.items() if s == "failed"]
    problems += [
        f"base: PASS_TO_PASS does not pass: {n} ({base[n]})" for n in p2p if n in base and base[n] != "passed"
    ]
    problems += [f"base+tests: FAIL_TO_PASS passes already: {n}" for n in f2p if before.get(n) == "passed"]
    problems += [f"base+tests: PASS_TO_PASS does not pass: {n}" for n in _not_passing(before, p2p)]
    problems += [f"gold+tests: FAIL_TO_PASS does not pass: {n}" for n in _not_passing(after, f2p)]
    problems += [f"gold+tests: PASS_TO_PASS does not pass: {n}" for n in _not_passing(after, p2p)]
    problems += [
        f"gold+tests: test does not pass: {n}"
        for n, s in after.items()
        if s != "passed" and n not in f2p + p2p
    ]
    unlisted = sorted(
        n for n, s in before.items() if s == "passed" and after.get(n) == "passed" and n not in p2p
    )
    problems += [f"PASS_TO_PASS misses a test that passes before and after: {n}" for n in unlisted]


def task_dirs(ids: Iterable[str] = ()) -> list[Path]:
    wanted = set(ids)
    found = sorted(p.parent for p in TASKS_DIR.glob("*/task.yaml"))
    if wanted:
        unknown = wanted - {p.name for p in found}
        if unknown:
            raise SystemExit(f"unknown task ids: {sorted(unknown)}")
        found = [p for p in found if p.name in wanted]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ids", nargs="*", help="task ids to check (default: all)")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="tasks checked in parallel")
    args = parser.parse_args(argv)
    dirs = task_dirs(args.ids)
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        reports = list(pool.map(check_task, dirs))
    width = max([len(r.task_id) for r in reports] + [4])
    print(f"{'task':<{width}}  {'kind':<7}  F2P  P2P  time   result")
    for r in reports:
        print(
            f"{r.task_id:<{width}}  {r.kind:<7}  {r.fail_to_pass:>3}  {r.pass_to_pass:>3}  "
            f"{r.seconds:4.1f}s  {'ok' if r.ok else 'FAILED'}"
        )
        for problem in r.problems:
            print(f"    - {problem}")
    bad = sum(not r.ok for r in reports)
    print(f"{len(reports) - bad}/{len(reports)} tasks valid")
    return 1 if bad or not reports else 0


if __name__ == "__main__":
    sys.exit(main())
