"""Nothing outlives repofix: live sandboxes are closed on exit and on SIGTERM/SIGHUP; after a kill -9
each backend's sandbox ends itself (bwrap dies with its parent, a container's keep-alive with
repofix's attach socket); `reap_dead_scratch()` and `limits.prune_cgroups()` (run when a repofix
process starts its first sandbox) remove the scratch folders and bwrap's cgroups of dead owners, and
`prune()` what a host reboot left behind (found by label or by dead owner, an owner being a pid and
its start time, so a reused pid is not mistaken for it)."""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import shutil
import signal
import tempfile
import threading
import time
import weakref
from collections.abc import Iterator
from pathlib import Path

from repofix import config
from repofix.sandboxes import limits

LABEL = "org.repofix.sandbox"  # on every container and volume repofix creates
_live: weakref.WeakSet = weakref.WeakSet()
_installed = False
_reaped = False
_OWNER_IN_NAME = re.compile(r"-(\d+)\.(\d+)\.[a-z0-9_]+$")  # prefix-PID.START.random (mkdtemp's)


def scratch_root() -> Path:
    """Host folder of per-sandbox scratch dirs, each holding an `owner.pid` file."""
    root = config.scratch_dir()
    root.mkdir(parents=True, exist_ok=True)
    return root


def new_scratch(prefix: str) -> Path:
    global _reaped
    if not _reaped:  # the first sandbox of a repofix process clears what killed runs left
        _reaped = True
        reap_dead_scratch()
        limits.prune_cgroups(owner_alive=owner_alive)  # bwrap's, named after their owner
    owner = owner_id()
    # The owner is in the name, so the folder is never ownerless: a kill between making it and writing
    # `owner.pid` used to leave a folder a reaper had to spare for a minute, as one being made.
    pid, start = owner.split()
    path = Path(tempfile.mkdtemp(prefix=f"{prefix}{pid}.{start}.", dir=scratch_root()))
    try:
        (path / "owner.pid").write_text(owner)  # still read by an older repofix sharing the scratch root
    except OSError as error:  # a full disk: say where (a write's error names no file), leave nothing
        shutil.rmtree(path, ignore_errors=True)
        raise OSError(error.errno, error.strerror, str(path / "owner.pid")) from error
    return path


def folder_owner(folder: Path) -> str | None:
    """The owner of a scratch folder: its `owner.pid`, else the one its name carries (an older
    repofix's folders have only the file); None for a folder being made by an older repofix. An empty
    file is one being written: the name decides."""
    try:
        written = (folder / "owner.pid").read_text()
    except (FileNotFoundError, NotADirectoryError):  # none yet, or a stray file in the scratch root
        written = ""
    if written.strip():
        return written
    named = _OWNER_IN_NAME.search(folder.name)
    return f"{named[1]} {named[2]}" if named else None


@contextlib.contextmanager
def owned_tempdir(prefix: str) -> Iterator[Path]:
    """A temporary folder for a copy of the repository on its way into a sandbox, kept with the scratch
    folders and owned like them: removed on exit, or, if this process is killed, by the next repofix start
    (a plain temporary folder would keep the copy for good)."""
    path = new_scratch(prefix)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def owner_labels(name: str) -> dict[str, str]:
    """The labels on every container repofix starts: what `prune()` and the sweeper find it by, and
    whose it is (a container whose owner died is removed)."""
    return {
        LABEL: name,
        "org.repofix.owner-pid": str(os.getpid()),
        "org.repofix.owner": owner_id(),
        "org.repofix.host": os.uname().nodename,
    }


def owner_id(pid: int | None = None) -> str:
    """`pid start-time`: the start time (clock ticks since boot) tells a reused pid from the owner."""
    pid = pid or os.getpid()
    return f"{pid} {_start_time(pid) or 0}"


def _start_time(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rpartition(")")[2].split()[19])  # field 22; the name before ")" may hold spaces


def owner_alive(owner: str) -> bool:
    """Whether the process an `owner_id()` names still runs (an old plain pid: whether that pid does)."""
    pid, _, start = owner.strip().partition(" ")
    if not pid.isdigit() or int(pid) == 0:
        return False
    if not _pid_alive(int(pid)):
        return False
    return not start or start == "0" or str(_start_time(int(pid))) == start


def register(sandbox) -> None:
    global _installed
    _live.add(sandbox)
    if not _installed:
        _installed = True
        atexit.register(close_all)
        # Signal handlers can only be set from the main thread; a worker thread (eval -j N) relies
        # on the main thread having opened a sandbox or called install_signal_handlers() itself.
        if threading.current_thread() is threading.main_thread():
            install_signal_handlers()


def install_signal_handlers() -> None:
    """Turn SIGTERM/SIGHUP into SystemExit so context managers and atexit close every sandbox."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) in (signal.SIG_DFL, None):
            signal.signal(sig, _exit_on_signal)


def unregister(sandbox) -> None:
    _live.discard(sandbox)


def close_all() -> None:
    for sandbox in list(_live):
        sandbox.close()


def _exit_on_signal(signum, frame) -> None:
    raise SystemExit(128 + signum)  # unwinds context managers, then atexit closes the rest


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def reap_dead_scratch(dry_run: bool = False) -> list[str]:
    """Remove (or, dry, list) the scratch folders whose owner is gone. A folder with no owner (neither
    file nor name) is an older repofix's being made: left alone for a minute."""
    removed: list[str] = []
    root = config.scratch_dir()
    if not root.is_dir():
        return removed
    for folder in root.iterdir():
        try:
            owner = folder_owner(folder)
            if owner is not None:
                if owner_alive(owner):
                    continue
            elif time.time() - folder.stat().st_mtime < 60:
                continue
        except OSError:
            continue  # removed meanwhile by another repofix
        if not dry_run:
            shutil.rmtree(folder, ignore_errors=True)
        removed.append(f"scratch {folder}")
    return removed


def reap_dead_containers(docker_client) -> list[str]:
    """Remove this host's repofix containers whose owner is gone. A container ends itself when its
    owner dies, unless the owner died between creating and starting it: those are removed here."""
    import docker.errors

    removed = []
    # ignore_removed: another repofix's container may be removed between the listing and its inspection
    for container in docker_client.containers.list(all=True, filters={"label": LABEL}, ignore_removed=True):
        owner = container.labels.get("org.repofix.owner")
        if (
            owner
            and container.labels.get("org.repofix.host") == os.uname().nodename
            and not owner_alive(owner)
        ):
            try:
                container.remove(force=True)
            except docker.errors.APIError:  # gone meanwhile (its own --rm, another repofix)
                continue
            removed.append(f"container {container.name}")
    return removed


def prune(docker_client=None, dry_run: bool = False) -> list[str]:
    """Remove (or, dry, list) containers/volumes labelled by repofix whose owner is gone, scratch dirs
    whose owner is dead, and empty cgroups."""
    removed = []
    if docker_client is not None:
        import docker.errors

        for container in docker_client.containers.list(
            all=True, filters={"label": LABEL}, ignore_removed=True
        ):
            owner = container.labels.get(
                "org.repofix.owner", container.labels.get("org.repofix.owner-pid", "")
            )
            if (
                owner.split(" ")[0] != str(os.getpid())
                and owner_alive(owner)
                and container.labels.get("org.repofix.host") == os.uname().nodename
            ):
                continue  # a live repofix on this host still uses it
            if not dry_run:
                try:
                    container.remove(force=True)
                except docker.errors.NotFound:  # gone meanwhile (its own --rm, another repofix)
                    continue
            removed.append(f"container {container.name}")
        for volume in docker_client.volumes.list(filters={"label": LABEL}):
            if not dry_run:
                volume.remove(force=True)
            removed.append(f"volume {volume.name}")
    removed += reap_dead_scratch(dry_run)
    removed += limits.prune_cgroups(dry_run=dry_run, owner_alive=owner_alive)
    return removed
