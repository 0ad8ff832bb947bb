"""Where settings come from, in order: the flags > $REPOFIX_* > the repository's `.repofix.toml` /
`[tool.repofix]` (project facts only, unless trusted) > the user's config file > defaults."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, from PyPI (a dependency there only)
    import tomli as tomllib

from repofix.config.environment import env, env_flag
from repofix.config.settings import (
    _KINDS,
    ENV_PREFIX,
    REPO_SETTINGS,
    SECTIONS,
    USER_CONFIG_ENV,
    Settings,
    SettingsError,
    _build,
    _coerce,
    with_flags,
)
from repofix.repofiles import read_inside


def _parse(path: Path, text: bytes | None, section: tuple[str, ...] | None) -> dict[str, Any]:
    if text is None:
        return {}
    try:
        data = tomllib.loads(text.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise SettingsError(f"{path}: not valid TOML: {error}") from None
    for key in section or ():
        data = data.get(key, {}) if isinstance(data, dict) else {}
    return data if isinstance(data, dict) else {}


def _from_file(repo: Path | None) -> tuple[dict[str, Any], str]:
    """The repository's own settings, read without following a symlink out of it (or into /dev/zero)."""
    if repo is None or not repo.is_dir():
        return {}, ""
    for name, section in ((".repofix.toml", None), ("pyproject.toml", ("tool", "repofix"))):
        data = _parse(repo / name, read_inside(repo, name), section)
        if data:
            return data, str(repo / name) + (" [tool.repofix]" if section else "")
    return {}, ""


def user_config_file() -> Path:
    """$REPOFIX_CONFIG, else $XDG_CONFIG_HOME/repofix/config.toml, else ~/.config/repofix/config.toml."""
    if os.environ.get(USER_CONFIG_ENV):
        return Path(os.environ[USER_CONFIG_ENV]).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "repofix" / "config.toml"


def _from_user_file() -> tuple[dict[str, Any], str]:
    path = user_config_file()
    try:
        text = path.read_bytes() if path.is_file() else None
    except OSError as error:
        raise SettingsError(f"{path}: cannot be read: {error}") from None
    return _parse(path, text, None), str(path)


def _values(data: dict[str, Any], origin: str, known: set[str]) -> dict[str, Any]:
    """A config file's table as flat names -> checked values; a section (`[limits]`) is a table of its own."""
    values = {}
    for key, value in data.items():
        name = key.replace("-", "_")
        if name in SECTIONS:
            if not isinstance(value, dict):
                raise SettingsError(f"{origin}: {key} is a section: write [{key}] and its settings below it")
            values.update(_values({f"{name}.{k}": v for k, v in value.items()}, origin, known))
            continue
        if name not in known:
            raise SettingsError(f"{origin}: unknown setting {key!r} (known: {', '.join(sorted(known))})")
        values[name] = _coerce(name, value, origin)
    return values


def load_settings(repo: Path | None = None, *, trust_repo: bool | None = None, **cli: Any) -> Settings:
    """Resolve the settings for a run on `repo`; `cli` holds the flags the user gave (None = not given).
    `trust_repo` (None: $REPOFIX_TRUST_REPO_CONFIG) lets the repository's config set everything."""
    known = set(_KINDS) - {"extra", "notices"}
    if trust_repo is None:
        trust_repo = env_flag("TRUST_REPO_CONFIG")
    user_data, user_origin = _from_user_file()
    values: dict[str, Any] = _values(user_data, user_origin, known)
    file_values, origin = _from_file(repo)
    repo_values = _values(file_values, origin, known)
    ignored = sorted(set(repo_values) - REPO_SETTINGS) if not trust_repo else []
    notices = (
        (
            f"ignored in {origin}: {', '.join(ignored)} (a repository may set only "
            f"{', '.join(sorted(REPO_SETTINGS))}; set the others yourself, or pass --trust-repo-config)",
        )
        if ignored
        else ()
    )
    values.update({k: v for k, v in repo_values.items() if k not in ignored})
    for name in known:  # limits.memory_mb: $REPOFIX_LIMITS_MEMORY_MB
        env_value = env(name.upper().replace(".", "_"))
        if env_value is not None:
            values[name] = _coerce(name, env_value, f"${ENV_PREFIX}{name.upper().replace('.', '_')}")
    return with_flags(_build(values, Settings(notices=notices)), **cli)
