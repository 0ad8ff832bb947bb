"""The user namespace a bwrap sandbox runs in when repofix runs as root.

bwrap run by root maps the sandbox user to root outside (`uid_map 1000 0 1`): files it writes to a
bound host folder are root's, a setuid bit on them makes a setuid-root binary. Here repofix builds the
namespace itself: sandbox uid/gid 1000 is `HOST_UID` outside (an id no host account uses), and root
inside stays root outside only so bwrap can read the host's system folders while it sets up; the
command itself drops to 1000 with no capability before anything of the sandbox runs (see
`bwrap.BwrapSandbox`). Nested user namespaces are disabled (`user.max_user_namespaces = 0`)."""

from __future__ import annotations

import os
import subprocess

from repofix.sandboxes.base import SandboxError

HOST_UID = 1_000_000_000  # the sandbox user's uid and gid on the host
SANDBOX_UID = 1000

# Holds the new namespace until the host has mapped and opened it.
HELPER = "echo ready; read _"
# Run in the namespace (as its root, after the maps are written): no user namespace inside it.
NO_NESTING = "echo 0 > /proc/sys/user/max_user_namespaces"


def create(host_uid: int = HOST_UID) -> int:
    """A new user namespace, as an open file descriptor (for `bwrap --userns FD`)."""
    proc = subprocess.Popen(
        ["unshare", "--user", "sh", "-c", HELPER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None  # all pipes
    try:
        if proc.stdout.readline().strip() != b"ready":
            raise SandboxError(f"cannot create a user namespace: {proc.communicate()[1].decode()[-500:]}")
        mapping = f"0 0 1\n{SANDBOX_UID} {host_uid} 1\n".encode()
        for name in ("uid_map", "gid_map"):
            fd = os.open(f"/proc/{proc.pid}/{name}", os.O_WRONLY)
            try:
                os.write(fd, mapping)  # one write: the kernel takes the map in a single call
            finally:
                os.close(fd)
        nested = subprocess.run(
            ["nsenter", f"--user=/proc/{proc.pid}/ns/user", "sh", "-c", NO_NESTING],
            capture_output=True,
            text=True,
        )
        if nested.returncode:
            raise SandboxError(f"cannot disable nested user namespaces: {nested.stderr.strip()[-500:]}")
        return os.open(f"/proc/{proc.pid}/ns/user", os.O_RDONLY)
    finally:
        proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            stream.close()
