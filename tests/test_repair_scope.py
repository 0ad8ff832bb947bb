"""What a function has in scope (repair/scope.py) for the operators to build with: a name read only
in an annotation is a type, never a value."""

from __future__ import annotations

import ast

import pytest

from repofix.repair.generate import mutations
from repofix.repair.scope import scope_of
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
