"""Job `differ`: a differential check of plausible patches against the original program. The
tests run on the original (twice when there are patches to compare, to find what varies between
runs, and twice more when those patches disagree) and once per patch under a call tracer on the
changed files; every call's arguments and return value are recorded. A patch that returns
something else for the same arguments changed behaviour the passing tests exercise without
checking it (their asserts still pass): the tests generated from the original's behaviour on their
inputs fail.

The failing tests are traced too, apart, and each patch gets a digest per function of everything
its calls did in both (`behaviour`): two plausible patches with different digests do different
things on the suite's own inputs, so the tests cannot tell which is right. Functions whose calls
differ between two runs of the original (a clock, a random draw, an id) are left out of the digests.
The runs are children forked from one process, so they allocate alike: the second allocates
otherwise (`shifted`), or what follows memory addresses (the order of a set of objects hashed by
identity, and of a list built from it) would look like behaviour, and a patch, whose code allocates
otherwise, would seem to change it. Where patches disagree, two more such runs of the original tell
the noise among their differences (`_more_noise`), then one more run of the first patch what varies
in functions the original never called (past where it failed: a uuid a failing test names a file
by), and the last line always says which (the engine
reads that one line, last, and no other: replies.noise_items). The calls whose returns a patch
changes (`changed`) leave out the first two runs' noise only. A set or frozenset passed or returned
is compared with its items sorted (not one inside another value). Every run draws the same random
numbers and temporary file names (`_same_draws`) and has the same pytest temporary folder."""

import hashlib
import json
import os
import sys
import tempfile
import time

from repofix.repair.insandbox.alike_runs import _remove, _same_draws, _shift_heap
from repofix.repair.insandbox.children import _apply, _AsBaseline, _in_child, _write
from repofix.repair.insandbox.collect import _warm_up
from repofix.repair.insandbox.common import PYTEST_ARGS, _deadline
from repofix.repair.insandbox.ids import _function, named_here
from repofix.repair.insandbox.traced_values import _alike, _short


def _traced_body(tests, failing, files, out, shifted=0, basetemp=None):
    """Run `tests` under pytest with a profiler on `files`; into `out`: "calls", {"passing":
    {"name(args)": [returns...]}, "failing": {...}} (the calls made in a test of `failing` kept
    apart; `self` left out), and "events", per phase and function a digest of the multiset of its
    calls and returns with `self` in the arguments (what `_behaviour` compares: there every call
    counts, and a method's receiver too). `files` are paths from the project's root (the working
    folder); a file is traced when it is one of them, wherever the interpreter's path names it
    from (`nodes.py` is neither `test_nodes.py` nor pytest's own `_pytest/nodes.py`).
    `shifted` (1, 2, ...; 0: not): the run allocates otherwise, each number in its own way
    (`_shift_heap`, and objects made as it runs). `basetemp`: pytest's temporary folder, the same in
    every run of one check (see run_differ)."""
    root = os.getcwd()
    wanted = {os.path.realpath(path) for path in files}
    ours = {}  # a code object's file name -> whether it is one of `files`

    def traced(name):
        """Whether code of file `name` is traced: it is one of `files` (a relative name is read from
        the project's root, wherever a test has moved to; `<string>` and the like are none)."""
        if name.startswith("<"):
            return False
        try:
            return os.path.realpath(os.path.join(root, name)) in wanted
        except (OSError, ValueError):  # a name the file system cannot resolve is none of the files
            return False

    def body():
        import collections
        import itertools

        import pytest

        _kept = _shift_heap(2 * shifted - 1) if shifted else None  # alive until the run ends
        # in a shifted run, at each traced call one more object is kept, of a size that varies, in
        # place of one kept 4,096 calls before: a patch allocates otherwise while the program runs,
        # not only before it, and this spreads what the run allocates as such a patch would
        stirred, sizes = collections.deque(maxlen=4096), itertools.cycle(range(0, 240 + 16 * shifted, 8))

        calls, seen, now = {"passing": {}, "failing": {}}, {}, ["passing"]
        events = {
            "passing": collections.defaultdict(collections.Counter),
            "failing": collections.defaultdict(collections.Counter),
        }

        class Tagger:
            def pytest_runtest_logstart(self, nodeid, location):
                now[0] = "failing" if nodeid in failing or _function(nodeid) in failing else "passing"

        def profile(frame, event, arg):
            code = frame.f_code
            name = code.co_filename
            if event not in ("call", "return"):
                return
            if (ours_now := ours.get(name)) is None:
                ours_now = ours[name] = traced(name)
            if not ours_now:
                return
            if event == "call":
                if shifted:
                    stirred.append(bytes(next(sizes)))
                names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
                values = [(n, v, _short(v)) for n, v in ((n, frame.f_locals.get(n)) for n in names)]
                shown = [text for n, v, text in values if n not in ("self", "cls")]
                seen[id(frame)] = "%s(%s)" % (code.co_name, ", ".join(shown))
                alike = [_alike(v, text) for n, v, text in values]
                events[now[0]][code.co_name][hash("C%r" % (alike,))] += 1
            elif id(frame) in seen:
                returns, text = calls[now[0]].setdefault(seen.pop(id(frame)), []), _short(arg)
                if len(returns) < 4:
                    returns.append(text)
                events[now[0]][code.co_name][hash("R" + _alike(arg, text))] += 1

        where = ["--basetemp", basetemp] if basetemp else []
        _same_draws()
        sys.setprofile(profile)
        try:
            pytest.main(PYTEST_ARGS + where + list(tests), plugins=[Tagger(), _AsBaseline()])
        finally:
            sys.setprofile(None)
        digests = {
            phase: {name: _digest(sorted(counts.items())) for name, counts in per_name.items()}
            for phase, per_name in events.items()
        }
        with open(out, "w") as handle:
            json.dump({"calls": calls, "events": digests}, handle)
        return 0

    return body


def _trace(tests, failing, files, limit, shifted=0, basetemp=None):
    handle, out = tempfile.mkstemp(suffix=".json")
    os.close(handle)
    try:
        ok, _ = _in_child(_traced_body(tests, failing, files, out, shifted, basetemp), limit)
        with open(out) as stream:
            return json.load(stream) if ok else None
    except ValueError:
        return None
    finally:
        os.unlink(out)


def _changed(original, patched, noisy=()):
    """Calls made with the same arguments on both whose (single, deterministic) return differs;
    not those of a function whose calls differ between two runs of the original (`noisy`)."""
    return sorted(
        "%s returned %s, now %s" % (call, returns[0], patched[call][0])
        for call, returns in original.items()
        if len(set(returns)) == 1
        and call in patched
        and set(patched[call]) != set(returns)
        and ("passing", _name(call)) not in noisy
    )


def _name(call):
    return call.split("(", 1)[0]


def _digest(value):
    return hashlib.sha1(json.dumps(value).encode()).hexdigest()[:16]


def _noisy(first, again):
    """(phase, function) pairs whose calls differ between two runs of the same program."""
    one, two = first["events"], again["events"]
    return {
        (phase, name)
        for phase in ("passing", "failing")
        for name in set(one[phase]) | set(two[phase])
        if one[phase].get(name) != two[phase].get(name)
    }


def _behaviour(trace, noisy):
    """Per phase and function ("passing name"), a digest of every call and return the tests made
    into it, noise left out: kept apart, so that the calls of a function a patch adds can be told
    from what its callers saw (doubt.rivals)."""
    events = trace["events"]
    return {
        "%s %s" % (phase, name): digest
        for phase in ("passing", "failing")
        for name, digest in events[phase].items()
        if (phase, name) not in noisy
    }


def _unlike(patched, original):
    """The digests of a patch that differ from the original program's ("" for a function no longer
    called): only those are sent, as a module of hundreds of functions would make each patch's line
    too long for the output cap; a function left out did on the tests what the original did."""
    return {
        key: patched.get(key, "")
        for key in patched.keys() | original.keys()
        if patched.get(key) != original.get(key)
    }


def _more_noise(disputed, reference, tests, failing, files, left, each, basetemp, runs=2):
    """Of the functions on which patches behaved otherwise than one another (`disputed`), those
    whose calls differ in further runs of the original, each allocating otherwise and given `each`
    seconds (twice the reference run's and a second; none starts that could not end in time). Noise
    with two outcomes (the order of a set of two objects hashed by identity) meets a patch's run as
    it meets any run: the first shifted run finds it about half the time, and these two, when it
    did not, about 3 times in 4. Such differences are no rivals."""
    found = set()
    for pattern in range(2, 2 + runs):
        if left() < each:
            break
        again = _trace(tests, failing, files, each, shifted=pattern, basetemp=basetemp)
        if again is None:
            break
        found |= {"%s %s" % pair for pair in _noisy(reference, again)} & disputed
    return sorted(found)


def run_differ(req):
    out = sys.stdout
    failing, passing = req.get("failing", []), req["passing"]
    tests, deadline = list(dict.fromkeys(failing + passing)), _deadline(req)
    files = tuple(sorted({c["path"] for c in req["candidates"]}))
    if not _warm_up(tests)[1]:  # ids the coverage run's interpreter named otherwise (ids.py)
        failing, passing, _ = named_here(failing, passing)
        tests = failing + passing

    def left():
        return max(0.05, min(float(req["timeout"]), deadline - time.time()))

    originals = {}
    for path in files:
        with open(path, "rb") as handle:
            originals[path] = (handle.read(), os.stat(path).st_mtime)
    # one temporary folder for every run, which pytest empties as each starts: a test's `tmp_path`
    # is then the same path in each, not pytest-1/ in one and pytest-2/ in the next, and a file
    # object's repr does not tell two patches apart (dataprint's `<_io.TextIOWrapper name='.../
    # pytest-7/test_existing0/exist.file'>`, passed in the failing tests, which the original's
    # runs, failing earlier, never showed as noise: heldout57)
    basetemp = tempfile.mkdtemp(prefix="repofix-differ-")
    try:
        failing = set(failing)
        started = time.time()
        reference = _trace(tests, failing, files, left(), basetemp=basetemp)
        each = 2 * (time.time() - started) + 1.0  # what a further run of the original may take
        noisy = set()
        if reference is not None and len(req["candidates"]) > 1:  # digests to compare: what is noise?
            again = _trace(tests, failing, files, left(), shifted=1, basetemp=basetemp)
            # no second run, no way to tell noise from behaviour: no digests are sent (None)
            noisy = _noisy(reference, again) if again is not None else None
        as_original = _behaviour(reference, noisy or ()) if reference is not None else {}
        sent = []  # the digests sent, per patch
        first_traced = []  # the first patch and its trace, to run again where patches disagree
        for number, cand in enumerate(req["candidates"]):
            if reference is None or time.time() > deadline:
                break
            original, mtime = originals[cand["path"]]
            _write(cand["path"], _apply(original, cand["edits"]), mtime + 10 + number)
            patched = _trace(tests, failing, files, left(), basetemp=basetemp)
            _write(cand["path"], original, mtime)
            if patched is None:
                continue
            changed = _changed(reference["calls"]["passing"], patched["calls"]["passing"], noisy or ())
            item = {"id": cand["id"], "changed": len(changed), "example": changed[:1]}
            if noisy is not None:
                item["behaviour"] = _unlike(_behaviour(patched, noisy), as_original)
                sent.append(item["behaviour"])
                first_traced = first_traced or [(number, cand, patched)]
            out.write(json.dumps(item) + "\n")
            out.flush()
        keys = set().union(*sent)  # a function a patch's line leaves out did as the original did
        disputed = {key for key in keys if len({b.get(key, as_original.get(key)) for b in sent}) > 1}
        noise = (
            _more_noise(disputed, reference, tests, failing, files, left, each, basetemp) if disputed else []
        )
        if disputed - set(noise) and left() >= each:
            number, cand, first = first_traced[0]
            original, mtime = originals[cand["path"]]
            _write(cand["path"], _apply(original, cand["edits"]), mtime + 10 + number)
            again = _trace(tests, failing, files, each, shifted=1, basetemp=basetemp)
            _write(cand["path"], original, mtime)
            if again is not None:  # of the calls the original never made: its runs told the rest
                unseen = {
                    pair for pair in _noisy(first, again) if pair[1] not in reference["events"][pair[0]]
                }
                noise = sorted(set(noise) | {"%s %s" % pair for pair in unseen} & disputed)
        out.write(json.dumps({"noisy": noise}) + "\n")  # always, and last: the engine reads no other
        out.flush()
    finally:
        for path, (original, mtime) in originals.items():
            _write(path, original, mtime)
        _remove(basetemp)
