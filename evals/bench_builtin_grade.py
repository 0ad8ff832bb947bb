"""Grading a held-aside patch against the fixed program (the project as released), for
bench_builtin_heldout.py and bench_builtin_regrade.py.

A plausible patch (the project's whole suite passes) is right when the suite's calls into the
changed files behave as in the fixed program: the same arguments, return values and exceptions
(type and message), compared as a multiset per function. Exceptions count: `raise int("bad
value")` passes a test that expects a `ValueError` as the fixed `raise ValueError("bad value")`
does, but it is not that program. A function whose calls differ between three runs of the fixed
program (a clock, a random draw, an id) is compared only on the records all three share (its
message, a call with the same arguments), rather than the whole task being left out; the patched
program runs between the first two, so a clock printed to the second that ticks then is noise
there too. A patch that changes such a function and keeps its shared records is "fixed
(unverified)"; any other difference makes it "plausible but wrong". A `GeneratorExit` (a generator
closed early) is not compared: when it is thrown depends on the garbage collector.
Every tree is traced at one path, since a repr that holds a path (a fixture's file, a module's
`__file__`) would tell two folders apart."""

from __future__ import annotations

import ast
import json
import shutil
import tempfile
from collections import Counter
from pathlib import Path

from bench_builtin_bugs import Bug, failing_tests, fetch, plant, project_tree

TRACER = r"""
import collections, hashlib, json, os, re, sys, threading
FILES = tuple(os.environ["DIFFTRACE_FILES"].split(","))
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
records = collections.defaultdict(collections.Counter)  # function -> multiset of record hashes
def _repr(value):
    try:
        text = repr(value)
    except Exception as error:
        text = "<repr failed: %s>" % type(error).__name__
    return ADDRESS.sub("", text[:300])
def _note(code, record):
    records[code.co_name][hashlib.sha1(record.encode()).hexdigest()] += 1
def _local(frame, event, arg):
    if event == "exception" and arg[0] is not GeneratorExit:  # raised here, or on its way out
        _note(frame.f_code, "E %s %s" % (arg[0].__name__, _repr(arg[1])))
    elif event == "return":
        _note(frame.f_code, "R %s" % _repr(arg))
    return _local
def _trace(frame, event, arg):
    code = frame.f_code
    if event != "call" or not code.co_filename.endswith(FILES):
        return None
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    _note(code, "C %s" % [_repr(frame.f_locals.get(n)) for n in names])
    frame.f_trace_lines = False  # calls, returns and exceptions only
    return _local
def pytest_configure(config):
    sys.settrace(_trace)
    threading.settrace(_trace)
def pytest_unconfigure(config):
    sys.settrace(None)
    with open(os.environ["DIFFTRACE_OUT"], "w") as handle:
        json.dump(records, handle)
"""

Trace = dict[str, dict[str, int]]  # function name -> record hash -> count


def traced(root: Path, files: list[str], tmp: Path) -> Trace:
    """Every call into `files` over the whole suite, per function, run where `tmp`'s sibling `site`
    is (every tree is traced at that one path)."""
    site, tracer = tmp.parent / "site", tmp.parent / "tracer"
    shutil.rmtree(tracer, ignore_errors=True)  # the tracer's folder is on sys.path: one path too
    root.rename(site)
    try:
        return _traced(site, files, tracer)
    finally:
        site.rename(root)


def _traced(root: Path, files: list[str], tmp: Path) -> Trace:
    tmp.mkdir()
    (tmp / "_difftrace.py").write_text(TRACER)
    env = {
        "PYTHONPATH": str(tmp),
        "DIFFTRACE_FILES": ",".join(files),
        "DIFFTRACE_OUT": str(tmp / "trace.json"),
    }
    failing_tests(root, env, ("-p", "_difftrace"), timeout=300)
    out = tmp / "trace.json"
    return json.loads(out.read_text()) if out.exists() else {}


def differing(one: Trace, other: Trace) -> set[str]:
    """The functions whose calls differ between two traces."""
    return {name for name in one.keys() | other.keys() if one.get(name) != other.get(name)}


def edited(before: str, after: str) -> set[str]:
    """The names of the functions whose code differs between two versions of a module (`<module>`
    for its top-level code): where a patch's own effect would show."""

    def parts(text: str) -> dict[str, list[str]]:
        tree, found = ast.parse(text), {}
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.setdefault(node.name, []).append(ast.dump(node))
        top = [
            n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        ]
        found["<module>"] = [ast.dump(n) for n in top]
        return found

    old, new = parts(before), parts(after)
    return {name for name in old.keys() | new.keys() if old.get(name) != new.get(name)}


def verdict(originals: list[Trace], patched: Trace, changed_code: set[str]) -> str:
    """The grade from traces of the fixed program (two or more runs) and one of the patched program,
    whose code differs in the functions `changed_code` names. A function whose calls differ
    between the fixed program's runs is compared only on the records every one of them has (a
    message, a call with the same arguments): the patched run must have those too."""
    first = originals[0]
    if not first:
        return "fixed (unverified)"  # the tracer wrote nothing: nothing to compare
    noisy = set().union(*(differing(first, other) for other in originals[1:]))
    if differing(first, patched) - noisy:
        return "plausible but wrong"
    for name in noisy:
        kept = [Counter(run.get(name, {})) for run in originals]
        stable = kept[0]
        for other in kept[1:]:
            stable &= other
        if stable - Counter(patched.get(name, {})):
            return "plausible but wrong"
    return "fixed (unverified)" if changed_code & noisy else "fixed"


def meaning(text: str) -> str:
    """A module's syntax tree without the `pass` statements beside others in a block: two texts with
    one meaning are one program. Tracing cannot tell so when a suite reads the project's own source
    (parso's tests parse parso's files): a `pass` left beside an added statement moves every later
    line, and each parsed name's position with it."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and len(block) > 1 and all(isinstance(s, ast.stmt) for s in block):
                kept = [s for s in block if not isinstance(s, ast.Pass)]
                setattr(node, field, kept or block[:1])
    return ast.dump(tree)


def grade_bug(bug: Bug, files: dict[str, str], cache: Path) -> str:
    with tempfile.TemporaryDirectory(prefix="heldout-grade-") as tmp:
        base = Path(tmp)
        patched = plant(bug, cache, base / "patched")
        for path, text in files.items():
            (patched / path).write_text(text)
        result = failing_tests(patched, timeout=300)
        if result is None or not set(result[0]) <= set(bug.known):
            return "plausible, fails suite"
        original = project_tree(fetch(bug.project, cache), base / "original")
        if all(meaning(text) == meaning((original / p).read_text()) for p, text in files.items()):
            return "fixed"
        names = sorted({bug.path, *files})
        # the patched run between runs of the fixed program: a clock printed to the second that
        # ticks during the patched run ticks between the fixed runs too, and is seen as noise
        first = traced(original, names, base / "t1")
        after = traced(patched, names, base / "t2")
        originals = [first, traced(original, names, base / "t3"), traced(original, names, base / "t4")]
        code = set().union(*(edited((original / p).read_text(), text) for p, text in files.items()))
        return verdict(originals, after, code)
