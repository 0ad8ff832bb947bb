"""Qualifying screened projects for a held-aside set (bench_builtin_screen.py `qualify`), in list
order, by the rules of heldout44's to heldout55's notes: enough tests and sites to plant in, a suite
whose outcome only the code decides (clean and the same from three folders, leaving its tree as it
was, and the same over 100 runs under four hash seeds), and the facts a human judges before a pick:
the calls to a network, a subprocess, the clock or chance, and an author an earlier set named.

Each project's result is kept in <cache>/qualify.jsonl, so a later call only qualifies the newly
passed ones."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

from bench_builtin_bugs import fetch, project_tree
from bench_builtin_sets import RESULTS, load_set
from screen_check import author, metadata
from screen_sandbox import SuiteRun, run_suite

MIN_TESTS, MIN_SITES = 5, 20
CLEAN_BASES = [Path("/tmp"), None, Path("/var/tmp")]  # None: the cache
STABLE_RUNS, HASH_SEEDS = 100, ["0", "1", "2", "3"]
# calls an outcome could depend on; hits are shown to a human, never a rejection by themselves
NONDETERMINISM = re.compile(
    r"\b(?:socket|urllib|http|requests|subprocess|os\.system|time\.time|datetime\.now|date\.today"
    r"|random|uuid|secrets)"
)


def tree_hashes(tree: Path) -> dict[str, str]:
    """sha256 of every file of a tree by its relative path: a suite that writes, deletes or changes a
    file in its tree would see that change in a later run (and in a planted bug's run)."""
    return {
        p.relative_to(tree).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(tree.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def changed_files(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def why_unclean(run: SuiteRun) -> str:
    """What keeps a run from being clean, briefly."""
    if run.exit is None:
        return "timed out"
    odd = sorted({o for o in run.outcomes.values() if o != "passed"})
    parts = [f"exit {run.exit}"] if run.exit else []
    parts += [f"{', '.join(odd)}"] if odd else []
    parts += [f"{len(run.warnings)} warnings"] if run.warnings else []
    parts += [f"{len(run.subtests)} subtests"] if run.subtests else []
    return "; ".join(parts) or "no tests"


def clean_runs(spec: str, cache: Path) -> tuple[int, str, dict[str, str]]:
    """(clean runs of 3, the first problem or "", the outcomes): one run from a tree under /tmp, the
    cache and /var/tmp each, each clean, with one outcome per test, and its tree unchanged."""
    first: dict[str, str] | None = None
    count = 0
    for base in CLEAN_BASES:
        folder = Path(tempfile.mkdtemp(prefix="qualify-", dir=base or cache))
        try:
            tree = project_tree(fetch(spec, cache), folder / "tree")
            before = tree_hashes(tree)
            run = run_suite(tree)
            changed = changed_files(before, tree_hashes(tree))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        where = base or cache
        if not run.clean:
            return count, f"in {where}: {why_unclean(run)}", first or {}
        if changed:
            return count, f"in {where}: the suite changed {', '.join(changed[:3])}", first or {}
        if first is not None and run.outcomes != first:
            return count, f"in {where}: outcomes differ from the first run's", first
        first, count = run.outcomes, count + 1
    return count, "", first or {}


def stable_runs(spec: str, cache: Path, expected: dict[str, str], per_seed: int) -> tuple[int, str]:
    """(runs like the first, the first difference): the suite run `per_seed` times under each of
    PYTHONHASHSEED 0 to 3 in one tree, each with exit 0 and `expected`'s outcome for every test."""
    folder = Path(tempfile.mkdtemp(prefix="qualify-stable-"))
    count = 0
    try:
        tree = project_tree(fetch(spec, cache), folder / "tree")
        for seed in HASH_SEEDS:
            for _ in range(per_seed):
                run = run_suite(tree, hashseed=seed)
                if run.exit != 0 or run.outcomes != expected:
                    diff = sorted(
                        t
                        for t in run.outcomes.keys() | expected.keys()
                        if run.outcomes.get(t) != expected.get(t)
                    )
                    return count, f"PYTHONHASHSEED={seed}: exit {run.exit}, differs on {diff[:3]}"
                count += 1
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return count, ""


def grep_hits(spec: str, cache: Path) -> list[str]:
    """`file:line: text` of each line of the sources and tests naming a network, subprocess, clock or
    random call (URLs in comments and seeded generators too: a human judges them)."""
    root, hits = fetch(spec, cache), []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel == "setup.py" or rel.startswith("docs/"):
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if NONDETERMINISM.search(line):
                hits.append(f"{rel}:{number}: {line.strip()[:120]}")
    return hits


def earlier_notes(results: Path = RESULTS) -> dict[str, str]:
    """The "note" of each earlier held-aside set's header, by set name (where authors are named)."""
    notes = {}
    for path in sorted(results.glob("bench_builtin_heldout*.bugs.json")):
        header = load_set(path)[0]
        if header.get("note"):
            notes[header["set"]] = header["note"]
    return notes


def author_terms(author: dict[str, list[str]]) -> set[str]:
    """Words that name an author: each name and its words of 4 letters or more, e-mail local parts,
    the account in a project URL (github.com/<account>/...)."""
    terms: set[str] = set()
    for key, values in author.items():
        for value in values:
            if "url" in key.lower() or "page" in key.lower():
                terms.update(re.findall(r"(?:github|gitlab|bitbucket)\.(?:com|org)/([\w.-]+)", value))
                continue
            for part in re.split(r",|\band\b", value):
                local = re.findall(r"([\w.+-]+)@", part)
                name = re.sub(r"<[^>]*>|[\w.+-]+@[\w.-]+|[\"()]", " ", part).strip()
                terms.update(local)
                if name:
                    terms.add(name)
                    terms.update(w for w in re.findall(r"[^\W\d_]{4,}", name))
    return {t for t in terms if len(t) >= 4}


def author_matches(author: dict[str, list[str]], notes: dict[str, str]) -> list[str]:
    """`term (set)` for each author term found as a whole word in an earlier set's note."""
    found = []
    for term in sorted(author_terms(author)):
        pattern = re.compile(rf"(?<![\w]){re.escape(term)}(?![\w])", re.IGNORECASE)
        found += [f"{term} ({name})" for name, note in notes.items() if pattern.search(note)]
    return found


def qualify(record: dict, cache: Path, notes: dict[str, str], per_seed: int) -> dict:
    """One passed project's qualifying facts (the stable runs only after three clean ones)."""
    spec = record["spec"]
    row = {"spec": spec, "index": record.get("index"), "tests": record["tests"], "sites": record["sites"]}
    # read again: status lines written before 2026-12-07 04:30 UTC missed the e-mail and URL fields
    row |= {"author": author(metadata(fetch(spec, cache))), "grep": grep_hits(spec, cache)}
    row["author_match"] = author_matches(row["author"], notes)
    row["clean"], row["clean_problem"], expected = clean_runs(spec, cache)
    row["stable"], row["stable_problem"] = 0, "not run"
    if row["clean"] == len(CLEAN_BASES):
        row["stable"], row["stable_problem"] = stable_runs(spec, cache, expected, per_seed)
        row["runs_per_seed"] = per_seed
    row["qualified"] = row["clean"] == len(CLEAN_BASES) and row["stable"] == per_seed * len(HASH_SEEDS)
    return row


def big_enough(record: dict) -> bool:
    return record["tests"] >= MIN_TESTS and sum(record["sites"].values()) >= MIN_SITES


def qualify_all(
    specs: list[str], status: dict[str, dict], cache: Path, want: int, per_seed: int
) -> list[dict]:
    """Rows of the passed, big-enough projects in list order, until `want` qualify (results kept in
    <cache>/qualify.jsonl and reused)."""
    kept_path = cache / "qualify.jsonl"
    kept = {}
    if kept_path.exists():
        kept = {
            r["spec"]: r
            for r in map(json.loads, kept_path.read_text().splitlines())
            if r.get("runs_per_seed", per_seed) == per_seed
        }
    notes, rows = earlier_notes(), []
    for spec in specs:
        record = status.get(spec)
        if not record or record.get("verdict") != "pass" or not big_enough(record):
            continue
        if spec not in kept:  # a big suite's 100 runs take minutes: say which one is under way
            print(f"qualifying {spec} ({record['tests']} tests)", file=sys.stderr, flush=True)
            kept[spec] = qualify(record, cache, notes, per_seed)
            with kept_path.open("a") as out:
                out.write(json.dumps(kept[spec]) + "\n")
        rows.append(kept[spec])
        if sum(r["qualified"] for r in rows) >= want:
            break
    return rows


KINDS = [
    "comparison",
    "missing-clause",
    "missing-slice",
    "missing-statement",
    "missing-wrapper",
    "off-by-one",
]


def table(rows: list[dict]) -> str:
    """The candidates, then each one's grep hits and author matches for a human to judge."""
    head = f"{'#':>6} {'name==version':40} {'tests':>5} {'sites':>5} {'clean':>5} {'stable':>7} {'grep':>4}  author match"
    lines = [head]
    for r in rows:
        lines.append(
            f"{r['index']:>6} {r['spec'][:40]:40} {r['tests']:>5} {sum(r['sites'].values()):>5} "
            f"{r['clean']:>3}/3 {r['stable']:>7} {len(r['grep']):>4}  {'; '.join(r['author_match']) or '-'}"
        )
    for r in rows:
        lines.append(f"\n{r['spec']}: {'QUALIFIED' if r['qualified'] else 'not qualified'}")
        lines.append(f"  sites ({', '.join(KINDS)}): {', '.join(str(r['sites'].get(k, '-')) for k in KINDS)}")
        lines.append(f"  author: {json.dumps(r['author'])}")
        lines += [f"  {p}" for p in (r["clean_problem"], r["stable_problem"] if r["clean"] == 3 else "") if p]
        lines += [f"  grep {h}" for h in r["grep"][:15]] + (["  ..."] if len(r["grep"]) > 15 else [])
    return "\n".join(lines)
