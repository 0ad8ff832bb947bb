"""Grade the recorded patches of held-aside runs again with today's grader, without running any
engine: each record (results/bench_builtin_<set>.<engine>.jsonl) keeps its patch's edits to the
planted files (bench_builtin_patches.py), which are put back on the bug planted again.

    python evals/bench_builtin_regrade.py heldout6 heldout5 ...
    python evals/bench_builtin_regrade.py heldout6 --engines engine_now --suffix exceptions \
        --out results/bench_builtin_regrade_exceptions.md

Why: until 2026-11-24 the grader traced the original and the patched trees in two folders, so a
call whose arguments or return value held the tree's path (a fixture's file name) told them apart,
and a patch that behaved like the fixed program was graded "plausible but wrong". It now traces
every tree at one path, and (2026-11-25) compares exceptions too (bench_builtin_grade.py).

Each record is written again as results/bench_builtin_<set>.<engine>.<suffix>.jsonl (a changed
row keeps its old grade in "graded_before"), and --out gets, per record, the counts before and
after and every verdict that changed. `--engines engine_now` takes the records whose engine part
(the file name between the set and .jsonl) is `engine_now` or ends with `.engine_now`
(`rerun.engine_now`). Skipped: HumanEvalFix records (`hef_`), earlier regrades (a name ending
in a regrade suffix) and partial reruns (fewer rows than the set has bugs, not in its order)."""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from pathlib import Path

from bench_builtin_bugs import plant
from bench_builtin_grade import grade_bug
from bench_builtin_patches import patched_files
from bench_builtin_sets import frozen_path, load_set

RESULTS = Path(__file__).resolve().parent / "results"
GRADED = ("fixed", "fixed (unverified)", "plausible but wrong")
SUFFIXES = ("regraded", "exceptions", "grader3")  # the records of earlier regrades
WHERE = re.compile(r" \([^()\s]+\.py:\d+\)")  # "remove 'break' (netaddr/ip/__init__.py:1983)"


def engine(name: str, record: Path) -> str:
    return record.name.removeprefix(f"bench_builtin_{name}.").removesuffix(".jsonl")


def wanted(part: str, engines: list[str] | None, suffix: str) -> bool:
    if part.startswith("hef_") or part.rsplit(".", 1)[-1] in (*SUFFIXES, suffix):
        return False
    return not engines or any(part == e or part.endswith(f".{e}") for e in engines)


def described(row: dict) -> str:
    """The patch's one line: its message up to the place it names (" (file.py:N)")."""
    message = row.get("message", "")
    found = WHERE.search(message)
    return message[: found.start()] if found else message.split(" (")[0]


def regrade(bugs: list, rows: list[dict], cache: Path) -> list[str]:
    changed = []
    for bug, row in zip(bugs, rows, strict=True):
        if row["outcome"] not in GRADED:
            continue
        if "edits" not in row:
            raise SystemExit(
                f"{row['task']}: the record keeps no edits (a record from before c333508 keeps the "
                "patched files, which are the project's code, and is not regraded)"
            )
        with tempfile.TemporaryDirectory(prefix="regrade-") as tmp:
            files = patched_files(plant(bug, cache, Path(tmp) / "repo"), row["edits"])
        again = grade_bug(bug, files, cache)
        if again != row["outcome"]:
            changed.append(f"{row['task']}: {row['outcome']} -> {again} (`{described(row)}`)")
            row["graded_before"], row["outcome"] = row["outcome"], again
    return changed


def counts(rows: list[dict]) -> str:
    resolved = sum(r["outcome"] in GRADED for r in rows)
    wrong = sum(r["outcome"] == "plausible but wrong" for r in rows)
    unverified = sum(r["outcome"] == "fixed (unverified)" for r in rows)
    return f"{resolved} resolved, {wrong} wrong, {unverified} unverified"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="+", help="set names: heldout, heldout2, ...")
    parser.add_argument("--engines", nargs="+", help="only these records, by engine part")
    parser.add_argument("--suffix", default="regraded", help="the new records' suffix")
    parser.add_argument(
        "--cache", type=Path, default=Path("/work/cache"), help="per set, its sdists (<cache>/<set>)"
    )
    parser.add_argument(
        "--out", type=Path, default=RESULTS / "bench_builtin_regrade.md", help="relative to evals/"
    )
    args = parser.parse_args()
    out = args.out if args.out.is_absolute() else RESULTS.parent / args.out
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    lines = [f"# Held-aside records graded again ({started}, evals/bench_builtin_regrade.py)", ""]
    for name in args.sets:
        _, bugs = load_set(frozen_path(name))
        for record in sorted(RESULTS.glob(f"bench_builtin_{name}.*.jsonl")):
            part = engine(name, record)
            if not wanted(part, args.engines, args.suffix):
                continue
            rows = [json.loads(x) for x in record.read_text().splitlines() if x.strip()]
            if len(rows) != len(bugs):
                lines.append(f"- `{record.name}`: not graded, a partial record ({len(rows)} rows)")
                continue
            before = counts(rows)
            changed = regrade(bugs, rows, args.cache / name)
            text = "".join(json.dumps(r) + "\n" for r in rows)
            (RESULTS / f"bench_builtin_{name}.{part}.{args.suffix}.jsonl").write_text(text)
            lines.append(f"- `{record.name}`: before {before}; after {counts(rows)}")
            lines += [f"  - {c}" for c in changed]
            print(lines[-1 - len(changed)], *changed, sep="\n", flush=True)
            out.write_text("\n".join(lines) + "\n")  # after each record: a stopped run keeps it
    out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
