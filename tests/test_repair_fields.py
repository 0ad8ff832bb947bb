"""A class's containers declared as fields in its body (fields.py): a dataclass's
`events: list[str] = field(default_factory=list)` is grown by a missing `self.events.append(event)`
as a container `__init__` binds with `self.events = []` is."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from repofix.repair.fields import declared_containers
from repofix.repair.generate import mutations
from repofix.repair.source import SourceFile
from tests.test_repair_additions import assert_engine_repairs


@pytest.mark.parametrize(
    ("field", "kind"),
    [
        ("x: list[int] = field(default_factory=list)", "list"),
        ("x: set = attrs.field(factory=set)", "set"),
        ("x: Dict[str, int] = dataclasses.field(default_factory=dict)", "dict"),
        ("x: 'Deque[int]' = field(default_factory=deque)", "deque"),  # the factory decides
        ("x: typing.List[int]", "list"),  # given to __init__: the type decides
        ("x: MutableSet[str] = field(repr=False)", "set"),
        ("x: List[int] = []", "list"),  # a pydantic model's default, a class variable
        ("x: Set[int] = set()", "set"),
        ("x: int = 0", None),
        ("x: list = DEFAULTS", None),  # a shared object someone else made: not the instance's own
        ("x: Optional[list] = None", None),
        ("x: list[int] = field(default_factory=make_list)", None),  # unknown factory
        ("x = []", None),  # not declared a field (a class attribute without an annotation)
    ],
)
def test_the_kind_of_a_declared_field(field: str, kind: str | None) -> None:
    owner = ast.parse(f"class C:\n    {field}\n").body[0]
    assert isinstance(owner, ast.ClassDef)
    assert declared_containers(owner) == ({"x": kind} if kind else {})


LOG = """\
from dataclasses import dataclass, field


@dataclass
class Log:
    limit: int
    kept: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)

    def record(self, event):
        if len(self.kept) < self.limit:
            self.kept.append(event)
        else:
            pass
        return len(self.kept) + len(self.dropped)
"""
FIXED = LOG.replace("            pass\n", "            self.dropped.append(event)\n")


def test_a_missing_update_of_a_dataclass_field_is_made() -> None:
    src = SourceFile("log.py", LOG)
    line = LOG.splitlines().index("            pass") + 1
    want = ast.dump(ast.parse(FIXED))
    made = [m for m in mutations(src, [line]) if ast.dump(ast.parse(src.apply(m.edits))) == want]
    assert [m.op for m in made] == ["add-update"]


def test_the_engine_repairs_a_missing_append_to_a_dataclass_field(make_sandbox, tmp_path: Path) -> None:
    tests = (
        "from log import Log\n\n\n"
        "def test_events_past_the_limit_are_dropped_not_lost():\n"
        "    log = Log(2)\n"
        "    assert [log.record(e) for e in 'abc'] == [1, 2, 3]\n"
        "    assert log.kept == ['a', 'b'] and log.dropped == ['c']\n\n\n"
        "def test_under_the_limit():\n    log = Log(5)\n    log.record('a')\n    assert log.kept == ['a']\n"
    )
    assert_engine_repairs(
        make_sandbox, tmp_path, "log", LOG, tests, "            self.dropped.append(event)\n"
    )
