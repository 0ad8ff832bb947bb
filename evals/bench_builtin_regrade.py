"""Grade the recorded patches of held-aside runs again with today's grader, without running any
engine: each record (results/bench_builtin_<set>.<engine>.jsonl) keeps the files its patch wrote.

    python evals/bench_builtin_regrade.py heldout6 heldout5 ...

Why: until 2026-11-24 the grader traced the original and the patched trees in two folders, so a
call whose arguments or return value held the tree's path (a fixture's file name) told them apart,
and a patch that behaved like the fixed program was graded "plausible but wrong". It now traces
every tree at one path. Writes results/bench_builtin_regrade.md: per record, the verdicts that
changed and the counts before and after."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bench_builtin_grade import grade_bug
from bench_builtin_sets import frozen_path, load_set

RESULTS = Path(__file__).resolve().parent / "results"
GRADED = ("fixed", "fixed (unverified)", "plausible but wrong")


def regrade(name: str, record: Path, cache: Path) -> tuple[list[dict], list[str]]:
    _, bugs = load_set(frozen_path(name))
    rows = [json.loads(line) for line in record.read_text().splitlines() if line.strip()]
    if len(rows) != len(bugs):
        return rows, []  # a partial rerun's record: its rows are not in the list's order
    changed = []
    for bug, row in zip(bugs, rows, strict=True):
        if row["outcome"] not in GRADED:
            continue
        again = grade_bug(bug, row["files"], cache)
        if again != row["outcome"]:
            changed.append(f"{row['task']}: {row['outcome']} -> {again}")
            row["graded_before"], row["outcome"] = row["outcome"], again
    return rows, changed


def counts(rows: list[dict]) -> str:
    resolved = sum(r["outcome"] in GRADED for r in rows)
    wrong = sum(r["outcome"] == "plausible but wrong" for r in rows)
    return f"{resolved} resolved, {wrong} wrong"


def main() -> None:
    lines = ["# Held-aside records graded again at one path", ""]
    for name in sys.argv[1:]:
        for record in sorted(RESULTS.glob(f"bench_builtin_{name}.*.jsonl")):
            if ".hef_" in record.name or record.name.endswith(".regraded.jsonl"):
                continue
            before = counts([json.loads(x) for x in record.read_text().splitlines() if x.strip()])
            rows, changed = regrade(name, record, Path("/work/cache") / name)
            out = record.with_suffix(".regraded.jsonl")
            out.write_text("".join(json.dumps(r) + "\n" for r in rows))
            lines.append(f"- `{record.name}`: before {before}; after {counts(rows)}")
            lines += [f"  - {c}" for c in changed]
            print(lines[-1 - len(changed)], *changed, sep="\n", flush=True)
    (RESULTS / "bench_builtin_regrade.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
