"""One call to LiteLLM: retried with backoff on what may pass (rate limits, timeouts, server errors),
and every other failure said as repofix's own error (no credentials, context too long, unavailable),
with no key in the message."""

from __future__ import annotations

import logging
import random
import re
import time
from typing import TYPE_CHECKING, Any

from repofix.models.base import ContextLengthError, ModelAuthError, ModelError, ModelUnavailable
from repofix.models.providers import key_hint
from repofix.models.scrub import scrub_text

if TYPE_CHECKING:
    from repofix.models.litellm_model import LiteLLMModel

log = logging.getLogger("repofix.models")

# How provider SDKs and LiteLLM say a key is missing (LiteLLM wraps some of these as server errors).
_MISSING_KEY = re.compile(
    r"\bmissing\b[\w ]{0,30}?\b(credentials|api[ _-]?key)\b|api_key client option must be set", re.IGNORECASE
)


def complete(model: LiteLLMModel, litellm: Any, kwargs: dict[str, Any]) -> Any:
    """`litellm.completion(**kwargs)`, retried on rate limits, timeouts and server errors (with backoff,
    honouring retry-after); every other failure becomes the `ModelError` subclass that says what to do."""
    retryable = (
        litellm.RateLimitError,
        litellm.InternalServerError,
        litellm.ServiceUnavailableError,
        litellm.BadGatewayError,
        litellm.APIConnectionError,
        litellm.Timeout,
    )
    for attempt in range(model.max_retries + 1):
        try:
            return litellm.completion(**kwargs)
        except litellm.ContextWindowExceededError as error:
            raise ContextLengthError(
                _say(model, f"the conversation exceeds {model.name}'s context window", error)
            ) from None
        except (litellm.AuthenticationError, litellm.PermissionDeniedError) as error:
            raise ModelAuthError(
                _say(model, f"{model.name} rejected the credentials; {key_hint(model.name)}", error)
            ) from None
        except retryable as error:
            if _MISSING_KEY.search(str(error)):  # no key at all: asking again will not make one
                raise ModelAuthError(
                    _say(model, f"{model.name} has no credentials; {key_hint(model.name)}", error)
                ) from None
            if attempt == model.max_retries:
                where = f" at {model.api_base}" if model.api_base else ""
                raise ModelUnavailable(
                    _say(model, f"{model.name}{where} still failing after {attempt + 1} attempts", error)
                ) from None
            delay = _delay(model, attempt, error)
            log.warning("%s: %s; retrying in %.1fs", model.name, type(error).__name__, delay)
            time.sleep(delay)
        except (litellm.BadRequestError, litellm.NotFoundError, litellm.APIError) as error:
            text = str(error)
            if _MISSING_KEY.search(text):
                raise ModelAuthError(
                    _say(model, f"{model.name} has no credentials; {key_hint(model.name)}", error)
                ) from None
            if "context_length_exceeded" in text or "maximum context length" in text:
                raise ContextLengthError(
                    _say(model, f"the conversation exceeds {model.name}'s context window", error)
                ) from None
            status = getattr(error, "status_code", None)
            if isinstance(status, int) and status >= 500 and attempt < model.max_retries:
                time.sleep(_delay(model, attempt, error))
                continue
            raise ModelError(_say(model, f"{model.name} refused the request", error)) from None
    raise AssertionError("unreachable")


def _delay(model: LiteLLMModel, attempt: int, error: Exception) -> float:
    backoff = min(model.retry_max_delay, model.retry_base_delay * 2**attempt) * random.uniform(0.5, 1.0)
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None) or {}
    try:
        retry_after = float(headers.get("retry-after", ""))
    except (TypeError, ValueError):
        retry_after = 0.0
    return min(max(backoff, retry_after), max(model.retry_max_delay, 60.0))


def _say(model: LiteLLMModel, summary: str, error: Exception) -> str:
    return scrub_text(f"{summary}: {type(error).__name__}: {error}", model._api_key)
