"""The settings themselves: `Settings` and its sections, the rules every source is checked by
(`_coerce`), and how flat names ("max_steps", "limits.memory_mb") become a `Settings` (`with_flags`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any


class SettingsError(ValueError):
    """A setting has a bad value; the message names the setting and where it came from."""


@dataclass(frozen=True)
class SandboxLimits:
    """`[limits]`: hard limits of each sandbox (sizes in MiB); None: the sandbox's own default."""

    memory_mb: int | None = None
    cpus: float | None = None
    pids: int | None = None
    workspace_mb: int | None = None
    tmp_mb: int | None = None
    home_mb: int | None = None

    def given(self) -> dict[str, Any]:
        return {name: value for name, value in asdict(self).items() if value is not None}


@dataclass(frozen=True)
class ModelCall:
    """`[model_call]`: how each request to the model is made (the keyword arguments of `make_model`)."""

    timeout: float = 120.0  # seconds per request
    max_retries: int = 4  # on rate limits, timeouts and server errors, with backoff
    max_tokens: int = 4096  # per reply (lowered to the model's own limit when LiteLLM knows it)
    temperature: float | None = 0.0  # none: the provider's default


SECTIONS: dict[str, type] = {"limits": SandboxLimits, "model_call": ModelCall}


@dataclass(frozen=True)
class Settings:
    model: str | None = None  # LiteLLM model string, scripted:FILE, replay:RUN, builtin, or a chain a,b
    api_base: str | None = None
    price_file: str | None = None
    native_tools: bool | None = None  # None: native tool calls when LiteLLM says the model supports them
    sandbox: str | None = None  # docker | bwrap | none; None: docker if it answers, else bwrap
    image: str | None = None  # Docker image for the sandbox
    python: str | None = (
        None  # bwrap: the project's interpreter (default: $VIRTUAL_ENV, the repo's .venv, python3)
    )
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
    allow_local_submodules: bool = False  # fetch submodule URLs that are paths on this machine
    limits: SandboxLimits = SandboxLimits()
    model_call: ModelCall = ModelCall()
    extra: dict[str, Any] = field(default_factory=dict)
    notices: tuple[str, ...] = ()  # for the user: repository settings that were ignored


ENV_PREFIX = "REPOFIX_"
_TUPLES = {"setup", "allow_guards"}
# What a repository's own config may set: facts about the project, none of which reaches the host,
# a credential, the sandbox or the user's money.
REPO_SETTINGS = frozenset({"test_cmd", "test_timeout", "tests_first"})
TRUST_ENV = ENV_PREFIX + "TRUST_REPO_CONFIG"
# As the value of a setting that may be empty (max_cost, model, ...): no value, e.g. no cost cap. Not for
# `sandbox`, where "none" is the name of a backend (no isolation); leave it out to choose automatically.
UNSET = "none"
_MINIMUM = {
    "max_steps": 1,
    "max_cost": 0,
    "timeout": 1,
    "command_timeout": 1,
    "test_timeout": 1,
    "limits.memory_mb": 16,
    "limits.cpus": 0.01,
    "limits.pids": 8,
    "limits.workspace_mb": 1,
    "limits.tmp_mb": 1,
    "limits.home_mb": 1,
    "model_call.timeout": 1,
    "model_call.max_retries": 0,
    "model_call.max_tokens": 1,
    "model_call.temperature": 0,
}
# Every setting by its flat name ("max_steps", "limits.memory_mb") and its declared type.
_KINDS = {f.name: str(f.type) for f in fields(Settings) if f.name not in SECTIONS} | {
    f"{section}.{f.name}": str(f.type) for section, kind in SECTIONS.items() for f in fields(kind)
}
USER_CONFIG_ENV = ENV_PREFIX + "CONFIG"


def _coerce(name: str, value: Any, origin: str) -> Any:
    kind = _KINDS[name]
    try:
        if name in _TUPLES:
            if isinstance(value, str):
                return (
                    tuple(part for part in value.split(";;") if part.strip()) if ";;" in value else (value,)
                )
            return tuple(str(v) for v in value)
        if value is None or (
            kind.endswith("| None") and name != "sandbox" and str(value).strip().lower() == UNSET
        ):
            return None
        if kind.startswith(("int", "float")):
            number = int(value) if kind.startswith("int") else float(value)
            if number < _MINIMUM.get(name, number) or number != number:  # below its minimum, or NaN
                raise ValueError
            return number
        if kind.startswith("bool"):  # "bool" and "bool | None"
            if isinstance(value, bool):
                return value
            return {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}[
                str(value).lower()
            ]
        return str(value)
    except (ValueError, KeyError):
        unset = f" (or {UNSET!r}: no value)" if kind.endswith("| None") else ""
        least = f" of at least {_MINIMUM[name]}" if name in _MINIMUM else ""
        noun = next(
            (
                word
                for prefix, word in (("int", "whole number"), ("float", "number"), ("bool", "yes/no value"))
                if kind.startswith(prefix)
            ),
            kind,
        )
        raise SettingsError(f"{origin}: {name} = {value!r} is not a {noun}{least}{unset}") from None


def _build(values: dict[str, Any], base: Settings | None = None) -> Settings:
    """Settings from flat names, each section built from its `section.` names on top of `base`'s."""
    base = base or Settings()
    plain = {name: value for name, value in values.items() if "." not in name}
    for section in SECTIONS:
        given = {
            name.split(".", 1)[1]: value for name, value in values.items() if name.startswith(section + ".")
        }
        if given:
            plain[section] = replace(getattr(base, section), **given)
    return replace(base, **plain)


def settings_from_record(data: dict[str, Any]) -> Settings:
    """The settings a run recorded (its trajectory's JSON), sections included; names a later version
    dropped are skipped, sections an earlier one lacked get their defaults."""
    values: dict[str, Any] = {}
    for name, value in data.items():
        if name in SECTIONS and isinstance(value, dict):
            values.update({f"{name}.{k}": v for k, v in value.items() if f"{name}.{k}" in _KINDS})
        elif name in _KINDS:
            values[name] = tuple(value) if isinstance(value, list) else value
    return _build(values)


def with_flags(settings: Settings, **flags: Any) -> Settings:
    """`settings` with the flags the user gave on top, coerced and checked like every other source.
    None (or an empty tuple) means "not given"; the string "none" removes an optional value (a cap)."""
    unknown = sorted(set(flags) - set(_KINDS) - set(SECTIONS))
    if unknown:
        raise TypeError(f"unknown settings: {', '.join(unknown)}")
    given = {name: value for name, value in flags.items() if value is not None and value != ()}
    sections = {
        f"{name}.{key}": value for name in SECTIONS for key, value in (given.pop(name, None) or {}).items()
    }
    values = {
        name: value
        if name == "extra"
        else _coerce(name, value, f"--{name.replace('_', '-').replace('.', '-')}")
        for name, value in {**given, **sections}.items()
    }
    return _build(values, settings)
