"""Hostile behaviour: each case must leave the host unharmed, give a clear result, and leave the
sandbox usable for the next command (or report that the runner died and let us restart it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import TEST_LIMITS, backend_params

from repofix.sandboxes import RunnerDied
from repofix.sandboxes.base import Limits

ISOLATING = backend_params(("docker", "bwrap"))


def still_usable(box) -> None:
    try:
        result = box.run("echo still-alive", timeout=30)
    except RunnerDied:
        box.restart()
        result = box.run("echo still-alive", timeout=30)
    assert result.stdout.strip() == "still-alive"


def count_sleepers(box) -> int:
    """Processes whose whole command line is `sleep 1000` (not the shell that looks for them)."""
    return int(box.run("ps -eo args= | grep -cx 'sleep 1000'").stdout.strip())


@pytest.mark.parametrize("backend", ISOLATING)
def test_fork_bomb_is_contained(make_sandbox, backend):
    from repofix.sandboxes import limits

    if backend == "bwrap" and not limits.can_limit():
        pytest.skip("bwrap limits pids through cgroups, which need root here")
    box = make_sandbox(backend)
    result = box.run("bomb() { bomb | bomb & }; bomb; sleep 3", timeout=8)
    assert result.timed_out or result.leftovers_killed > 0
    still_usable(box)
    assert box.run("ps -e --no-headers | wc -l").stdout.strip() in {str(n) for n in range(1, 8)}


@pytest.mark.parametrize("backend", ISOLATING)
def test_allocating_four_times_the_memory_limit_is_oom_killed(make_sandbox, backend):
    from repofix.sandboxes import limits

    if backend == "bwrap" and not limits.can_limit():
        pytest.skip("bwrap limits memory through cgroups, which need root here")
    box = make_sandbox(backend)
    size = 4 * TEST_LIMITS.memory_mb * 1024 * 1024
    result = box.run(f"python3 -c 'b = bytearray({size}); print(len(b))'", timeout=60)
    assert result.oom_killed and not result.ok
    assert str(size) not in result.stdout
    still_usable(box)


@pytest.mark.parametrize("backend", ISOLATING)
@pytest.mark.parametrize("where", ["/workspace/big", "/tmp/big", "/home/sandbox/big", "/dev/shm/big"])
def test_filling_the_disk_stops_at_the_limit(make_sandbox, backend, where):
    box = make_sandbox(backend)
    result = box.run(f"dd if=/dev/zero of={where} bs=1M count=1000", timeout=60)
    assert result.exit_code != 0 and "No space left" in result.stderr
    size = int(box.run(f"stat -c %s {where}").stdout)
    assert size <= 64 * 1024 * 1024
    box.run(f"rm -f {where}")
    still_usable(box)


@pytest.mark.parametrize("backend", ISOLATING)
def test_full_folders_are_a_full_disk_not_an_oom_kill(make_sandbox, backend):
    """Folders as large as the memory limit (the defaults: a 4 GiB workspace, 4 GiB of memory): filled,
    they say "No space left on device", the runner lives on, and the memory limit is still there to use."""
    from repofix.sandboxes import limits

    if backend == "bwrap" and not limits.can_limit():
        pytest.skip("bwrap limits memory through cgroups, which need root here")
    box = make_sandbox(backend, limits=Limits(memory_mb=128, workspace_mb=128, tmp_mb=64, home_mb=64))
    for where in ("/workspace/big", "/tmp/big", "/home/sandbox/big", "/dev/shm/big"):
        result = box.run(f"dd if=/dev/zero of={where} bs=1M count=1000", timeout=60)
        assert "No space left" in result.stderr and not result.oom_killed
    allocated = box.run("python3 -c 'b = bytearray(64 << 20); print(len(b))'", timeout=60)
    assert allocated.ok and allocated.stdout.strip() == str(64 << 20)
    assert box.run("echo still-alive", timeout=30).stdout.strip() == "still-alive"  # no restart needed


@pytest.mark.parametrize("backend", ISOLATING)
def test_infinite_loop_times_out(make_sandbox, backend):
    box = make_sandbox(backend)
    result = box.run("while true; do :; done", timeout=1.5)
    assert result.timed_out and result.exit_code is None
    still_usable(box)


@pytest.mark.parametrize("backend", ISOLATING)
def test_100_mb_of_output_is_capped(make_sandbox, backend):
    box = make_sandbox(backend)
    result = box.run("head -c 100000000 /dev/zero | tr '\\0' 'a'; echo; echo THE-END", timeout=60)
    assert result.ok and result.truncated
    assert result.stdout.startswith("aaaa") and result.stdout.rstrip().endswith("THE-END")
    assert len(result.stdout) < 2 * TEST_LIMITS.output_bytes
    assert result.omitted_bytes > 99_000_000
    still_usable(box)


@pytest.mark.parametrize("backend", ISOLATING)
def test_setsid_daemon_does_not_outlive_its_command(make_sandbox, backend):
    box = make_sandbox(backend)
    result = box.run("setsid sh -c 'sleep 1000' < /dev/null > /dev/null 2>&1 & echo started", timeout=10)
    assert result.ok and result.stdout.strip() == "started"
    assert result.leftovers_killed >= 1
    assert count_sleepers(box) == 0  # nothing left


@pytest.mark.parametrize("backend", ISOLATING)
def test_timeout_kills_a_setsid_child_too(make_sandbox, backend):
    box = make_sandbox(backend)
    result = box.run("setsid sleep 1000 & sleep 1000", timeout=1)
    assert result.timed_out
    assert count_sleepers(box) == 0


@pytest.mark.parametrize("backend", ISOLATING)
def test_shell_timeout_keeps_the_python_namespace(make_sandbox, backend):
    """A shell command's timeout kills that command's tree, not the persistent Python worker."""
    box = make_sandbox(backend)
    assert box.python("x = 41").ok
    timed = box.run("sleep 1000 & sleep 1000", timeout=1)
    assert timed.timed_out and count_sleepers(box) == 0
    after = box.python("print(x + 1)")
    assert after.stdout.strip() == "42" and not after.session_lost, after.output


@pytest.fixture
def host_server(listening):
    """A TCP server on the host's loopback, which the sandbox must not reach."""
    return listening("127.0.0.1")


@pytest.mark.parametrize("backend", ISOLATING)
@pytest.mark.parametrize("target", ["host-loopback", "1.1.1.1", "pypi.org"])
def test_no_network(make_sandbox, backend, target, host_server):
    port, accepted = host_server
    host, port = {
        "host-loopback": ("127.0.0.1", port),
        "1.1.1.1": ("1.1.1.1", 80),
        "pypi.org": ("pypi.org", 443),
    }[target]
    box = make_sandbox(backend)
    result = box.run(
        ["python3", "-c", f"import socket; socket.create_connection(({host!r}, {port}), timeout=5)"]
    )
    assert result.exit_code == 1
    assert any(word in result.stderr for word in ("unreachable", "refused", "Name or service", "resolution"))
    assert accepted == []


@pytest.mark.parametrize("backend", ISOLATING)
def test_writes_outside_the_workspace_fail(make_sandbox, backend, tmp_path):
    box = make_sandbox(backend)
    for path in ("/etc/repofix-was-here", "/usr/repofix-was-here", "/repofix-was-here", "/opt/x"):
        result = box.run(f"echo x > {path}")
        assert result.exit_code != 0
        assert any(word in result.stderr for word in ("Read-only", "Permission denied", "No such file"))
    for path in ("/etc/repofix-was-here", "/usr/repofix-was-here", "/repofix-was-here"):
        assert not Path(path).exists()


@pytest.mark.parametrize("backend", ISOLATING)
@pytest.mark.parametrize("command", ["rm -rf / --no-preserve-root", "rm -rf ~ $HOME/*"])
def test_rm_rf_harms_only_the_sandbox(make_sandbox, backend, command, tmp_path):
    sentinel = tmp_path / "host-sentinel"
    sentinel.write_text("still here")
    box = make_sandbox(backend)
    box.run(command, timeout=120)
    assert sentinel.read_text() == "still here"
    assert Path("/usr/bin/env").exists()
    still_usable(box)


@pytest.mark.parametrize("backend", ISOLATING)
def test_killing_every_process_is_survivable(make_sandbox, backend):
    box = make_sandbox(backend)
    try:
        box.run("kill -9 -1; pkill -9 -P 1; sleep 1", timeout=10)
    except RunnerDied:
        pass  # the runner was among the victims: reported, and restartable
    still_usable(box)


@pytest.mark.parametrize("backend", ISOLATING)
def test_nothing_of_a_killed_session_outlives_its_restart(make_sandbox, backend):
    """`kill -9 -1` spares the shell that calls it, which goes on without the runner it killed; the
    restart ends it (Docker's container survives the runner, so its leftovers must be swept)."""
    box = make_sandbox(backend)
    with pytest.raises(RunnerDied):
        box.run("kill -9 -1; sleep 1000", timeout=30)
    box.restart()
    assert count_sleepers(box) == 0
    still_usable(box)


@pytest.mark.parametrize("backend", ISOLATING)
def test_command_that_closes_stdout_early(make_sandbox, backend):
    box = make_sandbox(backend)
    result = box.run("exec 1>&-; sleep 0.2; echo on-stderr >&2", timeout=10)
    assert result.exit_code == 0 and result.stderr.strip() == "on-stderr"
    piped = box.run("head -c 1", stdin=b"x" * 10_000_000, timeout=10)
    assert piped.ok and piped.stdout == "x"
    still_usable(box)


FORGED_REPLY = (
    """printf '{"exit_code": 0, "stdout": "FORGED", "stderr": ""}\\n' > /proc/$PPID/fd/1; echo real"""
)


@pytest.mark.parametrize("backend", ISOLATING)
def test_runner_channel_is_closed_to_commands(make_sandbox, backend):
    box = make_sandbox(backend)
    result = box.run(FORGED_REPLY)
    assert result.stdout == "real\n" and "FORGED" not in result.stdout
    assert "Permission denied" in result.stderr
    for what in ("fd/0", "fd/1", "environ", "mem"):  # nothing of the runner's is open to its commands
        probe = box.run(f"cat /proc/$PPID/{what} > /dev/null")
        assert probe.exit_code != 0 and "Permission denied" in probe.stderr, what
    still_usable(box)


def test_forged_reply_is_detected_and_never_used(make_sandbox):
    """Unisolated, the runner's channel is writable (same host user): the secret still exposes the forgery."""
    from repofix.sandboxes import ChannelForged

    box = make_sandbox("none")
    with pytest.raises(ChannelForged, match="wrote to the session runner's channel") as caught:
        box.run(FORGED_REPLY)
    assert "FORGED" in str(caught.value)  # reported with what was written...
    with pytest.raises(RunnerDied):  # ...and the runner that carried it is gone
        box.run("echo old session")
    box.restart()
    assert box.run("echo fresh").stdout == "fresh\n"
