"""Benchmark: repofix's own overhead per agent step, on a small and on a 10k-file repository.

A scripted model (instant replies) makes one edit per step; every step changes a file, so every
step pays for what a real step pays for: parsing the reply, applying the edit in the sandbox,
syncing the change to the host, the checkpoint, the guards, the test selection, the condensed
feedback and the trajectory write. The run goes through `run_agent` unchanged (bwrap sandbox,
real git, real pytest); the phases are timed from the `progress` events it emits:

    thinking -> action            the model call and the parse (excluded: the model's time;
                                  parsing is timed on its own and added back)
    action -> checkpoint          edit + sync + checkpoint
    checkpoint -> tests           guards + test selection
    tests -> tested               the test run (excluded)
    tested -> step                feedback, progress judgement, trajectory write

Baseline, in the same run on the same repository: the same edits written the plain way, with
`sandbox.write_files` and then `git add -A && git commit` of the whole tree inside the sandbox.

    python evals/bench_loop.py [--steps 60] [--files 10000] [--write]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))
import yaml  # noqa: E402

from repofix.agent import AgentRequest, run_agent  # noqa: E402
from repofix.agent.actions import parse_action  # noqa: E402
from repofix.config import Settings  # noqa: E402
from repofix.models import ScriptedModel  # noqa: E402

RESULTS = ROOT / "results" / "bench_loop.md"
TARGETS = {"small": 100.0, "10k files": 250.0}  # ms per step (issue 6)
FILES = {
    "pkg/__init__.py": "",
    "pkg/value.py": "VALUE = 0\n",
    "pkg/mathx.py": "def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x < hi:\n        return hi\n"
    "    return x\n",
    "tests/test_mathx.py": "from pkg.mathx import clamp\n\n\ndef test_low():\n    assert clamp(-5, 0, 10) == 0\n\n\n"
    "def test_high():\n    assert clamp(50, 0, 10) == 10\n",
    "tests/test_value.py": "from pkg.value import VALUE\n\n\ndef test_value():\n    assert VALUE >= 0\n",
}


def git(repo: Path, *args: str) -> str:
    # gc.auto=0: a detached `git gc --auto` after the 10k-file commit races with copying the tree
    config = ["-c", "gc.auto=0", "-c", "user.email=b@example.com", "-c", "user.name=Bench"]
    return subprocess.run(
        ["git", "-C", str(repo), *config, *args], check=True, capture_output=True, text=True
    ).stdout


def make_repo(root: Path, generated: int) -> Path:
    """The small repository, plus `generated` modules in folders of 100 (the 10k-file case)."""
    for path, text in FILES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    for n in range(generated):
        folder = root / "lib" / f"part{n // 100:03d}"
        if n % 100 == 0:
            folder.mkdir(parents=True)
            (folder / "__init__.py").write_text("")
        (folder / f"mod{n % 100:03d}.py").write_text(f"def f{n}(x):\n    return x + {n}\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    return root


def edit(n: int) -> dict:
    """Step n: VALUE = n-1 -> VALUE = n. The tests do not change, so there is no rollback and no end."""
    text = f"pkg/value.py\n<<<<<<< SEARCH\nVALUE = {n - 1}\n=======\nVALUE = {n}\n>>>>>>> REPLACE\n"
    return {"content": f"Step {n}.", "tool": "edit", "arguments": {"text": text}}


def agent_steps(repo: Path, home: Path, steps: int) -> list[dict[str, float]]:
    """Run the agent for `steps` edits; per step, the phase durations in ms."""
    script = home.parent / "replies.yaml"
    script.write_text(yaml.safe_dump([edit(n) for n in range(1, steps + 1)], sort_keys=False))
    events: list[tuple[float, dict]] = []
    settings = Settings(model=f"scripted:{script}", sandbox="bwrap", home=str(home), max_steps=steps)
    outcome = run_agent(
        AgentRequest(repo=repo, mode="fix", settings=settings),
        progress=lambda event: events.append((time.perf_counter(), event)),
    )
    assert outcome.reason == "step_limit" and outcome.steps == steps, (outcome.reason, outcome.message)
    phases: dict[int, dict[str, float]] = {}
    marks: dict[int, dict[str, float]] = {}
    for when, event in events:
        step = event.get("step")
        if step is None:
            continue
        mark = marks.setdefault(step, {})
        row = phases.setdefault(step, {"tests": 0.0})
        if event["event"] == "tested":
            row["tests"] += (when - mark["tests"]) * 1000
        mark[event["event"]] = when
    for step, mark in marks.items():
        row = phases[step]
        row["model"] = (mark["action"] - mark["thinking"]) * 1000
        row["edit+sync+checkpoint"] = (mark["checkpoint"] - mark["action"]) * 1000
        row["guards+select"] = (mark["tests"] - mark["checkpoint"]) * 1000
        row["feedback+record"] = (mark["step"] - mark["tested"]) * 1000
        row["overhead"] = (mark["step"] - mark["action"]) * 1000 - row["tests"]
    return [phases[s] for s in sorted(phases)]


def parse_ms(steps: int) -> float:
    """Parsing a reply into an action, the part of thinking -> action that is repofix's."""
    model = ScriptedModel([edit(n) for n in range(1, steps + 1)])
    replies = [model.query([]) for _ in range(steps)]
    began = time.perf_counter()
    for reply in replies:
        parse_action(reply)
    return (time.perf_counter() - began) * 1000 / steps


def baseline_steps(repo: Path, steps: int) -> list[float]:
    """The same edits, written with write_files and committed with `git add -A && git commit`."""
    from repofix.sandboxes import Limits, open_sandbox

    commit = (
        "git -c user.email=b@example.com -c user.name=Bench add -A && "
        "git -c user.email=b@example.com -c user.name=Bench commit -qm step"
    )
    times = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        box = open_sandbox(repo, backend="bwrap", limits=Limits(timeout=120))
    with box:
        for n in range(1, steps + 1):
            began = time.perf_counter()
            box.write_files({"pkg/value.py": f"VALUE = {n}\n".encode()})
            result = box.run(commit, timeout=120)
            times.append((time.perf_counter() - began) * 1000)
            assert result.ok, result.output
    return times


def measure(label: str, generated: int, steps: int, work: Path) -> dict:
    repo = make_repo(work / label.replace(" ", "-") / "repo", generated)
    rows = agent_steps(repo, work / label.replace(" ", "-") / "home", steps)
    base = baseline_steps(repo, steps)
    median = {key: statistics.median(r[key] for r in rows) for key in rows[0]}
    overheads = sorted(r["overhead"] for r in rows)
    return {
        "label": label,
        "files": len(FILES) + generated + generated // 100,
        "median": median,
        "p90": overheads[int(0.9 * (len(overheads) - 1))],
        "baseline": statistics.median(base),
    }


def table(results: list[dict], steps: int, parse: float) -> str:
    lines = [
        "| repository | files | repofix overhead ms (median) | p90 ms | edit+sync+checkpoint | guards+select "
        "| feedback+record | test run (excluded) | baseline ms: write_files + git add -A && commit | "
        "overhead / baseline | target |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        m = r["median"]
        overhead = m["overhead"] + parse
        target = TARGETS[r["label"]]
        lines.append(
            f"| {r['label']} | {r['files']} | {overhead:.1f} | {r['p90'] + parse:.1f} | "
            f"{m['edit+sync+checkpoint']:.1f} | {m['guards+select']:.1f} | {m['feedback+record']:.1f} | "
            f"{m['tests']:.0f} | {r['baseline']:.1f} | {overhead / r['baseline']:.2f}x | "
            f"<= {target:.0f} ms {'met' if overhead <= target else 'MISSED'} |"
        )
    return "\n".join(lines) + (
        f"\n\nMedians over {steps} steps per repository (each step an edit that changes "
        f"one file); parsing a reply: {parse * 1000:.0f} µs, included."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--files", type=int, default=10000)
    parser.add_argument("--write", action="store_true", help=f"record the table in {RESULTS}")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-loop-") as tmp:
        results = [
            measure("small", 0, args.steps, Path(tmp)),
            measure("10k files", args.files, args.steps, Path(tmp)),
        ]
    parse = parse_ms(args.steps)
    load = os.getloadavg()
    text = (
        f"# Agent loop benchmark\n\n`python evals/bench_loop.py --steps {args.steps} --files {args.files}`; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; bwrap sandbox; {os.cpu_count()} cores, "
        f"load average {load[0]:.1f} at the end.\n\n{table(results, args.steps, parse)}\n"
    )
    print(text)
    if args.write:
        RESULTS.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
