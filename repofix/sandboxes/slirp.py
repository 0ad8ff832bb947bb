"""Network for the bwrap backend's setup phase: slirp4netns gives the sandbox's own network namespace
a user-mode NAT to the outside, instead of sharing the host's namespace. `--disable-host-loopback`
keeps the host's 127.0.0.0/8 services out of reach (the DNS forwarder at 10.0.2.3 still works), and
slirp4netns runs with its own seccomp filter (and, as root, in its own sandbox). It exits when the host closes its
exit pipe, or when repofix dies (the kernel closes the pipe), so it never outlives its owner."""

from __future__ import annotations

import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path

from repofix.sandboxes.base import SandboxError

DNS = "10.0.2.3"  # slirp4netns' built-in forwarder to the host's resolver
RESOLV_CONF = f"nameserver {DNS}\noptions timeout:2 attempts:2\n"
NS_GET_USERNS = 0xB701  # ioctl on a namespace fd: its owning user namespace (linux/nsfs.h)


def available() -> str | None:
    if shutil.which("slirp4netns") is None:
        return "slirp4netns is not installed (Debian/Ubuntu: apt-get install slirp4netns)"
    return None


class Slirp:
    """slirp4netns attached to the network namespace of the process whose pid bwrap wrote (as JSON,
    `{"child-pid": N}`) to `info_file` through `--info-fd`."""

    def __init__(self, info_file: Path, log: Path, timeout: float = 20.0):
        problem = available()
        if problem:
            raise SandboxError(f"the bwrap setup phase needs network: {problem}")
        child = _child_pid(info_file, time.monotonic() + timeout)
        owner = None if os.geteuid() == 0 else _network_owner(child)
        userns = [] if owner is None else [f"--userns-path=/proc/self/fd/{owner}"]
        # As root, slirp4netns also confines itself (own mount namespace, capabilities dropped); not
        # root it has no privilege to drop, and its sandbox cannot be set up from a joined namespace.
        sandboxed = ["--enable-sandbox"] if owner is None else []
        ready_r, ready_w = os.pipe()
        exit_r, exit_w = os.pipe()
        self._exit_w: int | None = exit_w  # None once closed
        with open(log, "ab") as err:
            self.proc = subprocess.Popen(
                [
                    "slirp4netns",
                    "--configure",
                    "--mtu=65520",
                    "--disable-host-loopback",
                    "--enable-seccomp",
                    *sandboxed,
                    f"--ready-fd={ready_w}",
                    f"--exit-fd={exit_r}",
                    *userns,
                    str(child),
                    "tap0",
                ],
                pass_fds=(ready_w, exit_r) if owner is None else (ready_w, exit_r, owner),
                stdin=subprocess.DEVNULL,
                stdout=err,
                stderr=err,
            )
        for fd in (ready_w, exit_r) if owner is None else (ready_w, exit_r, owner):
            os.close(fd)
        try:
            ready, _, _ = select.select([ready_r], [], [], timeout)
            if not ready or not os.read(ready_r, 1):
                self.close()
                tail = log.read_text(errors="replace").strip().splitlines()[-3:]
                raise SandboxError(f"slirp4netns did not bring up the setup network: {' / '.join(tail)}")
        finally:
            os.close(ready_r)

    def close(self) -> None:
        if self._exit_w is not None:
            os.close(self._exit_w)
            self._exit_w = None
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _network_owner(pid: int) -> int:
    """The user namespace owning `pid`'s network namespace, as an open fd. Without root, slirp4netns
    must act from it; unprivileged bwrap runs the sandbox in a nested one, so /proc/PID/ns/user is not it."""
    net = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY)
    try:
        return fcntl.ioctl(net, NS_GET_USERNS)
    finally:
        os.close(net)


def _child_pid(info_file: Path, deadline: float) -> int:
    while True:
        try:
            return int(json.loads(info_file.read_text())["child-pid"])
        except (OSError, ValueError, KeyError):
            if time.monotonic() > deadline:
                raise SandboxError("bwrap did not report its sandbox's pid (--info-fd)") from None
            time.sleep(0.01)
