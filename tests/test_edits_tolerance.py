"""repofix.edits: edits as models really write them (issue 17), and the four ways it once produced a
wrong file, each pinned by the minimal case that showed it."""

from __future__ import annotations

import pytest

from repofix.edits import ErrorKind, apply_edit
from repofix.edits.guard import unexplained_change
from repofix.edits.model import Hunk

CLASS = "class A:\n    def f(self):\n        x = 1\n        return x\n\n\ndef g():\n    return 2\n"


def diff(body: str, header: str = "@@ -1,1 +1,1 @@", path: str = "m.py") -> str:
    return f"--- a/{path}\n+++ b/{path}\n{header}\n{body}"


def applied(text: str, files: dict[str, str], path: str = "m.py") -> str:
    result = apply_edit(text, files)
    assert result.ok, result.message()
    return result.changes[path]  # type: ignore[return-value]


def refused(text: str, files: dict[str, str], kind: ErrorKind) -> str:
    result = apply_edit(text, files)
    assert not result.ok and not result.changes
    assert result.error is not None and result.error.kind == kind, result.message()
    return result.message()


# --- the four misapply causes ---------------------------------------------------------------------


def test_pure_insertion_with_lost_context_indentation_is_refused_not_nested() -> None:
    # Once: the context's lost indentation was "corrected" onto the added top-level function too,
    # nesting it inside A.f after its return (and the result still parsed).
    text = diff(" x = 1\n return x\n+\n+\n+def h():\n+    return 3\n", "@@ -3,2 +3,6 @@")
    message = refused(text, {"m.py": CLASS}, ErrorKind.AMBIGUOUS)
    assert "removes no line" in message


def test_pure_insertion_shift_is_used_when_another_hunk_removes_lines_with_it() -> None:
    # The same shift shown by removed lines elsewhere in the edit is evidence for the insertion too.
    body = "".join(f"def f{i}():\n    a = {i}\n    b = {i}\n    return a\n\n\n" for i in range(4))
    want = body.replace("    a = 0\n", "    a = 10\n").replace("    b = 3\n", "    b = 3\n    c = 3\n")
    text = (
        diff("-a = 0\n+a = 10\n b = 0\n", "@@ -2,2 +2,2 @@") + "@@ -20,2 +20,3 @@\n a = 3\n b = 3\n+c = 3\n"
    )
    assert applied(text, {"m.py": body}) == want


def test_insertion_written_more_indented_than_the_file_shifts_whole() -> None:
    # Indentation is lost, not gained: an edit indented 4 more than the file moves back as a whole.
    text = diff("             x = 1\n+            y = 2\n             return x\n", "@@ -3,2 +3,3 @@")
    assert applied(text, {"m.py": CLASS}) == CLASS.replace("x = 1\n", "x = 1\n        y = 2\n")


def test_context_tier_does_not_infer_an_indentation_change_after_skipping_lines() -> None:
    # Once: the tolerant tier skipped context lines and inferred a shift from the rest. Skipping
    # lines and ignoring indentation together could explain almost anything: refused.
    f = "def f():\n    a = 1\n    b = 2\n    c = 3\n    d = 4\n    return a\n"
    text = diff("   a = 1\n   b = 2\n   extra = 0\n-  c = 3\n+  c = 30\n   d = 4\n", "@@ -2,4 +2,4 @@")
    assert not apply_edit(text, {"m.py": f}).ok


def test_tab_and_whitespace_only_added_lines_are_not_rewritten() -> None:
    # Once: with an indentation change active, whitespace-only added lines were emptied and
    # tab-indented ones rewritten with spaces.
    f = "rules:\n    key = 1\n    other = 2\n"
    text = diff(
        "     rules:\n-        key = 1\n+        key = 2\n+\trecipe\n+    \n         other = 2\n",
        "@@ -1,3 +1,5 @@",
        "n.txt",
    )
    assert applied(text, {"n.txt": f}, "n.txt") == "rules:\n    key = 2\n\trecipe\n    \n    other = 2\n"


def test_removed_blank_lines_are_deleted_at_the_blank_line_tier() -> None:
    # Once: removed blank lines could be skipped for free, so they stayed in the file.
    f = "def f():\n    return 1\n\n\n\ndef g():\n    return 2\n"
    text = diff("-\n def g():\n \n-    return 2\n+    return 3\n", "@@ -5,3 +5,2 @@")
    assert applied(text, {"m.py": f}) == "def f():\n    return 1\n\n\ndef g():\n    return 3\n"


def test_added_lines_between_blank_lines_the_file_has_fewer_of_are_refused() -> None:
    f = "def f():\n    return 1\n\n\nclass B:\n    pass\n"
    text = diff("     return 1\n \n+def h():\n+    pass\n \n \n class B:\n", "@@ -2,4 +2,6 @@")
    assert not apply_edit(text, {"m.py": f}).ok


def test_guard_names_a_line_the_result_changed_without_the_hunk_saying_so() -> None:
    hunk = Hunk(((" ", "a"), ("-", "b"), ("+", "B")))
    assert unexplained_change(["a", "b", "c"], ["a", "B", "c"], [hunk]) is None
    assert unexplained_change(["a", "b", "c"], ["a", "B"], [hunk]) == "`c`"
    assert unexplained_change(["a", "b", "", "c"], ["a", "B", "c"], [hunk]) == "a blank line"


# --- what models write ----------------------------------------------------------------------------

F = "import os\n\n\ndef add(a, b):\n    total = a + b\n    return total\n"
WANT = F.replace("total = a + b\n", "total = a + b + 0\n")
HUNK = " def add(a, b):\n-    total = a + b\n+    total = a + b + 0\n     return total\n"

HEADERS = {
    "@@ ... @@ (Aider)": f"--- m.py\n+++ m.py\n@@ ... @@\n{HUNK}",
    "@@ -4 @@": f"--- a/m.py\n+++ b/m.py\n@@ -4 @@\n{HUNK}",
    "no a/ b/ prefixes": f"--- m.py\n+++ m.py\n@@ -4,3 +4,3 @@\n{HUNK}",
    "a/ on one side only": f"--- a/m.py\n+++ m.py\n@@ -4,3 +4,3 @@\n{HUNK}",
    "path only on +++": f"+++ b/m.py\n@@ -4,3 +4,3 @@\n{HUNK}",
    "fenced inside prose": f"The sum is off.\n\n```diff\n--- m.py\n+++ m.py\n@@ ... @@\n{HUNK}```\n\nDone.\n",
}


@pytest.mark.parametrize("name", list(HEADERS))
def test_header_variants(name: str) -> None:
    assert applied(HEADERS[name], {"m.py": F}) == WANT


def test_lost_context_indentation_with_removed_lines_exact() -> None:
    text = diff(" def f(self):\n x = 1\n-        return x\n+        return x + 1\n", "@@ -2,3 +2,3 @@")
    assert applied(text, {"m.py": CLASS}) == CLASS.replace("return x\n", "return x + 1\n")


def test_lost_context_indentation_needs_a_unique_place() -> None:
    f = CLASS + "\n\nclass B:\n    def f(self):\n        x = 1\n        return x\n"
    text = diff(" def f(self):\n x = 1\n-        return x\n+        return x + 1\n", "@@ -40,3 +40,3 @@")
    assert "once the context's indentation is ignored" in refused(text, {"m.py": f}, ErrorKind.AMBIGUOUS)


WS = "def f():\n    a = 1   \n    b = 2\n    # note\n    return a\n"


@pytest.mark.parametrize(
    ("body", "want"),
    [
        (" def f():\n-    a = 1   \n+    a = 1\n     b = 2 \n", WS.replace("a = 1   ", "a = 1")),
        (
            "     b = 2\n-    # note\n+        # note\n     return a\n",
            WS.replace("    # note", "        # note"),
        ),
        ("     a = 1\n-    b = 2\n+    b = 2  \n     # note\n", WS.replace("b = 2\n", "b = 2  \n")),
    ],
    ids=["trailing spaces removed", "comment re-indented", "trailing spaces added, context differs"],
)
def test_whitespace_only_changes(body: str, want: str) -> None:
    assert applied(diff(body, "@@ -1,3 +1,3 @@"), {"m.py": WS}) == want


BODY = "def f():\n    a = 1\n    b = 2\n    return a\n"
TWICE = "import x\n\n\n" + BODY + "\n\n# padding\n" * 12 + "\n" + BODY
CHANGE = " def f():\n     a = 1\n-    b = 2\n+    b = 3\n     return a\n"


def test_line_number_one_off_picks_the_only_place_near_it() -> None:
    # The first copy is at line 4; the header says 3; the other copy is far away.
    assert applied(diff(CHANGE, "@@ -3,4 +3,4 @@"), {"m.py": TWICE}) == TWICE.replace("b = 2", "b = 3", 1)


def test_line_number_between_two_near_places_is_refused() -> None:
    near = BODY + "\n" + BODY
    refused(diff(CHANGE, "@@ -3,4 +3,4 @@"), {"m.py": near}, ErrorKind.AMBIGUOUS)


def test_stale_deletion_is_not_taken_for_already_applied() -> None:
    # The line number points at the surviving context, which is in the file as the new lines say.
    f = "import hashlib\nimport json\n\nfrom .encoding import want_bytes\n"
    text = diff("-import hashlib\n import json\n \n from .encoding import want_bytes\n", "@@ -2,4 +1,3 @@")
    assert applied(text, {"m.py": f}) == f.replace("import hashlib\n", "")


LONG = "def f(x):\n    a = 1\n    b = 2\n    c = 3\n    return a\n\n\nclass P:\n    def m(self) -> int:\n        ...\n"


@pytest.mark.parametrize("marker", ["...", "    # ... existing code ...", "    // ... rest of the body ..."])
def test_search_replace_with_elided_lines(marker: str) -> None:
    text = (
        f"m.py\n<<<<<<< SEARCH\ndef f(x):\n{marker}\n    return a\n=======\n"
        f"def f(x, y=0):\n{marker}\n    return a + y\n>>>>>>> REPLACE\n"
    )
    want = LONG.replace("def f(x):", "def f(x, y=0):").replace("return a\n", "return a + y\n")
    result = apply_edit(text, {"m.py": LONG})
    assert result.changes == {"m.py": want} and not result.notes


def test_a_literal_ellipsis_line_is_still_file_content() -> None:
    text = (
        "m.py\n<<<<<<< SEARCH\n    def m(self) -> int:\n        ...\n=======\n"
        "    def m(self) -> int:\n        return 1\n>>>>>>> REPLACE\n"
    )
    assert applied(text, {"m.py": LONG}) == LONG.replace("        ...\n", "        return 1\n")


def test_elided_piece_that_occurs_twice_is_refused() -> None:
    f = LONG + "\n\ndef g(x):\n    return a\n"
    text = "m.py\n<<<<<<< SEARCH\n    b = 2\n...\n    return a\n=======\n    b = 20\n...\n    return a + 1\n>>>>>>> REPLACE\n"
    refused(text, {"m.py": f}, ErrorKind.AMBIGUOUS)


@pytest.mark.parametrize(
    "text",
    [
        "m.py\n<<<<<<< SEARCH\ndef f(x):\n    a = 1\n    b = 2\n=======\ndef f(x, y=0):\n"
        "    # ... existing code ...\n>>>>>>> REPLACE\n",
        "m.py\n<<<<<<< FILE\ndef f(x):\n    # ... existing code ...\n>>>>>>> END\n",
    ],
    ids=["REPLACE elides what SEARCH spells out", "whole-file block with an elision"],
)
def test_elisions_that_would_delete_code_are_refused(text: str) -> None:
    message = refused(text, {"m.py": LONG}, ErrorKind.MALFORMED)
    assert "existing code" in message


G = "\n\ndef g():\n    a = 1\n    return 0\n"


@pytest.mark.parametrize(
    ("search", "why"),
    [
        ("    return a\n...\n    b = 2\n", "not in the file's order"),
        ("    a = 1\n...\n    c = 3\n", "is in the file 2 times"),
    ],
    ids=["pieces out of order", "unchanged piece not unique"],
)
def test_elided_pieces_must_be_unique_and_in_order(search: str, why: str) -> None:
    replace = search.replace("b = 2", "b = 20").replace("c = 3", "c = 30").replace("return a", "return a + 1")
    text = f"m.py\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n"
    assert why in refused(text, {"m.py": LONG + G}, ErrorKind.AMBIGUOUS)


def test_search_with_a_trailing_blank_line_the_file_lacks_still_applies() -> None:
    # No unchanged non-blank line: the removed lines alone place it, with the blank line skipped.
    f = "def clamp(x, lo, hi):\n    if x < hi:\n        return hi\n    return x\n"
    text = "m.py\n<<<<<<< SEARCH\n    if x < hi:\n        return hi\n\n=======\n    if x > hi:\n        return hi + 1\n\n>>>>>>> REPLACE\n"
    assert applied(text, {"m.py": f}) == f.replace(
        "x < hi:\n        return hi\n", "x > hi:\n        return hi + 1\n"
    )


def test_context_free_hunk_whose_new_line_is_elsewhere_is_refused_not_taken_for_applied() -> None:
    # Its removed line is there with other indentation and its added line elsewhere: neither
    # "already applied" nor a silent guess.
    f = "    v0 = f(0)\n\n\npass\n"
    message = refused(diff("-\tv0 = f(0)\n+pass\n"), {"m.py": f}, ErrorKind.AMBIGUOUS)
    assert "already in the file at line 4" in message


def test_context_free_hunk_written_with_tabs_applies() -> None:
    assert applied(diff("-\tv0 = f(0)\n+\tv0 = f(1)\n"), {"m.py": "    v0 = f(0)\n"}) == "    v0 = f(1)\n"


# --- how many made-up context lines a hunk may carry ----------------------------------------------

NUMBERED = "def f():\n" + "".join(f"    v{i} = {i}\n" for i in range(12)) + "    return v0\n"


def _with_made_up_context(real: int, made_up: int) -> str:
    """A hunk over the file's lines v0.. v{real-1} (the last one changed), with `made_up` context
    lines the file does not have after its first line."""
    kept = [f"    v{i} = {i}" for i in range(real)]
    body = [
        " " + kept[0],
        *(f"     made_up_{k} = {k}" for k in range(made_up)),
        *(" " + t for t in kept[1:-1]),
    ]
    body += ["-" + kept[-1], "+" + kept[-1].replace("= ", "= 100 + ")]
    n = real + made_up
    return diff("\n".join(body) + "\n", f"@@ -2,{n} +2,{n - made_up} @@")


@pytest.mark.parametrize(
    ("real", "made_up", "ok"),
    [
        (2, 1, True),  # 3 non-blank old lines: one line the file lacks may be skipped...
        (3, 2, False),  # ...5: still one, so two are refused
        (4, 2, True),  # 6 non-blank old lines: two may be skipped
        (5, 3, False),  # never three
    ],
)
def test_context_lines_the_file_lacks_are_skipped_within_a_budget_by_hunk_size(real, made_up, ok) -> None:
    text = _with_made_up_context(real, made_up)
    result = apply_edit(text, {"m.py": NUMBERED})
    assert result.ok is ok, result.message()
    if ok:
        changed = f"    v{real - 1} = {real - 1}\n"
        assert result.changes["m.py"] == NUMBERED.replace(changed, changed.replace("= ", "= 100 + "))
    else:
        assert result.error is not None and result.error.kind is ErrorKind.NO_MATCH
