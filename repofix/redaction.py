"""Secrets never reach a record, a comment or a log: one rule for what a secret is and how it is hidden.

A secret is a value we know (an environment variable whose name says it is one, a provider key) or a
string shaped like a credential even when we do not know its value. Known values shorter than
`MIN_SECRET_LENGTH` are left alone: they would redact ordinary words, and no real credential is that short."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

REDACTED = "[REDACTED]"
MIN_SECRET_LENGTH = 8

# Shapes of credentials, redacted even when we do not know the value; `\b` so "task-..." is not "sk-...".
_TOKEN_SHAPES = re.compile(
    r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_\-]{20,}"
    r"|xox[abpr]-[A-Za-z0-9\-]{10,}|AKIA[0-9A-Z]{16})\b"
)
# Environment variables whose values are secrets: these names, and any name with one of these words.
_SECRET_NAMES = {
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    "REPOFIX_READ_TOKEN",
    "REPOFIX_WRITE_TOKEN",
}
_SECRET_WORDS = ("TOKEN", "KEY", "SECRET", "PASSWORD")


def is_secret_name(name: str) -> bool:
    upper = name.upper()
    return upper in _SECRET_NAMES or any(word in upper for word in _SECRET_WORDS)


def secrets_from_env(env: Mapping[str, str] | None = None) -> list[str]:
    """Values of secret-named variables in the environment, longest first."""
    env = os.environ if env is None else env
    values = {
        value for name, value in env.items() if is_secret_name(name) and len(value) >= MIN_SECRET_LENGTH
    }
    return sorted(values, key=len, reverse=True)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with every known secret value and every token-shaped string replaced by [REDACTED]."""
    for value in sorted({s for s in secrets if s and len(s) >= MIN_SECRET_LENGTH}, key=len, reverse=True):
        text = text.replace(value, REDACTED)
    return _TOKEN_SHAPES.sub(REDACTED, text)


def redact_data(value: Any, secrets: Iterable[str] = ()) -> Any:
    """A copy of JSON-like data (dicts, lists, strings) with every string redacted."""
    secrets = list(secrets)
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, dict):
        return {key: redact_data(item, secrets) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact_data(item, secrets) for item in value]
    return value


def token_shaped(text: str) -> bool:
    """True when `text` holds a string shaped like a credential (ghp_..., sk-..., AKIA...)."""
    return _TOKEN_SHAPES.search(text) is not None
