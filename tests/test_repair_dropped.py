"""A value computed and dropped (repair/dropped.py) on its own minimal cases: which statements
drop a value, which callables take it, and the engine repairing a lost `print(...)` end to end."""

from __future__ import annotations

import pytest

from repofix.repair.dropped import MAX_CALLEES, PRIOR
from repofix.repair.generate import mutations
from repofix.repair.source import SourceFile


def _wrapped(source: str, line: int) -> list[str]:
    found = mutations(SourceFile("m.py", source), [line])
    return [m.edits[0].text for m in found if m.description.startswith("wrap the dropped")]


@pytest.mark.parametrize(
    ("statement", "wanted"),
    [
        ('"Invalid numeral"', ['print("Invalid numeral")', 'emit("Invalid numeral")']),
        ('results["hex"]', ['print(results["hex"])', 'emit(results["hex"])']),
        ("code & 0xFF", ["print(code & 0xFF)", "emit(code & 0xFF)"]),
        ("code", ["print(code)", "emit(code)"]),
        # a statement that does something, or is meant to do nothing
        ("emit(code)", []),
        ("...", []),
    ],
    ids=["text", "subscript", "arithmetic", "name", "a-call", "ellipsis"],
)
def test_a_dropped_value_goes_into_what_the_module_calls_as_a_statement(
    statement: str, wanted: list[str]
) -> None:
    source = (
        "def emit(byte):\n    global LAST\n    LAST = byte\n\n\n"
        "def main(code, results):\n    try:\n"
        f"        {statement}\n"
        "    except KeyError:\n        print('bad')\n        print('again')\n    emit(code)\n"
    )
    assert _wrapped(source, 8) == wanted  # print is called twice, emit once: print first


@pytest.mark.parametrize(
    ("caught", "statement", "wanted"),
    [
        ("ValueError", "string", ["int(string)", "float(string)", "print(string)"]),
        ("(TypeError, KeyError)", "string", ["int(string)", "float(string)", "print(string)"]),
        ("Exception as err", "string[1:]", ["int(string[1:])", "float(string[1:])", "print(string[1:])"]),
        ("", "string", ["int(string)", "float(string)", "print(string)"]),  # a bare `except:`
        # what a conversion does not raise, or a literal, which needs no checking
        ("KeyError", "string", ["print(string)"]),
        ("ValueError", "'12'", ["print('12')"]),
    ],
    ids=["value-error", "a-tuple", "exception", "bare", "key-error", "literal"],
)
def test_a_value_a_try_checks_goes_into_a_converter_first(
    caught: str, statement: str, wanted: list[str]
) -> None:
    # area-under-curve's is_number (heldout53) with `float(string)` planted as `string`
    handler = f"except {caught}:" if caught else "except:"
    source = (
        "def is_number(string):\n    try:\n"
        f"        {statement}\n"
        "        return True\n"
        f"    {handler}\n        print('no')\n        return False\n"
    )
    assert _wrapped(source, 3) == wanted


def test_complex_is_tried_only_where_the_module_calls_it() -> None:
    source = (
        "def f(s):\n    try:\n        s\n    except ValueError:\n        return complex(0)\n    return 1\n"
    )
    assert _wrapped(source, 3) == ["int(s)", "float(s)", "complex(s)"]


@pytest.mark.parametrize(
    "source",
    [
        'def f():\n    """What it does."""\n    print(1)\n',
        'class A:\n    """What it is."""\n\n\ndef f():\n    print(1)\n',
    ],
    ids=["function-docstring", "class-docstring"],
)
def test_a_docstring_is_no_dropped_value(source: str) -> None:
    assert _wrapped(source, 2) == []


def test_an_except_body_first_string_is_dropped_not_a_docstring() -> None:
    source = "def f(x):\n    try:\n        x = int(x)\n    except ValueError:\n        'not a number'\n    print(x)\n"
    assert _wrapped(source, 5) == ["print('not a number')"]


def test_callees_are_those_called_with_one_positional_argument_most_called_first_and_capped() -> None:
    calls = "".join(f"    f{i}(x)\n" * (i + 1) for i in range(MAX_CALLEES + 2))
    calls += "    g(x, 1)\n    h(x, key=1)\n    make()(x)\n    k(*x)\n" * 20  # never a callee, however often
    source = f"def main(x):\n    x\n{calls}"
    made = _wrapped(source, 2)
    assert made == [f"f{i}(x)" for i in reversed(range(2, MAX_CALLEES + 2))]


def test_the_prior_is_ahead_of_a_plain_wrapper() -> None:
    found = mutations(SourceFile("m.py", "def f(x):\n    x\n    print(x)\n"), [2])
    assert {m.prior for m in found if m.description.startswith("wrap the dropped")} == {PRIOR}


CLI = """\
import sys


def parse(text):
    return int(text, 16)


def main(argv):
    for arg in argv:
        try:
            print(parse(arg))
        except ValueError:
            "invalid: " + arg
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
"""

CLI_TESTS = """\
from cli import main


def test_valid(capsys):
    main(["ff", "10"])
    assert capsys.readouterr().out == "255\\n16\\n"


def test_invalid_is_reported(capsys):
    main(["zz"])
    assert capsys.readouterr().out == "invalid: zz\\n"
"""


def test_the_engine_repairs_a_dropped_print(repaired) -> None:
    result = repaired({"cli.py": CLI, "test_cli.py": CLI_TESTS})
    assert result.status == "plausible", result.message
    assert 'print("invalid: " + arg)' in result.files["cli.py"], result.patch_diff


def test_a_callable_that_deletes_stops_or_runs_never_takes_a_dropped_value() -> None:
    calls = (
        "    sys.exit(x)\n    os.remove(x)\n    shutil.rmtree(x)\n    self.send(x)\n    subprocess.call(x)\n"
        * 3
    )
    source = f"def main(self, x):\n    x\n{calls}    print(x)\n"
    assert _wrapped(source, 2) == ["print(x)"]
