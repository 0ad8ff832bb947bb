"""A name read of a value that has none (repair/instances.py): `val.__name__` gets back the
`type(val)` that reports what the value is, at the prior of a class likely meant; a class, `cls`, a
module, a value named for a callable never get one, and the engine finds the fix end to end."""

from __future__ import annotations

from pathlib import Path

import pytest

from repofix.repair import Budget, repair
from repofix.repair.generate import mutations
from repofix.repair.instances import LIKELY, SURE
from repofix.repair.source import SourceFile
from tests.test_repair_engine import project

# uzod's planted bug (heldout48): the message names the value's class
CHECK = """\
def check_int(val):
    if not isinstance(val, int):
        raise TypeError(f"expected int, got {{{value}}}")
    return val
"""


@pytest.mark.parametrize(
    ("buggy", "fixed"),
    [
        (CHECK.format(value="val.__name__"), CHECK.format(value="type(val).__name__")),
        (  # pjscript's visitor: the method named after the node's class
            "class Visitor:\n    def visit(self, node):\n        name = 'visit_' + node.__name__\n"
            "        return getattr(self, name)(node)\n",
            "class Visitor:\n    def visit(self, node):\n        name = 'visit_' + type(node).__name__\n"
            "        return getattr(self, name)(node)\n",
        ),
        (
            "class Shape:\n    def __repr__(self):\n        return self.__qualname__ + '()'\n",
            "class Shape:\n    def __repr__(self):\n        return type(self).__qualname__ + '()'\n",
        ),
        (  # an attribute of a local
            "def describe(item):\n    return 'a ' + item.value.__name__\n",
            "def describe(item):\n    return 'a ' + type(item.value).__name__\n",
        ),
        (  # what a handler caught, the commonest report of a failure's kind
            "def run(job):\n    try:\n        job()\n    except Exception as exc:\n        return exc.__name__\n",
            "def run(job):\n    try:\n        job()\n    except Exception as exc:\n        return type(exc).__name__\n",
        ),
    ],
    ids=["parameter-in-f-string", "parameter", "self-qualname", "attribute-chain", "caught"],
)
def test_a_value_s_name_is_read_of_its_type(buggy: str, fixed: str) -> None:
    src = SourceFile("m.py", buggy)
    made = {src.apply(m.edits): m.prior for m in mutations(src) if m.description.endswith("in type()")}
    assert made.get(fixed) == (SURE if "self." in buggy else LIKELY), made


@pytest.mark.parametrize(
    ("source", "never"),
    [
        ("class C:\n    pass\n\n\ndef f():\n    return C.__name__\n", "type(C)"),  # a class the module names
        ("class C:\n    @classmethod\n    def f(cls):\n        return cls.__name__\n", "type(cls)"),
        ("import os\n\n\ndef f():\n    return os.__name__\n", "type(os)"),  # a module
        ("def f(g):\n    g.__name__ = 'h'\n    return g\n", "type(g).__name__ ="),  # written, not read
        ("def f(g):\n    return g.__doc__\n", "type(g)"),  # a value's own attribute
        ("def f(view_func):\n    return view_func.__name__\n", "type(view_func)"),  # a function's own
        ("def f(self):\n    return self.callback.__qualname__\n", "type(self.callback)"),
        ("registry = {}\n\n\ndef f(x):\n    return registry.__name__\n", "type(registry)"),  # a global
        (  # declared global: the module's, whatever this function stores in it
            "registry = None\n\n\ndef f(x):\n    global registry\n    registry = x\n    return registry.__name__\n",
            "type(registry)",
        ),
        (  # bound only by a nested function: this one reads the global class
            "val = int\n\n\ndef f():\n    def g():\n        val = 1\n        return val\n    return val.__name__\n",
            "type(val)",
        ),
        (
            "def f(self, exc_type, exc, tb):\n    return exc_type.__name__\n",
            "type(exc_type)",
        ),  # a class's name
        ("def f(etype):\n    return etype.__qualname__\n", "type(etype)"),
    ],
    ids=[
        "class",
        "cls",
        "module",
        "written",
        "other-attribute",
        "function",
        "method",
        "global",
        "declared-global",
        "nested-only",
        "exc-type",
        "etype",
    ],
)
def test_what_names_itself_is_left_alone(source: str, never: str) -> None:
    """No `type(...)` ranked as meant there (wrap_operand's and the plain wrappers' stay at 0.25)."""
    src = SourceFile("m.py", source)
    made = [(src.apply(m.edits), m.prior) for m in mutations(src)]
    assert made  # other operators are tried on the line: the check below is not of an empty list
    assert [text for text, prior in made if never in text and prior > 0.25] == []


def test_the_engine_repairs_the_message(make_sandbox, tmp_path: Path) -> None:
    tests = (
        "import pytest\n\nfrom checks import check_int\n\n\n"
        "def test_accepts_an_int():\n    assert check_int(3) == 3\n\n\n"
        "def test_names_the_wrong_class():\n"
        "    with pytest.raises(TypeError, match='expected int, got str'):\n        check_int('3')\n"
    )
    root = project(tmp_path, {"checks.py": CHECK.format(value="val.__name__"), "test_checks.py": tests})
    result = repair(make_sandbox("none", source=root), budget=Budget(max_seconds=240, test_timeout=2))
    assert result.status == "plausible", result.message
    assert "got {type(val).__name__}" in result.files["checks.py"], result.patch_diff
