"""One immutable settings object, resolved once: CLI flags > environment variables >
`.repofix.toml` / `[tool.repofix]` in pyproject.toml (of the target repository) > defaults."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import tomllib


class SettingsError(ValueError):
    """A setting has a bad value; the message names the setting and where it came from."""


@dataclass(frozen=True)
class Settings:
    model: str | None = None  # LiteLLM model string, scripted:FILE, replay:RUN, builtin, or a chain a,b
    api_base: str | None = None
    price_file: str | None = None
    native_tools: bool | None = None  # None: native tool calls when LiteLLM says the model supports them
    sandbox: str | None = None  # docker | bwrap | none; None: docker if it answers, else bwrap
    image: str | None = None  # Docker image for the sandbox
    max_steps: int = 30
    max_cost: float | None = 2.0  # USD per run
    timeout: float = 1800.0  # wall time of a whole run, seconds
    command_timeout: float = 300.0  # one command in the sandbox
    test_cmd: str | None = None  # default: pytest, detected
    test_timeout: float = 900.0
    setup: tuple[str, ...] = ()  # commands run with network before the run (e.g. pip install -e .)
    feedback_tokens: int = 2500  # cap on the condensed test feedback (typical reports use ~300)
    observation_tokens: int = 2000  # cap on what one shell/python/view/edit result shows the model
    history_steps: int = 6  # steps kept in full in what the model is sent (older ones: one line each)
    map_tokens: int = 1200  # budget of the repository map in the first message
    home: str | None = None  # where runs live; default ~/.cache/repofix (or $REPOFIX_HOME)
    mirror: str | None = None  # folder of local clones for owner/name sources
    tests_first: bool | None = None  # None: on for implement, on for described fixes
    allow_guards: tuple[str, ...] = ()  # guard names this run allows
    extra: dict[str, Any] = field(default_factory=dict)

    def with_overrides(self, **values: Any) -> Settings:
        return replace(self, **{k: v for k, v in values.items() if v is not None})


ENV_PREFIX = "REPOFIX_"
_TUPLES = {"setup", "allow_guards"}


def _coerce(name: str, value: Any, origin: str) -> Any:
    kinds = {f.name: f.type for f in fields(Settings)}
    kind = str(kinds[name])
    try:
        if name in _TUPLES:
            if isinstance(value, str):
                return tuple(part for part in value.split(";;") if part.strip()) if ";;" in value else (value,)
            return tuple(str(v) for v in value)
        if value is None:
            return None
        if kind.startswith("int"):
            return int(value)
        if kind.startswith("float"):
            return float(value)
        if kind.startswith("bool"):  # "bool" and "bool | None"
            if isinstance(value, bool):
                return value
            return {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}[str(value).lower()]
        return str(value)
    except (ValueError, KeyError):
        raise SettingsError(f"{origin}: {name} = {value!r} is not a valid {kind}") from None


def _from_file(repo: Path | None) -> tuple[dict[str, Any], str]:
    if repo is None or not repo.is_dir():
        return {}, ""
    candidates = [(repo / ".repofix.toml", None), (repo / "pyproject.toml", ("tool", "repofix"))]
    for path, section in candidates:
        if not path.is_file():
            continue
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as error:
            raise SettingsError(f"{path}: not valid TOML: {error}") from None
        for key in section or ():
            data = data.get(key, {})
        if data:
            return data, str(path) + (" [tool.repofix]" if section else "")
    return {}, ""


def load_settings(repo: Path | None = None, **cli: Any) -> Settings:
    """Resolve the settings for a run on `repo`; `cli` holds the flags the user gave (None = not given)."""
    known = {f.name for f in fields(Settings)} - {"extra"}
    values: dict[str, Any] = {}
    file_values, origin = _from_file(repo)
    for key, value in file_values.items():
        name = key.replace("-", "_")
        if name not in known:
            raise SettingsError(f"{origin}: unknown setting {key!r} (known: {', '.join(sorted(known))})")
        values[name] = _coerce(name, value, origin)
    for name in known:
        env_value = os.environ.get(ENV_PREFIX + name.upper())
        if env_value is not None and env_value != "":
            values[name] = _coerce(name, env_value, f"${ENV_PREFIX}{name.upper()}")
    for name, value in cli.items():
        if value is not None and value != ():
            values[name] = _coerce(name, value, f"--{name.replace('_', '-')}")
    return Settings(**values)
