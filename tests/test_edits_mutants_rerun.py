"""repofix.edits: the cases that kill the survivors of the mutation benchmark's re-run of the edit
locator and applier (evals/results/bench_mutation_edits.md): realistic diffs against small files."""

from __future__ import annotations

import pytest

from repofix.edits import ErrorKind, apply_edit
from tests.edit_cases import applied, diff, refused

# --- the locator (`locate.py`) --------------------------------------------------------------------


def test_an_insertion_before_a_blank_line_the_file_lacks_goes_between_its_neighbours() -> None:
    # The hunk has a blank line after the insertion point that the file does not: x still goes
    # between `a` and `b`, which are next to each other in the file; `c` follows.
    text = diff(" a = 1\n+x = 0\n \n b = 2\n c = 3\n", "@@ -1,4 +1,5 @@")
    assert applied(text, {"m.py": "a = 1\nb = 2\nc = 3\n"}) == "a = 1\nx = 0\nb = 2\nc = 3\n"


def test_a_hunk_at_the_top_of_a_file_with_blank_lines_it_lacks_applies() -> None:
    # Skipping the file's blank lines is free wherever the hunk starts, the first line included.
    f = "def f():\n\n\n    return 1\n"
    text = diff(" def f():\n-    return 1\n+    return 2\n", "@@ -1,2 +1,2 @@")
    assert applied(text, {"m.py": f}) == "def f():\n\n\n    return 2\n"


def test_a_short_hunk_that_dropped_every_blank_line_of_a_spaced_out_function_applies() -> None:
    # Four old lines spread over sixteen lines of the file (twice the hunk's length and eight more): the
    # place is still found, and at the blank-line tier, not as a hunk with missing context lines.
    f = "def f():\n\n\n\n    x = 1\n\n\n\n\n\n    y = 3\n\n\n\n\n    return x + y\n"
    text = diff(" def f():\n-    x = 1\n+    x = 2\n     y = 3\n     return x + y\n", "@@ -1,4 +1,4 @@")
    result = apply_edit(text, {"m.py": f}, check_python=False)
    assert result.ok and result.changes == {"m.py": f.replace("x = 1", "x = 2")}, result.message()
    assert len(result.notes) == 1, result.notes
    assert result.notes[0].endswith("matched at line 1 ignoring blank-line differences."), result.notes


def test_a_long_hunk_that_left_out_three_lines_of_the_file_is_refused() -> None:
    # Nine non-blank old lines may skip two of the file's lines; here three are missing, one after
    # each of three matched lines: too far from the file to trust.
    f = "".join(f"v{i} = {i}\n" for i in range(12))
    kept = [i for i in range(12) if i not in (2, 5, 8)]
    body = "".join(f" v{i} = {i}\n" for i in kept[:-1]) + f"-v{kept[-1]} = {kept[-1]}\n+v11 = 0\n"
    refused(diff(body, "@@ -1,12 +1,12 @@"), {"m.py": f}, ErrorKind.NO_MATCH)
    # Two left out is within the budget.
    kept = [i for i in range(12) if i not in (2, 5)]
    body = "".join(f" v{i} = {i}\n" for i in kept[:-1]) + f"-v{kept[-1]} = {kept[-1]}\n+v11 = 0\n"
    assert applied(diff(body, "@@ -1,12 +1,12 @@"), {"m.py": f}) == f.replace("v11 = 11", "v11 = 0")


TWO_BLOCKS = "def f():\n\n    a = 1\n    return a\n\n\ndef f():\n\n    a = 1\n    return a\n"


def test_a_hunk_found_twice_ignoring_blank_lines_is_refused_without_a_line_number() -> None:
    # Both copies match only once their blank line is ignored: neither is the place.
    text = diff(" def f():\n-    a = 1\n+    a = 2\n     return a\n", "@@ @@")
    assert "matches" in refused(text, {"m.py": TWO_BLOCKS}, ErrorKind.AMBIGUOUS)


def test_an_insertion_after_a_removal_next_to_a_line_the_hunk_lacks_is_refused() -> None:
    # `c` and `d` are not neighbours in the file (`X` is between them), so the added line could go
    # before or after `X`: refuse, even though the hunk removed a line further up.
    f = "a = 1\nb = 2\nc = 3\nX = 0\nd = 4\ne = 5\n"
    text = diff(" a = 1\n-b = 2\n c = 3\n+new = 0\n d = 4\n e = 5\n", "@@ -1,5 +1,5 @@")
    assert "unclear where the added lines go" in refused(text, {"m.py": f}, ErrorKind.AMBIGUOUS)


# --- the applier (`hunks.py`) ---------------------------------------------------------------------


def test_a_no_op_hunk_whose_context_is_indented_otherwise_does_not_match() -> None:
    # The hunk removes and re-adds the same line; its context is 4 columns shallower than the
    # file's. There is no change to place, so it is reported as not matching (with the closest region).
    f = "class A:\n    def f(self):\n        x = 1\n        return x\n"
    text = diff(" def f(self):\n-        x = 1\n+        x = 1\n     return x\n", "@@ -2,3 +2,3 @@")
    assert "does not match the file" in refused(text, {"m.py": f}, ErrorKind.NO_MATCH)


def test_a_hunk_whose_context_lost_its_indentation_applies_by_its_exact_removed_lines() -> None:
    # The model shifted the context lines left by 2 and 4 columns; the removed line, exact, proves
    # the place and the indentation of the added line.
    f = "class A:\n    def f(self):\n        x = 1\n        return x\n"
    text = diff("   def f(self):\n-        x = 1\n+        x = 2\n     return x\n", "@@ -2,3 +2,3 @@")
    result = apply_edit(text, {"m.py": f}, check_python=False)
    assert result.ok and result.changes == {"m.py": f.replace("x = 1", "x = 2")}, result.message()
    assert result.notes[0].endswith(
        "with the removed lines exact and the context lines' indentation ignored."
    )


def test_two_hunks_changing_the_same_lines_name_them() -> None:
    f = "l1 = 1\nl2 = 2\nl3 = 3\nl4 = 4\nl5 = 5\nl6 = 6\n"
    text = diff(" l1 = 1\n l2 = 2\n-l3 = 3\n+l3 = 30\n l4 = 4\n", "@@ -1,4 +1,4 @@")
    text += "@@ -3,3 +3,3 @@\n l3 = 3\n-l4 = 4\n+l4 = 40\n l5 = 5\n"
    message = refused(text, {"m.py": f}, ErrorKind.CONFLICT)
    assert "hunks 1 and 2 both change lines 3-4 of the file" in message


def test_adding_only_the_missing_final_newline_changes_the_file() -> None:
    text = diff("-x = 1\n\\ No newline at end of file\n+x = 1\n", "@@ -1 +1 @@")
    assert applied(text, {"m.py": "x = 1"}) == "x = 1\n"


def test_a_hunk_that_removes_and_re_adds_a_line_changes_nothing() -> None:
    result = apply_edit(diff(" a = 1\n-b = 2\n+b = 2\n", "@@ -1,2 +1,2 @@"), {"m.py": "a = 1\nb = 2\n"})
    assert result.ok and result.changes == {}, result.message()


def test_a_hunk_short_of_its_header_names_the_line_its_new_lines_are_at() -> None:
    # As in test_edits_mutants, one line down the file: the new lines are at line 2, the old at 3.
    text = diff("+pass\n pass\n \n", "@@ -2,3 +2,4 @@")
    result = apply_edit(text, {"m.py": "x = 0\npass\npass\n\n"}, check_python=False)
    assert result.error is not None and result.error.kind == ErrorKind.AMBIGUOUS, result.message()
    assert result.error.candidates == [2, 3] and "already in the file at line 2" in result.message()


def test_applied_elsewhere_and_matched_loosely_twice_names_the_first_loose_place() -> None:
    # The change is already made in the middle loop; the other two match only ignoring trailing
    # whitespace. The message and the candidates name the applied one and the first loose one.
    loop = "for item in items:\n    total += {}\n"
    f = "import os\n" + loop.format("1  ") + "\n" + loop.format("item") + "\n" + loop.format("1  ")
    text = diff(" for item in items:\n-    total += 1\n+    total += item\n", "@@ @@")
    result = apply_edit(text, {"m.py": f}, check_python=False)
    assert result.error is not None and result.error.kind == ErrorKind.AMBIGUOUS, result.message()
    assert result.error.candidates == [2, 5]
    message = result.message()
    assert (
        "already in the file at line 5, and its old lines match only ignoring trailing whitespace at line 2"
        in (message)
    )


def test_a_hunk_short_of_its_header_with_its_new_lines_twice_names_the_first() -> None:
    f = "x = 0\npass\npass\n\npass\npass\n\n"
    result = apply_edit(diff("+pass\n pass\n \n", "@@ -2,3 +2,4 @@"), {"m.py": f}, check_python=False)
    assert result.error is not None and result.error.kind == ErrorKind.AMBIGUOUS, result.message()
    assert result.error.candidates == [2, 3] and "already in the file at line 2" in result.message()


def test_an_insertion_whose_context_repeats_inside_its_new_lines_is_refused() -> None:
    # `+pass / pass / pass` in a body of three `pass`: the hunk's two context lines are in the file
    # twice, neither time where the applied edit has them (after its added line): applied or not
    # cannot be told.
    f = "def f():\n    pass\n    pass\n    pass\n"
    text = diff("+    pass\n     pass\n     pass\n", "@@ -2,2 +2,3 @@")
    assert "inside text this edit adds" in refused(text, {"m.py": f}, ErrorKind.AMBIGUOUS)


def test_a_hunk_that_matches_nowhere_names_the_closest_region_by_its_lines() -> None:
    f = "".join(f"v{i} = {i}\n" for i in range(10))
    message = refused(
        diff(" v2 = 2\n-v3 = 30\n+v3 = 4\n v4 = 4\n", "@@ -3,3 +3,3 @@"), {"m.py": f}, ErrorKind.NO_MATCH
    )
    assert "The closest region is lines 3-5:\n    3 | v2 = 2\n    4 | v3 = 3\n    5 | v4 = 4\n" in message


def test_an_unclear_insertion_names_the_file_lines_by_their_numbers() -> None:
    # As in test_edits_mutants, one line further down: the lines shown are 4-6.
    f = "x = 0\n" + "".join(f"v{i} = {i}\n" for i in range(8))
    text = diff(" v2 = 2\n made_up = 9\n+new = 0\n v3 = 3\n v4 = 4\n", "@@ -4,4 +4,5 @@")
    message = refused(text, {"m.py": f}, ErrorKind.AMBIGUOUS)
    assert "matches lines 4-6 only by skipping lines" in message
    assert "    4 | v2 = 2\n    5 | v3 = 3\n    6 | v4 = 4\n" in message


# Four classes with the same method; each lacks one line of the hunk's context. In A, C and D the
# line is far from the insertion point; in B it is right at it, so there the place is unclear.
CLEAR = "    def handle(self, event):\n        log(event)\n        value = event.x\n        audit(value)\n        return value\n"
UNCLEAR = "    def handle(self, event):\n        log(event)\n        trace(event)\n        value = event.x\n        return value\n"
CLASSES = "".join(
    f"class {n}:\n{body}\n\n" for n, body in zip("ABCD", [CLEAR, UNCLEAR, CLEAR, CLEAR], strict=True)
)
HANDLE = "     def handle(self, event):\n         log(event)\n+        check(event)\n         value = event.x\n         return value\n"


@pytest.mark.parametrize(("line", "cls"), [(18, "C"), (2, "A"), (26, "D")])
def test_a_line_number_picks_one_clear_place_when_an_unclear_one_is_elsewhere(line: int, cls: str) -> None:
    lines = CLASSES.splitlines()
    assert lines[line - 1] == "    def handle(self, event):" and lines[line - 2] == f"class {cls}:"
    new = applied(diff(HANDLE, f"@@ -{line},4 +{line},5 @@"), {"m.py": CLASSES})
    changed = new.splitlines()
    assert changed[: line + 1] == lines[: line + 1] and changed[line + 1] == "        check(event)"
    assert changed[line + 2 :] == lines[line + 1 :]


def test_a_line_number_at_no_clear_place_is_refused_when_one_place_is_unclear() -> None:
    refused(diff(HANDLE, "@@ -14,4 +14,5 @@"), {"m.py": CLASSES}, ErrorKind.AMBIGUOUS)


def test_a_line_number_naming_a_place_that_also_reads_unclearly_is_refused() -> None:
    # Where the hunk has a blank line the file has `log(x)`: read with `log(x)` skipped, `check()` goes
    # above `x = load()`; read with `x = load()` as the line the file lacks (same start, same cost),
    # there is no telling where it goes. The line number names both readings: refuse.
    f = "def f():\n    x = load()\n    log(x)\n    return x\n"
    text = diff("+    check()\n     x = load()\n \n     return x\n", "@@ -2,3 +2,4 @@")
    assert "matches 2 places" in refused(text, {"m.py": f}, ErrorKind.AMBIGUOUS)


def test_an_insertion_after_a_blank_line_the_file_lacks_goes_between_its_neighbours() -> None:
    text = diff(" a = 1\n \n+x = 0\n b = 2\n c = 3\n", "@@ -1,4 +1,5 @@")
    assert applied(text, {"m.py": "a = 1\nb = 2\nc = 3\n"}) == "a = 1\nx = 0\nb = 2\nc = 3\n"


def test_a_hunk_opening_with_a_blank_line_applies_exactly() -> None:
    # The most common shape of a git hunk: no tolerance is used, so no note is given.
    f = "x = 1\n\ndef g():\n    return 1\n"
    result = apply_edit(diff(" \n def g():\n-    return 1\n+    return 2\n", "@@ -2,3 +2,3 @@"), {"m.py": f})
    assert result.ok and result.changes == {"m.py": f.replace("return 1", "return 2")}, result.message()
    assert result.notes == []


def test_an_insertion_whose_context_lost_its_indentation_unevenly_is_refused() -> None:
    # The context is 4, 2 and 4 columns shallower than the file: no one shift explains it, and no
    # removed line proves what indentation the added line needs. There is no place to put it.
    f = "class A:\n    def f(self):\n        x = 1\n        return x\n"
    text = diff(" def f(self):\n+    y = 2\n       x = 1\n     return x\n", "@@ -2,3 +2,4 @@")
    refused(text, {"m.py": f}, ErrorKind.NO_MATCH)


def test_an_insertion_between_a_hunks_opening_blank_lines_the_file_has_one_of_is_refused() -> None:
    # The hunk opens with a blank line, the added line, another blank line; the file has one blank
    # line above `b`. Which of the two it is decides whether x goes above or below it.
    text = diff(" \n+x = 0\n \n b = 2\n", "@@ -2,3 +2,4 @@")
    message = refused(text, {"m.py": "a = 1\n\nb = 2\n"}, ErrorKind.AMBIGUOUS)
    assert "unclear where the added lines go" in message


def test_new_lines_at_the_header_named_over_a_loose_copy_above_them() -> None:
    # The edit was made at the place its header names (line 19); further up a copy of its new lines
    # matches only ignoring trailing whitespace, and its old lines are exactly at line 37. The
    # message names the exact copy at the header's line, not the loose one.
    pad = "".join(f"p{i} = {i}\n" for i in range(15))
    f = "def f():\n    x = 2  \n    return x\n" + pad + "def f():\n    x = 2\n    return x\n" + pad
    f += "def f():\n    x = 1\n    return x\n"
    text = diff(" def f():\n-    x = 1\n+    x = 2\n     return x\n", "@@ -19,3 +19,3 @@")
    result = apply_edit(text, {"m.py": f}, check_python=False)
    assert result.error is not None and result.error.kind == ErrorKind.AMBIGUOUS, result.message()
    assert result.error.candidates == [19, 37]
    assert (
        "already in the file at line 19, and its old lines match only exactly at line 37" in result.message()
    )


def test_a_hunk_below_the_first_line_with_blank_lines_it_lacks_applies_exactly_there() -> None:
    # As the test at the top of a file, three lines down: the blank lines skipped are the file's
    # lines 5 and 7, counted from where the hunk starts.
    f = "import os\nimport sys\n\ndef f():\n\n    x = 1\n\n    return x\n"
    text = diff(" def f():\n     x = 1\n-    return x\n+    return x + 1\n", "@@ -4,3 +4,3 @@")
    result = apply_edit(text, {"m.py": f}, check_python=False)
    assert result.ok and result.changes == {"m.py": f.replace("return x\n", "return x + 1\n")}, (
        result.message()
    )
    assert len(result.notes) == 1 and result.notes[0].endswith("ignoring blank-line differences."), (
        result.notes
    )


def test_an_insertion_deep_in_a_long_file_applies() -> None:
    # Line numbers past 256 are distinct int objects in CPython: the neighbours are compared by value.
    f = "".join(f"v{i} = {i}\n" for i in range(400))
    text = diff(" v299 = 299\n+new = 0\n v300 = 300\n", "@@ -300,2 +300,3 @@")
    assert applied(text, {"m.py": f}) == f.replace("v300 = 300\n", "new = 0\nv300 = 300\n")


def test_a_loose_search_stops_after_fifty_places() -> None:
    # Sixty copies that the hunk matches only by ignoring their blank line: the search is bounded,
    # and the refusal names the first fifty.
    block = "def f():\n\n    return 1\n"
    text = diff(" def f():\n-    return 1\n+    return 2\n", "@@ @@")
    result = apply_edit(text, {"m.py": block * 60}, check_python=False)
    assert result.error is not None and result.error.kind == ErrorKind.AMBIGUOUS, result.message()
    assert result.error.candidates == [1 + 3 * k for k in range(50)]


def test_a_hunk_line_beyond_the_alignments_reach_counts_as_missing() -> None:
    # The search reaches 2 * 4 + 1 + 8 = 17 lines from where a four-line hunk starts (its cost is
    # quadratic); `return x` is 18 lines down, behind 14 blank lines, so it counts as a line the file
    # lacks, and a line added right after it has no clear place: refused, not added after line 18.
    f = "def f():\n    x = 1\n    y = 2\n" + "\n" * 14 + "    return x\n"
    text = diff(
        " def f():\n-    x = 1\n+    x = 3\n     y = 2\n     return x\n+    # done\n", "@@ -1,4 +1,5 @@"
    )
    refused(text, {"m.py": f}, ErrorKind.AMBIGUOUS)
