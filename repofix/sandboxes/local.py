"""The `none` backend: no isolation. Runs on the host in a temporary copy of the tree. Only when
asked for explicitly; it still gets the minimal environment, timeouts and process-tree kills."""

from __future__ import annotations

import os
import shutil
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

from repofix.sandboxes import cleanup
from repofix.sandboxes.base import Limits
from repofix.sandboxes.common import BASE_ENV, RunnerSandbox

WARNING = (
    "repofix: the 'none' sandbox runs model-written commands on this machine WITHOUT isolation: "
    "no network cut, no memory or disk limits. Use --sandbox docker or bwrap unless you trust the model."
)


class UnsafeSandboxWarning(UserWarning):
    pass


class LocalSandbox(RunnerSandbox):
    backend = "none"
    sized_workspace = False  # a host folder: limits.workspace_mb is not enforced, so not checked either

    def __init__(self, source: Path | None = None, limits: Limits | None = None, setup: Sequence[str] = ()):
        warnings.warn(WARNING, UnsafeSandboxWarning, stacklevel=3)
        self.scratch = cleanup.new_scratch("none-")
        self.workdir = str(self.scratch / "workspace")
        (self.scratch / "home").mkdir()
        (self.scratch / "tmp").mkdir()
        super().__init__(limits)
        os.mkdir(self.workdir)
        bin_dir = str(Path(sys.executable).parent)
        self.env = dict(
            BASE_ENV,
            HOME=str(self.scratch / "home"),
            TMPDIR=str(self.scratch / "tmp"),
            PATH=f"{bin_dir}:/usr/local/bin:/usr/bin:/bin",
        )
        self._prepare(source, setup)

    def _runner_argv(self) -> list[str]:
        return [sys.executable, "-u"]

    def _scratch(self) -> str:
        return str(self.scratch / "tmp")

    def _host_env(self) -> dict[str, str]:
        return dict(self.env)

    def _log_path(self) -> Path:
        return self.scratch / "runner.log"

    def _destroy(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)
