"""The benchmark's corpus machinery (evals/edits_diffs.py, evals/edits_corpus.py) writes diffs that git itself
accepts, and labels its cases so repofix gets them right."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "evals"))

import edits_corpus as corpus  # noqa: E402
import edits_diffs as diffs  # noqa: E402

from repofix.edits import apply_edit  # noqa: E402

A = "".join(f"line {i}\n" for i in range(40))
PAIRS = {
    "middle": (A, A.replace("line 20\n", "line twenty\n")),
    "adds final newline": (A.rstrip("\n"), A.replace("line 39\n", "line 39 changed\n")),
    "drops final newline": (A, A.rstrip("\n")),
    "both without": (A.rstrip("\n"), A.replace("line 1\n", "").rstrip("\n")),
}


@pytest.mark.parametrize("name", list(PAIRS))
def test_rendered_diffs_apply_with_git_and_repofix(name: str, tmp_path: Path) -> None:
    a, b = PAIRS[name]
    text = diffs.render("f.txt", "f.txt", diffs.hunks_of(a, b))
    (tmp_path / "f.txt").write_text(a)
    (tmp_path / "p.diff").write_text(text)
    subprocess.run(["git", "apply", "p.diff"], cwd=tmp_path, check=True, capture_output=True)
    assert (tmp_path / "f.txt").read_text() == b
    assert apply_edit(text, {"f.txt": a}).changes == {"f.txt": b}


def test_file_cases_cover_the_kinds_and_label_ambiguity() -> None:
    a = "def f():\n    return compute(1)\n\n\n" * 2 + "".join(f"x{i} = {i}\n" for i in range(30))
    b = a.replace("x10 = 10\n", "x10 = 11\n").replace("return compute(1)", "return compute(2)", 1)
    cases = corpus.file_cases("pkg", "m.py", a, b, random.Random(0))
    kinds = {c.kind for c in cases}
    assert {"clean", "shifted_lines", "wrong_counts", "reindented", "tabs", "already_applied"} <= kinds
    assert all(c.expected is None for c in cases if c.kind == "ambiguous")
    refused = []
    for case in cases:
        result = apply_edit(case.edit, case.before)
        if case.expected is None:
            assert not result.ok, case.id
        elif result.ok:
            assert {**case.before, **result.changes} == {**case.before, **case.expected}, case.id
        else:
            refused.append(case.kind)
    # Only the re-sent diff may be refused: its first hunk's old lines recur in this file.
    assert set(refused) <= {"already_applied"}
