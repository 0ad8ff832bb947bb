"""Corpus of edit cases from real releases, perturbed the way models get diffs wrong.

For each package in PAIRS the sdists of two consecutive releases are downloaded with
`pip download --no-deps --no-binary :all:` (cached in evals/.cache/edits-sdists, never committed).
Each Python file that changed gives its real per-file diff; perturbations of it model what language
models get wrong. The expected result is the real post-release file, or a refusal for the cases that
are truly ambiguous. Run it to print the number of cases per kind:

    python evals/edits_corpus.py
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
import tarfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from edits_diffs import PERTURBATIONS, DHunk, hunks_of, render

CACHE = Path(__file__).resolve().parent / ".cache" / "edits-sdists"
PAIRS = [
    ("attrs", "23.1.0", "23.2.0"),
    ("packaging", "23.1", "23.2"),
    ("more-itertools", "10.1.0", "10.2.0"),
    ("requests", "2.31.0", "2.32.0"),
    ("idna", "3.6", "3.7"),
    ("click", "8.1.6", "8.1.7"),
    ("Jinja2", "3.1.2", "3.1.3"),
]
SEED = 5
MAX_FILE_LINES = 4000


@dataclass
class Case:
    id: str
    kind: str
    edit: str
    before: dict[str, str]  # path -> content given to the tool
    expected: dict[str, str | None] | None  # path -> content (None = deleted); None = must refuse
    baselines: bool = True  # False for formats only repofix reads (search/replace)


# --- downloading -------------------------------------------------------------------------------


def sdist(name: str, version: str) -> Path:
    CACHE.mkdir(parents=True, exist_ok=True)
    norm = re.sub(r"[-_.]+", "[-_.]", name)
    pattern = re.compile(rf"^{norm}-{re.escape(version)}\.(tar\.gz|zip)$", re.I)
    for path in CACHE.iterdir():
        if pattern.match(path.name):
            return path
    cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:"]
    subprocess.run([*cmd, f"{name}=={version}", "-d", str(CACHE)], check=True, timeout=300)
    return sdist(name, version)


def python_files(path: Path) -> dict[str, str]:
    out = {}
    with tarfile.open(path) as tar:
        for member in tar.getmembers():
            if member.isfile() and member.name.endswith(".py"):
                data = tar.extractfile(member).read()  # type: ignore[union-attr]
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError:
                    continue
                if text.count("\n") <= MAX_FILE_LINES and "\r" not in text:
                    out[member.name.split("/", 1)[1]] = text
    return out


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
    claim = next(c for c in (h.a0 + rng.randint(3, 9) for _ in range(99)) if c not in taken)
    small = DHunk(claim, h.b0, list(h.lines))
    return render(path, path, [small]), {path: text}


def file_cases(pkg: str, path: str, a: str, b: str, rng: random.Random) -> list[Case]:
    hunks = hunks_of(a, b)
    base = f"{pkg}:{path}"
    cases = []
    for kind, perturb in PERTURBATIONS.items():
        changed = perturb(hunks, rng)
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


def whole_file_cases(pkg: str, a_files: dict[str, str], b_files: dict[str, str]) -> list[Case]:
    """New, deleted and renamed (moved) files, as git writes them."""
    cases = []
    added, removed = sorted(set(b_files) - set(a_files)), sorted(set(a_files) - set(b_files))
    by_name = {Path(p).name: p for p in removed}
    for new in added:
        old = by_name.pop(Path(new).name, None)
        if old is not None:
            git = f"diff --git a/{old} b/{new}\nrename from {old}\nrename to {new}"
            text = render(old, new, hunks_of(a_files[old], b_files[new]), git=git)
            cases.append(
                Case(
                    f"{pkg}:{new}:renamed",
                    "new_deleted_renamed",
                    text,
                    {old: a_files[old]},
                    {old: None, new: b_files[new]},
                )
            )
        else:
            text = render(
                None, new, hunks_of("", b_files[new]), git=f"diff --git a/{new} b/{new}\nnew file mode 100644"
            )
            cases.append(Case(f"{pkg}:{new}:new", "new_deleted_renamed", text, {}, {new: b_files[new]}))
    for old in by_name.values():
        text = render(
            old, None, hunks_of(a_files[old], ""), git=f"diff --git a/{old} b/{old}\ndeleted file mode 100644"
        )
        cases.append(
            Case(f"{pkg}:{old}:deleted", "new_deleted_renamed", text, {old: a_files[old]}, {old: None})
        )
    return cases


def build_corpus() -> list[Case]:
    rng = random.Random(SEED)
    cases: list[Case] = []
    for name, v1, v2 in PAIRS:
        a_files, b_files = python_files(sdist(name, v1)), python_files(sdist(name, v2))
        for path in sorted(set(a_files) & set(b_files)):
            if a_files[path] != b_files[path]:
                cases += file_cases(name, path, a_files[path], b_files[path], rng)
        cases += whole_file_cases(name, a_files, b_files)
    return cases


def main() -> None:
    cases = build_corpus()
    kinds = Counter(c.kind for c in cases)
    for kind, n in sorted(kinds.items()):
        print(f"{kind:22} {n}")
    print(f"{'total':22} {len(cases)}")


if __name__ == "__main__":
    main()
