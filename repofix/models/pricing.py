"""Prices per token: a user's price file first (local and private models), then LiteLLM's bundled
price map. Unknown prices are not an error: the caller records cost 0 and says so once."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from repofix.models.base import ModelError


@dataclass(frozen=True)
class Price:
    input_per_token: float
    output_per_token: float
    source: str
    cache_read_per_token: float | None = None  # None: cached input costs what input costs
    cache_write_per_token: float | None = None
    max_input_tokens: int | None = None  # the context window, when a price file gives it

    def cost(self, input_tokens: int, output_tokens: int, cached: int = 0, written: int = 0) -> float:
        """`input_tokens` counts every prompt token; `cached` and `written` of them are billed at
        the cache-read and cache-write prices."""
        read = self.input_per_token if self.cache_read_per_token is None else self.cache_read_per_token
        write = self.input_per_token if self.cache_write_per_token is None else self.cache_write_per_token
        fresh = max(input_tokens - cached - written, 0)
        return (
            fresh * self.input_per_token
            + cached * read
            + written * write
            + output_tokens * self.output_per_token
        )


def load_price_file(path: str | Path) -> dict[str, Price]:
    """Read a JSON or YAML mapping `model -> prices`. Each entry has either
    `input_cost_per_token` and `output_cost_per_token`, or `input_per_million` and
    `output_per_million` (US dollars)."""
    path = Path(path)
    try:
        text = path.read_text("utf-8")
    except OSError as error:
        raise ModelError(f"cannot read the price file {path}: {error}") from error
    if path.suffix.lower() in (".yaml", ".yml"):
        import yaml

        data = yaml.safe_load(text)
    else:
        try:
            data = json.loads(text)
        except ValueError as error:
            raise ModelError(f"the price file {path} is not valid JSON: {error}") from error
    if not isinstance(data, dict):
        raise ModelError(f"the price file {path} must map model names to prices")
    return {str(model): _entry(path, str(model), entry) for model, entry in data.items()}


def _entry(path: Path, model: str, entry: Any) -> Price:
    """One model's prices; optional: `cache_read_input_token_cost` / `cache_read_per_million`,
    `cache_creation_input_token_cost` / `cache_write_per_million`, and `max_input_tokens`."""
    if isinstance(entry, dict):
        try:
            extra: dict[str, Any] = dict(
                cache_read_per_token=_optional(
                    entry, "cache_read_input_token_cost", "cache_read_per_million"
                ),
                cache_write_per_token=_optional(
                    entry, "cache_creation_input_token_cost", "cache_write_per_million"
                ),
                max_input_tokens=int(entry["max_input_tokens"]) if entry.get("max_input_tokens") else None,
            )
            if "input_cost_per_token" in entry or "output_cost_per_token" in entry:
                return Price(
                    float(entry["input_cost_per_token"]),
                    float(entry["output_cost_per_token"]),
                    str(path),
                    **extra,
                )
            if "input_per_million" in entry or "output_per_million" in entry:
                return Price(
                    float(entry["input_per_million"]) / 1e6,
                    float(entry["output_per_million"]) / 1e6,
                    str(path),
                    **extra,
                )
        except (KeyError, TypeError, ValueError) as error:
            raise ModelError(f"price file {path}, model {model!r}: bad or missing price ({error})") from error
    raise ModelError(
        f"price file {path}, model {model!r}: give input_cost_per_token and output_cost_per_token, "
        "or input_per_million and output_per_million"
    )


def _optional(entry: dict[str, Any], per_token: str, per_million: str) -> float | None:
    if entry.get(per_token) is not None:
        return float(entry[per_token])
    if entry.get(per_million) is not None:
        return float(entry[per_million]) / 1e6
    return None


def find_price(model: str, user_prices: dict[str, Price] | None = None) -> Price | None:
    """The price of `model` (a LiteLLM model string), or None when nobody knows it."""
    bare = model.split("/", 1)[1] if "/" in model else model
    for key in (model, bare):
        if user_prices and key in user_prices:
            return user_prices[key]
    import litellm  # already imported by the caller with the offline price map

    for key in (model, bare):
        info = litellm.model_cost.get(key)
        if (
            info
            and info.get("input_cost_per_token") is not None
            and info.get("output_cost_per_token") is not None
        ):
            read, write = info.get("cache_read_input_token_cost"), info.get("cache_creation_input_token_cost")
            return Price(
                float(info["input_cost_per_token"]),
                float(info["output_cost_per_token"]),
                "litellm",
                None if read is None else float(read),
                None if write is None else float(write),
            )
    return None
