"""Benchmark: repofix.edits against Aider's appliers, git apply and GNU patch on the corpus of
evals/edits_corpus.py (real projects' git histories; see there how to rebuild the clones it reads).

    python evals/bench_edits.py [--limit N] [--kind KIND] [--sample N] [--show-failures]

For every case each tool gets the same files and edit text. Aider (installed by evals/edits_aider.py
into its own venv) applies diffs with its unified-diff applier and SEARCH/REPLACE blocks with its
edit-block applier; git apply and patch see only the diff cases. Outcomes: `correct` (the expected
files, or a refusal where the case is truly ambiguous), `refused` (the tool reported failure; for
patch and Aider that includes partly applied files, since they say so), `misapplied` (the tool
reported success but the files differ from the expected ones, or it applied a truly ambiguous edit).
Writes the table to evals/results/bench_edits.md.
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "evals"))

from edits_aider import AIDER, Aider  # noqa: E402
from edits_corpus import PAIRS_PER_REPO, REPOS, Case, build_corpus  # noqa: E402

from repofix.edits import apply_edit  # noqa: E402

RESULTS = ROOT / "evals" / "results" / "bench_edits.md"
KINDS = {
    "clean": "the real diff, unchanged",
    "shifted_lines": "every hunk's line numbers moved by a random 3-40 lines",
    "wrong_counts": "every hunk's line counts off by the same random -2..2",
    "dropped_context": "one context line (between two context lines) left out",
    "extra_context": "one context line repeated",
    "reindented": "every line of the diff indented 2, 4 or 8 more spaces",
    "tabs": "leading groups of 4 spaces written as tabs",
    "trailing_ws": "trailing spaces/tabs added to about half the context and removed lines",
    "blank_lines": "a blank context line dropped, or one added",
    "truncated_context": "1 line of context instead of 3",
    "no_final_newline": "the file lacks its final newline; the diff (touching the end) does not say so",
    "already_applied": "the diff sent again to the already patched file (expected: unchanged)",
    "search_replace": "each hunk as a SEARCH/REPLACE block (expected: refusal where a SEARCH is ambiguous)",
    "new_deleted_renamed": "files a sampled commit added, deleted or moved, as git diffs",
    "numberless_headers": "Aider's form: bare paths and `@@ ... @@` hunk headers (only where each hunk's "
    "old lines occur once)",
    "header_variants": "paths without a/ b/ prefixes, a path only on `+++`, or the diff fenced inside prose",
    "lost_indentation": "the context lines of hunks that remove lines lost their indentation (removed and "
    "added lines kept theirs)",
    "lost_indent_insertion": "the context lines of pure insertions lost their indentation: the edit does not "
    "say whether the added lines are indented like the context or like the file (refused by design)",
    "whitespace_only": "the change is whitespace only (trailing spaces removed, a comment re-indented); half "
    "the time the context carries trailing spaces the file lacks",
    "off_by_one": "every line number one too early, with a copy of one hunk's old lines at the end of the file",
    "stale_deletion": "a whole statement deleted, the line number pointing at the context after it",
    "elided_search_replace": "SEARCH/REPLACE blocks whose leading context is elided with `...` or "
    "`# ... existing code ...` in both SEARCH and REPLACE (only where each piece occurs once)",
    "ambiguous": "a removed line that occurs twice, or a hunk whose lines the file holds twice, "
    "with line numbers pointing at neither (expected: refusal)",
}
NOT_UNIQUE = {"ambiguous", "lost_indent_insertion"}  # no target: the edit does not single out one result
SR_KINDS = {"search_replace", "elided_search_replace"}
BASELINES = {
    "git apply": ["git", "apply", "patch.diff"],
    "git apply --recount --ignore-whitespace": ["git", "apply", "--recount", "--ignore-whitespace", "patch.diff"],
    "patch --fuzz=3": [
        "patch", "-p1", "--fuzz=3", "--forward", "--batch", "--no-backup-if-mismatch",
        "--reject-file=-", "-i", "patch.diff",
    ],
}  # fmt: skip
TOOLS = ["repofix", "aider", *BASELINES]
State = dict[str, str | None]


def run_repofix(case: Case) -> State | None:
    result = apply_edit(case.edit, case.before)
    if not result.ok:
        return None
    state: State = dict(case.before)
    state.update(result.changes)  # type: ignore[arg-type]
    return state


def run_aider(case: Case, aider: Aider) -> State | None:
    files = aider.apply("search-replace" if case.kind in SR_KINDS else "udiff", case.edit, case.before)  # type: ignore[arg-type]
    if files is None:
        return None
    return {p: files.get(p) for p in set(case.before) | set(case.expected or {}) | set(files)}


def run_baseline(case: Case, cmd: list[str], workdir: Path) -> State | None:
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    for path, content in case.before.items():
        target = workdir / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8", newline="")
    (workdir / "patch.diff").write_text(case.edit, encoding="utf-8", newline="")
    proc = subprocess.run(cmd, cwd=workdir, capture_output=True, stdin=subprocess.DEVNULL, timeout=60)
    if proc.returncode != 0:
        return None
    state: State = {}
    for path in set(case.before) | set(case.expected or {}):
        target = workdir / path
        state[path] = target.read_bytes().decode("utf-8") if target.is_file() else None
    return state


def classify(case: Case, state: State | None) -> str:
    if state is None:
        return "correct" if case.expected is None else "refused"
    if case.expected is None:
        return "misapplied"
    full = dict(case.before)
    full.update(case.expected)
    return "correct" if all(state.get(p) == full[p] for p in set(full) | set(state)) else "misapplied"


def bench(cases: list[Case], show_failures: bool) -> tuple[dict, dict]:
    counts: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    seconds: dict[str, float] = defaultdict(float)
    tmp = Path(tempfile.mkdtemp(prefix="bench-edits-"))
    aider = Aider()
    try:
        for case in cases:
            for tool in TOOLS:
                if tool not in ("repofix", "aider") and not case.baselines:
                    continue
                start = time.perf_counter()
                if tool == "repofix":
                    state = run_repofix(case)
                elif tool == "aider":
                    state = run_aider(case, aider)
                else:
                    state = run_baseline(case, BASELINES[tool], tmp / "w")
                seconds[tool] += time.perf_counter() - start
                outcome = classify(case, state)
                counts[(case.kind, tool)][outcome] += 1
                if show_failures and tool == "repofix" and outcome != "correct":
                    print(f"--- {outcome}: {case.id}")
                    if outcome == "refused":
                        print(apply_edit(case.edit, case.before).message()[:1500])
    finally:
        aider.close()
        shutil.rmtree(tmp, ignore_errors=True)
    return counts, seconds


def cell(c: dict[str, int]) -> str:
    n = sum(c.values())
    if not n:
        return "n/a"
    return f"{c['correct']}/{c['refused']}/{c['misapplied']} ({100 * c['correct'] / n:.1f}%)"


def targets(cases: list[Case], counts: dict) -> str:
    """The issue's targets, checked: >= 97% on every kind with a unique answer, nothing misapplied,
    every ambiguous case refused, a better correct rate than Aider on every kind."""
    kinds = sorted({c.kind for c in cases} - NOT_UNIQUE)

    def rate(kind: str, tool: str) -> float:
        c = counts[(kind, tool)]
        return c["correct"] / max(sum(c.values()), 1)

    low = min(kinds, key=lambda k: rate(k, "repofix"))
    misapplied = sum(counts[(k, "repofix")]["misapplied"] for k in {c.kind for c in cases})
    amb = counts[("ambiguous", "repofix")]
    behind = [k for k in kinds if rate(k, "repofix") < rate(k, "aider")]
    tied = [k for k in kinds if rate(k, "repofix") == rate(k, "aider")]
    return (
        f"Targets: lowest correct rate on a unique-answer kind {100 * rate(low, 'repofix'):.1f}% ({low}); "
        f"misapplied {misapplied}; ambiguous refused {amb['correct']} of {sum(amb.values())}; "
        f"behind Aider on {', '.join(behind) or 'no kind'}"
        + (f"; level with it on {', '.join(tied)}" if tied else "")
        + "."
    )


def table(cases: list[Case], counts: dict, seconds: dict) -> str:
    kinds = sorted({c.kind for c in cases}, key=lambda k: (k in NOT_UNIQUE, k))
    n_of = {k: sum(c.kind == k for c in cases) for k in kinds}
    lines = [
        "| kind | cases | " + " | ".join(TOOLS) + " |",
        "| --- | ---: | " + " | ".join("---" for _ in TOOLS) + " |",
    ]
    for kind in kinds:
        lines.append(
            f"| {kind} | {n_of[kind]} | " + " | ".join(cell(counts[(kind, t)]) for t in TOOLS) + " |"
        )
    unique = [k for k in kinds if k not in NOT_UNIQUE]
    for label, chosen in (("**unique answer (all but the last two kinds)**", unique),
                          ("**diff cases only (every tool's format)**", [k for k in unique if k not in SR_KINDS])):  # fmt: skip
        total = {t: defaultdict(int) for t in TOOLS}
        for kind in chosen:
            for t in TOOLS:
                for outcome, v in counts[(kind, t)].items():
                    total[t][outcome] += v
        lines.append(
            f"| {label} | {sum(n_of[k] for k in chosen)} | "
            + " | ".join(cell(total[t]) for t in TOOLS)
            + " |"
        )
    runs = {t: sum(sum(counts[(k, t)].values()) for k in kinds) for t in TOOLS}
    ms = {t: 1000 * seconds[t] / max(runs[t], 1) for t in TOOLS}
    lines.append("")
    lines.append("Mean time per case (ms, including the baselines' process start and file writes): "
                 + ", ".join(f"{t} {ms[t]:.1f} ({ms[t] / ms['git apply']:.2f}x git apply)" for t in TOOLS))  # fmt: skip
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--kind", default="")
    parser.add_argument("--sample", type=int, default=0, help="at most N cases per kind (seeded)")
    parser.add_argument("--show-failures", action="store_true")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    cases = build_corpus()
    if args.kind:
        cases = [c for c in cases if c.kind == args.kind]
    if args.sample:
        rng = random.Random(1)
        by_kind: dict[str, list[Case]] = defaultdict(list)
        for case in cases:
            by_kind[case.kind].append(case)
        cases = [c for group in by_kind.values() for c in rng.sample(group, min(len(group), args.sample))]
    if args.limit:
        cases = cases[: args.limit]
    counts, seconds = bench(cases, args.show_failures)
    text = table(cases, counts, seconds) + "\n\n" + targets(cases, counts)
    print(text)
    if args.no_write or args.limit or args.kind:
        return
    sources = ", ".join(f"{repo}@{head[:8]}" for repo, head in REPOS)
    sampled = f" (a seeded sample of at most {args.sample} per kind)" if args.sample else ""
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        "# bench_edits: applying model-style edits\n\n"
        f"Corpus: {len(cases)} cases{sampled} from {PAIRS_PER_REPO} sampled per-file changes of each of "
        f"{len(REPOS)} projects' git histories ({sources}) plus their added, deleted and renamed files, "
        "perturbed as models err (evals/edits_corpus.py, evals/edits_kinds.py). "
        "Cells: correct/refused/misapplied (correct %). For `ambiguous` cases a refusal is the correct "
        "outcome and any applied result counts as misapplied. The `aider` column is "
        f"{AIDER}'s unified-diff applier on diffs and its SEARCH/REPLACE applier on the two "
        "SEARCH/REPLACE kinds, which git apply and patch cannot read.\n\n"
        "Kinds:\n\n"
        + "".join(f"- `{k}`: {v}\n" for k, v in KINDS.items())
        + f"\nCommand: `python evals/bench_edits.py{f' --sample {args.sample}' if args.sample else ''}`\n\n{text}\n",
        encoding="utf-8",
    )


if __name__ == "__main__":
    main()
