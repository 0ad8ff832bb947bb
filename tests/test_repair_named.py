"""A callable whose one argument bears a value's name is the wrapper that value likely lost
(wrappers.named_for): `def validate(karyotype)` around `karyotype`, a module's function, a class
made from one value or a function nested in the one repaired."""

from __future__ import annotations

import pytest

from repofix.repair.generate import mutations
from repofix.repair.source import SourceFile
from repofix.repair.wrappers import MAX_NAMED, NAMED_PRIOR


def wrapped(source: str, line: int) -> dict[str, float]:
    return {
        m.description: m.prior for m in mutations(SourceFile("m.py", source), [line]) if m.op == "add-wrapper"
    }


HELPERS = (
    "def normalize(mime_type):\n    return mime_type.lower()\n\n\ndef other(value):\n    return value\n\n\n"
)


@pytest.mark.parametrize(
    ("source", "line", "wrap"),
    [
        # returned, assigned, passed: a module function named for its argument
        (HELPERS + "def f(mime_type):\n    return mime_type\n", 10, "wrap mime_type in normalize()"),
        (
            HELPERS + "def f(mime_type):\n    x = mime_type\n    return x\n",
            10,
            "wrap mime_type in normalize()",
        ),
        (HELPERS + "def f(mime_type):\n    print(mime_type)\n", 10, "wrap mime_type in normalize()"),
        # an attribute of that name (`self.mime_type`)
        (HELPERS + "def f(self):\n    return self.mime_type\n", 10, "wrap self.mime_type in normalize()"),
        # a class made from one value, named so in its `__init__`
        (
            "class Zone:\n    def __init__(self, zone):\n        self.zone = zone\n\n\n"
            "def f(zone):\n    return zone\n",
            7,
            "wrap zone in Zone()",
        ),
        # a function nested in the one repaired, which nothing else calls (pyflakes' `_add_key(fmtkey)`)
        (
            "def f(keys):\n    def add_key(fmtkey):\n        return fmtkey\n\n"
            "    out = []\n    for fmtkey in keys:\n        out.append(fmtkey)\n    return out\n",
            7,
            "wrap fmtkey in add_key()",
        ),
        # the receiver of an attribute read (iscn-authenticator's `validate_karyotype(karyotype).valid`)
        (
            "def validate_karyotype(karyotype):\n    return karyotype\n\n\n"
            "def is_valid(karyotype):\n    return karyotype.valid\n",
            6,
            "wrap karyotype in validate_karyotype()",
        ),
        # a condition's value (the callees tried there)
        (
            HELPERS + "def f(mime_type):\n    if mime_type:\n        return 1\n",
            10,
            "wrap mime_type in normalize()",
        ),
    ],
)
def test_a_callable_named_for_its_argument_wraps_a_value_of_that_name_first(
    source: str, line: int, wrap: str
) -> None:
    made = wrapped(source, line)
    assert made[wrap] == NAMED_PRIOR
    others = [p for d, p in made.items() if "normalize" not in d and "Zone" not in d and d != wrap]
    assert max(others) < NAMED_PRIOR


def test_another_name_stays_a_plain_guess() -> None:
    """`other(value)` around `mime_type`: tried, as any of the module's callables is, below the named one."""
    made = wrapped(HELPERS + "def f(mime_type):\n    return mime_type\n", 10)
    assert made["wrap mime_type in other()"] < NAMED_PRIOR
    assert made["wrap mime_type in normalize()"] == NAMED_PRIOR


@pytest.mark.parametrize(
    ("source", "line", "absent"),
    [
        # the function itself: `f(n)` inside `f(n)` recurses for ever
        ("def f(n):\n    return n\n", 2, "wrap n in f()"),
        # an attribute's receiver gets no callable but one named for it
        (HELPERS + "def f(value):\n    return value.lower\n", 10, "wrap value in normalize()"),
    ],
    ids=["itself", "receiver-of-another-name"],
)
def test_no_callable_is_tried_where_no_name_points_to_it(source: str, line: int, absent: str) -> None:
    made = wrapped(source, line)
    assert made  # the line gets its other wrappers
    assert absent not in made


def test_a_method_called_on_the_value_is_not_wrapped_by_name_twice() -> None:
    """`karyotype.check()`: the method call's receiver is `call_targets`' (one candidate, named)."""
    source = "def validate_karyotype(karyotype):\n    return karyotype\n\n\ndef g(karyotype):\n    return karyotype.check()\n"
    made = [
        m
        for m in mutations(SourceFile("m.py", source), [6])
        if m.description == "wrap karyotype in validate_karyotype()"
    ]
    assert len(made) == 1
    assert max(m.prior for m in made) == NAMED_PRIOR


def test_a_generated_module_cannot_flood_a_line_with_named_callables() -> None:
    """3,000 `def fN(x)`: at most MAX_NAMED of them get the named prior around `x`, and only those
    wrap the receiver of `x.y`; the rest stay the plain guesses any one-argument function is."""
    source = (
        "".join(f"def f{i}(x):\n    return x\n\n\n" for i in range(3000)) + "def g(x):\n    return x.y + x\n"
    )
    made = list(mutations(SourceFile("m.py", source), [source.count("\n")]))
    named = [m for m in made if m.op == "add-wrapper" and m.prior == NAMED_PRIOR]
    assert len(named) == 2 * MAX_NAMED  # around `x` and around the receiver of `x.y`
    assert sum("wrap x in " in m.description for m in made) > 3000
