"""Rivals and the calls a patch adds: two plausible patches whose only difference on the tests is
the calls of a function one of them adds (`islice(seq, isiterable(1), ...)` against
`islice(seq, 0, ...)`) behave alike where their callers can see it, so neither is the other's
rival; toolz's take_nth (evals/walkthrough_pypi.py) was given up for such a pair."""

from __future__ import annotations

from pathlib import Path

import pytest

from repofix.repair import Budget, repair
from repofix.repair.doubt import added_calls, called_names, rivals
from repofix.repair.replies import Differences
from repofix.repair.source import Edit, SourceFile
from tests.test_repair_engine import project


@pytest.mark.parametrize(
    ("code", "names"),
    [
        ("isiterable(1)", {"isiterable"}),
        ("out.append(f(x))", {"append", "f"}),
        ("'f(x)' + g  # h(y)", set()),  # strings and comments are not read
        ("if (a and b):", set()),  # a keyword before a parenthesis is no call
        ("    return isiterable(x", {"isiterable"}),  # a fragment that does not close keeps what it read
        ("x[1:]", set()),
    ],
)
def test_called_names_are_the_names_a_parenthesis_follows(code: str, names: set[str]) -> None:
    assert called_names(code) == names


CODE = "def step(seq):\n    return shift(seq, 1) + size(seq)\n"


@pytest.mark.parametrize(
    ("old", "new", "added"),
    [
        ("1", "isiterable(1)", {"isiterable"}),
        ("shift(seq, 1)", "shift(seq, 0)", set()),  # a call made before too adds nothing
        ("size(seq)", "len(size(seq))", {"len"}),
        ("1", "0", set()),
    ],
)
def test_added_calls_are_those_the_replaced_code_did_not_make(old: str, new: str, added: set[str]) -> None:
    src = SourceFile("m.py", CODE)
    start = CODE.index(old)
    mutation = src.mutation("any", f"{old} -> {new}", [Edit(start, start + len(old), new)], 0.5)
    assert added_calls(src, mutation) == added


def test_a_patch_that_differs_only_in_the_calls_of_what_it_adds_is_no_rival() -> None:
    src = SourceFile("m.py", CODE)
    one = CODE.index("1)")
    zero = src.mutation("constant", "constant 1 -> 0", [Edit(one, one + 1, "0")], 0.85)
    wrapped = src.mutation(
        "add-wrapper", "wrap 1 in isiterable()", [Edit(one, one + 1, "isiterable(1)")], 0.3
    )
    other = src.mutation("constant", "constant 1 -> 2", [Edit(one, one + 1, "2")], 0.85)
    seen = {"passing step": "a", "passing isiterable": "b", "failing step": "c"}
    differ = Differences(
        behaviour={
            zero: seen,
            wrapped: {**seen, "passing isiterable": "b2", "failing isiterable": "d"},  # its own call only
            other: {**seen, "failing step": "c2"},  # what step() returned differs: a rival
        }
    )
    sources = {"m.py": src}
    assert rivals(zero, differ, sources) == [other]
    assert rivals(wrapped, differ, sources) == [other]
    # the same difference in a function neither patch adds a call to is a rival's
    differ.behaviour[wrapped] = {**seen, "passing shift": "e"}
    assert rivals(zero, differ, sources) == [wrapped, other]


# take_nth is toolz's, with its bug: the start is 1. `1 -> 0` and `isiterable(1)` (False) both pass,
# and the tests see the same from take_nth; only isiterable is called once more
STEPS = (
    "import itertools\n\n\ndef isiterable(x):\n    try:\n        iter(x)\n        return True\n"
    "    except TypeError:\n        return False\n\n\ndef take_nth(n, seq):\n"
    "    return itertools.islice(seq, 1, None, n)\n"
)
STEPS_TESTS = (
    "from steps import isiterable, take_nth\n\ndef test_take_nth():\n"
    "    assert list(take_nth(2, 'abcde')) == list('ace')\n\n"
    "def test_isiterable():\n    assert isiterable([1]) and not isiterable(5)\n"
)


def test_a_fix_is_claimed_when_its_only_rival_adds_a_call_that_does_the_same(
    make_sandbox, tmp_path: Path
) -> None:
    root = project(tmp_path, {"steps.py": STEPS, "test_steps.py": STEPS_TESTS})
    box = make_sandbox("none", source=root)
    result = repair(box, budget=Budget(max_seconds=120, extra_after_plausible=200))
    described = {m.description for m in result.plausible}
    assert {"constant 1 -> 0", "wrap 1 in isiterable()"} <= described, described
    assert result.status == "plausible" and result.fixed, result.message
    assert result.mutation is not None and result.mutation.description == "constant 1 -> 0"
    assert not result.rivals
    assert (root / "steps.py").read_text() == STEPS
