"""The bubblewrap command line of a sandbox: the namespaces, what of the host is bound (read-only) where,
the size-limited tmpfs folders and the environment. The sandbox itself (`bwrap.py`) adds the workspace
and the runner."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from repofix.sandboxes import interpreter
from repofix.sandboxes.base import SHM_MB

if TYPE_CHECKING:
    from repofix.sandboxes.bwrap import BwrapSandbox

PASSWD = "root:x:0:0:root:/root:/bin/sh\nsandbox:x:1000:1000:sandbox:/home/sandbox:/bin/bash\n"
GROUP = "root:x:0:\nsandbox:x:1000:\n"
ETC_FILES = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "alternatives",
    "ssl",
    "ca-certificates",
    "localtime",
    "nsswitch.conf",
    "mime.types",
    "bash.bashrc",
    "profile",
    "inputrc",
)
# As root: what the launcher inside may do before it drops to the sandbox user (and keeps nothing).
LAUNCH_CAPS = ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP", "CAP_CHOWN")
SECCOMP_FD, INFO_FD = 9, 8  # opened by the launcher shell for bwrap


def bwrap_args(box: BwrapSandbox, network: bool) -> list[str]:
    """bwrap's options for `box`: its namespaces, the host directories bound read-only, the tmpfs folders
    and the environment (the runner's command and the workspace mount are added by the sandbox)."""
    lim = box.limits
    args = ["bwrap"]
    if box._userns_fd is not None:
        args += ["--userns", str(box._userns_fd), "--cap-drop", "ALL"]
        for cap in LAUNCH_CAPS:
            args += ["--cap-add", cap]
    else:
        args += ["--unshare-user", "--uid", "1000", "--gid", "1000", "--cap-drop", "ALL"]
        # --disable-userns nests a second user namespace, which slirp4netns (not root) cannot act
        # from; in the setup sandbox the seccomp filter alone forbids new namespaces.
        args += [] if network else ["--disable-userns"]
    args += [
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-net",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
        "--hostname",
        "sandbox",
        "--clearenv",
    ]
    if (box.scratch / "seccomp.bpf").exists():
        args += ["--seccomp", str(SECCOMP_FD)]
    if network:
        args += ["--info-fd", str(INFO_FD)]  # the pid slirp4netns attaches to
    for name in ("usr", "bin", "lib", "lib64", "sbin", "lib32", "libx32"):
        host = Path("/") / name
        if host.is_symlink():
            args += ["--symlink", str(host.readlink()), f"/{name}"]
        elif host.is_dir():
            args += ["--ro-bind", str(host), f"/{name}"]
    args += [*_traversable("/etc/passwd"), *_traversable("/home/sandbox")]
    for name in ETC_FILES:
        if (Path("/etc") / name).exists():
            args += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
    args += [
        "--ro-bind",
        str(box.scratch / "passwd"),
        "/etc/passwd",
        "--ro-bind",
        str(box.scratch / "group"),
        "/etc/group",
    ]
    if network:
        args += [
            "--ro-bind",
            str(box.scratch / "resolv.conf"),
            "/etc/resolv.conf",
            "--ro-bind-try",
            "/etc/hosts",
            "/etc/hosts",
        ]
    # A writable /dev/shm as Docker gives (64 MB): multiprocessing's locks and pools need it.
    args += [
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--size",
        str(SHM_MB << 20),
        "--perms",
        "1777",
        "--tmpfs",
        "/dev/shm",
        "--size",
        str(lim.tmp_mb << 20),
        "--perms",
        "1777",
        "--tmpfs",
        "/tmp",
    ]
    if box.home_dir is not None and not network:  # what the setup installed (bwrap.setup), read-only
        args += ["--ro-bind", str(box.home_dir), "/home/sandbox"]
    else:
        args += ["--size", str(lim.home_mb << 20), "--perms", "0755", "--tmpfs", "/home/sandbox"]
    for source, dest in box.interpreter.binds:  # the project's Python, after /tmp: a venv may live there
        args += [*_traversable(dest), "--ro-bind", source, dest]
    args += [
        *_traversable(interpreter.NAMES_DIR),
        "--ro-bind",
        str(box.scratch / "python-names"),
        interpreter.NAMES_DIR,
    ]
    if box.cgroup is not None:
        args += [
            *_traversable(box.cgroup.memory_mount),
            "--ro-bind",
            str(box.cgroup.memory_dir),
            box.cgroup.memory_mount,
        ]
    for name, value in box.env.items():
        args += ["--setenv", name, value]
    return args


def _traversable(dest: str) -> list[str]:
    """Create the parents of a mount point 0755: bwrap would copy the source's parents' modes (a 0700
    /root, the scratch folder), which the sandbox user, not root outside, could not pass through."""
    args = []
    for parent in reversed(Path(dest).parents[:-1]):
        args += ["--perms", "0755", "--dir", str(parent)]
    return args
