"""The daemonless backend: bubblewrap namespaces. Starts in milliseconds, no network, only the
workspace (a size-limited tmpfs), /tmp and the home folder writable, the host's files hidden but
for the system directories and the Python installation, bound read-only.

Setup with network: a namespace's network cannot be cut later, so `setup()` runs the commands in
a second, networked bwrap over a host copy of the workspace and a host home folder, then starts
the isolated sandbox again with that home bound read-only (where the installed tools live) and
the workspace copied back into its tmpfs."""

from __future__ import annotations

import shutil
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path

from repofix.sandboxes import cleanup
from repofix.sandboxes import limits as cgroups
from repofix.sandboxes.base import CommandResult, Limits, SandboxError
from repofix.sandboxes.common import BASE_ENV, RunnerSandbox
from repofix.sandboxes.session import RunnerClient

PASSWD = "root:x:0:0:root:/root:/bin/sh\nsandbox:x:1000:1000:sandbox:/home/sandbox:/bin/bash\n"
GROUP = "root:x:0:\nsandbox:x:1000:\n"
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "ssl", "ca-certificates",
             "localtime", "nsswitch.conf", "mime.types", "bash.bashrc", "profile", "inputrc")


def available() -> str | None:
    """None when bwrap works here, else the reason."""
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    return None


class BwrapSandbox(RunnerSandbox):
    backend = "bwrap"

    def __init__(self, source: Path | None = None, limits: Limits | None = None, setup: Sequence[str] = ()):
        reason = available()
        if reason:
            raise SandboxError(reason)
        self.id = uuid.uuid4().hex[:12]
        self.scratch = cleanup.new_scratch("bwrap-")
        (self.scratch / "passwd").write_text(PASSWD)
        (self.scratch / "group").write_text(GROUP)
        self.home_dir: Path | None = None  # set by setup(): a host home bound read-only afterwards
        self.cgroup: cgroups.CgroupLimits | None = None
        super().__init__(limits)
        self.cgroup = cgroups.CgroupLimits(self.id, self.limits) if cgroups.can_limit() else None
        self.env = dict(BASE_ENV, PATH=f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin")
        self._prepare(source, setup)

    def _bwrap_args(self, network: bool, home_writable: bool) -> list[str]:
        lim = self.limits
        args = ["bwrap", "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
                "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
                "--uid", "1000", "--gid", "1000", "--hostname", "sandbox", "--clearenv"]
        if not network:
            args.append("--unshare-net")
        for name in ("usr", "bin", "lib", "lib64", "sbin", "lib32", "libx32"):
            host = Path("/") / name
            if host.is_symlink():
                args += ["--symlink", str(host.readlink()), f"/{name}"]
            elif host.is_dir():
                args += ["--ro-bind", str(host), f"/{name}"]
        for name in ETC_FILES:
            if (Path("/etc") / name).exists():
                args += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
        args += ["--ro-bind", str(self.scratch / "passwd"), "/etc/passwd",
                 "--ro-bind", str(self.scratch / "group"), "/etc/group"]
        if network:
            args += ["--ro-bind-try", "/etc/resolv.conf", "/etc/resolv.conf",
                     "--ro-bind-try", "/etc/hosts", "/etc/hosts"]
        for prefix in {sys.base_prefix, sys.prefix}:  # the Python installation (and its test tools)
            if not prefix.startswith("/usr"):
                args += ["--ro-bind", prefix, prefix]
        args += ["--proc", "/proc", "--dev", "/dev",
                 "--size", str(lim.tmp_mb << 20), "--perms", "1777", "--tmpfs", "/tmp"]
        if self.home_dir is not None:
            args += ["--bind" if home_writable else "--ro-bind", str(self.home_dir), "/home/sandbox"]
        else:
            args += ["--size", str(lim.home_mb << 20), "--perms", "0755", "--tmpfs", "/home/sandbox"]
        if self.cgroup is not None:
            args += ["--ro-bind", str(self.cgroup.memory_dir), self.cgroup.memory_mount]
        for name, value in self.env.items():
            args += ["--setenv", name, value]
        return args

    def _runner_argv(self, network: bool = False, workspace_from: Path | None = None) -> list[str]:
        args = self._bwrap_args(network, home_writable=network)
        if workspace_from is not None:  # the networked setup sandbox works on a host copy
            args += ["--bind", str(workspace_from), self.workdir]
        else:
            args += ["--size", str(self.limits.workspace_mb << 20), "--perms", "0755", "--tmpfs", self.workdir]
        # bwrap builds the root in a tmpfs; make it read-only so only the mounts above are writable.
        args += ["--remount-ro", "/", "--chdir", self.workdir, sys.executable, "-u"]
        if self.cgroup is None:
            return args
        # Join the cgroup before exec, so not one process of the sandbox starts outside it.
        joins = "; ".join(f'echo $$ > "{path}"' for path in self.cgroup.procs_files)
        return ["sh", "-c", f'{joins}; exec "$@"', "sh", *args]

    def _log_path(self) -> Path:
        return self.scratch / "runner.log"

    def setup(self, commands: Sequence[str], *, timeout: float | None = None) -> list[CommandResult]:
        staged = self.scratch / "setup-workspace"
        shutil.rmtree(staged, ignore_errors=True)
        self.copy_out(self.workdir, staged)
        if self.home_dir is None:
            self.home_dir = self.scratch / "home"
            self.home_dir.mkdir()
        if self._client is not None:
            self._client.close()
            self._client = None
        networked = RunnerClient(self._runner_argv(network=True, workspace_from=staged), self.workdir, "/tmp",
                                 self._host_env(), self._log_path())
        results = []
        try:
            for command in commands:
                results.append(networked.run(command, cwd=None, env=None, stdin=None,
                                             timeout=timeout or self.limits.timeout, cap=self.limits.output_bytes))
                if not results[-1].ok:
                    break
        finally:
            networked.close()
        self.copy_in(staged)  # starts the isolated runner again, home now read-only
        shutil.rmtree(staged, ignore_errors=True)
        return results

    def _destroy(self) -> None:
        if self.cgroup is not None:
            self.cgroup.remove()
        shutil.rmtree(self.scratch, ignore_errors=True)
