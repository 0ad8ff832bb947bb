"""Memory and process-count limits for the bubblewrap backend, through cgroups (v1 or v2).

Creating cgroups needs root (or a delegated subtree); without it the bwrap sandbox still
isolates files, network and processes but cannot cap memory or pids, and says so."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from pathlib import Path

from repofix.sandboxes.base import Limits

ROOT = Path("/sys/fs/cgroup")
_OWNER_IN_NAME = re.compile(r"(\d+)\.(\d+)\.(\d+)\.[0-9a-f]+")  # PID.START.PIDNS.id, as bwrap names them


def pid_namespace() -> int:
    """This process's pid namespace: a pid (and its start time) means something only inside it, and a
    repofix in another one (a container sharing the host's cgroups) may be using the same cgroup root."""
    return os.stat("/proc/self/ns/pid").st_ino


def cgroup_version() -> int | None:
    if (ROOT / "cgroup.controllers").exists():
        return 2
    if (ROOT / "memory").is_dir() and (ROOT / "pids").is_dir():
        return 1
    return None


def can_limit() -> bool:
    return os.geteuid() == 0 and cgroup_version() is not None


class CgroupLimits:
    """A cgroup per sandbox. `procs_files` are written with the sandbox's pid before exec;
    `memory_dir` is bound read-only into the sandbox so the runner can read OOM kills."""

    def __init__(self, name: str, limits: Limits):
        self.dirs: list[Path] = []
        mem = limits.charged_mb * 1024 * 1024  # the tmpfs folders' pages are charged here too
        if cgroup_version() == 2:
            parent = ROOT / "repofix"
            parent.mkdir(exist_ok=True)
            (ROOT / "cgroup.subtree_control").write_text("+memory +pids")
            (parent / "cgroup.subtree_control").write_text("+memory +pids")
            group = parent / name
            group.mkdir()
            (group / "memory.max").write_text(str(mem))
            (group / "memory.swap.max").write_text("0")
            (group / "pids.max").write_text(str(limits.pids))
            self.dirs = [group]
            self.memory_dir, self.memory_mount = group, "/sys/fs/cgroup"
        else:
            memory = ROOT / "memory" / "repofix" / name
            pids = ROOT / "pids" / "repofix" / name
            memory.mkdir(parents=True)
            pids.mkdir(parents=True)
            (memory / "memory.limit_in_bytes").write_text(str(mem))
            swap = memory / "memory.memsw.limit_in_bytes"
            if swap.exists():
                swap.write_text(str(mem))
            (pids / "pids.max").write_text(str(limits.pids))
            self.dirs = [memory, pids]
            self.memory_dir, self.memory_mount = memory, "/sys/fs/cgroup/memory"

    @property
    def procs_files(self) -> list[str]:
        return [str(folder / "cgroup.procs") for folder in self.dirs]

    def remove(self) -> None:
        for folder in self.dirs:
            _kill_and_remove(folder)


def _kill_and_remove(folder: Path) -> None:
    procs = folder / "cgroup.procs"
    for _ in range(100):
        try:
            pids = [int(pid) for pid in procs.read_text().split()]
        except FileNotFoundError:
            return
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
        time.sleep(0.01)
    try:
        folder.rmdir()
    except OSError:
        pass


def prune_cgroups(
    min_age: float = 60.0, dry_run: bool = False, owner_alive: Callable[[str], bool] | None = None
) -> list[str]:
    """Remove repofix cgroups left by a killed run (see `_left_behind`), with any process still in one."""
    removed = []
    for parent in (ROOT / "repofix", ROOT / "memory" / "repofix", ROOT / "pids" / "repofix"):
        if not parent.is_dir() or not os.access(parent, os.W_OK):
            continue
        for group in parent.iterdir():
            try:
                if not _left_behind(group, min_age, owner_alive):
                    continue
            except FileNotFoundError:  # removed meanwhile by another repofix
                continue
            if not dry_run:
                _kill_and_remove(group)
                if group.exists():  # EBUSY: a process joined it after all; it is in use
                    continue
            removed.append(f"cgroup {group}")
    return removed


def _left_behind(group: Path, min_age: float, owner_alive: Callable[[str], bool] | None) -> bool:
    """A cgroup named after its owner (`PID.START.PIDNS.id`) in this pid namespace is left behind as soon
    as `owner_alive` says that owner is gone; any other (an older repofix's, another namespace's, whose
    pids mean nothing here) once empty and a minute old: a sandbox that is starting has created its
    cgroup but not joined it yet."""
    owner = _OWNER_IN_NAME.fullmatch(group.name)
    if owner is not None and owner_alive is not None and int(owner[3]) == pid_namespace():
        return not owner_alive(f"{owner[1]} {owner[2]}")
    return (
        group.is_dir()
        and time.time() - group.stat().st_mtime >= min_age
        and not (group / "cgroup.procs").read_text().split()
    )
