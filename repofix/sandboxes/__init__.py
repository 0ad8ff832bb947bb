"""Sandboxes: one protocol (`base.Sandbox`), three backends.

- docker: the default when an engine answers; strongest limits.
- bwrap: daemonless Linux namespaces via bubblewrap; starts in milliseconds.
- none: no isolation, only when asked for explicitly.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from repofix.sandboxes import bwrap, docker, interpreter
from repofix.sandboxes.base import (
    WORKDIR,
    Changes,
    ChannelForged,
    CommandResult,
    Limits,
    MalformedReply,
    RunnerDied,
    Sandbox,
    SandboxError,
    TreeTooBig,
)
from repofix.sandboxes.bwrap import BwrapSandbox
from repofix.sandboxes.docker import DockerSandbox
from repofix.sandboxes.local import LocalSandbox
from repofix.sandboxes.notices import say_once

BACKENDS = ("docker", "bwrap", "none")

__all__ = [
    "BACKENDS",
    "WORKDIR",
    "ChannelForged",
    "Changes",
    "CommandResult",
    "Limits",
    "MalformedReply",
    "RunnerDied",
    "Sandbox",
    "SandboxError",
    "TreeTooBig",
    "choose_backend",
    "open_sandbox",
]


def choose_backend(requested: str | None = None) -> str:
    """The backend to use: the one requested, else docker if an engine answers, else bwrap."""
    if requested:
        if requested not in BACKENDS:
            raise SandboxError(f"unknown sandbox {requested!r}: choose one of {', '.join(BACKENDS)}")
        return requested
    docker_problem = docker.available()
    if docker_problem is None:
        return "docker"
    bwrap_problem = bwrap.available()
    if bwrap_problem is None:
        say_once(f"sandbox: Docker is not usable ({docker_problem.rstrip('.')}); using bwrap")
        return "bwrap"
    raise SandboxError(
        "no sandbox is available.\n"
        f"  docker: {docker_problem}\n  bwrap: {bwrap_problem}\n"
        "Install Docker and start its engine (then `repofix sandbox build`), or install bubblewrap "
        "(apt-get install bubblewrap). `--sandbox none` runs without isolation, at your own risk."
    )


def open_sandbox(
    source: Path | str | None,
    backend: str | None = None,
    limits: Limits | None = None,
    setup: Sequence[str] = (),
    image: str | None = None,
    python: str | None = None,
    repo: Path | None = None,
) -> Sandbox:
    """Start a sandbox holding a copy of `source` (a directory) at `sandbox.workdir`.

    `setup` commands run with network before anything else; afterwards the network is cut. bwrap runs
    the interpreter `python`, else the one `interpreter.choose` finds for `repo` (the user's checkout,
    which `source` may be a copy of); Docker runs its image's Python and ignores both."""
    name = choose_backend(backend)
    source = Path(source) if source is not None else None
    if source is not None and not source.is_dir():
        raise SandboxError(f"cannot start a sandbox for {source}: no such directory")
    if name == "docker":
        return DockerSandbox(source, limits, setup=setup, image=image)
    if name == "bwrap":
        return BwrapSandbox(source, limits, setup=setup, python=interpreter.choose(python, repo))
    return LocalSandbox(source, limits, setup=setup)
