"""Nothing outlives repofix: live sandboxes are closed on exit and on SIGTERM/SIGHUP, and
`prune()` removes what a crashed run left behind (found by label or by dead owner pid)."""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import tempfile
import threading
import weakref
from pathlib import Path

LABEL = "org.repofix.sandbox"  # on every container and volume repofix creates
_live: weakref.WeakSet = weakref.WeakSet()
_installed = False


def scratch_root() -> Path:
    """Host folder of per-sandbox scratch dirs, each holding an `owner.pid` file."""
    root = Path(os.environ.get("REPOFIX_SCRATCH", Path(tempfile.gettempdir()) / "repofix-sandboxes"))
    root.mkdir(parents=True, exist_ok=True)
    return root


def new_scratch(prefix: str) -> Path:
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=scratch_root()))
    (path / "owner.pid").write_text(str(os.getpid()))
    return path


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


def prune(docker_client=None) -> list[str]:
    """Remove containers/volumes labelled by repofix and scratch dirs whose owner is dead."""
    removed = []
    if docker_client is not None:
        for container in docker_client.containers.list(all=True, filters={"label": LABEL}):
            owner = int(container.labels.get("org.repofix.owner-pid", "0") or 0)
            if owner and owner != os.getpid() and _pid_alive(owner) and \
                    container.labels.get("org.repofix.host") == os.uname().nodename:
                continue  # a live repofix on this host still uses it
            container.remove(force=True)
            removed.append(f"container {container.name}")
        for volume in docker_client.volumes.list(filters={"label": LABEL}):
            volume.remove(force=True)
            removed.append(f"volume {volume.name}")
    for folder in scratch_root().iterdir():
        owner_file = folder / "owner.pid"
        owner = int(owner_file.read_text() or 0) if owner_file.exists() else 0
        if owner and _pid_alive(owner):
            continue
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(f"scratch {folder}")
    from repofix.sandboxes import limits

    removed += limits.prune_cgroups()
    return removed
