"""Names the module binds and never reads (unused.unused_names) on their own minimal cases: which are
counted, which are not (a module, a constant, `__all__`, TYPE_CHECKING, a decorated or public
function, a module with many); what a function imports in its own body and never reads
(unused.unused_imports_in); as a missing wrapper or a raise's class they rank first; and the engine
repairs a raise that lost its imported class, and a value that lost the call it was imported
for, end to end."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from repofix.repair import Budget, repair
from repofix.repair.generate import mutations
from repofix.repair.search import order
from repofix.repair.source import SourceFile
from repofix.repair.unused import unused_imports_in, unused_names, unused_predicates
from tests.test_repair_engine import project


@pytest.mark.parametrize(
    ("source", "unused"),
    [
        ("from x import Lookahead, Sequence\nSequence()\n", ["Lookahead"]),
        ("from x import Lookahead as L\n", ["L"]),
        ("def _helper(v):\n    return v\n", ["_helper"]),
        ("class _Marker:\n    pass\n", ["_Marker"]),
        ("from x import A\nA()\n", []),  # read
        ("import os\n", []),  # a module: a missing call is never of it
        ("from x import DEFAULT\n", []),  # an UPPER_CASE constant
        ("from x import Thing\n__all__ = ['Thing']\n", []),  # exported
        ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from x import T\n", []),
        ("from __future__ import annotations\n", []),
        ("import functools\n@functools.cache\ndef _cached(v):\n    return v\n", []),  # registered
        ("def public(v):\n    return v\n", []),  # the module's API: read by others
        ("def __getattr__(name):\n    return name\n", []),  # a dunder
        ("from x import Ab, Bc, Cd, De, Ef\n", []),  # so many: a module importing for others
        ("from x import Ab, Bc, Cd, De\n", ["Ab", "Bc", "Cd", "De"]),
        ("from x import Thing\n__all__: list[str] = ['Thing']\n", []),  # exported, annotated
        ("from x import Thing\n__all__ = []\n__all__ += ['Thing']\n", []),  # exported, added
        ("from x import Thing as Thing\n", []),  # the re-export idiom
        ("from os import path\n", []),  # the system's: a module, or what acts on the system
        ("from shutil import rmtree as clean_dir\n", []),  # its name says it deletes
        ("from typing import Optional\n", []),  # a type, never called
        ("def f():\n    from x import Late\n", []),  # a function's own import is not the module's
        ("try:\n    from x import Fast\nexcept ImportError:\n    Fast = None\n", ["Fast"]),  # a fallback
    ],
)
def test_what_the_module_binds_and_never_reads(source: str, unused: list[str]) -> None:
    assert unused_names(ast.parse(source)) == unused


GRAMMAR = """\
from errors import BadGrammar, UndefinedLabel
from expressions import Lookahead, Sequence


def resolve(rules, name):
    try:
        return rules[name]
    except KeyError:
        raise {raised}


def lookahead(term, negative):
    return {made}


def sequence(terms):
    if not terms:
        raise BadGrammar("empty")
    return Sequence(terms)
"""


def tried(made: str, raised: str, site: str) -> list[str]:
    """The candidates at the first occurrence of `site`, in the order the search tries them."""
    source = GRAMMAR.format(made=made, raised=raised)
    src = SourceFile("grammar.py", source)
    start = src.data.index(site.encode())
    found = [m for m in mutations(src) if m.edits and m.edits[0].start == start]
    return [m.description for m in order(found, {("grammar.py", m.line): 1.0 for m in found})]


def test_an_unused_class_is_the_likeliest_missing_wrapper() -> None:
    descriptions = tried("term", "UndefinedLabel(name)", "term\n")
    wrappers = [d for d in descriptions if d.startswith("wrap term in")]
    assert wrappers[0] == "wrap term in Lookahead()", wrappers
    assert descriptions.index("wrap term in Lookahead()") < descriptions.index("wrap term in len()")


def test_an_unused_class_is_the_likeliest_class_of_a_raise() -> None:
    descriptions = tried("Lookahead(term)", "name", "name\n")
    raises = [d for d in descriptions if d.startswith("raise ")]
    assert raises[0] == "raise UndefinedLabel(name)", raises
    # the class the module raises elsewhere, and the builtins, come after it
    assert raises.index("raise BadGrammar(name)") > 0 and raises.index("raise KeyError(name)") > 0


@pytest.mark.parametrize(
    "name", ["_rmtree", "_delete_all", "killProcess", "run_path", "urlopen", "_eval_expr"]
)
def test_an_unused_function_named_to_destroy_is_never_tried(name: str) -> None:
    """As with every callee (scope.destructive): a candidate that deletes files damages the workspace."""
    source = f"def {name}(p):\n    pass\n\ndef f(path):\n    return path\n"
    assert unused_names(ast.parse(source)) == []
    assert not any(name in m.description for m in mutations(SourceFile("m.py", source)))


def test_a_name_read_elsewhere_gets_no_boost() -> None:
    """`Lookahead` called in another function: an ordinary callee of the module, not a lost use."""
    source = (
        GRAMMAR.format(made="term", raised="UndefinedLabel(name)")
        + "\n\ndef other(t):\n    return Lookahead(t)\n"
    )
    src = SourceFile("grammar.py", source)
    start = src.data.index(b"term\n")
    priors = {m.description: m.prior for m in mutations(src) if m.edits and m.edits[0].start == start}
    assert priors["wrap term in Lookahead()"] < 0.45


MODULE = """\
from configparser import DuplicateSectionError


class Sections:
    def __init__(self):
        self.names = []

    def add(self, name):
        if name in self.names:
            raise name
        self.names.append(name)
        return self
"""

TESTS = """\
import pytest
from configparser import DuplicateSectionError
from sections import Sections

def test_a_duplicate_is_refused():
    with pytest.raises(DuplicateSectionError):
        Sections().add("a").add("a")

def test_add():
    assert Sections().add("a").add("b").names == ["a", "b"]
"""


def test_the_engine_gives_a_raise_its_unused_imported_class(make_sandbox, tmp_path: Path) -> None:
    root = project(tmp_path, {"sections.py": MODULE, "test_sections.py": TESTS})
    result = repair(make_sandbox("none", source=root), budget=Budget(max_seconds=240, test_timeout=2))
    assert result.status == "plausible", result.message
    assert "raise DuplicateSectionError(name)" in result.files["sections.py"], result.patch_diff


@pytest.mark.parametrize(
    ("body", "unused"),
    [
        ("    from cleaner import strip, squeeze\n    return strip(text)\n", ["squeeze"]),
        ("    from cleaner import strip as s\n    return text\n", ["s"]),
        ("    from cleaner import strip\n    return strip(text)\n", []),  # read
        ("    import cleaner\n    return text\n", []),  # a module: never a missing call
        ("    from cleaner import LIMIT\n    return text\n", []),  # a constant
        ("    from os import remove\n    return text\n", []),  # the system's
        ("    from cleaner import remove_marks\n    return text\n", []),  # its name says it deletes
        ("    from webbrowser import open_new\n    return text\n", []),  # the system's: leaves the machine
        ("    from invoke import run\n    return text\n", []),  # runs its argument as a command
        ("    from tools import sleep_for, send_report\n    return text\n", []),  # sleeps, sends
        ("    from cleaner import Ab, Bc, Cd, De, Ef\n    return text\n", []),  # so many: for others
        (
            "    try:\n        from cleaner import fast\n    except ImportError:\n        pass\n    return text\n",
            ["fast"],
        ),
        ("    def inner():\n        from cleaner import strip\n    return text\n", []),  # the nested one's
        (
            "    from cleaner import strip\n    return [strip(t) for t in text]\n",
            [],
        ),  # read in a comprehension
    ],
    ids=[
        "one-of-two",
        "alias",
        "read",
        "module",
        "constant",
        "system",
        "destructive",
        "browser",
        "runs",
        "sleeps-sends",
        "many",
        "in-try",
        "nested",
        "comprehension",
    ],
)
def test_what_a_function_imports_and_never_reads(body: str, unused: list[str]) -> None:
    func = ast.parse("def clean(text):\n" + body).body[0]
    assert isinstance(func, ast.FunctionDef)
    assert unused_imports_in(func) == unused


# markuptree's serialize (heldout26) as a normalizer: the local import names the call the bug dropped
NORMALIZER = """def normalize(text):
    from cleaner import plain_marks, plain_stretch

    text = plain_marks(text)
    text = {value}
    return text
"""


def test_a_function_s_unused_import_is_its_likeliest_missing_wrapper() -> None:
    src = SourceFile("normalizer.py", NORMALIZER.format(value="text"))
    start = src.data.index(b"text = text") + len("text = ")
    found = [m for m in mutations(src) if m.edits and m.edits[0].start == start]
    wrappers = [m.description for m in order(found, {("normalizer.py", m.line): 1.0 for m in found})]
    wrappers = [d for d in wrappers if d.startswith("wrap text in")]
    assert wrappers[0] == "wrap text in plain_stretch()", wrappers


def test_the_engine_gives_a_value_the_call_it_was_imported_for(make_sandbox, tmp_path: Path) -> None:
    # the marks become stretches, which go after them: the call belongs after the first, not before
    cleaner = (
        "def plain_marks(text):\n    return text.replace('~', '_')\n\n\n"
        "def plain_stretch(text):\n    return text.replace('_', '')\n"
    )
    tests = (
        "from cleaner import plain_marks\nfrom normalizer import normalize\n\n\n"
        "def test_normalize():\n    assert normalize('a~b_c') == 'abc'\n\n\n"
        "def test_stretch():\n    assert normalize('a__b') == 'ab'\n\n\n"
        "def test_marks():\n    assert plain_marks('a~') == 'a_'\n"
    )
    files = {"cleaner.py": cleaner, "normalizer.py": NORMALIZER.format(value="text"), "test_n.py": tests}
    root = project(tmp_path, files)
    result = repair(make_sandbox("none", source=root), budget=Budget(max_seconds=240, test_timeout=2))
    assert result.status == "plausible", result.message
    assert "text = plain_stretch(text)" in result.files["normalizer.py"], result.patch_diff


STORAGE = """\
class Storage:
    def __init__(self, auto_compact):
        self.auto_compact = auto_compact

    def close(self):
        if self.auto_compact:
            self.compact()

    def compact(self):
        pass

    def _should_compact(self) -> bool:
        return True

    def _is_open(self):
        return True

    def is_ready(self) -> bool:
        return True

    def has_rows(self, table):
        return bool(table)

    def size(self) -> int:
        return 0
"""


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # aethisdb's storage (heldout35): a private predicate nothing calls; a public one (its
        # callers'), one of a parameter more or none that answers yes or no are left out
        (STORAGE, ("_should_compact", "_is_open")),
        (
            STORAGE.replace("self.compact()", "self.compact() if self._is_open() else None"),
            ("_should_compact",),
        ),
        (
            STORAGE.replace("    def _is_open(self):", "    @property\n    def _is_open(self):"),
            ("_should_compact",),
        ),
        (
            STORAGE + "\n\nCHECKS = ['_should_compact', '_is_open']\n",
            (),
        ),  # named in text: getattr may call it
    ],
    ids=["unasked", "called", "decorated", "named-in-text"],
)
def test_a_predicate_nothing_asks(source: str, expected: tuple[str, ...]) -> None:
    module = ast.parse(source)
    cls = module.body[0]
    assert isinstance(cls, ast.ClassDef)
    assert unused_predicates(cls, module) == expected


def test_a_condition_of_the_class_gets_the_predicate_nothing_asks_as_a_clause() -> None:
    src = SourceFile("m.py", STORAGE)
    made = {m.edits[0].text: m.prior for m in mutations(src, [6]) if m.op == "add-condition"}
    assert made["self.auto_compact and self._should_compact()"] == 0.45
    assert made["self.auto_compact and self._is_open()"] == 0.45
    assert "self.auto_compact and self.size()" not in made
    assert "self.auto_compact and self.is_ready()" not in made
