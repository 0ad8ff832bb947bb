"""The exception class a failing test expects raised (repair/expected.py) mends a `raise "..."` that
lost its class, on both paths (`repair()` and `repofix fix --model builtin`), where the operators'
own classes could not and a guard that goes round the `raise` was claimed instead."""

from __future__ import annotations

from pathlib import Path

import pytest

from repofix.repair.expected import MAX_EXPECTED, expected_errors
from repofix.repair.generate import mutations
from repofix.repair.source import SourceFile
from tests.test_repair_broken_raise import repaired
from tests.test_repair_targets import delivered, fix, make_repo

CASES = """import pytest
import errors


def test_plain():
    with pytest.raises(FileNotFoundError):
        load("x")


def test_tuple_and_match():
    with pytest.raises((KeyError, errors.BadQuery), match="key"):
        load("x")


class TestUnit:
    def test_assert_raises(self):
        self.assertRaises(ZeroDivisionError, divide, 1, 0)

    def test_regex(self):
        with self.assertRaisesRegex(errors.ParseError, "bad"):
            load("x")


@pytest.mark.parametrize("text, error", [("1/0", ZeroDivisionError), ("1+", ValueError), ("x", NameError)])
def test_cases(text, error):
    with pytest.raises(error):
        calculate(text)


ERRORS = [("1 +", SyntaxError), ("1/0", ArithmeticError)]


@pytest.mark.parametrize("text, error", ERRORS)
def test_listed_elsewhere(text, error):
    with pytest.raises(error):
        calculate(text)


def test_no_raises():
    try:
        load("x")
    except KeyError:
        pass


def test_lowercase_name():
    with pytest.raises(myerror):
        load("x")
"""


@pytest.mark.parametrize(
    ("nodeid", "expected"),
    [
        ("t.py::test_plain", ["FileNotFoundError"]),
        ("t.py::test_tuple_and_match", ["KeyError", "BadQuery"]),
        ("t.py::TestUnit::test_assert_raises", ["ZeroDivisionError"]),
        ("t.py::TestUnit::test_regex", ["ParseError"]),
        ("t.py::test_cases[1/0-ZeroDivisionError]", ["ZeroDivisionError"]),  # the case's own class
        ("t.py::test_cases[text1-error1]", ["ZeroDivisionError", "ValueError", "NameError"]),  # any listed
        ("t.py::test_listed_elsewhere[1/0-ArithmeticError]", ["ArithmeticError"]),  # a module-level list
        ("t.py::test_no_raises", []),  # catching one is not expecting it
        ("t.py::test_lowercase_name", []),  # no class by its name
        ("t.py::test_missing", []),
        ("t.py::TestOther::test_plain", []),  # the class leads to it, not the name alone
        ("other.py::test_plain", []),  # a file not read
        ("t.py", []),
    ],
)
def test_the_classes_a_failing_test_expects_raised(nodeid: str, expected: list[str]) -> None:
    assert expected_errors({"t.py": CASES}, [nodeid]) == expected


@pytest.mark.parametrize("text", ["def test_(:\n", "\x00", "x = (" * 300 + ")" * 300])
def test_a_test_file_that_does_not_parse_expects_nothing(text: str) -> None:
    assert expected_errors({"t.py": text}, ["t.py::test_"]) == []


def test_several_failing_tests_give_their_classes_once_in_order() -> None:
    failing = ["t.py::test_plain", "t.py::TestUnit::test_regex", "t.py::test_plain"]
    assert expected_errors({"t.py": CASES}, failing) == ["FileNotFoundError", "ParseError"]


def test_a_suite_naming_hundreds_of_classes_gives_the_first_few() -> None:
    listed = ", ".join(f"Error{i}" for i in range(500))
    text = f"def test_many():\n    with pytest.raises(({listed})):\n        load()\n"
    assert expected_errors({"t.py": text}, ["t.py::test_many"]) == [f"Error{i}" for i in range(MAX_EXPECTED)]


# BadQuery is raised elsewhere, so it is tried anyway, at the prior of the usual classes
RAISER = (
    "from errors import BadQuery\n\n\ndef check(query):\n    if not query:\n        raise BadQuery(query)\n\n\n"
    'def load(name):\n    if not name:\n        raise "no name"\n    return name\n'
)


def wrapper_priors(code: str, line: int, expected: list[str]) -> dict[str, float]:
    """The class each `add-wrapper` candidate of the `raise` at `line` gives it, with its prior."""
    found = [
        m for m in mutations(SourceFile("m.py", code), [line], expected=expected) if m.op == "add-wrapper"
    ]
    return {m.description.split("(")[0].removeprefix("raise "): m.prior for m in found}


@pytest.mark.parametrize(
    ("expected", "offered"),
    [
        ([], None),
        (["ZeroDivisionError"], "ZeroDivisionError"),  # a builtin class
        (["BadQuery"], "BadQuery"),  # a class the module imports and raises
        (["UnknownError"], None),  # a class the module cannot name is not written in
        (["KeyboardInterrupt"], None),  # it would end the run that tries it
    ],
)
def test_an_expected_class_is_offered_for_a_raise_that_lost_its_class(
    expected: list[str], offered: str | None
) -> None:
    prior = wrapper_priors(RAISER, 11, expected)
    assert "ValueError" in prior, prior  # the usual classes are still tried
    if offered is None:
        assert not set(expected) & prior.keys(), prior
    else:
        assert prior[offered] > max(p for name, p in prior.items() if name != offered), prior


def test_a_class_raised_with_a_like_message_outranks_the_base_class_the_test_expects() -> None:
    # `pytest.raises(ParserError)` passes with its subclass too: the module's own choice for the
    # message stays first (tests/test_repair_raise.py)
    code = (
        "class ParserError(ValueError):\n    pass\n\n\nclass LimitReached(ParserError):\n    pass\n\n\n"
        'def header(line, limit):\n    if len(line) > limit:\n        raise "Header length too long"\n'
        '    if not line:\n        raise LimitReached("Header too long")\n    return line\n'
    )
    prior = wrapper_priors(code, 11, ["ParserError"])
    assert prior["LimitReached"] > prior["ParserError"] > prior["KeyError"], prior


# the calculator's case (heldout42): a `raise "..."` lost ZeroDivisionError, which neither the module
# nor the engine's builtin list names; `b == 0 -> b == 1` lets the division raise it and was claimed
CALC = 'def divide(a, b):\n    if b == 0:\n        raise "cannot divide by zero"\n    return a / b\n'
CALC_TESTS = (
    "import pytest\n\nfrom stats import divide\n\n\ndef test_divide():\n    assert divide(6, 3) == 2\n\n\n"
    '@pytest.mark.parametrize("a, b, error", [(1, 0, ZeroDivisionError), (1, "x", TypeError)])\n'
    "def test_errors(a, b, error):\n    with pytest.raises(error):\n        divide(a, b)\n"
)
MENDED = 'raise ZeroDivisionError("cannot divide by zero")'


def test_repair_wraps_the_raise_in_the_class_the_test_expects(make_sandbox, tmp_path: Path) -> None:
    result = repaired(make_sandbox, tmp_path, CALC, CALC_TESTS)
    assert result.failing_tests == ["test_stats.py::test_errors[1-0-ZeroDivisionError]"]
    assert result.status == "plausible" and result.mutation is not None, result.message
    assert result.mutation.description == MENDED, result.message


def test_repofix_fix_delivers_the_expected_class(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"stats.py": CALC, "test_stats.py": CALC_TESTS})
    outcome = fix(repo, tmp_path)
    assert outcome["status"] == "done", outcome
    assert delivered(repo, "stats.py") == CALC.replace('raise "cannot divide by zero"', MENDED)
