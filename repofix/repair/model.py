"""`--model builtin`: the repair engine speaking the agent's action protocol.

It never touches the sandbox itself. Like an LLM it only asks for actions and reads what comes
back, so the loop's checkpoints, guards, trajectory and delivery are exactly the LLM path's:

1. `python`: run the coverage worker in the sandbox; the observation carries (compressed) the
   per-test spectra and the suspicious source files;
2. `python`: try a batch of candidates with the check worker (repeated while the budget lasts);
3. `edit`: the smallest plausible patch as a unified diff; 4. `run_tests`; 5. `submit`.
When nothing works it gives up (`give_up`), so in a chain `builtin,<llm>` the LLM takes over."""

from __future__ import annotations

import base64
import itertools
import json
import time
import zlib
from typing import Any

from repofix.models.base import ModelReply, ToolCall
from repofix.repair.checker import worker_source
from repofix.repair.engine import Budget, diff
from repofix.repair.localize import RunRecord, is_test_file, rank
from repofix.repair.search import CandidatePool
from repofix.repair.source import Mutation, SourceFile

MARK = "REPOFIX-BUILTIN:"

# Runs in the sandbox's persistent Python namespace (Python >= 3.8, stdlib only).
SNIPPET = '''
import base64 as _b, json as _j, os as _o, subprocess as _s, sys as _y, tempfile as _t, zlib as _z
def _repofix_builtin(request, source, timeout, files_from=None):
    path = _o.path.join(_t.gettempdir(), "repofix_repair_worker.py")
    with open(path, "w") as handle:
        handle.write(source)
    done = _s.run([_y.executable, path], input=_j.dumps(request), capture_output=True, text=True,
                  timeout=timeout, cwd=_o.getcwd())
    payload = {"stdout": done.stdout, "stderr": done.stderr[-3000:], "code": done.returncode, "files": {}}
    if files_from is not None and done.stdout.strip():
        data = _j.loads(done.stdout.strip().splitlines()[-1])
        tests = data["tests"]
        hot = {}  # lines some failing test ran: the only ones localization needs from passing tests
        for t in tests.values():
            if t["outcome"] == "failed":
                for rel, lines in t["lines"].items():
                    hot.setdefault(rel, set()).update(lines)
        for t in tests.values():
            if t["outcome"] != "failed":
                t["lines"] = {rel: [n for n in lines if n in hot[rel]] for rel, lines in t["lines"].items()
                              if rel in hot}
        payload["stdout"] = _j.dumps(data)
        for rel in sorted(hot):
            if _o.path.isfile(rel) and _o.path.getsize(rel) < 400000:
                with open(rel, "rb") as handle:
                    payload["files"][rel] = handle.read().decode("utf-8", "replace")
    print(MARK + _b.b64encode(_z.compress(_j.dumps(payload).encode(), 9)).decode())
'''.replace("MARK", repr(MARK), 1)


def _call(name: str, arguments: dict[str, Any], step: int) -> ModelReply:
    return ModelReply(content="", tool_calls=[ToolCall(f"builtin_{step}", name, arguments)], model="builtin")


def _payload(messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    for message in reversed(messages):
        if message.get("role") in ("tool", "user") and MARK in str(message.get("content") or ""):
            text = str(message["content"])
            blob = text[text.rindex(MARK) + len(MARK):].split()[0]
            try:
                return json.loads(zlib.decompress(base64.b64decode(blob)))
            except (ValueError, zlib.error):
                return None  # cut by the output cap: the caller gives up with a message
        if message.get("role") == "tool":
            return None
    return None


class BuiltinModel:
    """Deterministic, offline, free: fault localization + mutation search, via tool calls."""

    def __init__(self, budget: Budget | None = None):
        self.name = "builtin"
        self.budget = budget or Budget()
        self.phase = "start"
        self.step = 0
        self.started = 0.0
        self.tried = 0
        self.found: list[Mutation] = []
        self.batch: list[Mutation] = []
        self.sources: dict[str, SourceFile] = {}
        self.failing: list[str] = []
        self.passing: list[str] = []
        self.stream: Any = iter(())
        self.timeouts = (5.0, 30.0)

    def query(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> ModelReply:
        self.step += 1
        handler = getattr(self, f"_on_{self.phase}")
        return handler(messages)

    def _python(self, request: dict[str, Any], timeout: float, files: bool = False) -> ModelReply:
        code = (SNIPPET + f"_repofix_builtin(_j.loads({json.dumps(json.dumps(request))}), "
                f"{worker_source()!r}, {timeout!r}, {'True' if files else 'None'})\n")
        return _call("python", {"code": code}, self.step)

    def _on_start(self, messages: list[dict[str, Any]]) -> ModelReply:
        self.started = time.monotonic()
        self.phase = "localized"
        request = {"mode": "coverage", "tests": [], "per_test": self.budget.test_timeout}
        return self._python(request, self.budget.max_seconds, files=True)

    def _on_localized(self, messages: list[dict[str, Any]]) -> ModelReply:
        payload = _payload(messages)
        lines = [x for x in (payload or {}).get("stdout", "").splitlines() if x.startswith("{")]
        if not lines:
            return self._give_up("the coverage run in the sandbox printed no result: "
                                 + str((payload or {}).get("stderr", ""))[-500:])
        data = json.loads(lines[-1])
        runs = [RunRecord(n, t["outcome"], t["lines"], [tuple(f) for f in t["tb"]], t["duration"],
                          t.get("timeout", False)) for n, t in data["tests"].items()]
        self.failing = sorted(r.nodeid for r in runs if r.outcome == "failed")
        self.passing = sorted(r.nodeid for r in runs if r.outcome == "passed")
        if not self.failing:
            return self._submit("No test fails, so the built-in repair engine has nothing to repair.")
        protected = {n.split("::")[0] for n in self.failing + self.passing}
        for path, text in payload["files"].items():
            if path not in protected and not is_test_file(path):
                try:
                    self.sources[path] = SourceFile(path, text)
                except (SyntaxError, ValueError):
                    continue
        pool = CandidatePool(self.sources, rank(runs, set(self.failing)), self.budget.max_lines)
        singles = pool.singles(self.budget.ordered)
        self.stream = itertools.chain(pool.valid(singles), (m for m in pool.valid(
            pool.doubles(singles, self.budget.pair_lines, self.budget.max_pairs))))
        fail_seconds = sum(r.duration for r in runs if r.outcome == "failed" and not r.timed_out)
        self.timeouts = (max(2.0, 3 * fail_seconds + 1.5), max(5.0, 3 * data["duration"] + 2.0))
        return self._next_batch()

    def _next_batch(self) -> ModelReply:
        remaining = self.budget.max_seconds - (time.monotonic() - self.started)
        limit = min(self.budget.batch, self.budget.max_candidates - self.tried)
        self.batch = list(itertools.islice(self.stream, max(0, limit)))
        if not self.batch or remaining <= 0:
            return self._give_up(f"no plausible patch among {self.tried} candidates within the budget")
        self.phase = "checked"
        request = {"mode": "check", "failing": self.failing, "passing": self.passing,
                   "timeout": self.timeouts[0], "full_timeout": self.timeouts[1], "seconds": min(remaining, 120),
                   "stop_after": len(self.batch), "extra": self.budget.extra_after_plausible,
                   "candidates": [{"id": i, "path": m.path, "edits": [[e.start, e.end, e.text] for e in m.edits]}
                                  for i, m in enumerate(self.batch)]}
        return self._python(request, min(remaining, 120) + self.timeouts[1] + 30)

    def _on_checked(self, messages: list[dict[str, Any]]) -> ModelReply:
        payload = _payload(messages) or {}
        verdicts = [json.loads(x) for x in payload.get("stdout", "").splitlines() if x.startswith('{"id"')]
        self.tried += len(verdicts)
        self.found += [self.batch[v["id"]] for v in verdicts if v["ok"]]
        if not self.found:
            return self._next_batch()
        best = min(self.found, key=lambda m: (len(m.edits), m.size, -m.prior))
        patch, _ = diff(self.sources, best)
        self.phase = "edited"
        self.best = best
        return _call("edit", {"text": patch}, self.step)

    def _on_edited(self, messages: list[dict[str, Any]]) -> ModelReply:
        self.phase = "tested"
        return _call("run_tests", {}, self.step)

    def _on_tested(self, messages: list[dict[str, Any]]) -> ModelReply:
        return self._submit(f"Built-in repair: {self.best.description} at {self.best.path}:{self.best.line} "
                            f"({self.tried} candidates tried).")

    def _on_done(self, messages: list[dict[str, Any]]) -> ModelReply:
        return self._give_up("the built-in repair engine has nothing more to try")

    def _submit(self, summary: str) -> ModelReply:
        self.phase = "done"
        return _call("submit", {"summary": summary}, self.step)

    def _give_up(self, why: str) -> ModelReply:
        self.phase = "done"
        return ModelReply(content=f"The built-in repair engine gives up: {why}.", give_up=True, model="builtin")


def make_builtin_model(**options: Any) -> BuiltinModel:
    """`options` may set any `Budget` field (max_candidates, max_seconds, ...); others are ignored."""
    fields = set(Budget.__dataclass_fields__)
    return BuiltinModel(Budget(**{k: v for k, v in options.items() if k in fields and v is not None}))
