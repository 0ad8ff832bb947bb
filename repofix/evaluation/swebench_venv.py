"""The interpreter that reads SWE-bench's install specs (swebench_specs.py), made on first need.

No swebench release has both the per-version specs (up to 4.x) and the log parsers the rows name
(5.x, the `[swebench]` extra), so the specs are read by a venv of its own with swebench==4.1.0.
Unless one is named ($REPOFIX_SWEBENCH_SPECS_PYTHON), repofix makes it once per user in its cache
folder ($REPOFIX_SWEBENCH_SPECS_VENV, else $XDG_CACHE_HOME/repofix/swebench-specs-4.1.0): built in a
temporary folder beside it, checked (the specs import), marked ready and renamed into place, under a
file lock so that two evaluations starting together build it once. A failed build leaves nothing.
"""

from __future__ import annotations

import collections
import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from repofix.config.environment import cache_dir, swebench_specs_venv

SPECS_PYTHON = "REPOFIX_SWEBENCH_SPECS_PYTHON"
VENV_SETTING = "REPOFIX_SWEBENCH_SPECS_VENV"
VERSION = "4.1.0"  # the last release with MAP_REPO_VERSION_TO_SPECS
_READY = "repofix-ready"  # written last, after the check: without it the folder is not usable
_CHECK = (
    "from swebench.harness.constants import MAP_REPO_VERSION_TO_SPECS\n"
    "from swebench.harness.test_spec import python\n"
    "assert MAP_REPO_VERSION_TO_SPECS\n"
)
MANUAL = (
    f"to make it by hand: python -m venv V && V/bin/pip install swebench=={VERSION}, then set "
    f"{SPECS_PYTHON}=V/bin/python (or give the tasks an environment)"
)


class VenvFailed(Exception):
    """The specs interpreter could not be made; says why and what to do instead."""


def venv_dir() -> Path:
    return swebench_specs_venv() or (cache_dir() / f"swebench-specs-{VERSION}").absolute()


def ready(folder: Path) -> Path | None:
    """The venv's python when `folder` is a venv made and checked here, else None."""
    python = folder / "bin" / "python"
    return python if (folder / _READY).is_file() and os.access(python, os.X_OK) else None


def ensure(note: Callable[[str], None] = lambda _: None) -> Path:
    """The specs interpreter of the cache folder, made now if it is not there (VenvFailed)."""
    folder = venv_dir()
    python = ready(folder)
    if python is not None:
        return python
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        with _locked(folder.parent / f".{folder.name}.lock", note):
            python = ready(folder)  # made by another evaluation while this one waited
            if python is None:
                _clear(folder)
                python = _make(folder, note)
    except OSError as error:
        raise VenvFailed(
            f"cannot make the SWE-bench specs interpreter in {folder}: {error}; {MANUAL}"
        ) from None
    return python


@contextmanager
def _locked(path: Path, note: Callable[[str], None]) -> Iterator[None]:
    with path.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            note(f"swebench specs: waiting for another repofix making {path.parent}")
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _clear(folder: Path) -> None:
    """Remove what a broken or interrupted making left (the lock is held: nobody else builds)."""
    for leftover in folder.parent.glob(f".{folder.name}.build-*"):
        shutil.rmtree(leftover, ignore_errors=True)
    if folder.is_symlink() or not folder.exists():
        return
    if (folder / "pyvenv.cfg").exists() or not any(folder.iterdir()):
        shutil.rmtree(folder)  # a venv without the ready mark (or whose base Python is gone)
        return
    raise VenvFailed(
        f"{folder} exists and is not a venv repofix made: remove it or name another folder in "
        f"{VENV_SETTING}; {MANUAL}"
    )


def _make(folder: Path, note: Callable[[str], None]) -> Path:
    build = Path(tempfile.mkdtemp(prefix=f".{folder.name}.build-", dir=folder.parent))
    started = time.monotonic()
    note(f"swebench specs: making a venv with swebench=={VERSION} in {folder} (once; about a minute)")
    try:
        _run([sys.executable, "-m", "venv", str(build)], "python -m venv", folder, note)
        python = build / "bin" / "python"
        pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--progress-bar", "off"]
        _run([*pip, f"swebench=={VERSION}"], f"pip install swebench=={VERSION}", folder, note)
        _run([str(python), "-c", _CHECK], "the check (importing its specs)", folder, note)
        (build / _READY).write_text(f"swebench=={VERSION}\n")
        build.rename(folder)
    except BaseException:  # also Ctrl-C: nothing half-made stays
        shutil.rmtree(build, ignore_errors=True)
        raise
    note(f"swebench specs: ready in {time.monotonic() - started:.0f}s")
    return folder / "bin" / "python"


def _run(argv: list[str], what: str, folder: Path, note: Callable[[str], None]) -> None:
    """Run one step, passing on pip's progress as a few lines; VenvFailed with its last words."""
    tail: collections.deque[str] = collections.deque(maxlen=30)
    collected = 0
    with subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            line = line.rstrip()
            tail.append(line)
            if line.startswith("Collecting "):
                collected += 1
                if collected % 10 == 1:
                    note(f"swebench specs: pip: {collected} package(s) collected, now {line[11:].split()[0]}")
            elif line.startswith("Installing collected packages"):
                note(f"swebench specs: pip: installing {collected} package(s)")
    if process.returncode != 0:
        errors = [line for line in tail if line.startswith("ERROR")] or [line for line in tail if line][-3:]
        cause = " / ".join(line.strip() for line in errors)[-600:] or "no output"
        raise VenvFailed(
            f"cannot make the SWE-bench specs interpreter in {folder}: {what} failed "
            f"(exit {process.returncode}): {cause}; {MANUAL}"
        )
