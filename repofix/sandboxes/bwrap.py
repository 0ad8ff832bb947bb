"""The daemonless backend: bubblewrap namespaces. Starts in milliseconds, no network, only the
workspace (a size-limited tmpfs), /tmp and the home folder writable, the host's files hidden but
for the system directories and the project's Python (`interpreter.py`), bound read-only. A seccomp
filter (`seccomp.py`) denies new namespaces, mounts, the keyring, ptrace, kernel modules and the like, and
nested user namespaces are disabled.

Run by root, the sandbox user is an unprivileged uid on the host (`userns.HOST_UID`), never root: the
runner starts as the namespace's root only to take the tmpfs folders, then drops to uid 1000 with no
capability (setpriv) before anything of the sandbox runs.

Setup with network: a namespace's network cannot be cut later, so `setup()` runs the commands in
a second bwrap, with its own network namespace connected to the outside by slirp4netns (host
loopback disabled) and the same size-limited tmpfs workspace and home (what a repository's
`setup.py` writes cannot fill the host's disk), then copies both out, and starts the isolated
sandbox again with that home bound read-only (where the installed tools live) and the workspace
copied back into its tmpfs."""

from __future__ import annotations

import fcntl
import os
import shlex
import shutil
import uuid
from collections.abc import Sequence
from pathlib import Path

from repofix.sandboxes import cleanup, interpreter, seccomp, slirp, userns
from repofix.sandboxes import limits as cgroups
from repofix.sandboxes.base import CommandResult, Limits, SandboxError
from repofix.sandboxes.bwrap_args import GROUP, INFO_FD, PASSWD, SECCOMP_FD, bwrap_args
from repofix.sandboxes.common import BASE_ENV, RunnerSandbox
from repofix.sandboxes.extract import extract_tar
from repofix.sandboxes.interpreter import Interpreter
from repofix.sandboxes.session import RunnerClient
from repofix.sandboxes.trees import tar_directory

DROP = [
    "setpriv",
    "--reuid=1000",
    "--regid=1000",
    "--clear-groups",
    "--inh-caps=-all",
    "--bounding-set=-all",
    "--",
]


def available() -> str | None:
    """None when bwrap works here, else the reason."""
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    return None


class BwrapSandbox(RunnerSandbox):
    backend = "bwrap"

    def __init__(
        self,
        source: Path | None = None,
        limits: Limits | None = None,
        setup: Sequence[str] = (),
        python: Interpreter | None = None,
    ):
        reason = available()
        if reason:
            raise SandboxError(reason)
        self.interpreter = python or interpreter.choose(None)  # checked before anything is made
        self.id = uuid.uuid4().hex[:12]
        self.scratch = cleanup.new_scratch("bwrap-")
        for name, text in (("passwd", PASSWD), ("group", GROUP), ("resolv.conf", slirp.RESOLV_CONF)):
            (self.scratch / name).write_text(text)
            (self.scratch / name).chmod(0o644)  # read by the sandbox user, whatever the umask
        if seccomp.supported():
            (self.scratch / "seccomp.bpf").write_bytes(seccomp.program())
        (self.scratch / "python-names").mkdir()
        for name in ("python", "python3"):  # a venv has both; /usr/bin/python3.11 may have neither beside it
            (self.scratch / "python-names" / name).symlink_to(self.interpreter.executable)
        self.home_dir: Path | None = None  # set by setup(): a host home bound read-only afterwards
        self.cgroup: cgroups.CgroupLimits | None = None
        self._userns_fd: int | None = None
        super().__init__(limits)
        try:
            if os.geteuid() == 0:  # bwrap would map the sandbox user to root: bring our own namespace
                made = userns.create()
                self._userns_fd = fcntl.fcntl(made, fcntl.F_DUPFD_CLOEXEC, 10)  # clear of the shell's fds
                os.close(made)
            if cgroups.can_limit():  # named after its owner: the next repofix removes it if it is killed
                owner = cleanup.owner_id().replace(" ", ".")
                self.cgroup = cgroups.CgroupLimits(
                    f"{owner}.{cgroups.pid_namespace()}.{self.id}", self.limits
                )
        except BaseException:
            self.close()
            raise
        self.env = dict(BASE_ENV, **self.interpreter.env())
        self._prepare(source, setup)

    def _runner_argv(self, network: bool = False) -> list[str]:
        args = bwrap_args(self, network)
        args += ["--size", str(self.limits.workspace_mb << 20), "--perms", "0755", "--tmpfs", self.workdir]
        # bwrap builds the root in a tmpfs; make it read-only so only the mounts above are writable.
        args += ["--remount-ro", "/", "--chdir", self.workdir]
        if self._userns_fd is not None:  # as the namespace's root: take the tmpfs folders, then drop
            owned = [self.workdir]
            owned += ["/home/sandbox"] if network or self.home_dir is None else []  # bwrap_args' tmpfs
            take = f"chown 1000:1000 {' '.join(owned)} && "
            args += ["sh", "-c", f'{take}exec "$@"', "sh", *DROP]
        args += [self.interpreter.executable, "-u"]
        # The launcher joins the cgroup before exec (so not one process of the sandbox starts outside
        # it) and opens the seccomp program and the info file for bwrap.
        steps = [f'echo $$ > "{path}"' for path in (self.cgroup.procs_files if self.cgroup else [])]
        if (self.scratch / "seccomp.bpf").exists():
            steps.append(f"exec {SECCOMP_FD}<{shlex.quote(str(self.scratch / 'seccomp.bpf'))}")
        if network:
            steps.append(f"exec {INFO_FD}>{shlex.quote(str(self.scratch / 'info.json'))}")
        return ["sh", "-c", "; ".join([*steps, 'exec "$@"']), "sh", *args]

    def _pass_fds(self) -> tuple[int, ...]:
        return () if self._userns_fd is None else (self._userns_fd,)

    def _log_path(self) -> Path:
        return self.scratch / "runner.log"

    def setup(self, commands: Sequence[str], *, timeout: float | None = None) -> list[CommandResult]:
        staged = self.scratch / "setup-workspace"
        shutil.rmtree(staged, ignore_errors=True)
        self.copy_out(self.workdir, staged)
        if self._client is not None:
            self._client.close()
            self._client = None
        (self.scratch / "info.json").unlink(missing_ok=True)
        # The networked sandbox has the same sized tmpfs workspace and home as the isolated one: a
        # host folder bound there instead let the setup (a repository's setup.py) fill the host's disk.
        networked = RunnerClient(
            self._runner_argv(network=True),
            self.workdir,
            "/tmp",
            self._host_env(),
            self._log_path(),
            self._pass_fds(),
        )
        results = []
        try:
            networked.request({"op": "untar", "dest": self.workdir}, tar_directory(staged), wait=600)
            if self.home_dir is not None:  # what an earlier setup installed, to add to
                networked.request(
                    {"op": "untar", "dest": "/home/sandbox"}, tar_directory(self.home_dir), wait=600
                )
            network = slirp.Slirp(self.scratch / "info.json", self._log_path())
            try:
                for command in commands:
                    results.append(
                        networked.run(
                            command,
                            cwd=None,
                            env=None,
                            stdin=None,
                            timeout=timeout or self.limits.timeout,
                            cap=self.limits.output_bytes,
                        )
                    )
                    if not results[-1].ok:
                        break
            finally:
                network.close()
            shutil.rmtree(staged)
            home = self.scratch / f"home-{uuid.uuid4().hex[:8]}"
            try:
                self._bring_out(networked, staged, home)
            except BaseException:
                shutil.rmtree(home, ignore_errors=True)
                raise
        finally:
            networked.close()
        if self.home_dir is not None:  # a second setup started from the first one's home
            shutil.rmtree(self.home_dir, ignore_errors=True)
        self.home_dir = home
        self.copy_in(staged)  # starts the isolated runner again, home now read-only
        shutil.rmtree(staged, ignore_errors=True)
        return results

    def _bring_out(self, networked: RunnerClient, workspace: Path, home: Path) -> None:
        """The setup sandbox's workspace and home onto the host, each no more than its tmpfs holds (the
        tar's headers may double a folder of many small files)."""
        for source, dest, size_mb in (
            (self.workdir, workspace, self.limits.workspace_mb),
            ("/home/sandbox", home, self.limits.home_mb),
        ):
            limit = (size_mb << 21) + (64 << 20)
            _, data = networked.request({"op": "tar", "source": source}, wait=600, limit=limit)
            extract_tar(data, dest, max_bytes=size_mb << 20)
        if self._userns_fd is not None:  # the sandbox user is HOST_UID out here: its home stays its own
            _chown_tree(home, userns.HOST_UID)

    def _destroy(self) -> None:
        if self.cgroup is not None:
            self.cgroup.remove()
        if self._userns_fd is not None:
            os.close(self._userns_fd)
            self._userns_fd = None
        shutil.rmtree(self.scratch, ignore_errors=True)


def _chown_tree(root: Path, uid: int) -> None:
    """Every entry under `root` given to `uid`, a symlink itself, never what it points to; by folder
    descriptor, so a path past PATH_MAX is no error."""
    os.chown(root, uid, uid)
    for _, dirs, files, folder in os.fwalk(root):
        for name in [*dirs, *files]:
            os.chown(name, uid, uid, dir_fd=folder, follow_symlinks=False)
