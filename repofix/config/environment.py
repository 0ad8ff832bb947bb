"""repofix's own environment variables (not settings): read here and nowhere else."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from repofix.config.settings import ENV_PREFIX, SettingsError

DEFAULT_IMAGE = "repofix-sandbox:latest"


def env(name: str) -> str | None:
    """$REPOFIX_<NAME>, or None when it is unset or empty (an empty variable means "not set")."""
    return os.environ.get(ENV_PREFIX + name) or None


def env_flag(name: str) -> bool:
    """$REPOFIX_<NAME> as a yes/no switch (1, true, yes: on)."""
    return (env(name) or "").lower() in ("1", "true", "yes")


def cache_dir() -> Path:
    """The user's repofix cache: $XDG_CACHE_HOME/repofix, else ~/.cache/repofix."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "repofix"


def swebench_specs_venv() -> Path | None:
    """$REPOFIX_SWEBENCH_SPECS_VENV: where repofix makes the SWE-bench specs venv (None: in cache_dir)."""
    named = env("SWEBENCH_SPECS_VENV")
    return Path(named).expanduser().absolute() if named else None


def home_dir() -> Path:
    """Where runs live: $REPOFIX_HOME, else the user's cache folder (cache_dir)."""
    if home := env("HOME"):
        return Path(home).expanduser().absolute()
    return cache_dir()


def scratch_dir() -> Path:
    """Host folder of the sandboxes' scratch dirs: $REPOFIX_SCRATCH, else <tmp>/repofix-sandboxes."""
    return Path(env("SCRATCH") or Path(tempfile.gettempdir()) / "repofix-sandboxes")


def docker_image() -> str:
    """The sandbox image when the settings name none: $REPOFIX_IMAGE, else repofix-sandbox:latest."""
    return env("IMAGE") or DEFAULT_IMAGE


def ray_state_dir() -> Path:
    """Where Ray nodes keep their state files: $REPOFIX_RAY_STATE, else <tmp>/repofix-ray."""
    return Path(env("RAY_STATE") or Path(tempfile.gettempdir()) / "repofix-ray")


def github_backoff_scale() -> float:
    """$REPOFIX_GITHUB_BACKOFF scales the GitHub client's retry waits (tests set it to 0)."""
    value = env("GITHUB_BACKOFF") or "1"
    try:
        return float(value)
    except ValueError:
        raise SettingsError(f"${ENV_PREFIX}GITHUB_BACKOFF = {value!r} is not a number") from None


def git_remote(environ: dict[str, str] | None = None) -> str | None:
    """$REPOFIX_GIT_REMOTE: the remote `repofix ci` fetches from and pushes to (None: GitHub's)."""
    return (os.environ if environ is None else environ).get(ENV_PREFIX + "GIT_REMOTE") or None


def git_identity(name: str, email: str) -> tuple[str, str]:
    """The bot's commit identity: $REPOFIX_GIT_NAME / $REPOFIX_GIT_EMAIL, else the given defaults."""
    return env("GIT_NAME") or name, env("GIT_EMAIL") or email
