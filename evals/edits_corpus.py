"""Corpus of edit cases from real projects' git histories, perturbed the way models get diffs wrong.

Each repository in REPOS is read from a bare clone in CACHE (default /work/cache/edits-repos, or
$REPOFIX_EDITS_REPOS; never committed). Rebuild the cache with, for each entry of REPOS:

    git clone --bare https://github.com/<owner>/<name> <CACHE>/<owner>+<name>.git

The history is read up to the pinned commit, so the corpus does not change when the projects do.
From the non-merge commits, PAIRS_PER_REPO changed Python files are sampled (seeded); each gives its
real per-file diff (parent -> commit), and perturbations of it model what language models get wrong
(evals/edits_diffs.py, evals/edits_kinds.py). The expected result is the real file after the commit,
or a refusal for the cases that are truly ambiguous. Print the number of cases per kind with:

    python evals/edits_corpus.py
"""

from __future__ import annotations

import ast
import os
import random
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import edits_kinds as kinds
from edits_diffs import PERTURBATIONS, DHunk, hunks_of, render

CACHE = Path(os.environ.get("REPOFIX_EDITS_REPOS", "/work/cache/edits-repos"))
REPOS = [  # owner/name, pinned commit
    ("pallets/itsdangerous", "672971d66a2ef9f85151e53283113f33d642dabd"),
    ("tkem/cachetools", "28d4506f2a49d781ffbcecb095fa7aba5bb80aff"),
    ("python-humanize/humanize", "c3a124cdeb272d7f63bc0aa66f79c6fbafd2fc6d"),
    ("pypa/packaging", "053c884615f2e83d80705251b447769ec2599653"),
]
PAIRS_PER_REPO = 45
WHOLE_FILE_PER_REPO = 6  # added, deleted or renamed files
SEED = 5
MAX_FILE_LINES = 3000
MAX_CHANGED_LINES = 120


@dataclass
class Case:
    id: str
    kind: str
    edit: str
    before: dict[str, str]  # path -> content given to the tool
    expected: dict[str, str | None] | None  # path -> content (None = deleted); None = must refuse
    baselines: bool = True  # False for formats only repofix reads (search/replace)


# --- reading the histories ------------------------------------------------------------------


class CorpusError(RuntimeError):
    pass


def _git(repo: str, *args: str) -> str:
    git_dir = CACHE / (repo.replace("/", "+") + ".git")
    if not git_dir.is_dir():
        raise CorpusError(
            f"{git_dir} is missing: git clone --bare https://github.com/{repo} {git_dir} (see evals/edits_corpus.py)"
        )
    proc = subprocess.run(
        ["git", "--git-dir", str(git_dir), *args], capture_output=True, text=False, check=True, timeout=300
    )
    return proc.stdout.decode("utf-8", "replace")


def _blob(repo: str, commit: str, path: str) -> str | None:
    try:
        text = _git(repo, "show", f"{commit}:{path}")
    except subprocess.CalledProcessError:
        return None
    if "\r" in text or "\ufffd" in text or text.count("\n") > MAX_FILE_LINES:
        return None
    return text


def history(repo: str, head: str) -> list[tuple[str, str, str, str, str]]:
    """(status, parent, commit, old path, new path) of every Python file a non-merge commit changed."""
    out = _git(repo, "log", "--no-merges", "-M", "--name-status", "--format=>%H %P", head, "--", "*.py")
    changes = []
    commit = parent = ""
    for line in out.splitlines():
        if line.startswith(">"):
            ids = line[1:].split()
            commit, parent = ids[0], (ids[1] if len(ids) > 1 else "")
        elif line.strip() and parent:
            parts = line.split("\t")
            status = parts[0][0]
            old, new = parts[1], parts[-1]
            if old.endswith(".py") and new.endswith(".py"):
                changes.append((status, parent, commit, old, new))
    return changes


# --- cases -------------------------------------------------------------------------------------


def _sides(h: DHunk) -> tuple[list[str], list[str]]:
    """The hunk's old and new lines, without the no-newline marker (SEARCH/REPLACE cannot say it)."""
    old = [t.split("\n")[0] for op, t in h.lines if op != "+"]
    new = [t.split("\n")[0] for op, t in h.lines if op != "-"]
    return old, new


def search_replace(path: str, hunks: list[DHunk]) -> str:
    blocks = []
    for h in hunks:
        old, new = _sides(h)
        blocks.append("\n".join([path, "<<<<<<< SEARCH", *old, "=======", *new, ">>>>>>> REPLACE"]))
    return "\n\n".join(blocks) + "\n"


def _occurrences(lines: list[str], needle: list[str]) -> list[int]:
    n = len(needle)
    return [s for s in range(len(lines) - n + 1) if lines[s : s + n] == needle]


def ambiguous_cases(path: str, a: str, hunks: list[DHunk], rng: random.Random) -> list[tuple[str, dict]]:
    """Hunks cut down to lines that occur twice in the file, with line numbers pointing at neither."""
    lines = a.split("\n")
    out: list[tuple[str, dict]] = []
    for h in rng.sample(hunks, len(hunks)):
        if out:
            break
        for i, (op, text) in enumerate(h.lines):
            if op != "-" or len(text.strip()) < 6 or "\n" in text:
                continue
            where = _occurrences(lines, [text])
            if len(where) < 2:
                continue
            added = []
            for op2, t2 in h.lines[i + 1 :]:
                if op2 != "+":
                    break
                added.append(t2)
            results = {tuple(lines[:s] + added + lines[s + 1 :]) for s in where}
            if len(results) < 2:
                continue
            claim = max(where) + rng.randint(5, 30)
            small = DHunk(claim, claim, [("-", text)] + [("+", t) for t in added])
            out.append((render(path, path, [small]), {path: a}))
            break
    return out


def duplicated_region(path: str, a: str, hunks: list[DHunk], rng: random.Random) -> tuple[str, dict] | None:
    """The file holds a second copy of the hunk's old lines (two identical functions, say)."""
    h = rng.choice(hunks)
    old = [t for op, t in h.lines if op != "+"]
    if any("\n" in t for t in old) or not any(t.strip() for t in old):
        return None
    lines = a.split("\n")
    dup = lines + ["", *old, ""] if a.endswith("\n") else None
    if dup is None:
        return None
    text = "\n".join(dup)
    taken = set(_occurrences(dup, old))
    tries = (h.a0 + rng.randint(3, 9) for _ in range(99))
    claim = next((c for c in tries if all(abs(c - t) > 2 for t in taken)), None)  # near neither copy
    if claim is None:
        return None
    small = DHunk(claim, h.b0, list(h.lines))
    return render(path, path, [small]), {path: text}


def file_cases(pkg: str, path: str, a: str, b: str, rng: random.Random) -> list[Case]:
    hunks = hunks_of(a, b)
    base = f"{pkg}:{path}"
    cases = []
    for kind, perturb in PERTURBATIONS.items():
        changed = perturb(hunks, rng)
        if kind == "tabs" and sum(t.startswith("    ") for t in a.split("\n")) < 3:
            continue  # the file shows no indentation style that tabs could be told from
        if changed is not None:
            cases.append(Case(f"{base}:{kind}", kind, render(path, path, changed), {path: a}, {path: b}))
    bad_counts = rng.choice([-2, -1, 1, 2])
    cases.append(
        Case(
            f"{base}:wrong_counts",
            "wrong_counts",
            render(path, path, hunks, bad_counts),
            {path: a},
            {path: b},
        )
    )
    short = hunks_of(a, b, n=1)
    cases.append(
        Case(
            f"{base}:truncated_context", "truncated_context", render(path, path, short), {path: a}, {path: b}
        )
    )
    if (
        a.endswith("\n")
        and b.endswith("\n")
        and not a.endswith("\n\n")  # else dropping the last newline drops a blank line
        and not b.endswith("\n\n")
        and hunks[-1].a0 + sum(op != "+" for op, _ in hunks[-1].lines) >= a.count("\n") - 1
    ):
        # The file on disk lacks its final newline; the model's diff does not know it.
        cases.append(
            Case(
                f"{base}:no_final_newline",
                "no_final_newline",
                render(path, path, hunks),
                {path: a[:-1]},
                {path: b[:-1]},
            )
        )
    cases.append(
        Case(f"{base}:already_applied", "already_applied", render(path, path, hunks), {path: b}, {path: b})
    )
    sr_text = search_replace(path, hunks)
    sr_ok = _sr_unambiguous(a, hunks)
    cases.append(
        Case(
            f"{base}:search_replace",
            "search_replace",
            sr_text,
            {path: a},
            {path: b} if sr_ok else None,
            False,
        )
    )
    for n, (text, before) in enumerate(ambiguous_cases(path, a, hunks, rng)):
        cases.append(Case(f"{base}:ambiguous:{n}", "ambiguous", text, before, None))
    dup = duplicated_region(path, a, hunks, rng)
    if dup:
        cases.append(Case(f"{base}:ambiguous:dup", "ambiguous", dup[0], dup[1], None))
    made = {
        "numberless_headers": kinds.numberless(path, a, b, hunks),
        "header_variants": kinds.header_variant(path, a, b, hunks, rng),
        "whitespace_only": kinds.whitespace_only(path, b, rng),
        "off_by_one": kinds.off_by_one(path, a, b, hunks, rng),
        "stale_deletion": kinds.stale_deletion(path, a, rng),
        "elided_search_replace": kinds.elided_search_replace(path, a, b, rng),
    }
    for kind, got in made.items():
        if got is not None:
            cases.append(Case(f"{base}:{kind}", kind, *got, baselines=kind != "elided_search_replace"))
    return cases


def _sr_unambiguous(a: str, hunks: list[DHunk]) -> bool:
    """Blocks apply in order; each SEARCH must then occur once (or all occurrences give one result)."""
    lines = a.split("\n")
    offset = 0
    for h in hunks:
        old, new = _sides(h)
        where = _occurrences(lines, old)
        if len({tuple(lines[:s] + new + lines[s + len(old) :]) for s in where}) != 1:
            return False
        s = h.a0 + offset
        lines[s : s + len(old)] = new
        offset += len(new) - len(old)
    return True


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


def whole_file_cases(repo: str, status: str, old: str, new: str, a: str | None, b: str | None) -> list[Case]:
    """A new, deleted or renamed (moved) file, as git writes it."""
    if status == "R" and a is not None and b is not None:
        git = f"diff --git a/{old} b/{new}\nrename from {old}\nrename to {new}"
        text = render(old, new, hunks_of(a, b), git=git)
        return [Case(f"{repo}:{new}:renamed", "new_deleted_renamed", text, {old: a}, {old: None, new: b})]
    if status == "A" and b:
        text = render(None, new, hunks_of("", b), git=f"diff --git a/{new} b/{new}\nnew file mode 100644")
        return [Case(f"{repo}:{new}:new", "new_deleted_renamed", text, {}, {new: b})]
    if status == "D" and a:
        text = render(old, None, hunks_of(a, ""), git=f"diff --git a/{old} b/{old}\ndeleted file mode 100644")
        return [Case(f"{repo}:{old}:deleted", "new_deleted_renamed", text, {old: a}, {old: None})]
    return []


def repo_cases(repo: str, head: str, rng: random.Random) -> list[Case]:
    changes = history(repo, head)
    modified = [c for c in changes if c[0] == "M"]
    others = [c for c in changes if c[0] in "ADR"]
    cases: list[Case] = []
    taken = 0
    for _status, parent, commit, old, new in rng.sample(modified, len(modified)):
        if taken >= PAIRS_PER_REPO:
            break
        a, b = _blob(repo, parent, old), _blob(repo, commit, new)
        if a is None or b is None or a == b or not a.strip():  # an empty file: nothing to locate
            continue
        if not _parses(b):
            continue  # Python 2 code: every edit that gives it is (rightly) refused for a syntax error
        changed = sum(op != " " for h in hunks_of(a, b) for op, _ in h.lines)
        if changed > MAX_CHANGED_LINES:
            continue
        taken += 1
        cases += file_cases(f"{repo}@{commit[:8]}", new, a, b, rng)
    for status, parent, commit, old, new in rng.sample(others, min(len(others), WHOLE_FILE_PER_REPO)):
        a = _blob(repo, parent, old) if status != "A" else None
        b = _blob(repo, commit, new) if status != "D" else None
        cases += whole_file_cases(f"{repo}@{commit[:8]}", status, old, new, a, b)
    return cases


def build_corpus() -> list[Case]:
    rng = random.Random(SEED)
    return [case for repo, head in REPOS for case in repo_cases(repo, head, rng)]


def main() -> None:
    cases = build_corpus()
    kinds = Counter(c.kind for c in cases)
    for kind, n in sorted(kinds.items()):
        print(f"{kind:22} {n}")
    print(f"{'total':22} {len(cases)}")
    print("sources: " + ", ".join(f"{repo}@{head[:8]}" for repo, head in REPOS))


if __name__ == "__main__":
    main()
