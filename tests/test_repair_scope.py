"""What a function has in scope (repair/scope.py) for the operators to build with: a name read only
in an annotation is a type, never a value; a container grows by what its kind grows by."""

from __future__ import annotations

import ast
import re

import pytest

from repofix.repair.generate import mutations
from repofix.repair.scope import Scope, scope_of
from repofix.repair.source import SourceFile

TYPED = """\
from typing import Optional


def validate(tree: KaryotypeAST, rules: list[Rule]) -> Optional[Result]:
    errors: list[Message] = []
    for rule in rules:
        found = rule.check(tree)
        pass
    return errors
"""


def test_a_name_read_only_in_an_annotation_is_no_value_in_scope() -> None:
    tree = ast.parse(TYPED)
    func = tree.body[1]
    assert isinstance(func, ast.FunctionDef)
    names = scope_of(func, tree).names
    assert {"tree", "rules", "errors", "rule", "found"} <= set(names)
    assert not {"KaryotypeAST", "Rule", "Optional", "Result", "Message"} & set(names)


@pytest.mark.parametrize("typ", ["KaryotypeAST", "Rule", "Optional", "Result", "Message"])
def test_no_candidate_computes_with_a_type_named_only_in_an_annotation(typ: str) -> None:
    made = mutations(SourceFile("m.py", TYPED), [8])
    assert any(m.description == "add 'errors.append(found)' in place of 'pass' (line 8)" for m in made)
    assert not [m.description for m in made if typ in "".join(e.text for e in m.edits)]


def test_a_type_also_read_as_a_value_stays_a_name() -> None:
    source = "def f(x: Rule) -> bool:\n    if isinstance(x, Rule):\n        return x\n    return Rule\n"
    tree = ast.parse(source)
    func = tree.body[0]
    assert isinstance(func, ast.FunctionDef)
    assert "Rule" in scope_of(func, tree).names


def _grown(source: str, line: int) -> set[str]:
    """The statements the additions grow a collection by, after `line`."""
    found = mutations(SourceFile("m.py", source), [line])
    return {m.edits[0].text.strip() for m in found if m.op in ("add-statement", "add-update")}


@pytest.mark.parametrize(
    ("source", "line", "wanted"),
    [
        # a deque grows at its left end too: a number's digits are put in front
        (
            "from collections import deque\n\ndef digits(acc):\n    result = deque()\n"
            "    while acc > 0:\n        acc, mod = divmod(acc, 256)\n    return bytes(result)\n",
            6,
            {"result.append(mod)", "result.appendleft(mod)"},
        ),
        # a bytearray buffer grows by bytes, a local's and the instance's
        (
            "def pack(chunks):\n    out = bytearray()\n    for chunk in chunks:\n        print(chunk)\n"
            "    return bytes(out)\n",
            4,
            {"out.extend(chunk)"},
        ),
        (
            "class Decoder:\n    def __init__(self):\n        self._buffer = bytearray()\n\n"
            "    def feed(self, chunk):\n        print(chunk)\n        return len(self._buffer)\n",
            6,
            {"self._buffer.extend(chunk)", "self._buffer.append(chunk)"},
        ),
    ],
    ids=["deque-appendleft", "bytearray-local", "bytearray-member"],
)
def test_a_container_grows_by_what_its_kind_grows_by(source: str, line: int, wanted: set[str]) -> None:
    assert wanted <= _grown(source, line)


# uzod's `_parse` of a union (heldout48): the only read of `error` was the lost `errors.append(...)`
VARIANTS = """\
def parse(schemas, val):
    errors = []
    for schema in schemas:
        try:
            return schema(val)
        except ValueError as error:
            pass
    raise ValueError("no variant matched: " + "; ".join(str(e) for e in errors))
"""


# a clause's name read after the clause would be out of scope there: Python deletes it at the clause's end
CONVERT = """\
def convert(xs):
    out = []
    for x in xs:
        try:
            v = int(x)
        except ValueError as err:
            continue
        out.append(v)
    return out
"""
# and with a block inside the clause, where a statement may be added (not in the clause's own body:
# additions.BLOCKS)
CONVERT_IF = CONVERT.replace("            continue\n", "            if x:\n                pass\n")


def first_function_scope(source: str) -> Scope:
    tree = ast.parse(source)
    func = tree.body[0]
    assert isinstance(func, ast.FunctionDef)
    return scope_of(func, tree)


def test_a_name_an_except_clause_binds_is_in_scope_in_that_clause_only() -> None:
    scope = first_function_scope(VARIANTS)
    assert "error" not in scope.names  # no operator builds with it anywhere
    assert [scope.caught_at(line) for line in (5, 6, 7, 8)] == [[], [], ["error"], []]


# the clause's name read in the clause: still not offered beyond it
CONVERT_READ = CONVERT.replace("            continue\n", "            print(err)\n            continue\n")


def test_a_name_an_except_clause_binds_and_reads_is_in_scope_in_that_clause_only() -> None:
    scope = first_function_scope(CONVERT_READ)
    assert "err" not in scope.names  # only where a clause holds the line (names_at)
    assert ["err" in scope.names_at(line) for line in (3, 5, 6, 7, 8, 9, 10)] == [
        False, False, False, True, True, False, False
    ]  # fmt: skip


def test_a_one_line_except_clause_binds_its_name_on_its_own_line() -> None:
    source = "def f(xs):\n    out = []\n    try:\n        g(xs)\n    except ValueError as e: log(e)\n    return out\n"
    scope = first_function_scope(source)
    assert ["e" in scope.names_at(line) for line in (4, 5, 6)] == [False, True, False]


# a condition after the clause: no clause is added to it that reads the name
CONVERT_READ_IF = CONVERT_READ.replace(
    "        out.append(v)\n", "        if v > 0:\n            out.append(v)\n"
)


@pytest.mark.parametrize(
    "source", [CONVERT_IF, CONVERT_READ, CONVERT_READ_IF], ids=["unread", "read-in-clause", "condition-after"]
)
def test_no_candidate_reads_an_except_clauses_name_outside_the_clause(source: str) -> None:
    made = mutations(SourceFile("m.py", source))
    reading = [m for m in made if re.search(r"\berr\b", "".join(e.text for e in m.edits))]
    assert reading  # inside the clause (lines 7 and 8) it is tried
    outside = [m.description for m in reading if m.line not in (7, 8)]
    assert outside == []


@pytest.mark.parametrize(
    ("source", "line", "wanted"),
    [
        (VARIANTS, 7, "add 'errors.append(error)' in place of 'pass' (line 7)"),
        # read in its clause, the name is offered there
        (
            "def f(xs):\n    out = []\n    for x in xs:\n        try:\n            int(x)\n"
            "        except ValueError as err:\n            print(err)\n    return out\n",
            7,
            "add 'out.append(err)' after line 7",
        ),
        (CONVERT_IF, 8, "add 'out.append(err)' in place of 'pass' (line 8)"),
    ],
    ids=["unread-handler-name", "read-handler-name", "in-the-clause"],
)
def test_a_lost_statement_may_grow_a_collection_by_an_except_clauses_name(
    source: str, line: int, wanted: str
) -> None:
    made = {m.description for m in mutations(SourceFile("m.py", source), [line])}
    assert wanted in made
