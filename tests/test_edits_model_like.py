"""repofix.edits: hunks with the mistakes models make (a context line left out, a made-up line, blank
lines added or dropped), on a small module. Found by a differential fuzz of the locator's alignment
against the mutants that survived the mutation benchmark (evals/results/bench_mutation_edits.md);
each expected file was written out by reading the case, not computed by the code under test."""

from __future__ import annotations

import pytest

from repofix.edits import ErrorKind, apply_edit
from tests.edit_cases import applied, diff

MODULE = """import os


def load(path):
    if not path:
        return None

    with open(path) as f:
        data = f.read()

    return data


def save(path, data):
    if not path:
        return None

    with open(path, "w") as f:
        f.write(data)

    return data


class Store:
    def __init__(self):
        self.items = []
"""
MODEL_LIKE = [
    (  # three blank lines where the file has one: the added line goes above them, the blank one after
        "@@ -19,5 +19,7 @@\n+    return None\n \n \n \n     return data\n+\n \n",
        (
            "        f.write(data)\n\n    return data\n",
            "        f.write(data)\n    return None\n\n    return data\n\n",
        ),
    ),
    (  # one blank line before `def save` where the file has two: the added line goes right above it
        "@@ -9,6 +9,5 @@\n-        data = f.read()\n \n     return data\n \n+    return None\n def save(path, data):\n"
        "-    if not path:\n",
        (
            "        data = f.read()\n\n    return data\n\n\ndef save(path, data):\n    if not path:\n",
            "\n    return data\n\n\n    return None\ndef save(path, data):\n",
        ),
    ),
    (  # `return None` left out of the context, far from where the lines are added
        "@@ -3,7 +3,8 @@\n \n-def load(path):\n     if not path:\n \n+    return None\n+    return None\n"
        "     with open(path) as f:\n         data = f.read()\n \n",
        (
            "def load(path):\n    if not path:\n        return None\n\n    with open(path) as f:\n",
            "    if not path:\n        return None\n\n    return None\n    return None\n    with open(path) as f:\n",
        ),
    ),
    (  # a made-up first context line
        "@@ -14,4 +14,5 @@\n     made_up()\n         data = f.read()\n \n+    return None\n-    return data\n"
        "+    log(path)\n",
        (
            "        data = f.read()\n\n    return data\n",
            "        data = f.read()\n\n    return None\n    log(path)\n",
        ),
    ),
    (  # a made-up line in the middle; the line is added after the trailing blank line, as the hunk says
        "@@ -6,6 +6,6 @@\n-        return None\n \n     made_up()\n     with open(path) as f:\n"
        "         data = f.read()\n \n+    return None\n",
        (
            "        return None\n\n    with open(path) as f:\n        data = f.read()\n\n    return data\n",
            "\n    with open(path) as f:\n        data = f.read()\n\n    return None\n    return data\n",
        ),
    ),
    (  # `return data` left out before the two blank lines the line is added between; `class` removed
        '@@ -18,5 +18,5 @@\n-    with open(path, "w") as f:\n+    log(path)\n         f.write(data)\n \n+    x = 1\n \n'
        "-class Store:\n",
        (
            '    with open(path, "w") as f:\n        f.write(data)\n\n    return data\n\n\nclass Store:\n',
            "    log(path)\n        f.write(data)\n\n    return data\n\n    x = 1\n\n",
        ),
    ),
]


@pytest.mark.parametrize(
    ("hunk", "change"),
    MODEL_LIKE,
    ids=["blanks", "before-def", "left-out", "made-up-first", "made-up-middle", "left-out-before-class"],
)
def test_model_like_hunks_apply_where_a_reader_would_put_them(hunk: str, change: tuple[str, str]) -> None:
    before, after = change
    assert MODULE.count(before) == 1
    assert applied(diff(hunk.split("\n", 1)[1], hunk.split("\n", 1)[0]), {"m.py": MODULE}) == MODULE.replace(
        before, after
    )


def test_a_removal_whose_hunk_repeats_the_removed_line_as_context_matches_both_functions() -> None:
    # The model thought `if not path:` was doubled and removes one copy; the file has one in load()
    # and one in save(). Read with the context copy as the line the file lacks, both match alike.
    text = diff("     if not path:\n \n-    if not path:\n         return None\n", "@@ -9,4 +9,3 @@")
    result = apply_edit(text, {"m.py": MODULE}, check_python=False)
    assert result.error is not None and result.error.kind == ErrorKind.AMBIGUOUS, result.message()
    message = result.message()
    assert "matches 2 places" in message and "at line 5:" in message and "at line 15:" in message


SIBLINGS = """def load_a(path):
    with open(path) as f:
        data = f.read()

    return data.strip()


def load_b(path):
    with open(path) as f:
        data = f.read()
        log(data)
    return data
"""


def test_a_left_out_context_line_is_applied_though_a_sibling_already_reads_like_the_fix() -> None:
    # load_b's hunk leaves out `log(data)`; load_a holds the new lines but for a blank line. That is
    # no sign this edit was made already: only new lines at the place the old lines match would be.
    text = diff(
        "     with open(path) as f:\n         data = f.read()\n-    return data\n+    return data.strip()\n",
        "@@ -9,3 +9,3 @@",
    )
    assert (
        applied(text, {"m.py": SIBLINGS})
        == SIBLINGS[: SIBLINGS.rindex("return data")] + "return data.strip()\n"
    )
