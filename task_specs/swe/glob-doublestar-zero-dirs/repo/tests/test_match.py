import pytest

from pathglob import PatternSet, match
from pathglob.translate import PatternError


@pytest.mark.parametrize(
    "pattern,path,expected",
    [
        ("*.py", "setup.py", True),
        ("*.py", "pkg/mod.py", False),
        ("pkg/?.txt", "pkg/a.txt", True),
        ("pkg/?.txt", "pkg/ab.txt", False),
        ("[ab]*.md", "b-notes.md", True),
        ("[!ab]*.md", "b-notes.md", False),
        ("src/**/*.py", "src/pkg/sub/mod.py", True),
        ("docs/**", "docs/a/b.rst", True),
        ("docs/**", "src/docs/a.rst", False),
    ],
    ids=["star", "star-no-slash", "qmark", "qmark-one", "class", "negated-class", "doublestar-deep",
         "trailing-doublestar", "anchored"],
)
def test_match(pattern, path, expected):
    assert match(pattern, path) is expected


def test_windows_separators_and_dot_prefix():
    assert match("src/*.c", ".\\src\\main.c")


@pytest.mark.parametrize("pattern", ["a**", "**b/c", "x/[ab"], ids=["glued-left", "glued-right", "open-class"])
def test_bad_patterns(pattern):
    with pytest.raises(PatternError):
        match(pattern, "anything")


def test_pattern_set_last_match_wins():
    rules = PatternSet(["# build output", "build/**", "!build/keep/*.txt"])
    assert "build/x/y.o" in rules
    assert "build/keep/notes.txt" not in rules
    assert rules.filter(["build/a/b", "src/a", "build/keep/a.txt"]) == ["build/a/b"]
