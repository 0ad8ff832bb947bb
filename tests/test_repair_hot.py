"""Hot patching (insandbox/hot.py): a candidate inside one function's body is rejected by a run that
gives the live function the candidate's code, without importing the module afresh. Each case is a
minimal project with one candidate; the verdict must be the usual run's, and the case says whether
the hot run could decide it. Also: a module that registers a function elsewhere when imported (a
codec) is tested in its candidate's form, not the original's."""

from __future__ import annotations

from pathlib import Path

import pytest

from repofix.repair.checker import Checker
from repofix.repair.source import Edit, SourceFile
from tests.conftest import backend_params
from tests.test_repair_engine import project

FUNCTION = "def double(x):\n    return x * 3\n"
FUNCTION_TEST = "from m import double\n\ndef test_double():\n    assert double(4) == 8\n"

METHODS = """import functools


class Base:
    def size(self):
        return 1


class Box(Base):
    def __init__(self):
        self.__hidden = 5

    def size(self):
        return super().size() + 2

    def hidden(self):
        return self.__hidden - 1

    @staticmethod
    def twice(x):
        return x + x + 1

    @classmethod
    def named(cls):
        return cls.__name__.lower() + "!"

    @property
    def area(self):
        return 3 * 3 + 1


def logged(function):
    @functools.wraps(function)
    def wrapper(*args):
        return function(*args)

    return wrapper


@logged
def greet(name):
    return "hi " + name + "?"


def counter():
    count = 0

    def step():
        nonlocal count
        count += 2
        return count

    return step
"""
METHODS_TEST = """from m import Box, counter, greet


def test_size():
    assert Box().size() == 2


def test_hidden():
    assert Box().hidden() == 5


def test_twice():
    assert Box.twice(3) == 6


def test_named():
    assert Box.named() == "box"


def test_area():
    assert Box().area == 9


def test_greet():
    assert greet("ann") == "hi ann"


def test_counter():
    assert counter()() == 1
"""

# a table made when the module is imported: a fix of `build` only shows in a fresh import
TABLE = "def build():\n    return {n: n * n + 1 for n in range(5)}\n\n\nSQUARES = build()\n\n\ndef square(n):\n    return SQUARES[n]\n"
TABLE_TEST = "from m import square\n\ndef test_square():\n    assert square(3) == 9\n"

DEFAULT = "def scale(x, factor=3):\n    return x * factor\n"
DEFAULT_TEST = "from m import scale\n\ndef test_scale():\n    assert scale(4) == 8\n"

# the streams the module binds on import (a default, a global): under pytest's capture while the hot
# server collected, closed once that session ended, yet the usual run writes to them unharmed
STREAMS = """import sys

OUT = sys.stdout


def shout(text, err=sys.stderr):
    err.write(text)
    OUT.write(text)
    return text.upper() + "?"
"""
STREAMS_TEST = "from m import shout\n\ndef test_shout():\n    assert shout('hi') == 'HI!'\n"

CODEC = """import codecs


def encode(text, errors="strict"):
    return text.upper().encode("ascii") + b"!", len(text)


def decode(data, errors="strict"):
    return bytes(data).decode("ascii").lower(), len(data)


def search(name):
    if name == "shout":
        return codecs.CodecInfo(encode, decode, name="shout")
    return None


codecs.register(search)
"""
CODEC_TEST = "import m\n\ndef test_shout():\n    assert 'hey'.encode('shout') == b'HEY'\n"


def edit(text: str, old: str, new: str, nth: int = 0) -> Edit:
    at = -1
    for _ in range(nth + 1):
        at = text.index(old, at + 1)
    start = len(text[:at].encode())
    return Edit(start, start + len(old.encode()), new)


CASES = [
    # (id, module, tests, test, edit: (old, new, nth), passes, hot)
    ("function-rejected", FUNCTION, FUNCTION_TEST, "test_double", ("x * 3", "x * 4", 0), False, True),
    ("function-passes", FUNCTION, FUNCTION_TEST, "test_double", ("x * 3", "x * 2", 0), True, False),
    ("super", METHODS, METHODS_TEST, "test_size", ("+ 2", "+ 3", 0), False, True),
    ("super-fixed", METHODS, METHODS_TEST, "test_size", ("+ 2", "+ 1", 0), True, False),
    ("mangled", METHODS, METHODS_TEST, "test_hidden", ("- 1", "- 2", 0), False, True),
    ("mangled-fixed", METHODS, METHODS_TEST, "test_hidden", ("- 1", "- 0", 0), True, False),
    ("staticmethod", METHODS, METHODS_TEST, "test_twice", ("+ 1", "+ 2", 0), False, True),
    ("classmethod", METHODS, METHODS_TEST, "test_named", ('"!"', '"?"', 0), False, True),
    ("property", METHODS, METHODS_TEST, "test_area", ("+ 1", "+ 2", 0), False, True),
    ("wrapped", METHODS, METHODS_TEST, "test_greet", ('"?"', '"."', 0), False, True),
    ("wrapped-fixed", METHODS, METHODS_TEST, "test_greet", ('"?"', '""', 0), True, False),
    ("closure", METHODS, METHODS_TEST, "test_counter", ("count += 2", "count += 3", 0), False, True),
    ("closure-fixed", METHODS, METHODS_TEST, "test_counter", ("count += 2", "count += 1", 0), True, False),
    # `build` ran when the module was imported: never patched hot
    ("ran-at-import", TABLE, TABLE_TEST, "test_square", ("n * n + 1", "n * n + 2", 0), False, False),
    ("ran-at-import-fixed", TABLE, TABLE_TEST, "test_square", ("n * n + 1", "n * n", 0), True, False),
    # the def's line and the module's own statements are not a function's body
    ("default", DEFAULT, DEFAULT_TEST, "test_scale", ("factor=3", "factor=4", 0), False, False),
    (
        "module-level",
        TABLE,
        TABLE_TEST,
        "test_square",
        ("SQUARES = build()", "SQUARES = {}", 0),
        False,
        False,
    ),
    # an edit that adds a statement after the def: it is more than the def, so not hot
    ("statement-after", FUNCTION, FUNCTION_TEST, "test_double", ("x * 3", "x * 3\nX = 1", 0), False, False),
    # a stream bound on import: written to by the hot child as by the usual run
    ("streams", STREAMS, STREAMS_TEST, "test_shout", ('"?"', '"."', 0), False, True),
    ("streams-fixed", STREAMS, STREAMS_TEST, "test_shout", ('"?"', '"!"', 0), True, False),
    # a codec registered on import: the candidate's own module is the one found by name
    ("codec", CODEC, CODEC_TEST, "test_shout", ('+ b"!"', '+ b"?"', 0), False, True),
    ("codec-fixed", CODEC, CODEC_TEST, "test_shout", ('+ b"!"', "", 0), True, False),
]


@pytest.mark.parametrize(
    ("module", "tests", "test", "change", "passes", "hot"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_a_hot_verdict_is_the_usual_one(
    make_sandbox, tmp_path: Path, module: str, tests: str, test: str, change: tuple, passes: bool, hot: bool
) -> None:
    root = project(tmp_path, {"m.py": module, "test_m.py": tests})
    candidate = SourceFile("m.py", module).mutation("test", "test", [edit(module, *change)], 0.5)
    box = make_sandbox("none", source=root)
    verdicts = {
        on: Checker(box).check([candidate], [f"test_m.py::{test}"], [], timeout=10.0, full_timeout=20.0, seconds=60, retry=False, hot=on)
        for on in (True, False)
    }  # fmt: skip
    assert [(v.ok, v.hot) for v in verdicts[True]] == [(passes, hot)]
    assert [(v.ok, v.hot) for v in verdicts[False]] == [(passes, False)]
    assert box.read_files(["m.py"])["m.py"] == module.encode()  # left as found


def two_candidates(
    make_sandbox,
    backend: str,
    tmp_path: Path,
    module: str,
    tests: str,
    test: str,
    first: tuple,
    second: tuple,
) -> list:
    """(description, ok, hot) of a check of two candidates, each (description, old, new), stopping
    at the first plausible one; the module is left as found."""
    root = project(tmp_path, {"m.py": module, "test_m.py": tests})
    src = SourceFile("m.py", module)
    candidates = [
        src.mutation("test", name, [edit(module, old, new)], 0.5) for name, old, new in (first, second)
    ]
    box = make_sandbox(backend, source=root)
    verdicts = Checker(box).check(
        candidates, [f"test_m.py::{test}"], [], timeout=10.0, full_timeout=20.0, seconds=120, stop_after=1, retry=False
    )  # fmt: skip
    assert box.read_files(["m.py"])["m.py"] == module.encode()
    return [(v.mutation.description, v.ok, v.hot) for v in verdicts]


@pytest.mark.parametrize("backend", backend_params(("docker", "bwrap")))
def test_hot_rejections_in_real_sandboxes(backend: str, make_sandbox, tmp_path: Path) -> None:
    verdicts = two_candidates(
        make_sandbox,
        backend,
        tmp_path,
        METHODS,
        METHODS_TEST,
        "test_size",
        ("wrong", "+ 2", "+ 3"),
        ("right", "+ 2", "+ 1"),
    )
    assert verdicts == [("wrong", False, True), ("right", True, False)]


def test_a_hot_server_that_dies_while_warming_up_leaves_the_usual_run(make_sandbox, tmp_path: Path) -> None:
    # only the hot server imports the module under a tracer (it notes what runs at import)
    module = "import os\nimport sys\n\nif sys.gettrace() is not None:\n    os._exit(3)\n\n\n" + FUNCTION
    verdicts = two_candidates(
        make_sandbox,
        "none",
        tmp_path,
        module,
        FUNCTION_TEST,
        "test_double",
        ("wrong", "x * 3", "x * 4"),
        ("right", "x * 3", "x * 2"),
    )
    assert verdicts == [("wrong", False, False), ("right", True, False)]


SLOW_TEST = (
    "import sys\nimport time\n\n"
    "if sys.gettrace() is not None:  # the hot server's warm-up: a candidate written meanwhile would be imported\n"
    "    time.sleep(2)\n\n"
    "from m import double  # noqa: E402\n\n\ndef test_double():\n    assert double(4) == 8\n"
)
HELPED = "def helper():\n    return 2\n\n\ndef double(x):\n    return x * 3\n"


def test_no_candidate_is_written_while_the_hot_server_imports_the_workspace(
    make_sandbox, tmp_path: Path
) -> None:
    verdicts = two_candidates(
        make_sandbox,
        "none",
        tmp_path,
        HELPED,
        SLOW_TEST,
        "test_double",
        ("helper broken", "return 2", "return 5"),
        ("fix", "x * 3", "x * helper()"),
    )
    assert verdicts == [("helper broken", False, True), ("fix", True, False)]
