"""What the isolating backends contain, tried the way an attacker would: setuid files on the host, new
user namespaces, kernel interfaces, and the host's own services during the networked setup phase."""

from __future__ import annotations

import dataclasses
import os
import socket
import stat
import threading
import time
from pathlib import Path

import pytest
from conftest import TEST_LIMITS, backend_params

ISOLATING = backend_params(("docker", "bwrap"))
BWRAP = backend_params(("bwrap",))
SETUID_ATTEMPTS = (
    "cp /bin/sh ./s1; chmod u+s ./s1; cp /bin/sh ~/s2; chmod 4755 ~/s2; "
    "python3 -c \"import os; os.close(os.open('s3', os.O_CREAT | os.O_WRONLY, 0o6755))\"; "
    "ls -l s1 ~/s2 s3; sleep 2; true"
)


def connect(host: str, port: int) -> str:
    return (
        f"python3 -c \"import socket; socket.create_connection(('{host}', {port}), timeout=5); "
        f"print('REACHED {host}')\""
    )


def setid_files(root: Path) -> list[tuple[str, int, str]]:
    found = []
    for folder, _, files in os.walk(root):
        for name in files:
            path = Path(folder, name)
            try:
                info = path.lstat()
            except FileNotFoundError:
                continue  # removed while we looked (the setup phase ended)
            if stat.S_ISREG(info.st_mode) and info.st_mode & (stat.S_ISUID | stat.S_ISGID):
                found.append((str(path), info.st_uid, oct(info.st_mode)))
    return found


@pytest.mark.parametrize("backend", BWRAP)
def test_setup_cannot_leave_a_setuid_file_on_the_host(make_sandbox, backend):
    from repofix.sandboxes import userns

    box = make_sandbox(backend)
    seen: list = []
    done = threading.Event()

    def watch():  # the setup's workspace and home are copied out onto the host: look while it runs
        while not done.is_set():
            seen.extend(setid_files(box.scratch))

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        results = box.setup([SETUID_ATTEMPTS + "; touch ~/made-in-setup"])
    finally:
        done.set()
        watcher.join()
    assert results[0].ok, results[0].output
    assert "Operation not permitted" in results[0].stderr
    assert seen == [] and setid_files(box.scratch) == []
    made = box.home_dir / "made-in-setup"
    assert made.exists()
    if os.geteuid() == 0:  # the sandbox user is not root out here
        assert made.stat().st_uid == userns.HOST_UID != 0
    inside = box.run("ls -ln s1 ~/s2")  # s3 was never created: its mode was refused
    assert inside.ok and "rws" not in inside.stdout and "r-s" not in inside.stdout


@pytest.mark.parametrize("backend", BWRAP)
@pytest.mark.parametrize("folder", ["~", "/workspace"])
def test_what_setup_writes_is_bounded_by_the_sandbox_folders(make_sandbox, backend, folder):
    """A repository's setup.py (run by `--setup 'pip install -e .'`) writing without end: the
    networked sandbox's home and workspace are its size-limited tmpfs folders, not host folders
    (they were: 64 MiB landed on the host's disk with a 16 MiB home)."""
    limits = dataclasses.replace(TEST_LIMITS, workspace_mb=16, home_mb=16)
    box = make_sandbox(backend, limits=limits)
    result = box.setup([f"head -c 64M /dev/zero > {folder}/big; echo wrote=$?"])[0]
    assert "No space left on device" in result.stderr and "wrote=1" in result.stdout, result.output
    written = box.run(f"stat -c %s {folder}/big")
    assert written.ok and int(written.stdout) <= 16 << 20, written.output
    assert (
        sum(p.stat().st_size for p in box.scratch.rglob("*") if p.is_file() and not p.is_symlink()) < 24 << 20
    )


@pytest.mark.parametrize("backend", BWRAP)
def test_a_second_setup_adds_to_what_the_first_installed(make_sandbox, backend):
    box = make_sandbox(backend)
    assert box.setup(["mkdir -p ~/.local/bin && echo one > ~/.local/bin/a"])[0].ok
    second = box.setup(["cat ~/.local/bin/a && echo two > ~/b"])[0]
    assert second.ok and second.stdout.strip() == "one", second.output
    after = box.run("cat ~/.local/bin/a ~/b; touch ~/c && echo wrote-home")
    assert after.stdout.split() == ["one", "two"], after.output  # the home is read-only after setup
    assert len([p for p in box.scratch.iterdir() if p.name.startswith("home")]) == 1


@pytest.mark.parametrize("backend", ISOLATING)
@pytest.mark.parametrize("phase", ["setup", "commands"])
def test_no_new_user_namespace(make_sandbox, backend, phase):
    box = make_sandbox(backend)
    probe = "unshare -Urn id; echo exit=$?"
    result = box.setup([probe])[0] if phase == "setup" else box.run(probe)
    assert "exit=1" in result.stdout and "uid=0" not in result.stdout, result.output


@pytest.mark.parametrize("backend", BWRAP)
@pytest.mark.parametrize("syscall", ["keyctl", "ptrace", "init_module", "mount", "bpf"])
def test_seccomp_denies_kernel_interfaces(make_sandbox, backend, syscall):
    from repofix.sandboxes import seccomp

    if not seccomp.supported():
        pytest.skip("no seccomp filter for this architecture")
    number = seccomp.ARCHES[os.uname().machine][1][syscall]
    box = make_sandbox(backend)
    result = box.run(
        [
            "python3",
            "-c",
            "import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); "
            f"r = libc.syscall({number}, 0, 0, 0, 0, 0); print(r, os.strerror(ctypes.get_errno()))",
        ]
    )
    assert result.stdout.strip() == "-1 Operation not permitted", result.output
    assert "Seccomp:\t2" in box.run("cat /proc/self/status").stdout


@pytest.mark.parametrize("backend", BWRAP)
def test_bwrap_setup_has_network_but_not_the_host_loopback(make_sandbox, backend, listening):
    port, accepted = listening("127.0.0.1")
    box = make_sandbox(backend)
    result = box.setup(
        [
            f"{connect('127.0.0.1', port)}; {connect('10.0.2.2', port)}; "
            "ip -4 addr show tap0 | grep -c inet; true"
        ]
    )[0]
    assert "REACHED" not in result.stdout and result.stdout.split()[-1] == "1", (
        result.output
    )  # own tap0, no host
    assert accepted == []


def host_addresses() -> list[str]:
    """This machine's own IPv4 addresses (not loopback): what a container would reach the host by."""
    import json
    import subprocess

    listing = json.loads(subprocess.run(["ip", "-j", "-4", "addr"], capture_output=True, text=True).stdout)
    return [
        entry["local"]
        for link in listing
        for entry in link.get("addr_info", [])
        if not entry["local"].startswith("127.")
    ]


@pytest.mark.parametrize("backend", backend_params(("docker",)))
def test_docker_setup_cannot_reach_the_host(make_sandbox, backend, listening):
    port, accepted = listening("0.0.0.0")
    box = make_sandbox(backend)
    gateway = (
        "python3 -c \"import socket, struct; print(next(socket.inet_ntoa(struct.pack('<L', int(f[2], 16))) "
        "for f in (l.split() for l in open('/proc/net/route')) if f[1] == '00000000'))\""
    )
    addresses = host_addresses()
    probes = "; ".join(connect(address, port) for address in addresses)
    result = box.setup(
        [
            f"gw=$({gateway}); echo gateway=$gw; "
            f"python3 -c \"import socket; socket.create_connection(('$gw', {port}), timeout=5); "
            f"print('REACHED gateway')\"; {probes}; true"
        ]
    )[0]
    assert "gateway=" in result.stdout and "REACHED" not in result.stdout, result.output
    gw = result.stdout.split("gateway=")[1].split()[0]
    assert gw in addresses  # the gateway is one of the host's own addresses, the server listens on it
    assert accepted == []
    socket.create_connection((gw, port), timeout=5).close()  # the server does answer (from the host itself)
    for _ in range(100):
        if accepted:
            break
        time.sleep(0.05)
    assert len(accepted) == 1
