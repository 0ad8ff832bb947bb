"""kill -9 of `repofix fix` at every phase of a run (start, setup, baseline, mid-step, checkpoint, delivery),
on docker and bwrap: within seconds no container and no sandbox process is left, `repofix runs` says
`interrupted`, and `repofix resume` finishes the run DONE with exactly one branch.

Each phase is reached through a real gate, not a sleep or a hook in the product: a `sleep <GATE>` process
(GATE a number unique to the test) that the test waits for, then kills repofix. Gates inside the sandbox
are a setup command, a conftest.py that pauses while the bug is present, a model command; gates on the
host are a `git` on PATH that pauses at one git command of the run (the export of the starting tree, the
checkpoint's fast-import, the branch reservation), only once. During `resume` the test opens every gate
it meets (kills its sleep), so the resumed run is the product's ordinary path."""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import threading
from pathlib import Path

import pytest
from agent_helpers import DIRECT_FIX, act, clamp_repo, git, script
from conftest import backend_params, require_backend, wait_until
from test_agent_resume import alive, descendants, processes
from test_lifecycle_resume import CLI, ROOT, env_for

from repofix.runs.listing import list_runs

pytestmark = pytest.mark.slow
SUBMIT = act("submit", "Done.", summary="fixed the upper bound")
SHIM = """#!/bin/sh
# A gate for the kill tests: pause once at the git command matching $RF_GATE_GIT (before it runs, or
# after it with RF_GATE_AFTER=1) in a `sleep $RF_GATE` the test watches for. mkdir is atomic: only once.
case "$*" in
  $RF_GATE_GIT)
    if mkdir "$RF_GATE_DIR/used" 2>/dev/null; then
      if [ "$RF_GATE_AFTER" = 1 ]; then "$RF_REAL_GIT" "$@"; code=$?; sleep "$RF_GATE"; exit $code; fi
      sleep "$RF_GATE"
    fi;;
esac
exec "$RF_REAL_GIT" "$@"
"""
PAUSE_AT_BASELINE = """import subprocess
from pathlib import Path

if "x < hi" in (Path(__file__).parent / "pkg" / "mathx.py").read_text():  # only while the bug is there
    subprocess.call(["sleep", "{gate}"])
"""
# phase -> (git command to pause at on the host, pause after it ran); None: the gate is in the sandbox
HOST_GATES = {
    "start": ("* init --quiet */tree-*", False),
    "checkpoint": ("* fast-import *", False),
    "delivery": ("* update-ref --stdin*", True),
}
PHASES = ["start", "setup", "baseline", "mid-step", "checkpoint", "delivery"]


class Gate:
    def __init__(self, root: Path):
        self.value = f"{random.randint(600, 899)}.{random.randint(0, 10**6):06d}"
        self.dir = root / "gate"
        self.dir.mkdir()

    def pids(self) -> list[int]:
        return [
            pid
            for pid, (_, state, args) in processes().items()
            if args == f"sleep {self.value}" and state != "Z"
        ]

    def open(self) -> None:
        """Let whatever waits at the gate go on: its sleep ends."""
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError):  # it may end by itself meanwhile
                os.kill(pid, signal.SIGKILL)

    def remove_host_gate(self) -> None:
        """After repofix is killed: the git waiting at the host gate goes too (killed before its sleep, so
        its git never runs). Only then: a shim of a running repofix may be between its check and its exec."""
        shim = str(self.dir / "bin" / "git")
        for pid in [pid for pid, (_, _, args) in processes().items() if shim in args]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.open()

    def env(self, phase: str) -> dict[str, str]:
        if phase not in HOST_GATES:
            return {}
        shims = self.dir / "bin"
        shims.mkdir()
        (shims / "git").write_text(SHIM)
        (shims / "git").chmod(0o755)
        pattern, after = HOST_GATES[phase]
        real = subprocess.run(
            ["sh", "-c", "command -v git"], capture_output=True, text=True, check=True
        ).stdout
        return {
            "PATH": f"{shims}:{os.environ['PATH']}",
            "RF_GATE_GIT": pattern,
            "RF_GATE_AFTER": str(int(after)),
            "RF_GATE_DIR": str(self.dir),
            "RF_GATE": self.value,
            "RF_REAL_GIT": real.strip(),
        }


def keep_open(gate: Gate, finished: threading.Event) -> None:
    while not finished.wait(0.25):
        gate.open()


def containers_of(*owners: int) -> list[str]:
    import docker

    engine = docker.from_env()
    return [
        c.name
        for owner in owners
        for c in engine.containers.list(
            all=True, filters={"label": f"org.repofix.owner-pid={owner}"}, ignore_removed=True
        )
    ]


def sandbox_processes(scratch: Path) -> list[int]:
    """Processes working on a sandbox of the test's (bwrap, its helpers), not the test's own git gate."""
    return [
        pid
        for pid, (_, state, args) in processes().items()
        if str(scratch) in args and state != "Z" and "/gate/bin/git" not in args
    ]


def branches(repo: Path) -> list[str]:
    return git(repo, "for-each-ref", "--format=%(refname)", "refs/heads/repofix/").split()


def runs_listing(env: dict[str, str]) -> str:
    listed = subprocess.run([*CLI, "runs"], env=env, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert listed.returncode == 0, listed.stderr
    return listed.stdout


@pytest.mark.parametrize("backend", backend_params(("docker", "bwrap")))
@pytest.mark.parametrize("phase", PHASES)
def test_kill_9_at_every_phase_then_resume(tmp_path, phase, backend):
    require_backend(backend)
    gate = Gate(tmp_path)
    repo, home, scratch = clamp_repo(tmp_path / "repo"), tmp_path / "home", tmp_path / "scratch"
    if phase == "baseline":
        (repo / "conftest.py").write_text(PAUSE_AT_BASELINE.format(gate=gate.value))
        git(repo, "add", "conftest.py")
        git(repo, "-c", "user.email=dev@example.com", "-c", "user.name=Dev", "commit", "-qm", "pause")
    (tmp_path / "tmp").mkdir()
    env = env_for(home, REPOFIX_SCRATCH=str(scratch), TMPDIR=str(tmp_path / "tmp"), **gate.env(phase))
    replies = (
        [act("shell", "Look around first.", command=f"sleep {gate.value}")] if phase == "mid-step" else []
    )
    args = [
        "fix",
        "--repo",
        str(repo),
        "-m",
        script(tmp_path / "s.yaml", [*replies, DIRECT_FIX, SUBMIT]),
        "--sandbox",
        backend,
        *(["--setup", f"sleep {gate.value}; true"] if phase == "setup" else []),
    ]
    with open(tmp_path / "first.err", "w") as err:
        first = subprocess.Popen(
            [*CLI, *args], env=env, stdout=subprocess.DEVNULL, stderr=err, cwd=ROOT, start_new_session=True
        )
    try:
        assert wait_until(lambda: gate.pids() or first.poll() is not None, 300), (
            "the run never reached the gate"
        )
        assert first.poll() is None, (tmp_path / "first.err").read_text()
        (run,) = list_runs(home)
        has_sandbox = containers_of(first.pid) if backend == "docker" else sandbox_processes(scratch)
        assert bool(has_sandbox) == (phase != "start")  # the gate is where the test meant it to be
        tree = {
            pid: args
            for pid, args in descendants(first.pid).items()
            if "sleep " + gate.value not in args and "/gate/bin/git" not in args
        }
        os.kill(first.pid, signal.SIGKILL)  # repofix alone: nothing else is signalled
        first.wait(timeout=30)
    finally:
        if first.poll() is None:
            first.kill()
        if phase in HOST_GATES:
            gate.remove_host_gate()  # the test's own gate on the host, not a sandbox: the test removes it
    assert wait_until(
        lambda: (
            not (containers_of(first.pid) if backend == "docker" else [])
            and not sandbox_processes(scratch)
            and not alive(tree)
            and not gate.pids()
        )
    ), (containers_of(first.pid) if backend == "docker" else [], sandbox_processes(scratch), alive(tree))
    line = next(line for line in runs_listing(env).splitlines() if line.startswith(run.run_id))
    assert line.split()[1] == "interrupted", line

    finished = threading.Event()
    opener = threading.Thread(target=keep_open, args=(gate, finished))
    opener.start()
    try:
        resumed = subprocess.Popen(
            [*CLI, "resume", run.run_id, "--json"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        out, err = resumed.communicate(timeout=600)
    finally:
        finished.set()
        opener.join()
    assert resumed.returncode == 0, out + err
    outcome = json.loads(out)
    assert outcome["status"] == "done" and outcome["branch"], outcome
    assert branches(repo) == [f"refs/heads/{outcome['branch']}"]  # exactly one, whatever the kill interrupted
    assert "    if x > hi:" in git(repo, "show", f"{outcome['branch']}:pkg/mathx.py")
    assert f"Repofix-Run: {run.run_id}" in git(repo, "log", "-1", "--format=%B", outcome["branch"])
    assert git(repo, "status", "--porcelain") == ""
    assert runs_listing(env).split("\n")[0].split()[1] == "resolved"
    # Nothing of either process is left: containers, sandbox processes, scratch folders, temporary files.
    assert not (containers_of(first.pid, resumed.pid) if backend == "docker" else [])
    assert not sandbox_processes(scratch) and not list(scratch.iterdir())
    assert not list((home / "runs" / run.run_id).glob("*.tmp"))
    assert not list((tmp_path / "tmp").iterdir())


def test_killed_while_the_repository_is_copied_is_clearly_not_resumable(tmp_path):
    """Before the run has a workspace (its clone under way) there is nothing to resume: `resume` says so and
    what to do, changes nothing; `runs prune` removes the run."""
    gate = Gate(tmp_path)
    host = {**gate.env("checkpoint"), "RF_GATE_GIT": "* clone --quiet *"}
    repo, home = clamp_repo(tmp_path / "repo"), tmp_path / "home"
    env = env_for(home, REPOFIX_SCRATCH=str(tmp_path / "scratch"), **host)
    first = subprocess.Popen(
        [
            *CLI,
            "fix",
            "--repo",
            str(repo),
            "-m",
            script(tmp_path / "s.yaml", [DIRECT_FIX]),
            "--sandbox",
            "bwrap",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
        start_new_session=True,
    )
    try:
        assert wait_until(lambda: gate.pids() or first.poll() is not None, 300) and first.poll() is None
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=30)
    finally:
        if first.poll() is None:
            first.kill()
        gate.remove_host_gate()
    (run,) = list_runs(home)
    assert run.status == "interrupted"
    before = sorted((p.name, p.read_bytes()) for p in (home / "runs" / run.run_id).iterdir() if p.is_file())
    refused = subprocess.run(
        [*CLI, "resume", run.run_id], env=env, capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert refused.returncode == 2 and "Traceback" not in refused.stderr, refused.stderr
    assert (
        "stopped while its repository was being copied" in refused.stderr
        and "start the task again" in refused.stderr
    )
    assert (
        sorted((p.name, p.read_bytes()) for p in (home / "runs" / run.run_id).iterdir() if p.is_file())
        == before
    )
    pruned = subprocess.run(
        [*CLI, "runs", "prune", "--keep", "0", "--older-than", "0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert (
        pruned.returncode == 0 and run.run_id in pruned.stdout and not (home / "runs" / run.run_id).exists()
    )
