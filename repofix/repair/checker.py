"""Host side of the in-sandbox worker: ship it as `python -c`, send a request, parse its lines."""

from __future__ import annotations

import ast
import base64
import json
import secrets
import time
import zlib
from dataclasses import dataclass
from importlib import resources

from repofix.repair.localize import RunRecord, internal_error, records
from repofix.repair.replies import Differences, MalformedReply, differences, verdict_items
from repofix.repair.source import Mutation
from repofix.sandboxes.base import CommandResult, Sandbox, SandboxError


class RepairError(RuntimeError):
    """The repair engine could not run the tests in the sandbox; the message says why."""


# the worker's modules, in the order their definitions are needed; worker.py (the entry point) last
WORKER_PARTS = (
    "common.py",
    "subtrace.py",
    "coverage.py",
    "children.py",
    "collect.py",
    "ids.py",
    "hot_session.py",
    "hot_server.py",
    "hot.py",
    "check.py",
    "traced_values.py",
    "alike_runs.py",
    "differ.py",
    "worker.py",
)
PACKAGE = "repofix.repair.insandbox"
# the worker keeps its own deadline (`until`) between and within candidates, but not while it starts
# and collects the suite; a call is cut this many seconds after its deadline, so the time budget
# holds on a busy machine too (the verdicts printed by then are kept, the files restored)
OVERRUN = 1.5
PYCACHE_PREFIX = "repofix-pyc-"  # the worker makes a folder only under a name that starts so
FIRST = 20  # passing tests that ran a candidate's lines, run before the rest of the passing tests
Covering = dict[tuple[str, int], list[str]]  # (path, line) -> the passing tests that executed it


def worker_source() -> str:
    """The in-sandbox worker as one text for `python -c`: its modules joined, their imports of each
    other dropped (the sandbox has no repofix package; the names are all in one namespace there)."""
    parts = []
    for name in WORKER_PARTS:
        text = resources.files(PACKAGE).joinpath(name).read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in reversed(ast.parse(text).body):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PACKAGE):
                del lines[node.lineno - 1 : node.end_lineno]
        parts.append("\n".join(lines))
    return "\n\n\n".join(parts) + "\n"


@dataclass
class Verdict:
    mutation: Mutation
    ok: bool
    stage: str  # "failing" (rejected or passed by the failing tests) or "passing" (the rest of the suite)
    reason: str
    seconds: float
    also: int = 0  # other failing tests this candidate fixes too
    hot: bool = False  # rejected by a hot-patched run (insandbox/hot.py)

    @classmethod
    def of(cls, mutation: Mutation, item: dict) -> Verdict:
        """The verdict a checked line of the worker's (replies.verdict_items) gives `mutation`."""
        fields = (item["ok"], item["stage"], item["reason"], item["seconds"])
        return cls(mutation, *fields, item.get("also", 0), item.get("hot", False))


class Checker:
    def __init__(self, sandbox: Sandbox, python: str = "python"):
        self.sandbox = sandbox
        self.python = python
        self.source = worker_source()

    def _call(self, request: dict, timeout: float) -> CommandResult:
        result = self.sandbox.run(
            [self.python, "-c", self.source],
            cwd=self.sandbox.workdir,
            # test ids must mean the same in every run: a parametrize over a set gets ids in hash order
            env={"PYTHONHASHSEED": "0"},
            stdin=json.dumps(request),
            timeout=timeout,
        )
        if result.exit_code not in (0, None) and not result.stdout.strip():
            said = result.stderr.strip()  # a hint only where it is the cause: the repository can fail it too
            missing = "No module named 'pytest'" in said
            hint = f"\nInstall pytest in the sandbox's Python ({self.python!r})." if missing else ""
            raise RepairError(
                f"the repair worker failed in the sandbox (exit {result.exit_code}): {said[-2000:]}{hint}"
            )
        return result

    def coverage(
        self,
        tests: list[str],
        timeout: float,
        per_test: float,
        *,
        trace: list[str] | None = None,
        sample: int | None = None,
        share: float | None = None,
    ) -> tuple[list[RunRecord], float]:
        """Run `tests` (all tests when empty) once under the line tracer; a test running longer
        than `per_test` seconds is interrupted and counts as failing, and no test starts after
        `timeout` seconds. With `sample`, only the tests in `trace` and `sample` others are traced
        (the rest report their outcome alone, RunRecord.traced False); with `share`, the sampled ones
        get that many seconds traced, spread over the run (insandbox/coverage.py)."""
        result = self._call(
            {
                "mode": "coverage",
                "tests": tests,
                "trace": trace or [],
                "sample": sample,
                "share": share,
                "per_test": per_test,
                "seconds": timeout,
                "until": time.time() + timeout,
                "compact": True,
            },
            timeout + 30,
        )
        if result.timed_out:
            raise RepairError(f"the coverage run did not finish within {timeout:.0f} s")
        lines = [line for line in result.stdout.splitlines() if line.startswith("Z:")]
        try:
            data = json.loads(zlib.decompress(base64.b64decode(lines[-1][2:])))
        except (IndexError, ValueError, zlib.error):
            raise RepairError(
                f"the coverage run printed no complete result: {result.output.strip()[-2000:]}"
            ) from None
        try:
            runs = records(data.get("tests") if isinstance(data, dict) else None)
            duration, code = float(data["duration"]), data.get("exit_code")
        except (KeyError, TypeError, ValueError) as error:
            raise RepairError(f"the coverage run printed a malformed result: {error}") from None
        if stopped := internal_error(code, runs, tests):
            raise RepairError(stopped)
        return runs, duration

    def check(
        self,
        mutations: list[Mutation],
        failing: list[str],
        passing: list[str],
        *,
        timeout: float,
        full_timeout: float,
        seconds: float,
        stop_after: int = 1,
        extra: int = 0,
        fallback: int | None = None,
        also: list[str] | None = None,
        slower: float = 0.0,
        retry: bool = True,
        covering: Covering | None = None,
        expect: float = 0.0,
        hot: bool = True,
    ) -> list[Verdict]:
        """Try mutations in order inside the sandbox; stops after `stop_after` plausible ones, `extra`
        candidates after the first plausible one (one that only removes code does not count; while
        only such ones passed, `fallback` more at most), or when `seconds` have passed. Returns one verdict
        per mutation tried. A plausible one also counts how many of `also` (other failing tests) it
        fixes, and is rejected when its passing tests run `slower` times slower than unpatched.
        `retry`: a failing test that times out is run once more before the candidate is rejected;
        without it, the failing tests' limit tightens to what candidates take once some have run
        (`expect`: the seconds a fixed program may need for them, see limits.failing_seconds).
        `hot`: reject candidates by hot patching first (insandbox/hot.py)."""
        request = {
            "mode": "check",
            "failing": failing,
            "passing": passing,
            "timeout": timeout,
            "full_timeout": full_timeout,
            "seconds": seconds,
            "until": time.time() + seconds,
            "stop_after": stop_after,
            "extra": extra,
            "fallback": fallback,
            "also": also or [],
            "slower": slower,
            "retry": retry,
            "expect": expect,
            "hot": hot,
        }
        result = self._call_on(mutations, request, timeout=seconds + OVERRUN, covering=covering)
        try:
            items = verdict_items(result.stdout, len(mutations), result.truncated)
        except MalformedReply as error:
            raise RepairError(str(error)) from None
        verdicts = [Verdict.of(mutations[item["id"]], item) for item in items]
        if not verdicts and mutations and not result.timed_out and "deadline" not in result.stdout:
            raise SandboxError(f"the repair worker checked no candidate: {result.output.strip()[-2000:]}")
        return verdicts

    def _call_on(
        self, mutations: list[Mutation], request: dict, *, timeout: float, covering: Covering | None = None
    ) -> CommandResult:
        """Send `request` with `mutations` as its candidates; the files they touch are as before
        afterwards (the worker restores them itself; this covers a worker killed mid-candidate)."""
        request["candidates"] = candidate_list(mutations, covering)
        # the worker's compiled modules, in the sandbox's own temporary folder (see worker.py)
        request["pycache"] = f"{PYCACHE_PREFIX}{secrets.token_hex(8)}"
        paths = sorted({m.path for m in mutations})
        originals = self.sandbox.read_files(paths)
        result = None
        try:
            result = self._call(request, timeout=timeout)
            return result
        finally:
            current = self.sandbox.read_files(paths)
            changed = {p: originals[p] for p in paths if current.get(p) != originals[p]}
            if changed:
                self.sandbox.write_files(changed)
            # a worker that was cut or died could not remove its folder (after an error of the
            # sandbox itself nothing more is asked of it)
            if result is not None and (result.timed_out or result.exit_code != 0):
                self._remove_pycache(request["pycache"])

    def _remove_pycache(self, name: str) -> None:
        code = (
            f"import os, shutil, tempfile; shutil.rmtree(os.path.join(tempfile.gettempdir(), {name!r}), True)"
        )
        self.sandbox.run([self.python, "-c", code], cwd=self.sandbox.workdir, timeout=60)

    def differ(
        self,
        mutations: list[Mutation],
        passing: list[str],
        *,
        timeout: float,
        seconds: float,
        failing: list[str] | None = None,
    ) -> Differences:
        """The differential check (within `seconds`): per mutation checked, the calls of the
        passing tests into the changed files whose return value it changes ("f(1) returned 2,
        now 3"; the first one, and how many), and a digest of what its calls did in the passing
        and `failing` tests. Mutations missing from the answer were not checked."""
        request = differ_request(passing, timeout, seconds, failing)
        result = self._call_on(mutations, request, timeout=seconds + OVERRUN)
        try:
            return differences(result.stdout, mutations, result.truncated)
        except MalformedReply as error:
            raise RepairError(str(error)) from None


def candidate_list(mutations: list[Mutation], covering: Covering | None = None) -> list[dict]:
    """Mutations as the worker takes them: an id (the index), the edits of one file, and the passing
    tests that ran the lines it changes (`covering`), which the worker runs first."""
    covering = covering or {}
    listed = []
    for i, m in enumerate(mutations):
        item: dict = {"id": i, "path": m.path, "edits": [[e.start, e.end, e.text] for e in m.edits]}
        # in the order they ran (covering_tests keeps the run's order), never sorted: tests that share
        # state pass only so (engine.baseline)
        first = list(
            dict.fromkeys(t for line in m.lines or (m.line,) for t in covering.get((m.path, line), ()))
        )
        if first:
            item["first"] = first[:FIRST]
        if m.removes_only:  # passing, it does not end the search (see limits.more_to_try)
            item["fallback"] = True
        listed.append(item)
    return listed


def covering_tests(runs: list[RunRecord], passing: list[str], lines: dict[str, set[int]]) -> Covering:
    """The passing tests that executed each of `lines` (path -> line numbers) in the coverage run;
    a line that most of the traced ones ran is left out (running those first would run the suite
    twice)."""
    kept = set(passing)
    traced = [run for run in runs if run.nodeid in kept and run.traced]
    covering: Covering = {}
    for run in traced:
        for path, wanted in lines.items():
            for line in wanted.intersection(run.lines.get(path, ())):
                covering.setdefault((path, line), []).append(run.nodeid)
    return {key: tests for key, tests in covering.items() if 2 * len(tests) <= len(traced)}


def differ_request(
    passing: list[str], timeout: float, seconds: float, failing: list[str] | None = None
) -> dict:
    """The differential check's request, its candidates added by the sender."""
    return {
        "mode": "differ",
        "passing": passing,
        "failing": failing or [],
        "timeout": timeout,
        "seconds": seconds,
        "until": time.time() + seconds,
    }
