"""The coverage run's two line tracers (insandbox/fastlines.py): coverage.py's C tracer where the
sandbox has it, sys.settrace where not. They must give every test the same lines, the first line of
each function it called included: localization must not depend on which one ran."""

from __future__ import annotations

from pathlib import Path

import pytest

from repofix.repair.checker import Checker
from repofix.repair.insandbox.fastlines import _first_lines
from tests.conftest import backend_params

PROGRAM = """\
import functools
import threading


def logged(function):
    @functools.wraps(function)
    def wrapper(*args):
        return function(*args)

    return wrapper


@logged
@functools.lru_cache(maxsize=None)
def square(x):
    return x * x


def evens(limit):
    for n in range(limit):
        if n % 2 == 0:
            yield n


def scaled(values, factor):
    def times(v):
        return v * factor

    return [times(v) for v in values]


def in_thread(x):
    out = []
    worker = threading.Thread(target=lambda: out.append(square(x)))
    worker.start()
    worker.join()
    return out[0]


class Counter:
    def __init__(self):
        self.count = 0

    def bump(self, by=1):
        if by < 0:
            raise ValueError(by)
        self.count += by
        return self.count


def make_kind(name):
    class Kind:
        label = name.upper()

        def shout(self):
            return self.label + "!"

    return Kind()
"""

# each test but the last fails: a failing test's lines are kept whole (a passing one's only where
# a failing one ran)
TESTS = """\
import sys

from shapes import Counter, evens, in_thread, make_kind, scaled, square


def test_square():
    assert square(3) == 10


def test_evens():
    assert list(evens(5)) == [0, 2, 4, 5]


def test_scaled():
    assert scaled([1, 2], 3) == [3, 7]


def test_thread():
    assert in_thread(4) == 17


def test_counter():
    counter = Counter()
    counter.bump()
    assert counter.bump(2) == 4


def test_kind():
    assert make_kind("dog").shout() == "DOG?"


def test_tracer_is_coverages():
    # which tracer ran this test: coverage.py's C tracer is an object of its own type
    assert type(sys.gettrace()).__name__ == "CTracer"
"""


@pytest.mark.parametrize("backend", backend_params())
def test_both_tracers_give_every_test_the_same_lines(backend: str, make_sandbox, tmp_path: Path) -> None:
    tmp_path = tmp_path / "shapes"
    tmp_path.mkdir()
    (tmp_path / "shapes.py").write_text(PROGRAM)
    (tmp_path / "test_shapes.py").write_text(TESTS)
    sandbox = make_sandbox(backend, source=tmp_path)
    checker = Checker(sandbox)
    by_tracer = {}
    for tracer in ("fast", "python"):
        runs, _ = checker.coverage([], timeout=120, per_test=30, tracer=tracer)
        by_tracer[tracer] = {r.nodeid: r for r in runs}
    fast, python = by_tracer["fast"], by_tracer["python"]
    # the fast run did run under coverage.py's C tracer, the other under sys.settrace
    assert fast["test_shapes.py::test_tracer_is_coverages"].outcome == "passed"
    assert python["test_shapes.py::test_tracer_is_coverages"].outcome == "failed"
    assert all(
        run.outcome == "failed" for nodeid, run in {**fast, **python}.items() if "tracer" not in nodeid
    )
    assert set(fast) == set(python) and len(fast) == 7
    for nodeid, run in python.items():
        if nodeid.endswith("test_tracer_is_coverages"):
            continue  # its own assertion fails one way: the line after it runs under one tracer only
        assert {p: sorted(ls) for p, ls in fast[nodeid].lines.items()} == {
            p: sorted(ls) for p, ls in run.lines.items()
        }, nodeid
    lines = fast["test_shapes.py::test_thread"].lines["shapes.py"]
    assert {32, 34, 16} <= set(lines)  # in_thread's def, the lambda's line, square's body (in the thread)
    assert 13 in fast["test_shapes.py::test_square"].lines["shapes.py"]  # square's first decorator


def test_first_lines_of_functions_nested_decorated_and_in_classes(tmp_path: Path) -> None:
    source = tmp_path / "shapes.py"
    source.write_text(PROGRAM)
    firsts = _first_lines(str(source))
    assert firsts[16] == 13  # square's body: its first decorator
    assert firsts[8] == 6 and firsts[7] == 5  # wrapper's body; `def wrapper` is logged's
    assert firsts[27] == 26 and firsts[26] == 25  # times' body; times' def is scaled's
    assert firsts[56] == 55 and firsts[53] == 51  # a method of a class made in a function; its class body
    assert firsts[42] == 41 and 40 not in firsts and 1 not in firsts  # a method; module level
    (tmp_path / "broken.py").write_text("def f(:\n")
    assert _first_lines(str(tmp_path / "broken.py")) == {}
