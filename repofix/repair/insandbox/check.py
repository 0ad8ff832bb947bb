"""Job `check`: try candidate patches in order; one JSON line per candidate on stdout."""

import itertools
import json
import os
import sys
import time

from repofix.repair.insandbox.children import (
    _apply,
    _count_body,
    _direct_body,
    _in_child,
    _patient,
    _pytest_body,
    _timed,
    _write,
)
from repofix.repair.insandbox.collect import _warm_up
from repofix.repair.insandbox.common import _deadline
from repofix.repair.insandbox.hot import _hot_turn, _HotServer
from repofix.repair.insandbox.ids import named_here


def run_check(req):
    out = sys.stdout
    failing, passing, also = req["failing"], req.get("passing", []), req.get("also", [])
    timeout, deadline = float(req["timeout"]), _deadline(req)
    full_timeout = float(req.get("full_timeout", timeout))
    # stop at the `stop_after`-th plausible candidate, or `extra` candidates after the first one
    # (a "fallback" candidate, one that only removes code, does not count)
    stop_after, extra_left = req.get("stop_after", 1), req.get("extra", 0)
    # while only fallback candidates passed: at most this many more (None: no limit)
    fallback_left, fallbacks = req.get("fallback"), 0
    slower = float(req.get("slower", 0))  # reject a patch whose passing tests run this many times slower
    # retry=False: a timeout counts at once (the host tries those candidates again at the end, so
    # candidates that loop forever do not each cost two timeouts while others wait), and the failing
    # tests' limit tightens to what candidates take here: a mutation that loops forever cost the
    # whole `timeout` (2 s or more) where most candidates take a tenth of a second
    retry = req.get("retry", True)
    patient = _patient if retry else lambda body, limit: _in_child(body, limit())
    expect = float(req.get("expect", 0))  # what a fixed program may need
    took_here, took_hot = [], []  # seconds of the candidates rejected here (by the usual run, hot)
    plain, complete = _warm_up(failing)
    named = None  # {id: as this worker's pytest names it}, once read (ids.py)
    if not complete:  # a failing test's id is another interpreter's: read them all here
        failing, passing, named = named_here(failing, passing)
    hot = _HotServer(failing, plain, deadline) if req.get("hot", True) else None  # see hot.py
    originals = {}
    found = 0
    reference = None  # seconds the passing tests take on the original, measured once when first needed
    stamps = itertools.count(10)  # every written candidate gets a fresh mtime: stale bytecode can never match

    def left(limit):  # no child outlives the deadline: the time budget holds
        return max(0.05, min(limit, deadline - time.time()))

    def passing_run(tests):
        """(ok, reason, seconds) of `tests`; run again with this worker's own ids when pytest
        found not every one (a name the coverage run's interpreter gave, see ids.py)."""
        nonlocal failing, passing, named
        for _ in range(2):
            if named is not None:
                tests = [t for t in dict.fromkeys(named.get(t, t) for t in tests) if t and t not in failing]
            if not tests:  # all of them run with the failing tests
                return True, "exit 0", 0.0
            ok, reason, took = _timed(_pytest_body(tests), left(full_timeout))
            if reason != "exit 4" or named is not None:
                break
            failing, passing, named = named_here(failing, passing)
        return ok, reason, took

    def failing_limit(took):  # `took`: the times of the way (hot or usual) this candidate goes
        recent = sorted(took[-31:])
        if retry or len(took_here) + len(took_hot) < 11 or len(recent) < 3:
            return left(timeout)
        return left(min(timeout, max(1.0, 4 * recent[len(recent) // 2] + expect + 0.5)))

    try:
        for number, cand in enumerate(req["candidates"], 1):
            if time.time() > deadline:
                out.write(json.dumps({"event": "deadline"}) + "\n")
                break
            path = cand["path"]
            if path not in originals:
                with open(path, "rb") as handle:
                    originals[path] = (handle.read(), os.stat(path).st_mtime)
                if hot:
                    hot.learn(path, originals[path][0])
            original, mtime = originals[path]
            _write(path, _apply(original, cand["edits"]), mtime + next(stamps))
            start = time.time()
            ok, reason, extra = True, "exit 0", {}
            turn = hot and _hot_turn(number, took_hot, took_here)
            judged = hot.verdict(path, cand["edits"], failing_limit(took_hot)) if turn else None
            # only a hot rejection decides; with `retry`, a timeout is tried once more the usual way
            stalled = judged is not None and judged[1] == "timeout"
            if judged is not None and not judged[0] and not (retry and stalled):
                (ok, reason), extra["hot"] = judged, True
                if reason != "timeout":
                    took_hot.append(time.time() - start)
            else:
                run = (lambda body, limit: _in_child(body, limit())) if stalled else patient
                if plain:
                    ok, reason = run(_direct_body(plain), lambda: failing_limit(took_here))
                if ok:
                    ok, reason = run(_pytest_body(failing), lambda: failing_limit(took_here))
                if reason != "timeout":
                    took_here.append(time.time() - start)
            stage = "failing"
            if ok and passing and cand.get("first"):
                # the passing tests that ran the mutated lines first: they are the likeliest to
                # break, and a large suite is not run to its end to find out
                stage = "passing"
                ok, reason, _ = passing_run(cand["first"])
            if ok and passing:
                stage = "passing"
                ok, reason, took = passing_run(passing)
                if ok and slower:
                    # a busy machine makes single timings noisy: a patch that looks slower is timed
                    # again, and so is the unpatched program, and the faster of each run counts
                    for _ in range(2):
                        if reference is not None and took <= slower * reference + 0.5:
                            break
                        _write(path, original, mtime)
                        again = _timed(_pytest_body(passing), left(full_timeout))[2]
                        reference = again if reference is None else min(reference, again)
                        _write(path, _apply(original, cand["edits"]), mtime + next(stamps))
                        if took > slower * reference + 0.5:
                            took = min(took, _timed(_pytest_body(passing), left(full_timeout))[2])
                    if took > slower * reference + 0.5:
                        ok, reason = False, f"passing tests {took:.2f} s against {reference:.2f} s unpatched"
            if ok and also:
                _, code = _in_child(_count_body(also), left(full_timeout))
                extra["also"] = max(0, int(code.split()[-1]) - 100) if code.startswith("exit") else 0
            _write(path, original, mtime)
            out.write(
                json.dumps(
                    dict(
                        {
                            "id": cand["id"],
                            "ok": ok,
                            "stage": stage,
                            "reason": reason,
                            "seconds": round(time.time() - start, 4),
                        },
                        **extra,
                    )
                )
                + "\n"
            )
            out.flush()
            if ok and cand.get("fallback"):  # a patch that only removes code does not end the search
                fallbacks += 1
            elif ok:
                found += 1
            if found and (found >= stop_after or extra_left <= 0):
                break
            if not found and fallbacks and fallback_left is not None:
                if fallback_left <= 0:
                    break
                fallback_left -= 1
            if found:
                extra_left -= 1
    finally:
        if hot:
            hot.close()
        for path, (original, mtime) in originals.items():
            _write(path, original, mtime)
