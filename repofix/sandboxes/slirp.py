"""Network for the bwrap backend's setup phase: slirp4netns gives the sandbox's own network namespace
a user-mode NAT to the outside, instead of sharing the host's namespace. `--disable-host-loopback`
keeps the host's 127.0.0.0/8 services out of reach (the DNS forwarder at 10.0.2.3 still works), and
slirp4netns runs in its own sandbox with its own seccomp filter. It exits when the host closes its
exit pipe, or when repofix dies (the kernel closes the pipe), so it never outlives its owner."""

from __future__ import annotations

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
        ready_r, ready_w = os.pipe()
        exit_r, self._exit_w = os.pipe()
        with open(log, "ab") as err:
            self.proc = subprocess.Popen(
                ["slirp4netns", "--configure", "--mtu=65520", "--disable-host-loopback", "--enable-sandbox",
                 "--enable-seccomp", f"--ready-fd={ready_w}", f"--exit-fd={exit_r}", str(child), "tap0"],
                pass_fds=(ready_w, exit_r), stdin=subprocess.DEVNULL, stdout=err, stderr=err)
        os.close(ready_w)
        os.close(exit_r)
        try:
            ready, _, _ = select.select([ready_r], [], [], timeout)
            if not ready or not os.read(ready_r, 1):
                self.close()
                raise SandboxError(f"slirp4netns did not bring up the setup network (see {log})")
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


def _child_pid(info_file: Path, deadline: float) -> int:
    while True:
        try:
            return int(json.loads(info_file.read_text())["child-pid"])
        except (OSError, ValueError, KeyError):
            if time.monotonic() > deadline:
                raise SandboxError("bwrap did not report its sandbox's pid (--info-fd)") from None
            time.sleep(0.01)
