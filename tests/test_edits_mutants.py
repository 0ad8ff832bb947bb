"""repofix.edits: the cases that kill the mutation benchmark's survivors in the edit locator and
applier (evals/results/bench_mutation_b.md), and a wrong "already applied" found by hypothesis."""

from __future__ import annotations

import pytest

from repofix.edits import ErrorKind, apply_edit
from tests.edit_cases import applied, diff, refused

# --- "already applied" and a hunk short of the lines its header declares ----------------------------


def test_a_hunk_that_lost_a_context_line_is_not_taken_for_already_applied() -> None:
    # Found by hypothesis: `pass, pass, ''` with `+pass` inserted at the top, and one of the two
    # context `pass` lines left out. What is left (`+pass / pass / ''`) is in the file as its new
    # lines say, and it is also the file before the edit less the lost line: refuse, not "skipped".
    text = diff("+pass\n pass\n \n", "@@ -1,3 +1,4 @@")
    message = refused(text, {"m.py": "pass\npass\n\n"}, ErrorKind.AMBIGUOUS)
    assert "fewer lines than its header declares (2 old lines, not 3)" in message


@pytest.mark.parametrize("header", ["@@ -1,2 +1,3 @@", "@@ @@"])
def test_a_complete_hunk_whose_new_lines_are_there_is_already_applied(header: str) -> None:
    # The same hunk with the counts it really has (or none): re-sent after it was applied.
    result = apply_edit(diff("+pass\n pass\n \n", header), {"m.py": "pass\npass\n\n"}, check_python=False)
    assert result.ok and not result.changes, result.message()
    assert any("already applied" in note for note in result.notes)


# --- the locator's alignment (`locate._align`) and insertion points (`locate._between_neighbours`) ---

NUMBERED = "".join(f"v{i} = {i}\n" for i in range(16))


def test_an_insertion_between_two_blank_lines_the_file_has_applies() -> None:
    # Nothing is skipped: the blank lines on both sides are the file's, so the place is clear.
    f = "a = 1\n\n\nb = 2\n"
    assert applied(diff(" a = 1\n \n+x = 0\n \n b = 2\n", "@@ -1,4 +1,5 @@"), {"m.py": f}) == (
        "a = 1\n\nx = 0\n\nb = 2\n"
    )


def test_file_lines_the_hunk_lacks_cost_a_skip_each_so_three_are_refused() -> None:
    # The hunk's context is there, but with a line of the file between each two of its lines: three
    # lines skipped, over the budget of a hunk of four non-blank lines (one).
    f = "a = 1\nX1 = 0\nb = 2\nX2 = 0\nc = 3\nX3 = 0\nd = 4\n"
    refused(
        diff(" a = 1\n b = 2\n c = 3\n-d = 4\n+d = 5\n", "@@ -1,4 +1,4 @@"), {"m.py": f}, ErrorKind.NO_MATCH
    )


def test_an_insertion_above_context_with_a_made_up_last_line_applies_at_the_top() -> None:
    # The made-up line is the hunk's last, far from the insertion point: the place is clear.
    text = diff("+new = 0\n v0 = 0\n v1 = 1\n v2 = 2\n made_up = 9\n", "@@ -1,4 +1,5 @@")
    assert applied(text, {"m.py": NUMBERED}) == "new = 0\n" + NUMBERED


def test_a_long_hunk_found_only_by_ignoring_a_blank_line_applies() -> None:
    # Twelve old lines and one blank line of the file they lack: the alignment must see all of them.
    f = NUMBERED.replace("v6 = 6\n", "v6 = 6\n\n")
    body = "".join(f" v{i} = {i}\n" for i in range(11)) + "-v11 = 11\n+v11 = 111\n"
    assert applied(diff(body, "@@ -1,12 +1,12 @@"), {"m.py": f}) == f.replace("v11 = 11\n", "v11 = 111\n")


@pytest.mark.parametrize(
    "body",
    [
        " a = 1\n \n+x = 0\n \n b = 2\n",  # one blank line on each side, the file has one
        " a = 1\n \n \n+x = 0\n \n b = 2\n",  # two before, one after; the file has two
        " a = 1\n \n+x = 0\n \n \n b = 2\n",  # one before, two after; the file has two
    ],
    ids=["one-each", "two-before", "two-after"],
)
def test_an_insertion_between_blank_lines_the_file_has_fewer_of_is_refused(body: str) -> None:
    # Which blank line the file lacks would decide whether x goes before or after the file's.
    f = "a = 1\n\n" + ("\n" if body.count(" \n") == 3 else "") + "b = 2\n"
    old = sum(1 for line in body.splitlines() if line.startswith(" "))
    header = f"@@ -1,{old} +1,{old + 1} @@"
    assert "unclear where the added lines go" in refused(diff(body, header), {"m.py": f}, ErrorKind.AMBIGUOUS)


def test_a_hunk_opening_with_a_blank_line_the_file_lacks_at_its_top_applies() -> None:
    # The file starts with the hunk's first non-blank line and ends with a blank line: nothing
    # before its first line may stand for the hunk's leading blank line.
    f = "x = 1\ny = 2\nz = 3\n\n"
    text = diff(" \n x = 1\n y = 2\n-z = 3\n+z = 4\n", "@@ -1,4 +1,4 @@")
    assert applied(text, {"m.py": f}) == "x = 1\ny = 2\nz = 4\n\n"


# --- the applier's choices (`hunks.locate_hunk`, `hunks._choose`) ------------------------------------

CLASS = "class A:\n    def f(self):\n        x = 1\n        return x\n\n\ndef g():\n    return 2\n"


def test_an_applied_insertion_resent_with_its_indentation_lost_is_already_applied() -> None:
    # Its new lines are in the file 4 columns deeper: applying it again would add `y = 2` twice.
    f = "class A:\n    def f(self):\n        x = 1\n        y = 2\n        return x\n"
    text = diff(" def f(self):\n     x = 1\n+    y = 2\n     return x\n", "@@ -2,3 +2,4 @@")
    result = apply_edit(text, {"m.py": f}, check_python=False)
    assert result.ok and not result.changes, result.message()
    assert any("already applied" in note for note in result.notes)


def test_a_reindent_whose_old_lines_have_other_indentation_than_the_file_is_refused() -> None:
    # The change is only indentation, so the old lines must be the file's as written: found by
    # ignoring indentation they say nothing about what the new indentation is relative to.
    text = diff(" def f():\n-    x = 1\n+        x = 1\n", "@@ -1,2 +1,2 @@")
    refused(text, {"m.py": "def f():\n  x = 1\n  return x\n"}, ErrorKind.NO_MATCH)
    # ...even when the whole hunk is consistently 2 columns shallower than the file.
    refused(text, {"m.py": "  def f():\n      x = 1\n"}, ErrorKind.NO_MATCH)


def test_lost_context_indentation_with_the_new_lines_elsewhere_says_so() -> None:
    f = CLASS + "\n\nclass B:\n    def f(self):\n        x = 1\n        return x + 1\n"
    text = diff(" def f(self):\n x = 1\n-        return x\n+        return x + 1\n", "@@ -2,3 +2,3 @@")
    message = refused(text, {"m.py": f}, ErrorKind.AMBIGUOUS)
    assert (
        "matches 1 places once the context's indentation is ignored, and its new lines are there too"
        in message
    )


def test_deleting_one_of_two_like_lines_matched_ignoring_trailing_whitespace_applies() -> None:
    # The new lines (`a`, `b`) are in the file exactly, at the very place the old ones are: that is the
    # deletion's surviving context, not a sign that it was made already.
    text = diff(" a = 1\n-b = 2\n b = 2\n", "@@ -1,3 +1,2 @@")
    assert applied(text, {"m.py": "a = 1\nb = 2\nb = 2  \n"}) == "a = 1\nb = 2  \n"


def test_an_insertion_next_to_a_made_up_context_line_names_the_lines_to_copy() -> None:
    f = "".join(f"v{i} = {i}\n" for i in range(8))
    text = diff(" v2 = 2\n made_up = 9\n+new = 0\n v3 = 3\n v4 = 4\n", "@@ -3,4 +3,5 @@")
    result = apply_edit(text, {"m.py": f}, check_python=False)
    assert not result.ok and result.error is not None and result.error.candidates == [3]
    assert "matches lines 3-5 only by skipping lines of the file" in result.message()
    assert "    3 | v2 = 2\n    4 | v3 = 3\n    5 | v4 = 4\n" in result.message()


def test_a_line_number_near_one_place_is_not_enough_when_another_is_a_few_lines_off() -> None:
    # Two copies 5 lines apart, far down the file; the header is one line off the first: the second
    # is not far enough (more than 10 lines) to leave the first the only reading.
    body = "def f():\n    a = 1\n    b = 2\n    return a\n\n"
    f = "".join(f"p{i} = {i}\n" for i in range(30)) + body + body
    change = " def f():\n     a = 1\n-    b = 2\n+    b = 3\n     return a\n"
    refused(diff(change, "@@ -30,4 +30,4 @@"), {"m.py": f}, ErrorKind.AMBIGUOUS)


def test_the_drift_of_one_hunk_corrects_the_next_hunks_line_number() -> None:
    # The first hunk is found 10 lines below its header; the second names a place 10 lines above
    # the first of two copies: corrected by the same drift, it names that copy exactly.
    twin = ["def g():", "    b = 1", "    return b"]
    pad = [f"p{i} = {i}" for i in range(20)]
    lines = pad[:10] + ["def f():", "    a = 1", "    return a"] + pad[:9] + twin + pad + twin
    f = "".join(line + "\n" for line in lines)
    assert lines[10] == "def f():" and lines[22] == "def g():"
    text = (
        diff(" def f():\n-    a = 1\n+    a = 2\n     return a\n", "@@ -1,3 +1,3 @@")
        + "@@ -13,3 +13,3 @@\n def g():\n-    b = 1\n+    b = 2\n     return b\n"
    )
    want = f.replace("a = 1", "a = 2").replace("b = 1", "b = 2", 1)
    assert applied(text, {"m.py": f}) == want


def test_a_context_free_insertion_into_a_non_empty_file_is_refused() -> None:
    message = refused(diff("+x = 1\n", "@@ -1,0 +1,1 @@"), {"m.py": "a = 1\n"}, ErrorKind.AMBIGUOUS)
    assert "has no unchanged context lines" in message


def test_a_hunk_that_spells_out_a_file_of_blank_lines_applies() -> None:
    assert applied(diff(" \n \n+x = 1\n", "@@ -1,2 +1,3 @@"), {"m.py": "\n\n"}) == "\n\nx = 1\n"


@pytest.mark.parametrize(
    ("body", "f"),
    [
        (" a = 1\n \n+\n b = 2\n", "a = 1\n\n\nb = 2\n"),  # a blank line added (only blank lines change)
        ("+x = 0\n a = 1\n b = 2\n", "x = 0\na = 1  \nb = 2\n"),  # context matched ignoring whitespace
    ],
    ids=["blank-line", "trailing-whitespace"],
)
def test_an_applied_insertion_resent_is_already_applied(body: str, f: str) -> None:
    result = apply_edit(diff(body, "@@ -1,2 +1,3 @@"), {"m.py": f}, check_python=False)
    assert result.ok and not result.changes, result.message()
    assert any("already applied" in note for note in result.notes)


STALE = "def f():\n    x = 2\n    return x\n" + "".join(f"p{i} = {i}\n" for i in range(15))
STALE += "def f():\n    x = 1\n    return x\n"
X_TO_2 = " def f():\n-    x = 1\n+    x = 2\n     return x\n"


def test_new_lines_where_the_header_points_and_old_lines_elsewhere_are_refused() -> None:
    message = refused(diff(X_TO_2, "@@ -1,3 +1,3 @@"), {"m.py": STALE}, ErrorKind.AMBIGUOUS)
    error = apply_edit(diff(X_TO_2, "@@ -1,3 +1,3 @@"), {"m.py": STALE}, check_python=False).error
    assert error is not None and error.candidates == [1, 19]
    assert (
        "its new lines are already in the file at line 1, and its old lines match only exactly at line 19"
        in (message)
    )


def test_new_lines_away_from_the_header_do_not_block_the_old_lines_found_exactly() -> None:
    assert applied(diff(X_TO_2, "@@ -5,3 +5,3 @@"), {"m.py": STALE}) == STALE.replace("x = 1", "x = 2")


def test_an_insertion_whose_context_is_inside_its_new_lines_but_not_at_its_offset_is_refused() -> None:
    # `+y / +x / x` in `y, x, x`: the context `x` at line 3 sits where the applied edit has it, the one
    # at line 2 does not; applied or not cannot be told.
    text = diff("+y = 0\n+x = 1\n x = 1\n", "@@ -1,1 +1,3 @@")
    assert "inside text this edit adds" in refused(
        text, {"m.py": "y = 0\nx = 1\nx = 1\n"}, ErrorKind.AMBIGUOUS
    )


def test_line_number_two_off_picks_the_only_place_near_it() -> None:
    body = "def f():\n    a = 1\n    b = 2\n    return a\n"
    f = "import x\n\n\n" + body + "\n\n# padding\n" * 12 + "\n" + body
    change = " def f():\n     a = 1\n-    b = 2\n+    b = 3\n     return a\n"
    assert applied(diff(change, "@@ -2,4 +2,4 @@"), {"m.py": f}) == f.replace("b = 2", "b = 3", 1)
