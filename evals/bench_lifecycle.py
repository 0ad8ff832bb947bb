"""Lifecycle benchmark (issue 14): time from `kill -9` of the process owning a sandbox to the
sandbox being gone, without any later command: the Docker container removed, the bwrap process
tree (and slirp4netns) exited. Kills land at random moments: while the sandbox starts, during its
networked setup phase, between commands and in the middle of one.

    python evals/bench_lifecycle.py [--kills 20] [--out evals/results/bench_lifecycle.md]

Baseline, measured in the same run: the same owner stopped by SIGTERM, which closes its sandboxes
itself (context managers, atexit). Leftovers are sandboxes still there after --limit seconds."""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from repofix.sandboxes import bwrap as bwrap_backend  # noqa: E402
from repofix.sandboxes import docker as docker_backend  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OWNER = """
import sys, warnings
warnings.simplefilter("ignore")
from repofix.sandboxes import open_sandbox
box = open_sandbox(sys.argv[1], backend=sys.argv[2], setup=["sleep 0.3"])
print("ready", flush=True)
while True:  # a run's rhythm: short commands, a longer one, Python snippets
    box.run("echo step > step.txt; sleep 0.2")
    box.python("sum(range(10000))")
    box.run("sleep 1 & sleep 0.5")
"""


def sandbox_left(backend: str, owner_pid: int, scratch_root: Path) -> bool:
    """Whether anything of the owner's sandbox still exists."""
    if backend == "docker":
        out = subprocess.run(
            ["docker", "ps", "-aq", "--filter", f"label=org.repofix.owner-pid={owner_pid}"],
            capture_output=True,
            text=True,
        ).stdout
        return bool(out.strip())
    marker = str(scratch_root).encode()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            # slirp4netns's command line names no folder; only this backend starts it, and this
            # benchmark runs one owner at a time, so any one left is this owner's.
            if marker in cmdline or cmdline.startswith(b"slirp4netns\0"):
                return True
    return False


def one_stop(
    backend: str, tree: Path, sig: int, moment: float | None, limit: float
) -> tuple[str, float | None]:
    """Start an owner, stop it with `sig` `moment` seconds after start (None: once it is ready),
    and time until its sandbox is gone. Returns (phase at the stop, seconds or None if left over)."""
    scratch = Path(tempfile.mkdtemp(prefix="bench-lifecycle-"))
    env = dict(os.environ, REPOFIX_SCRATCH=str(scratch), PYTHONPATH=str(ROOT))
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER, str(tree), backend],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        text=True,
    )
    started = time.monotonic()
    if moment is None:
        owner.stdout.readline()
    else:
        time.sleep(moment)
    existed = sandbox_left(backend, owner.pid, scratch)
    ready = time.monotonic() - started
    killed = time.perf_counter()
    owner.send_signal(sig)
    owner.wait()
    while sandbox_left(backend, owner.pid, scratch):
        if time.perf_counter() - killed > limit:
            subprocess.run(
                [
                    "docker",
                    "rm",
                    "-f",
                    *subprocess.run(
                        ["docker", "ps", "-aq", "--filter", f"label=org.repofix.owner-pid={owner.pid}"],
                        capture_output=True,
                        text=True,
                    ).stdout.split(),
                ],
                capture_output=True,
            )
            return ("started" if existed else "starting"), None
        time.sleep(0.02)
    gone = time.perf_counter() - killed
    subprocess.run(["rm", "-rf", str(scratch)])
    return ("started" if existed else "starting") + f" ({ready:.1f} s in)", gone


def summary(times: list[float | None]) -> tuple[str, str, int]:
    done = [t for t in times if t is not None]
    if not done:
        return "-", "-", len(times)
    return f"{statistics.median(done):.2f}", f"{max(done):.2f}", len(times) - len(done)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--baseline", type=int, default=5, help="SIGTERM stops per backend")
    parser.add_argument(
        "--limit", type=float, default=30.0, help="seconds before a sandbox counts as left over"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "evals" / "results" / "bench_lifecycle.md")
    args = parser.parse_args()
    random.seed(14)
    tree = Path(tempfile.mkdtemp(prefix="bench-lifecycle-tree-"))
    (tree / "pkg").mkdir()
    (tree / "pkg" / "__init__.py").write_text("VALUE = 1\n")
    rows, details = [], []
    for backend, problem in (("docker", docker_backend.available()), ("bwrap", bwrap_backend.available())):
        if problem:
            print(f"{backend}: skipped ({problem})")
            continue
        kills = []
        for index in range(args.kills):
            moment = random.uniform(0.3, 4.0)  # from mid-start through setup into the command loop
            phase, gone = one_stop(backend, tree, signal.SIGKILL, moment, args.limit)
            kills.append(gone)
            details.append(
                f"| {backend} | {index + 1} | {moment:.2f} | {phase} | "
                f"{'LEFT OVER' if gone is None else f'{gone:.2f}'} |"
            )
            print(details[-1], flush=True)
        terms = [one_stop(backend, tree, signal.SIGTERM, None, args.limit)[1] for _ in range(args.baseline)]
        k_med, k_max, k_left = summary(kills)
        t_med, t_max, t_left = summary(terms)
        ratio = f"{float(k_med) / float(t_med):.2f}x" if "-" not in (k_med, t_med) else "-"
        rows.append(
            f"| {backend} | {len(kills)} | {k_med} | {k_max} | {k_left} | {t_med} ({len(terms)} runs) "
            f"| {ratio} |"
        )
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    report = "\n".join(
        [
            "# Lifecycle benchmark",
            "",
            f"`python evals/bench_lifecycle.py --kills {args.kills}`; {stamp}. Seconds from `kill -9` of the owning "
            "process to the sandbox gone (container removed / no process of the bwrap tree left), with no later "
            f"command; left over = still there after {args.limit:.0f} s. Baseline: the same owner stopped by SIGTERM "
            "(it closes its sandbox itself), measured in this run.",
            "",
            "| backend | kills | median s | max s | left over | SIGTERM baseline median s | kill -9 / SIGTERM |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
            *rows,
            "",
            "Target (issue 14): <= 5 s, 0 left over.",
            "",
            "| backend | kill | at s after start | owner was | gone after s |",
            "| --- | ---: | ---: | --- | ---: |",
            *details,
            "",
        ]
    )
    print(report)
    args.out.write_text(report)


if __name__ == "__main__":
    main()
