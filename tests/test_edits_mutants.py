"""repofix.edits: the cases that kill the mutation benchmark's survivors in the edit locator and
applier (evals/results/bench_mutation_b.md), and a wrong "already applied" found by hypothesis."""

from __future__ import annotations

import pytest

from repofix.edits import ErrorKind, apply_edit


def diff(body: str, header: str, path: str = "m.py") -> str:
    return f"--- a/{path}\n+++ b/{path}\n{header}\n{body}"


def applied(text: str, files: dict[str, str], path: str = "m.py") -> str:
    result = apply_edit(text, files, check_python=False)
    assert result.ok, result.message()
    return result.changes.get(path, files.get(path))  # type: ignore[return-value]


def refused(text: str, files: dict[str, str], kind: ErrorKind) -> str:
    result = apply_edit(text, files, check_python=False)
    assert not result.ok and not result.changes, result.notes
    assert result.error is not None and result.error.kind == kind, result.message()
    return result.message()


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
