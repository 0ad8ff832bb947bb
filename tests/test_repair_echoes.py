"""A condition that is one half of a condition elsewhere in the module gets the other half
(repair/echoes.py): renamed to this function's locals, as it is, or a clause of its shape."""

from __future__ import annotations

import pytest

from repofix.repair.echoes import MAX_ECHOES, RENAMED, SHAPED, VERBATIM
from repofix.repair.generate import mutations
from repofix.repair.source import SourceFile


def echoed(source: str, line: int) -> dict[str, float]:
    return {
        m.edits[0].text: m.prior
        for m in mutations(SourceFile("m.py", source), [line])
        if m.op == "echo-clause"
    }


# pathlib-abc's glob: two functions test a compiled pattern alike
GLOB = """\
def first(match, path):
    path_str = str(path)
    if match is None or match(path_str, 0):
        return path


def second(match, entries):
    for entry in entries:
        entry_path_str = str(entry)
        if match is None:
            yield entry
"""
# podcastparser's two handlers: one condition each, of the same shape
HANDLERS = """\
class Episode:
    def start(self, handler):
        if not self.overwrite and handler.get_episode_attr(self.key):
            return
        handler.set_episode_attr(self.key)


class Podcast:
    def start(self, handler):
        if handler.get_podcast_attr(self.key):
            handler.log(self.key)
        if not self.overwrite:
            return
"""


# the two functions nested in one that binds `match`: a name of their closure, not a local to rename
NESTED = """\
def selector(pattern):
    match = compile(pattern)

    def first(path):
        path_str = str(path)
        if match is None or match(path_str, 0):
            return path

    def second(entries):
        for entry in entries:
            entry_path_str = str(entry)
            if match is None:
                yield entry

    return first, second
"""


@pytest.mark.parametrize(
    ("source", "line", "text", "prior"),
    [
        (GLOB, 10, "match is None or match(entry_path_str, 0)", RENAMED),
        (NESTED, 12, "match is None or match(entry_path_str, 0)", RENAMED),
        (HANDLERS, 12, "not self.overwrite and handler.get_podcast_attr(self.key)", SHAPED),
        (HANDLERS, 12, "not self.overwrite and handler.get_episode_attr(self.key)", VERBATIM),
        # the half that comes second gets the first: `x is not None and x > 0` elsewhere
        (
            "def f(x):\n    if x is not None and x > 0:\n        return x\n\n\ndef g(x):\n    if x > 0:\n        return 1\n",
            7,
            "x is not None and x > 0",
            VERBATIM,
        ),
    ],
)
def test_the_other_half_is_joined(source: str, line: int, text: str, prior: float) -> None:
    assert echoed(source, line)[text] >= prior


@pytest.mark.parametrize(
    ("source", "line"),
    [
        # `path_str` is the other function's local and this one has none ending so: no guess
        (GLOB.replace("entry_path_str", "name"), 10),
        # a condition that is nobody's half
        ("def f(x):\n    if x:\n        return 1\n\n\ndef g(y):\n    if y or z:\n        return 2\n", 2),
    ],
)
def test_no_echo_without_a_twin(source: str, line: int) -> None:
    assert echoed(source, line) == {}


def test_a_yield_is_never_joined_bare() -> None:
    source = (
        "def f(a):\n    while (yield) or a:\n        pass\n\n\ndef g(a):\n    while (yield):\n        pass\n"
    )
    assert echoed(source, 7) == {}


def test_a_condition_written_many_times_gets_a_few_echoes() -> None:
    many = "".join(
        f"def f{i}(x):\n    if x is None or x.k{i}(x):\n        return 1\n\n\n" for i in range(300)
    )
    source = many + "def g(x):\n    if x is None:\n        return 2\n"
    assert len(echoed(source, 300 * 5 + 2)) == MAX_ECHOES
