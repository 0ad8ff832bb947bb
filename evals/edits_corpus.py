"""Corpus of edit cases from real releases, perturbed the way models get diffs wrong.

For each package in PAIRS the sdists of two consecutive releases are downloaded with
`pip download --no-deps --no-binary :all:` (cached in evals/.cache/edits-sdists, never committed).
Each Python file that changed gives its real per-file diff; perturbations of it model what language
models get wrong. The expected result is the real post-release file, or a refusal for the cases that
are truly ambiguous. Run it to print the number of cases per kind:

    python evals/edits_corpus.py
"""

from __future__ import annotations

import difflib
import random
import re
import subprocess
import sys
import tarfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

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


@dataclass
class DHunk:
    a0: int  # 0-based first old line
    b0: int
    lines: list[tuple[str, str]] = field(default_factory=list)
    a_eof: bool = False  # old side ends at a last line without newline
    b_eof: bool = False


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


# --- diffs -------------------------------------------------------------------------------------


def _split(text: str) -> tuple[list[str], bool]:
    if not text:
        return [], True
    return text[:-1].split("\n") if text.endswith("\n") else text.split("\n"), text.endswith("\n")


NO_EOL = "\n\\ No newline at end of file"  # rides on a line's text, so perturbations keep it


def hunks_of(a: str, b: str, n: int = 3) -> list[DHunk]:
    al, a_nl = _split(a)
    bl, b_nl = _split(b)
    # A last line without newline differs from the same line with one: tag it so difflib sees that.
    if al and not a_nl:
        al[-1] += NO_EOL
    if bl and not b_nl:
        bl[-1] += NO_EOL
    out = []
    for group in difflib.SequenceMatcher(None, al, bl, autojunk=False).get_grouped_opcodes(n):
        h = DHunk(group[0][1], group[0][3])
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                h.lines += [(" ", t) for t in al[i1:i2]]
            else:
                h.lines += [("-", t) for t in al[i1:i2]] + [("+", t) for t in bl[j1:j2]]
        out.append(h)
    return out


def render(old: str | None, new: str | None, hunks: list[DHunk], counts: int = 0, git: str = "") -> str:
    """The diff text; `counts` adds an error to every hunk's line counts."""
    out = [git] if git else []
    out += [f"--- {'a/' + old if old else '/dev/null'}", f"+++ {'b/' + new if new else '/dev/null'}"]
    for h in hunks:
        na = sum(op != "+" for op, _ in h.lines)
        nb = sum(op != "-" for op, _ in h.lines)
        start_a, start_b = (h.a0 + 1 if na else h.a0), (h.b0 + 1 if nb else h.b0)
        out.append(f"@@ -{start_a},{max(na + counts, 0)} +{start_b},{max(nb + counts, 0)} @@")
        out += [op + text for op, text in h.lines]
    return "\n".join(out) + "\n"


# --- perturbations: each takes the real hunks and returns the diff a model might send -------------


def _copy(hunks: list[DHunk]) -> list[DHunk]:
    return [DHunk(h.a0, h.b0, list(h.lines)) for h in hunks]


def _interior_context(h: DHunk) -> list[int]:
    """Context lines with context on both sides. Dropping a line next to a change would make the
    diff say something else (the change is then next to another line), which no tool can undo."""
    ops = [op for op, _ in h.lines]
    return [
        i
        for i, (op, t) in enumerate(h.lines)
        if op == " " and 0 < i < len(h.lines) - 1 and ops[i - 1] == ops[i + 1] == " " and "\n" not in t
    ]


def shifted_lines(hunks: list[DHunk], rng: random.Random) -> list[DHunk]:
    out = _copy(hunks)
    for h in out:
        shift = rng.choice([-1, 1]) * rng.randint(3, 40)
        h.a0, h.b0 = max(h.a0 + shift, 0), max(h.b0 + shift, 0)
    return out


def dropped_context(hunks: list[DHunk], rng: random.Random) -> list[DHunk] | None:
    out = _copy(hunks)
    h = rng.choice(out)
    spots = [i for i in _interior_context(h) if h.lines[i][1].strip()]
    if not spots:
        return None
    del h.lines[rng.choice(spots)]
    return out


def extra_context(hunks: list[DHunk], rng: random.Random) -> list[DHunk] | None:
    out = _copy(hunks)
    h = rng.choice(out)
    spots = [i for i in _interior_context(h) if h.lines[i][1].strip()]
    if not spots:
        return None
    i = rng.choice(spots)
    h.lines.insert(i + 1, h.lines[i])  # the model repeats a line it saw
    return out


def _map_text(hunks: list[DHunk], fn, ops: str = " -+") -> list[DHunk]:
    out = _copy(hunks)
    for h in out:
        h.lines = [(op, fn(t) if op in ops else t) for op, t in h.lines]
    return out


def reindented(hunks: list[DHunk], rng: random.Random) -> list[DHunk]:
    pad = " " * rng.choice([2, 4, 8])
    return _map_text(hunks, lambda t: pad + t if t.strip() else t)


def tabs(hunks: list[DHunk], rng: random.Random) -> list[DHunk] | None:
    def tabify(t: str) -> str:
        body = t.lstrip(" ")
        n = len(t) - len(body)
        return "\t" * (n // 4) + " " * (n % 4) + body

    out = _map_text(hunks, tabify)
    return out if any(h.lines != g.lines for h, g in zip(out, hunks, strict=True)) else None


def trailing_ws(hunks: list[DHunk], rng: random.Random) -> list[DHunk]:
    out = _copy(hunks)
    for h in out:
        h.lines = [
            (
                op,
                t + rng.choice(["  ", " ", "\t"])
                if op != "+" and "\n" not in t and rng.random() < 0.5
                else t,
            )
            for op, t in h.lines
        ]
    return out


def blank_lines(hunks: list[DHunk], rng: random.Random) -> list[DHunk] | None:
    out = _copy(hunks)
    h = rng.choice(out)
    blanks = [i for i in _interior_context(h) if not h.lines[i][1].strip()]
    if blanks:
        del h.lines[rng.choice(blanks)]
        return out
    spots = _interior_context(h)
    if not spots:
        return None
    h.lines.insert(rng.choice(spots), (" ", ""))
    return out


PERTURBATIONS = {
    "clean": lambda hunks, rng: hunks,
    "shifted_lines": shifted_lines,
    "dropped_context": dropped_context,
    "extra_context": extra_context,
    "reindented": reindented,
    "tabs": tabs,
    "trailing_ws": trailing_ws,
    "blank_lines": blank_lines,
}


# --- cases -------------------------------------------------------------------------------------


def search_replace(path: str, hunks: list[DHunk]) -> str:
    blocks = []
    for h in hunks:
        old = [t.split("\n")[0] for op, t in h.lines if op != "+"]
        new = [t.split("\n")[0] for op, t in h.lines if op != "-"]
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
        old = [t.split("\n")[0] for op, t in h.lines if op != "+"]
        new = [t.split("\n")[0] for op, t in h.lines if op != "-"]
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
