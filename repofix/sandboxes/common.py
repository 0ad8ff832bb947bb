"""What every runner-backed sandbox shares: the protocol methods on top of `RunnerClient`,
the minimal environment, tree copying, and registration for cleanup."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from repofix.sandboxes import cleanup
from repofix.sandboxes.base import (
    WORKDIR,
    Changes,
    CommandResult,
    Limits,
    RunnerDied,
    SandboxError,
    TreeTooBig,
)
from repofix.sandboxes.extract import extract_tar
from repofix.sandboxes.session import RunnerClient
from repofix.sandboxes.trees import file_sizes, tar_directory, too_big_for

# The only environment a sandbox gets: nothing of the host's (API keys, tokens) ever enters.
BASE_ENV = {
    "PATH": "/opt/venv/bin:/usr/local/bin:/usr/bin:/bin",
    "HOME": "/home/sandbox",
    "USER": "sandbox",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "TERM": "dumb",
    "COLUMNS": "120",
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    "PIP_NO_INPUT": "1",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONUNBUFFERED": "1",
}


class RunnerSandbox:
    """Base for backends that run `sandbox/runner.py` inside. Subclasses implement `_runner_argv`
    (how to exec python inside), `_scratch` and `_destroy`."""

    backend = "base"
    workdir = WORKDIR
    sized_workspace = True  # the workspace is a tmpfs of `limits.workspace_mb` (False: a host folder)

    def __init__(self, limits: Limits | None = None):
        self.limits = limits or Limits()
        self.env = dict(BASE_ENV)
        self._client: RunnerClient | None = None
        self._closed = False
        cleanup.register(self)

    # -- lifecycle (subclasses) -------------------------------------------------------------
    def _runner_argv(self) -> list[str]:
        raise NotImplementedError

    def _scratch(self) -> str:
        return "/tmp"

    def _destroy(self) -> None:
        raise NotImplementedError

    def _log_path(self) -> Path | None:
        return None

    def _prepare(self, source: Path | None, setup: Sequence[str]) -> None:
        """Copy `source` in and run the setup commands; on any failure close the sandbox, so one that
        failed to start leaves nothing behind."""
        try:
            self._fill(source, setup)
        except BaseException:
            self.close()
            raise

    def _fill(self, source: Path | None, setup: Sequence[str]) -> None:
        """Copy `source` in and run the setup commands; the caller decides what a failure closes."""
        if source is not None:
            self.copy_in(Path(source))
        if setup:
            failed = [result for result in self.setup(setup) if not result.ok]
            if failed:
                raise SandboxError(
                    f"setup command failed (exit {failed[0].exit_code}):\n{failed[0].output[-3000:]}"
                    + (_full_folders(self.limits) if "No space left on device" in failed[0].output else "")
                )

    # -- protocol ---------------------------------------------------------------------------
    @property
    def client(self) -> RunnerClient:
        if self._closed:
            raise SandboxError(f"this {self.backend} sandbox is closed")
        if self._client is None or not self._client.alive():
            if self._client is not None:
                raise RunnerDied(
                    f"the session runner in the {self.backend} sandbox died; "
                    "call restart() for a fresh session (shell and Python state are lost)"
                )
            self._client = RunnerClient(
                self._runner_argv(),
                self.workdir,
                self._scratch(),
                self._host_env(),
                self._log_path(),
                self._pass_fds(),
            )
        return self._client

    def _pass_fds(self) -> tuple[int, ...]:
        """File descriptors the runner's launcher inherits (bwrap's user namespace)."""
        return ()

    def _host_env(self) -> dict[str, str]:
        """Environment of the process that starts the runner on the host side."""
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}

    def restart(self) -> None:
        if self._client is not None:
            self._client.kill()
            self._client = None
        _ = self.client

    def run(
        self,
        command: str | Sequence[str],
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        stdin: str | bytes | None = None,
        timeout: float | None = None,
        clean: bool = False,
    ) -> CommandResult:
        return self.client.run(
            command,
            cwd=cwd,
            env=env,
            stdin=stdin,
            timeout=timeout or self.limits.timeout,
            cap=self.limits.output_bytes,
            clean=clean,
        )

    def python(self, code: str, *, timeout: float | None = None) -> CommandResult:
        return self.client.python(code, timeout=timeout or self.limits.timeout, cap=self.limits.output_bytes)

    def setup(self, commands: Sequence[str], *, timeout: float | None = None) -> list[CommandResult]:
        results = []
        for command in commands:
            results.append(self.run(command, timeout=timeout))
            if not results[-1].ok:
                break
        return results

    def write_files(self, files: Mapping[str, bytes | None], modes: Mapping[str, int] | None = None) -> None:
        self.client.write_files(files, modes)

    def read_files(self, paths: Sequence[str]) -> dict[str, bytes | None]:
        return self.client.read_files(paths)

    def copy_in(self, source: Path, dest: str | None = None) -> None:
        """Copy a host folder's contents in."""
        source = Path(source)
        if not source.is_dir():
            raise SandboxError(f"cannot copy {source} into the sandbox: not a directory")
        if self.sized_workspace and dest in (None, self.workdir):
            # Refused before the tar is built: it is held in memory here and in the sandbox, and a
            # tree the tmpfs cannot hold got the runner killed for memory (exit 137) after minutes.
            sizes = file_sizes(source)
            if sum(size for _, size in sizes) > self.limits.workspace_mb << 20:
                raise TreeTooBig(too_big_for(self.limits.workspace_mb, self.backend, sizes))
        self.client.request({"op": "untar", "dest": dest or self.workdir}, tar_directory(source), wait=600)
        if dest in (None, self.workdir):
            self.client.snapshot()

    def copy_out(self, source: str, dest: Path) -> None:
        """Copy a sandbox directory's contents out to a host directory (not on the `Sandbox` Protocol:
        bwrap's network setup and tests use it, the rest of repofix reads files through `read_files`)."""
        _, data = self.client.request({"op": "tar", "source": source}, wait=600)
        extract_tar(data, Path(dest))

    def changes(self) -> Changes:
        reply = self.client.changes()
        return Changes(
            modified={path: (mode, link) for path, (mode, link) in reply["modified"].items()},
            deleted=list(reply["deleted"]),
        )

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            if self._client is not None:
                self._client.close()
        finally:
            self._destroy()
            cleanup.unregister(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _full_folders(limits: Limits) -> str:
    """What to do when setup commands filled one of the sandbox's folders."""
    return (
        f"\nThe sandbox's folders have fixed sizes: the workspace {limits.workspace_mb} MiB "
        f"(limits.workspace_mb), the home folder, where installs go, {limits.home_mb} MiB (limits.home_mb), "
        f"/tmp {limits.tmp_mb} MiB (limits.tmp_mb). Raise the one the setup filled, e.g. "
        f"REPOFIX_LIMITS_HOME_MB={limits.home_mb * 2}, or have the setup write less."
    )
