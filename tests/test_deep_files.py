"""A Python file nested deeper than the parser goes (a generated or hostile 5,000-term line: the
repository's or the model's) is a file that does not parse, wherever repofix reads one: the repo
map, the test guard, the edit check, the built-in engine. Before, each raised RecursionError."""

from __future__ import annotations

import ast

import pytest

from repofix.agent.repomap import definitions
from repofix.edits import ErrorKind, apply_edit
from repofix.repair.source import UNPARSABLE, SourceFile
from repofix.workspace.testguard import test_shapes as shapes_of

DEEP = "def total(x):\n    return " + " + ".join(["x"] * 5000) + "\n"


def test_the_file_is_one_the_parser_cannot_build() -> None:
    with pytest.raises(RecursionError):
        ast.parse(DEEP)


def test_the_repo_map_says_it_does_not_parse() -> None:
    assert definitions(DEEP, methods=True) == ["(does not parse)"]


def test_the_test_guard_reads_no_shapes_of_it() -> None:
    assert shapes_of(DEEP.encode()) is None


def test_an_edit_that_writes_it_is_refused_as_a_syntax_error() -> None:
    edit = (
        "--- /dev/null\n+++ b/deep.py\n@@ -0,0 +1,2 @@\n+" + DEEP.replace("\n", "\n+", 1).rstrip("\n") + "\n"
    )
    result = apply_edit(edit, {})
    assert not result.ok and result.changes == {}
    assert result.error.kind is ErrorKind.SYNTAX_ERROR, result.message()


def test_the_built_in_engine_counts_it_unparsable() -> None:
    with pytest.raises(UNPARSABLE):
        SourceFile("deep.py", DEEP)
