"""What of a provider's reply and errors may be kept: no credential-named key, no known key's text."""

from __future__ import annotations

import os
from typing import Any

from repofix.models.providers import PROVIDER_KEYS
from repofix.redaction import redact

_SECRET_KEYS = {"api_key", "apikey", "api-key", "x-api-key", "authorization", "access_token", "secret"}


def scrub(value: Any, secret: str | None = None) -> Any:
    """A copy of `value` without credential-named keys and without any known key's text."""
    secrets = [s for s in (secret, *(os.environ.get(v) for v in PROVIDER_KEYS.values())) if s]
    return _scrub(value, secrets)


def _scrub(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, dict):
        return {k: _scrub(v, secrets) for k, v in value.items() if str(k).lower() not in _SECRET_KEYS}
    if isinstance(value, list):
        return [_scrub(item, secrets) for item in value]
    if isinstance(value, str):
        return redact(value, secrets)
    return value


def scrub_text(text: str, secret: str | None) -> str:
    result = scrub(text, secret)
    return result if isinstance(result, str) else text
