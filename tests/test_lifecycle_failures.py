"""Resource failures and signals are messages: a full disk (a small tmpfs as REPOFIX_HOME), a missing
Docker engine, SIGTERM and Ctrl-C give one line naming the cause, never a traceback; the run is left
`interrupted` and `repofix resume` finishes it."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from pathlib import Path

import pytest
from agent_helpers import DIRECT_FIX, RIGHT_FIX, WRONG_FIX, act, clamp_repo, script
from conftest import require_backend
from test_agent_resume import alive, sleeping_tree, wait_for
from test_lifecycle_resume import CLI, ROOT, env_for, repofix

from repofix.runs.listing import list_runs
from repofix.workspace.git import IDENTITY

pytestmark = pytest.mark.bwrap


def one_interrupted_run(home: Path) -> str:
    (run,) = list_runs(home)
    assert run.status == "interrupted"
    return run.run_id


@pytest.fixture
def small_home(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(home)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {mounted.stderr.decode().strip()}")
    yield home
    subprocess.run(["umount", "-l", str(home)], check=False)


def test_a_full_disk_is_a_message_and_the_run_resumes(tmp_path, small_home):
    require_backend("bwrap")
    repo, env = clamp_repo(tmp_path / "repo"), env_for(small_home)
    big = act(
        "shell", "A big file.", command="head -c 4000000 /dev/urandom > big.bin"
    )  # more than the disk holds
    first = repofix(
        env,
        "fix",
        "--repo",
        str(repo),
        "-m",
        script(tmp_path / "s.yaml", [WRONG_FIX, big]),
        "--sandbox",
        "bwrap",
    )
    run_id = one_interrupted_run(small_home)
    assert first.returncode == 2 and "Traceback" not in first.stderr, first.stderr
    (message,) = [line for line in first.stderr.splitlines() if line.startswith("repofix:")]
    assert "no space left" in message and str(small_home) in message and f"repofix resume {run_id}" in message
    # The half-written checkpoint is dropped on resume, which frees the space; another model finishes.
    resumed = repofix(env, "resume", run_id, "-m", script(tmp_path / "r.yaml", [RIGHT_FIX]), "--json")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert json.loads(resumed.stdout)["status"] == "done"


def test_a_full_scratch_disk_names_the_scratch_folder_not_the_run_folder(tmp_path, small_home):
    """The copy of the repository on its way into the sandbox is written under REPOFIX_SCRATCH (or
    $TMPDIR): when that device is full, the message names it and says how to move it, not the run folder
    (on another device, with room)."""
    require_backend("bwrap")
    repo, env = clamp_repo(tmp_path / "repo"), env_for(tmp_path / "runs", REPOFIX_SCRATCH=str(small_home))
    (repo / "data.bin").write_bytes(os.urandom(4_000_000))  # committed: more than the scratch disk holds
    subprocess.run(["git", "-C", str(repo), "add", "data.bin"], check=True)
    subprocess.run(
        ["git", "-C", str(repo), "commit", "-qm", "data"], check=True, env=dict(os.environ, **IDENTITY)
    )
    first = repofix(
        env, "fix", "--repo", str(repo), "-m", script(tmp_path / "s.yaml", [DIRECT_FIX]), "--sandbox", "bwrap"
    )
    assert first.returncode == 2 and "Traceback" not in first.stderr, first.stderr
    (message,) = [line for line in first.stderr.splitlines() if line.startswith("repofix:")]
    run_id = one_interrupted_run(tmp_path / "runs")
    assert f" {small_home} (copying the repository on its way into the sandbox" in message
    assert "REPOFIX_SCRATCH" in message
    assert str(tmp_path / "runs") not in message.partition("; the run is saved")[0]
    assert f"repofix resume {run_id}" in message
    roomy = dict(env, REPOFIX_SCRATCH=str(tmp_path / "scratch"))
    resumed = repofix(roomy, "resume", run_id, "-m", script(tmp_path / "r.yaml", [DIRECT_FIX]), "--json")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert json.loads(resumed.stdout)["status"] == "done"


def test_a_full_run_folder_while_your_checkout_is_taken_names_the_run_folder(tmp_path, small_home):
    """The snapshot of your uncommitted files runs git in your checkout but writes into the run folder:
    when that is full, the message names the run folder, never your checkout (which was not written)."""
    require_backend("bwrap")
    repo, env = clamp_repo(tmp_path / "repo"), env_for(small_home)
    (repo / "data.bin").write_bytes(os.urandom(4_000_000))  # untracked: more than the run folder holds
    first = repofix(
        env, "fix", "--repo", str(repo), "-m", script(tmp_path / "s.yaml", [DIRECT_FIX]), "--sandbox", "bwrap"
    )
    assert first.returncode == 2 and "Traceback" not in first.stderr, first.stderr
    (message,) = [line for line in first.stderr.splitlines() if line.startswith("repofix:")]
    assert f"no space left on the device holding {small_home}" in message and str(repo) not in message
    assert list_runs(small_home) == []  # nothing was taken: no run to resume, none left behind


def test_a_scratch_disk_full_to_the_last_byte_is_named(tmp_path, small_home):
    """No room even for a scratch folder's owner file: the message named no folder ("No space left on
    device") and the empty folder stayed until the next start. Now it says where, and leaves nothing."""
    require_backend("bwrap")
    repo, env = clamp_repo(tmp_path / "repo"), env_for(tmp_path / "runs", REPOFIX_SCRATCH=str(small_home))
    filler = small_home / "filler"
    with open(filler, "wb") as handle, contextlib.suppress(OSError):
        while True:
            handle.write(b"\0" * 65536)
            handle.flush()
    first = repofix(
        env, "fix", "--repo", str(repo), "-m", script(tmp_path / "s.yaml", [DIRECT_FIX]), "--sandbox", "bwrap"
    )
    assert first.returncode == 2 and "Traceback" not in first.stderr, first.stderr
    (message,) = [line for line in first.stderr.splitlines() if line.startswith("repofix:")]
    assert "No space left on device" in message and str(small_home) in message, message
    assert sorted(path.name for path in small_home.iterdir()) == ["filler"]
    filler.unlink()
    run_id = one_interrupted_run(tmp_path / "runs")
    resumed = repofix(env, "resume", run_id, "-m", script(tmp_path / "r.yaml", [DIRECT_FIX]), "--json")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert json.loads(resumed.stdout)["status"] == "done"


def test_a_missing_docker_engine_is_a_message(tmp_path):
    repo, home = clamp_repo(tmp_path / "repo"), tmp_path / "home"
    env = env_for(home, DOCKER_HOST=f"unix://{tmp_path}/no-docker.sock")
    first = repofix(
        env, "fix", "--repo", str(repo), "-m", script(tmp_path / "s.yaml", [WRONG_FIX]), "--sandbox", "docker"
    )
    assert first.returncode == 2 and "Traceback" not in first.stderr, first.stderr
    (message,) = [line for line in first.stderr.splitlines() if line.startswith("repofix:")]
    run_id = one_interrupted_run(home)
    assert "docker" in message.lower() and f"repofix resume {run_id}" in message


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_saves_the_run_and_says_how_to_resume(tmp_path, signum):
    require_backend("bwrap")
    repo, home = clamp_repo(tmp_path / "repo"), tmp_path / "home"
    env = env_for(home)
    model = script(tmp_path / "s.yaml", [WRONG_FIX, act("shell", "Wait.", command="sleep 120"), RIGHT_FIX])
    first = subprocess.Popen(
        [*CLI, "fix", "--repo", str(repo), "-m", model, "--sandbox", "bwrap"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        cwd=ROOT,
    )
    tree = wait_for(lambda: sleeping_tree(first.pid), "step 2's sleep")
    if signum == signal.SIGINT:
        os.killpg(first.pid, signum)  # Ctrl-C reaches the terminal's whole foreground group
    else:
        first.send_signal(signum)  # SIGTERM from a process manager reaches repofix alone
    _, err = first.communicate(timeout=60)
    assert first.returncode == 128 + signum and "Traceback" not in err and "Aborted!" not in err, err
    run_id = one_interrupted_run(home)
    assert (
        f"repofix: stopped by {signal.Signals(signum).name}; the run is saved, go on with: repofix resume {run_id}"
        in err
    )
    assert alive(tree) == []  # the whole tree is gone when repofix has exited: no waiting for stragglers
    resumed = repofix(env, "resume", run_id, "-m", script(tmp_path / "r.yaml", [RIGHT_FIX]), "--json")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert json.loads(resumed.stdout)["status"] == "done"


@pytest.mark.parametrize("case", ["no engine", "failing setup"])
def test_repofix_test_setup_problems_are_messages(tmp_path, case):
    repo, env = clamp_repo(tmp_path / "repo"), env_for(tmp_path / "home")
    if case == "no engine":
        env["DOCKER_HOST"] = f"unix://{tmp_path}/no-docker.sock"
        args = ["--sandbox", "docker"]
    else:
        require_backend("bwrap")
        args = ["--sandbox", "bwrap", "--setup", "echo broken; exit 3"]
    result = repofix(env, "test", "--repo", str(repo), *args)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith("repofix: ") and (
        "Docker engine" in result.stderr or "exit 3" in result.stderr
    )


def test_a_read_only_run_folder_is_a_message(tmp_path):
    require_backend("bwrap")
    repo, home = clamp_repo(tmp_path / "repo"), tmp_path / "home"
    env = env_for(home)
    first = repofix(
        env,
        "fix",
        "--repo",
        str(repo),
        "-m",
        script(tmp_path / "s.yaml", [WRONG_FIX, RIGHT_FIX]),
        "--sandbox",
        "bwrap",
        "--max-steps",
        "1",
    )
    assert first.returncode == 1, first.stderr
    (run,) = list_runs(home)
    runs = home / "runs"
    if subprocess.run(["mount", "--bind", str(runs), str(runs)], capture_output=True).returncode != 0:
        pytest.skip("cannot bind-mount here (needs root)")
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(runs)], check=True)
        refused = repofix(env, "resume", run.run_id, "--max-steps", "3")
    finally:
        subprocess.run(["umount", "-l", str(runs)], check=False)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr, refused.stderr
    (message,) = [line for line in refused.stderr.splitlines() if line.startswith("repofix:")]
    assert "Read-only file system" in message and str(runs / run.run_id) in message
    resumed = repofix(env, "resume", run.run_id, "--max-steps", "3", "--json")  # writable again: it goes on
    assert resumed.returncode == 0 and json.loads(resumed.stdout)["status"] == "done", resumed.stderr


def test_the_default_sandbox_says_once_that_it_falls_back_to_bwrap(tmp_path):
    require_backend("bwrap")
    repo, home = clamp_repo(tmp_path / "repo"), tmp_path / "home"
    env = env_for(home, DOCKER_HOST=f"unix://{tmp_path}/no-docker.sock")  # no engine answers there
    model = script(tmp_path / "s.yaml", [WRONG_FIX, RIGHT_FIX])
    run = repofix(env, "fix", "--repo", str(repo), "-m", model, "--json")  # no --sandbox: the default
    assert run.returncode == 0 and json.loads(run.stdout)["status"] == "done", run.stdout + run.stderr
    said = [line for line in run.stderr.splitlines() if line.startswith("sandbox:")]
    assert len(said) == 1 and "no Docker engine answers" in said[0] and said[0].endswith("; using bwrap"), (
        said
    )
    assert (
        "says so in one line on stderr (`sandbox: Docker is not usable (...); using bwrap`)"
        in (ROOT / "README.md").read_text()
    )
