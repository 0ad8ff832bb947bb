"""Which Python the daemonless (bubblewrap) sandbox runs: the project's, not repofix's own.

In this order: `--python PATH` (or the `python` setting), the active virtual environment ($VIRTUAL_ENV),
a `.venv` or `venv` folder in the repository, else the system `python3` (the first on PATH, when it is
a real interpreter; a pyenv shim is a script that cannot work inside the sandbox, so then the base
interpreter repofix itself runs on).

Everything here is decided statically, on the host, without running the interpreter: a repository's
`.venv/bin/python` may be any file the repository ships, and running it (or a real interpreter that
reads the repository's `pyvenv.cfg` and `.pth` files) would execute the repository's code outside the
sandbox. What is bound into the sandbox is read-only and limited to a Python installation:
- the virtual environment's folder, which for a repository's `.venv` must really be inside the
  repository (a `.venv` that is a symlink to a host folder would otherwise bind that folder);
- the base installation, the folder above the interpreter's `bin/`, only when it holds a standard
  library (`lib/python3.N/os.py`, the landmark Python itself looks for), is not `/`, and is not the
  home folder or an ancestor of it: a symlink such as `.venv/bin/python -> /root/bin/x` cannot make
  the sandbox see `/root`. Symlinks inside the bound folders are resolved inside the sandbox, where
  only these folders and the system directories exist."""

from __future__ import annotations

import configparser
import os
import re
import shutil
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from repofix.repofiles import read_inside
from repofix.sandboxes.base import WORKDIR, SandboxError

# Bound read-only by the bwrap backend anyway: nothing under them needs a bind of its own.
SYSTEM_DIRS = ("/usr", "/bin", "/lib", "/lib64", "/sbin", "/lib32", "/libx32")
# The session runner (sandbox/runner.py and its siblings) uses nothing newer (checked with vermin).
RUNNER_MIN_PYTHON = (3, 5)
REPO_VENVS = (".venv", "venv")
# The sandbox's own folders: a bind there would hide them or be hidden (/workspace is mounted later).
RESERVED = (WORKDIR, "/home/sandbox", "/proc", "/dev", "/etc", "/opt/repofix-python")
NAMES_DIR = (
    "/opt/repofix-python/bin"  # in the sandbox: `python` and `python3` for an interpreter outside a venv
)


class InterpreterError(SandboxError):
    """The chosen interpreter cannot be used; the message says which one, why, and what to do."""


@dataclass(frozen=True)
class Interpreter:
    executable: str  # what the sandbox runs (a venv's bin/python as named, so Python finds pyvenv.cfg)
    origin: str  # where the choice came from, for messages and `doctor`
    version: str  # "3.11", from the standard library's folder name
    venv: str | None = None  # the virtual environment's folder, as named
    binds: tuple[tuple[str, str], ...] = ()  # (host folder, path in the sandbox), bound read-only
    fallback: bool = False  # the system's python3: nothing the user or the project chose

    @property
    def bin_dir(self) -> str:
        """First on the sandbox's PATH: `python`, `pytest` and the project's tools."""
        return str(Path(self.venv) / "bin") if self.venv else str(Path(self.executable).parent)

    def env(self) -> dict[str, str]:
        if self.venv:
            return {"PATH": f"{self.bin_dir}:/usr/local/bin:/usr/bin:/bin", "VIRTUAL_ENV": self.venv}
        # Debian's /usr/bin has python3 only: `python` (what test commands call) comes from NAMES_DIR
        return {"PATH": f"{self.bin_dir}:{NAMES_DIR}:/usr/local/bin:/usr/bin:/bin"}


def choose(python: str | None, repo: Path | None = None) -> Interpreter:
    """The interpreter a bwrap run on `repo` uses (see the module's docstring for the order)."""
    if python:
        return inspect(Path(python).expanduser().absolute(), "--python")
    active = os.environ.get("VIRTUAL_ENV")
    if active:
        with _hint("deactivate it, or choose the interpreter with --python"):
            return inspect(Path(active) / "bin" / "python", "the active virtual environment ($VIRTUAL_ENV)")
    if repo is not None:
        for name in REPO_VENVS:
            candidate = Path(repo).absolute() / name
            if os.path.lexists(candidate / "pyvenv.cfg") or os.path.lexists(candidate / "bin" / "python"):
                with _hint("choose the interpreter with --python"):
                    return inspect(
                        candidate / "bin" / "python", f"the repository's {name}", inside=Path(repo)
                    )
    return system_python()


@contextmanager
def _hint(advice: str) -> Iterator[None]:
    """Say what to do when an interpreter the user did not name cannot be used."""
    try:
        yield
    except InterpreterError as error:
        raise InterpreterError(f"{error}; or {advice}") from None


def system_python() -> Interpreter:
    found = shutil.which("python3")
    if found and _is_binary(os.path.realpath(found)):
        try:
            return replace(inspect(Path(found), "the system python3 (first on PATH)"), fallback=True)
        except InterpreterError:
            pass  # not usable as a whole (no standard library beside it): fall back below
    base = getattr(sys, "_base_executable", None) or sys.executable  # repofix's own venv -> its base
    chosen = inspect(Path(base), "the Python repofix runs on (python3 on PATH is not an interpreter)")
    return replace(chosen, fallback=True)


def inspect(path: Path, origin: str, inside: Path | None = None) -> Interpreter:
    """Check `path` is a usable interpreter and work out what to bind; `inside`: the repository it
    comes from, which it (its venv folder) must not leave."""
    shown = f"{path} ({origin})"
    if not os.path.lexists(path):
        raise InterpreterError(f"python interpreter {shown}: no such file")
    real = os.path.realpath(path)
    if not os.path.exists(real):
        raise InterpreterError(f"python interpreter {shown}: a symlink to {real}, which does not exist")
    if not _is_binary(real):
        raise InterpreterError(
            f"python interpreter {shown}: {real} is not an executable program (a script or "
            "shim, such as pyenv's, cannot run in the sandbox); name the real interpreter, "
            "for example $(pyenv which python3)"
        )
    venv = _venv_root(path)
    if inside is not None:
        top = os.path.realpath(inside)
        where = os.path.realpath(venv) if venv else real
        if not where.startswith(top + os.sep):
            raise InterpreterError(
                f"python interpreter {shown}: leads out of the repository (to {where}); "
                "repofix binds only a virtual environment that is inside it"
            )
    if venv is not None:
        home = _venv_home(venv, inside)
        if home is None:
            raise InterpreterError(
                f"python interpreter {shown}: {venv}/pyvenv.cfg names no `home` (the "
                "folder of the Python the environment was made from), or is not a regular file "
                "of the repository"
            )
        base_named = Path(os.path.normpath(Path(home).parent))  # no ".." in a path bound in the sandbox
    else:
        base_named = Path(real).parent.parent
    base = os.path.realpath(base_named)
    version = _stdlib_version(base)
    if version is None:
        raise InterpreterError(
            f"python interpreter {shown}: {base} holds no Python 3 standard library "
            "(lib/python3.N/os.py), so it is not a Python installation"
        )
    if tuple(int(part) for part in version.split(".")) < RUNNER_MIN_PYTHON:
        raise InterpreterError(
            f"python interpreter {shown}: Python {version} is older than "
            f"{'.'.join(map(str, RUNNER_MIN_PYTHON))}, which the session runner needs"
        )
    if venv is not None and not (_under(real, os.path.realpath(venv)) or _under(real, base) or _system(real)):
        raise InterpreterError(
            f"python interpreter {shown}: {real} belongs neither to the environment nor to "
            f"the Python it was made from ({base})"
        )
    binds = [(base, base), (base, str(base_named))]
    if venv is not None:
        binds.append((os.path.realpath(venv), str(venv)))
    binds = [pair for i, pair in enumerate(binds) if not _system(pair[1]) and pair not in binds[:i]]
    for source, dest in binds:
        _refuse_broad(source, shown)
        if any(_under(dest, folder) for folder in RESERVED):
            raise InterpreterError(
                f"python interpreter {shown}: {dest} is where the sandbox has its own "
                f"{', '.join(RESERVED)}; use an environment elsewhere"
            )
    executable = str(path) if venv is not None else real
    return Interpreter(executable, origin, version, str(venv) if venv else None, tuple(binds))


def _venv_root(path: Path) -> Path | None:
    """The virtual environment `path` (as named, symlinks not followed) belongs to, as Python finds it."""
    for folder in (path.parent, path.parent.parent):
        if os.path.lexists(folder / "pyvenv.cfg"):
            return folder
    return None


def _venv_home(venv: Path, inside: Path | None) -> str | None:
    if inside is not None:  # the repository's file: read without following a link out of it
        rel = os.path.relpath(os.path.realpath(venv), os.path.realpath(inside))
        data = read_inside(Path(inside), os.path.join(rel, "pyvenv.cfg"), limit=64 * 1024)
    else:
        cfg = venv / "pyvenv.cfg"
        data = cfg.read_bytes()[: 64 * 1024] if cfg.is_file() else None
    if data is None:
        return None
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string("[venv]\n" + data.decode("utf-8", "replace"))
    except configparser.Error:
        return None
    home = parser.get("venv", "home", fallback="").strip()
    return home if home.startswith("/") else None


def _stdlib_version(base: str) -> str | None:
    """X.Y of the standard library under `base` (lib/, or lib64/ as Fedora and SUSE place it)."""
    versions = []
    for lib in (Path(base) / "lib", Path(base) / "lib64"):
        matches = (re.fullmatch(r"python(3\.\d+)", p.name) for p in _listdir(lib))
        versions += [m.group(1) for m in matches if m and (lib / m.group(0) / "os.py").is_file()]
    return max(versions, key=lambda v: int(v.split(".")[1])) if versions else None


def _listdir(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError:
        return []


def _is_binary(real: str) -> bool:
    """A regular, executable ELF file (not a script, a device or a fifo)."""
    try:
        info = os.stat(real)
        if not stat.S_ISREG(info.st_mode) or not os.access(real, os.X_OK):
            return False
        with open(real, "rb") as handle:
            return handle.read(4) == b"\x7fELF"
    except OSError:
        return False


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _system(path: str) -> bool:
    return any(_under(path, folder) for folder in SYSTEM_DIRS)


def _refuse_broad(folder: str, shown: str) -> None:
    """Never bind `/`, a home folder or an ancestor of one: that would show the sandbox the user's files."""
    homes = {os.path.realpath(Path.home()), "/root", "/home"}
    if folder == "/" or any(_under(home, folder) for home in homes):
        raise InterpreterError(
            f"python interpreter {shown}: its installation would be {folder}, which repofix "
            "does not bind into the sandbox (it holds your files); use a virtual environment"
        )
