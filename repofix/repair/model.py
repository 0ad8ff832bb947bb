"""`--model builtin`: the repair engine speaking the agent's action protocol.

It never touches the sandbox itself. Like an LLM it only asks for actions and reads what comes
back, so the loop's checkpoints, guards, trajectory and delivery are exactly the LLM path's:

1. `python`: run the coverage worker in the sandbox; the observation carries (compressed) the
   per-test spectra and the suspicious source files;
2. `python`: try a batch of candidates with the check worker (repeated while the budget lasts);
3. `edit`: the smallest plausible patch as a unified diff (the loop checkpoints and tests it),
   unless it is not claimed for a reason doubt.unclaimed gives (it deletes an exit or only
   removes code; the tests cannot tell it from a patch that does otherwise, its rivals, sought as
   repair() seeks them: Budget.scout_after_plausible; one failing test cannot place it); that
   target is then given up, with why;
4. back to 1 while a target test still fails; then `submit`.

Only the task's target tests (`-k`, node ids: the goal the loop states) are repaired, one at a
time: each repair must make its one test pass and keep every passing test passing, so two
independent bugs are two repairs. When nothing works it gives up (`give_up`, with the reason), so
in a chain `builtin,<llm>` the LLM takes over."""

from __future__ import annotations

import dataclasses
import itertools
import json
import time
from typing import Any

from repofix.models.base import ModelReply
from repofix.repair.checker import candidate_list, differ_request, worker_source
from repofix.repair.doubt import compared, differential_due, doubts, rivals, unclaimed
from repofix.repair.engine import diff
from repofix.repair.limits import Budget, batch_size, give_up_reason, more_to_try, stuck_reason, until
from repofix.repair.localize import RunRecord, internal_error, records
from repofix.repair.protocol import SNIPPET, marked_payload, read_goal, tool_call
from repofix.repair.replies import Differences, MalformedReply, differences, verdict_items
from repofix.repair.search import best
from repofix.repair.source import UNPARSABLE, Mutation, SourceFile
from repofix.repair.target import TargetSearch, search_for
from repofix.testfiles import is_test_file


class BuiltinModel:
    """Deterministic, offline, free: fault localization + mutation search, via tool calls."""

    def __init__(self, budget: Budget | None = None, until: float | None = None):
        self.name = "builtin"
        self.budget = budget or Budget()
        self.until = until  # the run's own deadline (`time.monotonic()`), when it has one
        self.phase = "start"
        self.step = 0
        self.started = 0.0
        self.tried = 0  # candidates run against the tests, all repairs together
        self.targets: list[str] = []  # empty: every failing test is a target
        self.stuck: dict[str, str] = {}  # target -> why no repair was found for it
        self.repaired: list[str] = []  # one line per delivered edit
        self.runs: list[RunRecord] = []
        self.sources: dict[str, SourceFile] = {}
        self.tests: dict[str, str] = {}  # the test files' texts (what exceptions a test expects)
        self.queue: list[str] = []  # failing targets not yet worked on
        self.passing: list[str] = []
        self.search: TargetSearch | None = None  # the target worked on now
        self.differed: list[Mutation] = []  # the patches the differential check compares
        self.run_seconds = 0.0
        self.why = ""  # the reason it gave up, repeated if asked again

    def query(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> ModelReply:
        self.step += 1
        handler = getattr(self, f"_on_{self.phase}")
        return handler(messages)

    def _python(self, request: dict[str, Any], timeout: float) -> ModelReply:
        code = (
            SNIPPET + f"_repofix_builtin(_j.loads({json.dumps(json.dumps(request))}), "
            f"{worker_source()!r}, {timeout!r})\n"
        )
        return tool_call("python", {"code": code}, self.step)

    def _left(self) -> float:
        return self.budget.max_seconds - (time.monotonic() - self.started)

    def _on_start(self, messages: list[dict[str, Any]]) -> ModelReply:
        self.started = time.monotonic()
        if self.until is not None:  # a run's --timeout below the engine's budget is the budget
            left = max(1.0, self.until - self.started)
            self.budget = dataclasses.replace(self.budget, max_seconds=min(self.budget.max_seconds, left))
        kind, self.targets = read_goal(messages)
        if kind == "red":
            return self._give_up(
                "the built-in repair engine cannot write the regression test this task needs "
                "first; name failing tests instead, or use an LLM"
            )
        return self._coverage()

    def _coverage(self) -> ModelReply:
        self.phase = "localized"
        request = {
            "mode": "coverage",
            "tests": [],
            "per_test": self.budget.test_timeout,
            "seconds": max(1.0, self._left()),
            "until": time.time() + max(1.0, self._left()),
            "trim": True,  # passing tests keep only the lines failing tests ran
            "sources": True,  # the files those lines are in: the model reads no other way
        }
        return self._python(request, max(1.0, self._left()) + 30)

    def _on_localized(self, messages: list[dict[str, Any]]) -> ModelReply:
        payload = marked_payload(messages) or {}
        lines = [x for x in payload.get("stdout", "").splitlines() if x.startswith("{")]
        if not lines:
            return self._give_up(
                "the coverage run in the sandbox printed no result: " + str(payload.get("stderr", ""))[-500:]
            )
        try:
            data = json.loads(lines[-1])
            self.runs = records(data.get("tests") if isinstance(data, dict) else None)
            self.run_seconds = float(data["duration"])
            sources = data.get("sources")
            if not isinstance(sources, dict) or not all(isinstance(t, str) for t in sources.values()):
                raise ValueError("its sources are not file texts")
        except (KeyError, TypeError, ValueError) as error:
            return self._give_up(f"the coverage run in the sandbox printed a malformed result: {error}")
        if stopped := internal_error(data.get("exit_code"), self.runs, []):
            return self._give_up(stopped)
        # in the suite's own order (engine.baseline says why)
        failed = list(dict.fromkeys(r.nodeid for r in self.runs if r.outcome == "failed"))
        wanted = set(self.targets)
        failing = [n for n in failed if not wanted or n in wanted]
        if self.search and self.search.focus in failing:  # the delivered edit did not hold in this run
            self.stuck.setdefault(self.search.focus, "its repair did not hold when the tests ran again")
        self.passing = list(dict.fromkeys(r.nodeid for r in self.runs if r.outcome == "passed"))
        protected = {n.split("::")[0] for n in failed + self.passing}
        self.sources, self.tests = {}, {}
        for path, text in sources.items():
            if path in protected or is_test_file(path):
                self.tests[path] = text  # read, never mutated: what exceptions a test expects
                continue
            try:
                self.sources[path] = SourceFile(path, text)
            except UNPARSABLE:
                continue
        self.queue = [n for n in failing if n not in self.stuck]
        if not failing:
            done = "; ".join(self.repaired) or "no target test fails, so there is nothing to repair"
            return self._submit(f"Built-in repair: {done} ({self.tried} candidates tried).")
        return self._next_focus()

    def _next_focus(self) -> ModelReply:
        """Work on the next failing target alone, with a fair share of the time that is left; one
        that gets no candidate to try is left stuck, and the next is taken (in a loop: a thousand
        failing targets must not take a call each on the stack)."""
        while self.queue:
            if self._left() <= 0:  # no time for any: no candidates are made for the rest
                for target in self.queue:
                    self.stuck[target] = (
                        f"not tried: the time budget ({self.budget.max_seconds:.0f} s) ran out first"
                    )
                self.queue = []
                break
            focus = self.queue.pop(0)
            self.search = search_for(
                focus, self.targets, self.runs, self.sources, self.tests, self.budget, self.passing,
                self.run_seconds, self._left(), len(self.queue),
            )  # fmt: skip
            reply = self._next_batch()
            if reply is not None:
                return reply
        return self._give_up(self._reason())

    def _next_batch(self) -> ModelReply | None:
        """The next batch of the focused target's candidates to check; None when it has none left
        (it is then stuck, with the reason)."""
        search = self._searching()
        remaining = search.for_candidates(self._left())
        allowed = min(batch_size(self.budget, search.calls), self.budget.max_candidates - self.tried)
        limit = more_to_try(search.found, search.extra_left(), search.fallback_left, allowed)
        taken = until(search.stream, time.monotonic() + remaining)
        search.batch = list(itertools.islice(taken, max(0, limit))) if remaining > 0 else []
        remaining = search.for_candidates(self._left())  # making the batch took time too
        if remaining <= 0:
            search.batch = []
        if not search.batch and search.found:  # only patches that remove code passed: the best of them
            return self._compare()
        if not search.batch:
            pool = search.pool
            lines = sum(len(v) for v in pool.lines.values()) if pool else 0
            # a share smaller than the time left ran out, not the whole budget: say which
            share = search.share if self._left() > 0 and search.split > 1 else None
            cut = pool.deadline.cut if pool else ""
            why = give_up_reason(search.tried, lines, remaining <= 0, self.budget.max_seconds, share, cut)
            if self.tried >= self.budget.max_candidates:
                why += f"; the candidate limit ({self.budget.max_candidates}) was reached"
            self.stuck[search.focus] = why
            return None
        self.phase = "checked"
        search.calls += 1
        seconds = min(remaining, 120)
        return self._python(search.check_request(seconds), seconds + search.timeouts[1] + 30)

    def _searching(self) -> TargetSearch:
        assert self.search is not None, "a target is worked on only once its search has started"
        return self.search

    def _on_checked(self, messages: list[dict[str, Any]]) -> ModelReply:
        payload = marked_payload(messages) or {}
        search = self._searching()
        stdout = str(payload.get("stdout", ""))
        try:
            verdicts = verdict_items(stdout, len(search.batch))
        except MalformedReply as error:
            return self._stuck_with(str(error))
        if not verdicts and search.batch and payload.get("code") and "deadline" not in stdout:
            # it failed before checking any (as the engine's Checker.check says): not "no patch found"
            said = [line for line in str(payload.get("stderr", "")).splitlines() if line.strip()]
            return self._stuck_with(
                f"the repair worker checked no candidate: {(said or ['no error'])[-1][-300:]}"
            )
        self.tried += len(verdicts)
        if search.take(verdicts):
            return self._next_batch() or self._next_focus()
        return self._compare()

    def _compare(self) -> ModelReply:
        search = self._searching()
        search.weigh()
        remaining = self._left()
        if not differential_due(self.budget, self.passing, remaining, search.timeouts[1]):
            return self._deliver(Differences())
        # the differential check, as repair() runs it: what the passing tests' calls return, and
        # what each patch's calls did on the target and the passing tests
        self.phase = "differed"
        request = differ_request(self.passing, search.timeouts[1], remaining, [search.focus])
        scores = search.pool.scores if search.pool else {}
        self.differed = compared(search.choices, search.found, scores, search.also)
        request["candidates"] = candidate_list(self.differed)
        return self._python(request, remaining + search.timeouts[1] + 30)

    def _on_differed(self, messages: list[dict[str, Any]]) -> ModelReply:
        payload = marked_payload(messages) or {}
        try:
            return self._deliver(differences(payload.get("stdout", ""), self.differed))
        except MalformedReply as error:
            return self._stuck_with(str(error))

    def _stuck_with(self, reason: str) -> ModelReply:
        """The worker failed or its output held a line it does not write (the project's code can):
        the target is given up with that reason, and nothing it said is used."""
        self.stuck[self._searching().focus] = reason
        return self._next_focus()

    def _deliver(self, differ: Differences) -> ModelReply:
        search = self._searching()
        changed = differ.changed
        chosen = best(search.choices, search.pool.scores if search.pool else {}, search.also, changed)
        others = rivals(chosen, differ, self.sources)
        # a patch not claimed is given as the reason, not applied (a chain's next model takes over)
        why = unclaimed(
            chosen,
            others,
            self.runs,
            self.passing,
            backing=1 + search.also.get(chosen, 0),  # the focus and the other failing tests it fixes
            found=search.found,
            changed=changed,
            withhold_ambiguous=self.budget.withhold_ambiguous,
        )
        if why:
            self.stuck[search.focus] = why
            return self._next_focus()
        patch, _ = diff(self.sources, chosen)
        fixed_too = search.also.get(chosen, 0)
        doubtful = doubts(chosen, search.found, changed.get(chosen, []), others)
        self.repaired.append(
            f"{chosen.description} at {chosen.path}:{chosen.line} for {search.focus}"
            + (f" (fixes {fixed_too} more failing test(s) too)" if fixed_too else "")
            + (f" (doubtful: {'; '.join(doubtful)})" if doubtful else "")
        )
        self.phase = "edited"
        # the account goes with the edit, shown as the run goes: a run this edit makes done ends
        # before any submit could say the patch's doubts
        edit = tool_call("edit", {"text": patch}, self.step)
        edit.notes = [f"built-in repair: {self.repaired[-1]}"]
        return edit

    def _on_edited(self, messages: list[dict[str, Any]]) -> ModelReply:
        # the loop checkpointed and tested the edit (and stopped if the task is done); see what is left
        return self._coverage()

    def _on_done(self, messages: list[dict[str, Any]]) -> ModelReply:
        # asked again (a submission refused, or a loop that did not stop): the same true reason
        return self._give_up(self.why or "the built-in repair engine has nothing more to try")

    def _reason(self) -> str:
        return stuck_reason(self.stuck, self.repaired)

    def _submit(self, summary: str) -> ModelReply:
        self.phase = "done"
        return tool_call("submit", {"summary": summary}, self.step)

    def _give_up(self, why: str) -> ModelReply:
        self.phase, self.why = "done", why
        return ModelReply(content=f"gave up: {why} (built-in repair engine)", give_up=True, model="builtin")


def make_builtin_model(until: float | None = None, **options: Any) -> BuiltinModel:
    """`options` may set any `Budget` field (max_candidates, max_seconds, ...); others are ignored.
    `until`: the run's deadline (`time.monotonic()`); the engine's time budget ends by it."""
    fields = set(Budget.__dataclass_fields__)
    budget = Budget(**{k: v for k, v in options.items() if k in fields and v is not None})
    return BuiltinModel(budget, until)
