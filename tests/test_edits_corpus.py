"""The benchmark's corpus machinery (evals/edits_diffs.py, evals/edits_corpus.py) writes diffs that git itself
accepts, and labels its cases so repofix gets them right."""

from __future__ import annotations

import os
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
    a = "def f():\n    '''Compute.'''\n    return compute(1)\n\n\n" * 2 + "".join(
        f"x{i} = {i}\n" for i in range(30)
    )
    b = a.replace("x10 = 10\n", "x10 = 11\n").replace("return compute(1)", "return compute(2)", 1)
    cases = corpus.file_cases("pkg", "m.py", a, b, random.Random(0))
    kinds = {c.kind for c in cases}
    assert {"clean", "shifted_lines", "wrong_counts", "reindented", "tabs", "already_applied"} <= kinds
    assert {"header_variants", "lost_indentation", "whitespace_only", "off_by_one", "stale_deletion"} <= kinds
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


def test_cases_come_from_a_git_history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work = tmp_path / "work"
    work.mkdir()
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(tmp_path), "PATH": os.environ["PATH"]}  # fmt: skip

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=work, check=True, capture_output=True, text=True, env=env)
        return done.stdout.strip()

    before = "def f():\n    a = 1\n    b = 2\n    return a\n\n\n" + "".join(
        f"x{i} = {i}\n" for i in range(20)
    )
    after = before.replace("b = 2", "b = 3").replace("x10 = 10", "x10 = 11")
    git("init", "-q")
    (work / "m.py").write_text(before)
    git("add", "m.py")
    git("commit", "-qm", "one")
    (work / "m.py").write_text(after)
    git("commit", "-qam", "two")
    cache = tmp_path / "cache"
    subprocess.run(
        ["git", "clone", "-q", "--bare", str(work), str(cache / "me+proj.git")], check=True, env=env
    )
    monkeypatch.setattr(corpus, "CACHE", cache)
    cases = corpus.repo_cases("me/proj", git("rev-parse", "HEAD"), random.Random(0))
    assert {"clean", "numberless_headers", "search_replace"} <= {c.kind for c in cases}
    clean = next(c for c in cases if c.kind == "clean")
    assert clean.before == {"m.py": before} and clean.expected == {"m.py": after}
    assert apply_edit(clean.edit, clean.before).changes == clean.expected


def test_a_missing_clone_says_how_to_make_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(corpus, "CACHE", tmp_path)
    with pytest.raises(corpus.CorpusError, match="git clone --bare https://github.com/me/proj"):
        corpus.history("me/proj", "HEAD")
