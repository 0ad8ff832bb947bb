"""repofix.edits: every tolerance tier, every error kind, the three formats."""

from __future__ import annotations

import pytest

from repofix.edits import FORMATS, ErrorKind, apply_edit

BASE = """import os


def add(a, b):
    total = a + b
    return total


def sub(a, b):
    return a - b
"""
WANT = BASE.replace("    total = a + b\n", "    total = a + b + 0\n")


def diff(body: str, header: str = "@@ -4,4 +4,4 @@", path: str = "m.py") -> str:
    return f"--- a/{path}\n+++ b/{path}\n{header}\n{body}"


HUNK = " def add(a, b):\n-    total = a + b\n+    total = a + b + 0\n     return total\n \n"

TIER_CASES = {
    "exact": (diff(HUNK), None),
    "line drift": (diff(HUNK, "@@ -40,4 +41,4 @@"), None),
    "wrong counts": (diff(HUNK, "@@ -4,2 +4,9 @@"), None),
    "no line numbers": (diff(HUNK, "@@ @@"), None),
    "no @@ line at all": ("--- a/m.py\n+++ b/m.py\n" + HUNK, None),
    "blank context line without its space": (diff(HUNK.replace("\n \n", "\n\n")), None),
    "trailing whitespace": (
        diff(HUNK.replace(" def add(a, b):", " def add(a, b):   ")),
        "trailing whitespace",
    ),
    "indented 4 more": (
        diff("".join(ln[0] + "    " + ln[1:] + "\n" for ln in HUNK.splitlines())),
        "indentation",
    ),
    "tabs for spaces": (diff(HUNK.replace("    ", "\t")), "indentation"),
    "extra blank line in context": (
        diff(" def add(a, b):\n \n-    total = a + b\n+    total = a + b + 0\n     return total\n"),
        "blank-line",
    ),
    "context line that is not in the file": (
        diff(
            " def add(a, b):\n     '''Add.'''\n-    total = a + b\n+    total = a + b + 0\n     return total\n \n \n def sub(a, b):\n"
        ),
        "context lines",
    ),
    "context line missing from the edit": (
        diff(
            " import os\n \n \n def add(a, b):\n     return total\n \n \n-def sub(a, b):\n+def sub(a, b, c=0):\n",
            "@@ -1,8 +1,8 @@",
        ),
        "context lines",
    ),
    "search/replace": (
        "m.py\n<<<<<<< SEARCH\n    total = a + b\n=======\n    total = a + b + 0\n>>>>>>> REPLACE\n",
        None,
    ),
    "search/replace in a fence with a label": (
        "Here is the fix:\n```python\n**m.py**\n<<<<<<< SEARCH\n    total = a + b\n=======\n    total = a + b + 0\n>>>>>>> REPLACE\n```\n",
        None,
    ),
    "search/replace, re-indented": (
        "m.py\n<<<<<<< SEARCH\ntotal = a + b\nreturn total\n=======\ntotal = a + b + 0\nreturn total\n>>>>>>> REPLACE\n",
        "indentation",
    ),
    "diff in a markdown fence": ("```diff\n" + diff(HUNK) + "```\n", None),
}


@pytest.mark.parametrize("name", list(TIER_CASES))
def test_tiers_apply_the_intended_change(name: str) -> None:
    text, note = TIER_CASES[name]
    result = apply_edit(text, {"m.py": BASE})
    assert result.ok, result.message()
    want = BASE.replace("def sub(a, b)", "def sub(a, b, c=0)") if "missing" in name else WANT
    assert result.changes == {"m.py": want}
    if note:
        assert any(note in n for n in result.notes), result.notes


def test_missing_final_newline_is_kept() -> None:
    result = apply_edit(diff(HUNK), {"m.py": BASE.rstrip("\n")})
    assert result.changes == {"m.py": WANT.rstrip("\n")}


def test_explicit_no_newline_marker_is_honoured() -> None:
    text = "--- a/m.py\n+++ b/m.py\n@@ -9,2 +9,2 @@\n def sub(a, b):\n-    return a - b\n+    return a - b\n\\ No newline at end of file\n"
    assert apply_edit(text, {"m.py": BASE}).changes == {"m.py": BASE.rstrip("\n")}


def test_crlf_file_keeps_crlf() -> None:
    crlf = BASE.replace("\n", "\r\n")
    assert apply_edit(diff(HUNK), {"m.py": crlf}).changes == {"m.py": WANT.replace("\n", "\r\n")}


def test_whole_file_write_and_delete_blocks() -> None:
    text = "new.py\n<<<<<<< FILE\nx = 1\n>>>>>>> END\n\nm.py\n<<<<<<< DELETE\n>>>>>>> END\n"
    result = apply_edit(text, {"m.py": BASE})
    assert result.format == "whole-file"
    assert result.changes == {"new.py": "x = 1\n", "m.py": None}


def test_empty_search_creates_a_file_and_blocks_apply_in_order() -> None:
    text = (
        "pkg/new.py\n<<<<<<< SEARCH\n=======\nA = 1\n>>>>>>> REPLACE\n"
        "pkg/new.py\n<<<<<<< SEARCH\nA = 1\n=======\nA = 2\n>>>>>>> REPLACE\n"
    )
    assert apply_edit(text, {}).changes == {"pkg/new.py": "A = 2\n"}


def test_diff_with_several_files_new_deleted_renamed() -> None:
    text = (
        diff(HUNK)
        + "--- /dev/null\n+++ b/n.py\n@@ -0,0 +1,2 @@\n+X = 1\n+Y = 2\n"
        + "--- a/old.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone = True\n"
        + "diff --git a/r.py b/s.py\nsimilarity index 100%\nrename from r.py\nrename to s.py\n"
    )
    result = apply_edit(text, {"m.py": BASE, "old.py": "gone = True\n", "r.py": "R = 1\n"})
    assert result.ok, result.message()
    assert result.changes == {
        "m.py": WANT,
        "n.py": "X = 1\nY = 2\n",
        "old.py": None,
        "r.py": None,
        "s.py": "R = 1\n",
    }


def test_callable_file_source() -> None:
    result = apply_edit(diff(HUNK), lambda p: BASE if p == "m.py" else None, known_paths=["m.py"])
    assert result.changes == {"m.py": WANT}


@pytest.mark.parametrize(
    "text",
    [
        diff(HUNK),
        "m.py\n<<<<<<< SEARCH\n    total = a + b\n=======\n    total = a + b + 0\n>>>>>>> REPLACE\n",
    ],
    ids=["diff", "search-replace"],
)
def test_already_applied_is_reported_not_failed(text: str) -> None:
    result = apply_edit(text, {"m.py": WANT})
    assert result.ok and result.changes == {}
    assert any("already applied" in n for n in result.notes)


@pytest.mark.parametrize("copy", [False, True], ids=["new function", "copy of the context"])
def test_insertion_already_applied_is_not_duplicated(copy: bool) -> None:
    name, body = ("sub", "a - b") if copy else ("mul", "a * b")
    text = diff(
        f" def sub(a, b):\n     return a - b\n+\n+\n+def {name}(a, b):\n+    return {body}\n",
        "@@ -9,2 +9,6 @@",
    )
    once = apply_edit(text, {"m.py": BASE}).changes["m.py"]
    again = apply_edit(text, {"m.py": once})
    assert again.changes == {}
    # A clean insertion is recognised as done; one that repeats its own context cannot be told
    # from a second insertion, so it is refused rather than guessed.
    assert again.ok is not copy


def test_hunks_apply_all_or_none() -> None:
    bad = HUNK + "@@ -9,2 +9,2 @@\n def sub(a, b):\n-    return a * b\n+    return b - a\n"
    result = apply_edit(diff(bad), {"m.py": BASE})
    assert not result.ok and result.changes == {}
    assert result.error.kind is ErrorKind.NO_MATCH and result.error.hunk == 2


TWICE = "def f():\n    return 1\n\n\ndef g():\n    return 1\n"

ERROR_CASES = {
    ErrorKind.NO_EDIT: ("I think you should change the return value.", {"m.py": BASE}),
    ErrorKind.MALFORMED: ("m.py\n<<<<<<< SEARCH\nx\n=======\ny\n", {"m.py": BASE}),
    ErrorKind.BAD_PATH: (diff(HUNK, path="../m.py"), {"m.py": BASE}),
    ErrorKind.FILE_NOT_FOUND: (diff(HUNK, path="src/mm.py"), {"m.py": BASE, "src/m.py": BASE}),
    ErrorKind.FILE_EXISTS: ("--- /dev/null\n+++ b/m.py\n@@ -0,0 +1 @@\n+x = 1\n", {"m.py": BASE}),
    ErrorKind.NO_MATCH: (diff(" def add(a, b):\n-    total = a * b\n+    total = 0\n"), {"m.py": BASE}),
    ErrorKind.AMBIGUOUS: (
        "t.py\n<<<<<<< SEARCH\n    return 1\n=======\n    return 2\n>>>>>>> REPLACE\n",
        {"t.py": TWICE},
    ),
    ErrorKind.CONFLICT: (
        diff(HUNK + "@@ -5,2 +5,2 @@\n-    total = a + b\n+    total = 1\n     return total\n"),
        {"m.py": BASE},
    ),
    ErrorKind.BINARY: (
        "diff --git a/i.png b/i.png\nindex 1..2 100644\nBinary files a/i.png and b/i.png differ\n",
        {"i.png": b"\x89PNG\0"},
    ),
    ErrorKind.SYNTAX_ERROR: (diff(" def add(a, b):\n-    total = a + b\n+    total = a +\n"), {"m.py": BASE}),
}


@pytest.mark.parametrize("kind", list(ERROR_CASES), ids=lambda k: k.value)
def test_error_kinds(kind: ErrorKind) -> None:
    text, files = ERROR_CASES[kind]
    result = apply_edit(text, files)
    assert not result.ok and result.changes == {}
    assert result.error.kind is kind, result.message()
    assert "NOT applied" in result.message()


def test_no_match_shows_closest_region_with_line_numbers() -> None:
    err = apply_edit(ERROR_CASES[ErrorKind.NO_MATCH][0], {"m.py": BASE}).error
    assert err.region is not None and err.region.first_line == 4
    assert "    4 | def add(a, b):" in err.message
    assert "-     total = a * b" in err.message and "+     total = a + b" in err.message


def test_ambiguous_lists_candidates() -> None:
    err = apply_edit(*ERROR_CASES[ErrorKind.AMBIGUOUS]).error
    assert err.candidates == [2, 6]
    assert "matches 2 places" in err.message


def test_ambiguous_resolved_by_exact_line_number() -> None:
    text = "--- a/t.py\n+++ b/t.py\n@@ -6,1 +6,1 @@\n-    return 1\n+    return 2\n"
    assert apply_edit(text, {"t.py": TWICE}).changes == {"t.py": TWICE[:-2] + "2\n"}


def test_ambiguous_resolved_by_hunk_order() -> None:
    text = "--- a/t.py\n+++ b/t.py\n@@ -1 +1 @@\n-    return 1\n+    return 3\n@@ -9 +9 @@\n-    return 1\n+    return 4\n"
    assert apply_edit(text, {"t.py": TWICE}).changes == {"t.py": TWICE.replace("1", "3", 1).replace("1", "4")}


def test_missing_file_suggests_similar_paths() -> None:
    err = apply_edit(*ERROR_CASES[ErrorKind.FILE_NOT_FOUND]).error
    assert "src/m.py" in err.similar_paths and "src/m.py" in err.message


def test_syntax_error_names_the_line_but_not_if_the_file_never_parsed() -> None:
    err = apply_edit(*ERROR_CASES[ErrorKind.SYNTAX_ERROR]).error
    assert err.candidates == [5] and "line 5" in err.message
    broken = BASE.replace("import os", "import os +")
    result = apply_edit(ERROR_CASES[ErrorKind.SYNTAX_ERROR][0], {"m.py": broken})
    assert result.ok


def test_binary_file_cannot_be_edited_as_text() -> None:
    result = apply_edit(diff(HUNK), {"m.py": b"\0\1\2binary"})
    assert result.error.kind is ErrorKind.BINARY


def test_formats_text_examples_parse() -> None:
    blocks = FORMATS.split("\n\n")
    sr = next(b for b in blocks if "<<<<<<< SEARCH" in b)
    result = apply_edit(sr, {"path/to/file.py": "def add(a, b):\n    return a + b\n"})
    assert result.changes == {"path/to/file.py": "def add(a, b):\n    return a - b\n"}


def test_bom_and_bytes_are_preserved() -> None:
    bom = "\ufeff" + BASE
    assert apply_edit(diff(HUNK), {"m.py": bom}).changes == {"m.py": "\ufeff" + WANT}
    assert apply_edit(diff(HUNK), {"m.py": BASE.encode()}).changes == {"m.py": WANT.encode()}


def test_rename_onto_an_existing_file_is_refused_and_a_done_rename_is_noticed() -> None:
    text = "diff --git a/r.py b/s.py\nrename from r.py\nrename to s.py\n"
    assert apply_edit(text, {"r.py": "R = 1\n", "s.py": "S = 1\n"}).error.kind is ErrorKind.FILE_EXISTS
    moved = text + "--- a/r.py\n+++ b/s.py\n@@ -1 +1 @@\n-R = 1\n+R = 2\n"
    result = apply_edit(moved, {"s.py": "R = 1\n"})
    assert result.changes == {"s.py": "R = 2\n"} and any("already renamed" in n for n in result.notes)


def test_divider_lines_in_the_text_itself() -> None:
    rst = "Title\n=====\nold\n"
    one_way = "f.rst\n<<<<<<< SEARCH\n=====\nold\n=======\n=====\nnew\n>>>>>>> REPLACE\n"
    assert apply_edit(one_way, {"f.rst": rst}).changes == {"f.rst": "Title\n=====\nnew\n"}
    doc = "Install\n=======\n\nRun it.\n"
    two_ways = "d.rst\n<<<<<<< SEARCH\nInstall\n=======\n\nRun it.\n=======\nInstall\n=======\n\nRun it twice.\n>>>>>>> REPLACE\n"
    assert apply_edit(two_ways, {"d.rst": doc}).error.kind is ErrorKind.AMBIGUOUS


def test_diff_of_a_file_that_contains_block_markers_is_a_diff() -> None:
    text = "--- a/t.txt\n+++ b/t.txt\n@@ -1,3 +1,3 @@\n <<<<<<< SEARCH\n-a\n+b\n =======\n"
    result = apply_edit(text, {"t.txt": "<<<<<<< SEARCH\na\n=======\n"})
    assert result.format == "diff" and result.changes == {"t.txt": "<<<<<<< SEARCH\nb\n=======\n"}


def test_hunk_order_is_not_trusted_when_the_placed_hunks_are_out_of_order() -> None:
    three = TWICE + "\n\ndef h():\n    pass\n"
    text = (
        "--- a/t.py\n+++ b/t.py\n@@ -9 +9 @@\n-def h():\n+def hh():\n@@ -1 +1 @@\n-def f():\n+def ff():\n"
        "@@ -30 +30 @@\n-    return 1\n+    return 2\n"
    )
    assert apply_edit(text, {"t.py": three}).error.kind is ErrorKind.AMBIGUOUS


def test_added_lines_follow_the_surrounding_indentation_style() -> None:
    src = "import os\n\n\ndef f():\n    a = 1\n    b = 2\n    return a\n\n\nX = 1\n"
    text = "--- a/s.py\n+++ b/s.py\n@@ -10 +10,3 @@\n X = 1\n+if X:\n+\tY = 2\n"
    assert apply_edit(text, {"s.py": src}).changes == {"s.py": src + "if X:\n    Y = 2\n"}


def test_resent_edit_is_not_applied_to_a_similar_place() -> None:
    twins = "def f():\n    return compute(1)\n\n\n" * 2 + "x = 0\n"
    done = twins.replace("compute(1)", "compute(2)", 1)
    text = diff(
        " def f():\n-    return compute(1)\n+    return compute(2)\n \n \n def f():\n",
        "@@ -1,5 +1,5 @@",
        "t.py",
    )
    result = apply_edit(text, {"t.py": done})
    assert result.changes == {}
    assert not result.ok and "already in the file at line 1" in result.message()
