"""Benchmark: how many small plausible bugs in the critical modules do the tests catch?

Mutation testing with cosmic-ray (installed by this script in its own virtual environment, never a
dependency of repofix). For each critical module, the mutants of its critical functions are made by
cosmic-ray's core operators, optionally sampled (fixed seed), and the module's own test files run
against each one in a throw-away clone of this checkout; a mutant is killed when a test fails. A test
run that times out is counted apart: cosmic-ray calls it killed, but a slow machine times out the
unmutated tests too, so a timeout counts as a kill only when the unmutated tests, timed in the same
run, take at most a third of the timeout (TIMEOUT_MARGIN); otherwise it counts as a survivor. The score
is killed / (killed + survived), timeouts included on the side the rule puts them; every survivor is
listed with its diff, so each can be killed by a new test or explained as equivalent.

Usage:
  python evals/bench_mutation.py [--only NAME ...] [--per-module N] [--seed 1] [--timeout 120]
Writes evals/results/bench_mutation.md. Needs Docker/bubblewrap only for the targets whose tests do.
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = Path.home() / ".cache" / "repofix-bench" / "cosmic-ray-venv"
RESULTS = ROOT / "evals" / "results" / "bench_mutation.md"
TIMEOUT_MARGIN = 3  # a timeout is a kill only if the unmutated tests run in at most timeout / 3


@dataclass(frozen=True)
class Target:
    name: str
    module: str
    functions: tuple[str, ...]  # cosmic-ray definition names; empty: every mutant of the module
    tests: tuple[str, ...]


EDIT_TESTS = (
    "tests/test_edits.py",
    "tests/test_edits_tolerance.py",
    "tests/test_edits_properties.py",
    "tests/test_edits_corpus.py",
    "tests/test_edits_git.py",
    "tests/test_edits_mutants.py",
    "tests/test_edits_mutants_rerun.py",
    "tests/test_edits_model_like.py",
)
SANDBOX_ENV_TESTS = ("tests/test_sandbox_env.py", "tests/test_testing_clean_env.py")
# The pure-git delivery tests (seconds), not the agent-driven ones (minutes: tests/test_deliver_uncommitted.py)
DELIVER_TESTS = (
    "tests/test_workspace_deliver_git.py",
    "tests/test_workspace_deliver.py",
    "tests/test_lifecycle_deliver.py::test_delivery_again_and_a_follow_up_stay_on_one_branch",
    "tests/test_lifecycle_deliver.py::test_a_branch_the_user_moved_on_is_not_reused",
    "tests/test_lifecycle_deliver.py::test_six_concurrent_deliveries_get_six_branches",
)
TARGETS = [
    Target(
        "done rule",
        "repofix/testing/done.py",
        ("done",),
        ("tests/test_testing_done.py", "tests/test_testing_done_reasons.py"),
    ),
    Target(
        "test guard",
        "repofix/workspace/testguard.py",
        ("weakened", "test_shapes", "_shape", "_collect", "_is_skip"),
        ("tests/test_workspace_testguard.py",),
    ),
    Target(
        "cost cap",
        "repofix/models/base.py",
        ("check", "add"),
        ("tests/test_models_limits.py", "tests/test_models_litellm.py", "tests/test_models_money.py"),
    ),
    Target("model chain", "repofix/models/chain.py", ("query",), ("tests/test_models_limits.py",)),
    Target(
        "pricing",
        "repofix/models/pricing.py",
        (),
        ("tests/test_models_litellm.py", "tests/test_models_limits.py", "tests/test_models_money.py"),
    ),
    Target(
        "flaky",
        "repofix/testing/baseline.py",
        ("find_flaky", "flipped"),
        (
            "tests/test_testing_flaky_crash.py",
            "tests/test_testing_flaky.py",
            "tests/test_testing_flaky_edges.py",
        ),
    ),
    Target(
        "guards",
        "repofix/workspace/guards.py",
        ("check_change", "_outside", "_link_escapes"),
        ("tests/test_workspace_guards.py", "tests/test_workspace_guards_edges.py"),
    ),
    Target(
        "CI sanitising",
        "repofix/ci/sanitize.py",
        (),
        ("tests/test_ci_sanitize.py", "tests/test_ci_sanitize_edges.py"),
    ),
    Target(
        "redaction",
        "repofix/redaction.py",
        (),
        ("tests/test_ci_sanitize.py", "tests/test_ci_sanitize_edges.py"),
    ),
    Target(
        "edit locator",
        "repofix/edits/locate.py",
        ("find_placements", "_align", "rebuild", "_between_neighbours", "_skips_a_reindented_line"),
        EDIT_TESTS,
    ),
    Target(
        "edit applier",
        "repofix/edits/hunks.py",
        (
            "apply_hunks",
            "locate_hunk",
            "applied_up_to",
            "applied_loosely",
            "_old_in_new",
            "_same_at",
            "_choose",
        ),
        EDIT_TESTS,
    ),
    Target(
        "edit files",
        "repofix/edits/apply.py",
        ("_apply_one", "_modified", "_one_reading"),
        EDIT_TESTS,
    ),
    Target("sandbox env (none)", "repofix/sandboxes/local.py", ("__init__", "_host_env"), SANDBOX_ENV_TESTS),
    Target("sandbox env (bwrap)", "repofix/sandboxes/interpreter.py", ("env",), SANDBOX_ENV_TESTS),
    # Session's env and cwd for every command; a test run is a `clean` one (never the model's exports)
    Target("sandbox env (runner)", "sandbox/runner.py", ("__init__", "run", "load_state"), SANDBOX_ENV_TESTS),
    Target(
        "host-secret filter",
        "repofix/ci/worker.py",
        ("clean_env",),
        ("tests/test_ci_sanitize.py", "tests/test_ci_sanitize_edges.py"),
    ),
    Target(
        "path filters",
        "repofix/workspace/paths.py",
        (),
        ("tests/test_workspace_paths.py", "tests/test_workspace_paths_edges.py"),
    ),
    Target(
        "resume",
        "repofix/agent/resume.py",
        ("_check_limits", "_model"),
        ("tests/test_agent_resume_limits.py", "tests/test_agent_limits.py"),
    ),
    Target(
        "resume point",
        "repofix/workspace/resume.py",
        (),
        ("tests/test_agent_resume_limits.py", "tests/test_runs.py"),
    ),
    Target(
        "agent limits",
        "repofix/agent/run.py",
        ("check_limits", "ask_model"),
        ("tests/test_agent_limits_edges.py", "tests/test_agent_unit.py"),
    ),
    Target(
        "delivery",
        "repofix/workspace/deliver.py",
        (
            "deliver",
            "_commit_for_user",
            "_own_branch",
            "_reserve_branch",
            "_snapshot_commit",
            "_fix_tree",
            "slugify",
        ),
        DELIVER_TESTS,
    ),
    Target(
        "undo",
        "repofix/workspace/apply.py",
        ("apply_to_worktree", "undo_apply", "_write_all", "_write", "_on_disk", "_remove_empty_folders"),
        ("tests/test_workspace_deliver_edges.py", "tests/test_workspace_deliver.py"),
    ),
    Target(
        "CI publish checks",
        "repofix/ci/publish.py",
        ("patch_problems", "path_problems", "_check_head", "_verified"),
        ("tests/test_ci_publish_edges.py", "tests/test_ci_publish.py"),
    ),
]


def cosmic_ray() -> Path:
    """The cosmic-ray commands, from a venv of their own (made on first use)."""
    if not (VENV / "bin" / "cosmic-ray").exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(VENV / "bin" / "pip"), "install", "-q", "cosmic-ray>=8.3"], check=True)
    return VENV / "bin"


def checkout_copy(folder: Path) -> Path:
    """A clone of HEAD plus the working tree's uncommitted changes: mutants never touch this checkout."""
    copy = folder / "repo"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(copy)], check=True)
    diff = subprocess.run(
        ["git", "diff", "HEAD", "--binary"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    if diff:
        subprocess.run(["git", "apply", "-"], cwd=copy, input=diff, check=True)
    shared = ROOT.parent / "shared"
    if shared.exists() and not (folder / "shared").exists():
        (folder / "shared").symlink_to(shared)
    return copy


def annotation_spans(source: str) -> list[tuple[int, int, int, int]]:
    """(row, col, end row, end col) of every annotation and of every `def` line's parameter markers:
    with `from __future__ import annotations` none of it runs, so mutants there are equivalent."""
    spans = []
    for node in ast.walk(ast.parse(source)):
        annotations = []
        if isinstance(node, ast.arg | ast.AnnAssign) and node.annotation is not None:
            annotations.append(node.annotation)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if node.returns is not None:
                annotations.append(node.returns)
            first_body = node.body[0].lineno
            spans.append((node.lineno, 0, first_body - 1, 10_000))  # the signature, `*` and `/` included
        spans += [
            (a.lineno, a.col_offset, a.end_lineno or a.lineno, a.end_col_offset or 0) for a in annotations
        ]
    return spans


def _inside(row: int, col: int, spans: list[tuple[int, int, int, int]]) -> bool:
    return any((r0, c0) <= (row, col) <= (r1, c1) for r0, c0, r1, c1 in spans)


def sample(session: Path, target: Target, per_module: int | None, seed: int, source: str) -> tuple[int, int]:
    """Keep the mutants of the target's functions (a seeded sample of at most `per_module`), less the
    equivalent ones in annotations and signatures. Returns (kept, equivalent)."""
    spans = annotation_spans(source)
    with sqlite3.connect(session) as db:
        rows = db.execute(
            "SELECT job_id, definition_name, start_pos_row, start_pos_col, operator_name, occurrence "
            "FROM mutation_specs"
        ).fetchall()
        chosen = [
            (job, row, col, operator, occurrence)
            for job, name, row, col, operator, occurrence in rows
            if not target.functions or (name or "").split(".")[-1] in target.functions
        ]
        # Sampled in the order of where the mutants are and what they do, not of cosmic-ray's job ids
        # (random on every `init`): the same seed on the same code samples the same mutants.
        kept = sorted((r, c, op, n, job) for job, r, c, op, n in chosen if not _inside(r, c, spans))
        keep = [k[-1] for k in kept]
        equivalent = len(chosen) - len(keep)
        if per_module is not None and len(keep) > per_module:
            keep = [k[-1] for k in random.Random(seed).sample(kept, per_module)]
        kept_jobs = set(keep)
        drop = [(row[0],) for row in rows if row[0] not in kept_jobs]
        db.executemany("DELETE FROM mutation_specs WHERE job_id = ?", drop)
        db.executemany("DELETE FROM work_items WHERE job_id = ?", drop)
    return len(keep), equivalent


def baseline_seconds(command: list[str], copy: Path, timeout: float) -> float:
    """How long the unmutated tests take: the yardstick that says whether a timeout is a kill."""
    started = time.monotonic()
    try:
        done = subprocess.run(command, cwd=copy, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return float("inf")  # the tests time out unmutated: no timeout of a mutant is a kill
    if done.returncode != 0:
        sys.exit(f"the unmutated tests fail, so no mutant can be judged:\n{done.stdout[-3000:]}")
    return time.monotonic() - started


def timeouts_kill(baseline: float, timeout: float) -> bool:
    """A mutant's timeout is a kill only if the unmutated tests finish well within the timeout."""
    return baseline * TIMEOUT_MARGIN <= timeout


def classify(results: list[tuple], timeout_is_kill: bool) -> tuple[list, list, list, list]:
    """(killed, survived, timed out, not run) of cosmic-ray's rows (worker outcome, test outcome, diff,
    function, operator, output). A timed-out row is also in killed or in survived, as the rule says."""
    killed: list[tuple] = []
    survived: list[tuple] = []
    timed_out: list[tuple] = []
    not_run: list[tuple] = []
    for row in results:
        outcome = (row[1] or "").lower()  # cosmic-ray writes KILLED / SURVIVED / INCOMPETENT
        if outcome == "killed" and row[5] == "timeout":  # cosmic-ray's mark of a timed-out test run
            timed_out.append(row)
            (killed if timeout_is_kill else survived).append(row)
        elif outcome in ("killed", "survived"):
            (killed if outcome == "killed" else survived).append(row)
        else:
            not_run.append(row)
    return killed, survived, timed_out, not_run


def run_target(target: Target, copy: Path, work: Path, args: argparse.Namespace) -> dict:
    bin_dir = cosmic_ray()
    config = work / f"{target.name.replace(' ', '_')}.toml"
    session = config.with_suffix(".sqlite")
    tests = " ".join(target.tests)
    baseline = baseline_seconds(
        ["env", f"PYTHONPATH={copy}", sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider"]
        + list(target.tests),
        copy,
        args.timeout,
    )
    config.write_text(
        "[cosmic-ray]\n"
        f'module-path = "{target.module}"\n'
        f"timeout = {args.timeout}\n"
        "excluded-modules = []\n"
        f'test-command = "env PYTHONPATH={copy} {sys.executable} -m pytest -x -q -p no:cacheprovider {tests}"\n'
        '[cosmic-ray.distributor]\nname = "local"\n'
    )
    subprocess.run([str(bin_dir / "cosmic-ray"), "init", str(config), str(session)], cwd=copy, check=True)
    count, equivalent = sample(
        session, target, args.per_module, args.seed, (copy / target.module).read_text()
    )
    started = time.monotonic()
    subprocess.run(
        [str(bin_dir / "cosmic-ray"), "exec", str(config), str(session)],
        cwd=copy,
        check=True,
        capture_output=True,
    )
    seconds = time.monotonic() - started
    subprocess.run(["git", "checkout", "-q", "--", "."], cwd=copy, check=True)  # never leave a mutant behind
    with sqlite3.connect(session) as db:
        results = db.execute(
            "SELECT r.worker_outcome, r.test_outcome, r.diff, s.definition_name, s.operator_name, "
            "r.output FROM work_results r JOIN mutation_specs s USING (job_id)"
        ).fetchall()
    killed, survived, timed_out, not_run = classify(results, timeouts_kill(baseline, args.timeout))
    return {
        "target": target,
        "mutants": count,
        "equivalent": equivalent,
        "killed": len(killed),
        "survived": survived,
        "timed_out": len(timed_out),
        "baseline": baseline,
        "incompetent": len(not_run),
        "seconds": seconds,
    }


def report(rows: list[dict], args: argparse.Namespace, commit: str) -> str:
    lines = [
        "# Mutation testing of the critical modules",
        "",
        f"cosmic-ray core operators; commit `{commit}`; per-module sample: "
        f"{args.per_module or 'all'} (seed {args.seed}); test timeout {args.timeout:.0f} s.",
        "",
        "Mutants inside annotations and signatures are equivalent (annotations are never evaluated) and "
        "are left out; their count is shown.",
        "",
        "Timeouts: a mutant whose tests time out is counted as killed only if the unmutated tests "
        f"(column 'unmutated', timed in this run) take at most 1/{TIMEOUT_MARGIN} of the timeout; "
        "otherwise as survived. The 'timed out' column counts them either way; 'killed' and 'survived' "
        "include them as the rule says.",
        "",
        "| module | functions | mutants | equivalent (left out) | killed | survived | timed out | not run "
        "| score | unmutated | time |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        t = row["target"]
        judged = row["killed"] + len(row["survived"])
        score = f"{100 * row['killed'] / judged:.0f}%" if judged else "n/a"
        side = "kills" if timeouts_kill(row["baseline"], args.timeout) else "survivors"
        lines.append(
            f"| {t.name} (`{t.module}`) | {', '.join(t.functions) or 'all'} | {row['mutants']} | {row['equivalent']} | "
            f"{row['killed']} | {len(row['survived'])} | {row['timed_out']} ({side}) | {row['incompetent']} | "
            f"{score} | {row['baseline']:.0f} s | {row['seconds']:.0f} s |"
        )
    lines += ["", "## Survivors", ""]
    for row in rows:
        for _outcome, _test, diff, name, operator, output in row["survived"]:
            lines += [
                f"### {row['target'].name}: `{name}` ({operator}){' (timed out)' if output == 'timeout' else ''}",
                "",
                "```diff",
                diff.strip(),
                "```",
                "",
            ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--only", nargs="*", default=None, help="target names (default: all)")
    parser.add_argument("--per-module", type=int, default=None, help="sample at most N mutants per module")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per mutant's test run")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    targets = [t for t in TARGETS if args.only is None or t.name in args.only]
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    rows = []
    with tempfile.TemporaryDirectory(prefix="repofix-mutation-") as tmp:
        copy = checkout_copy(Path(tmp))
        for target in targets:
            row = run_target(target, copy, Path(tmp), args)
            rows.append(row)
            judged = row["killed"] + len(row["survived"])
            print(
                json.dumps(
                    {
                        "target": target.name,
                        "mutants": row["mutants"],
                        "killed": row["killed"],
                        "survived": len(row["survived"]),
                        "timed_out": row["timed_out"],
                        "unmutated_seconds": round(row["baseline"]),
                        "score": row["killed"] / judged if judged else None,
                        "seconds": round(row["seconds"]),
                    }
                ),
                flush=True,
            )
            args.out.write_text(
                report(rows, args, commit), encoding="utf-8"
            )  # after each target: partial runs count
    print(args.out.read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
