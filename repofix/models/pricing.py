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

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return input_tokens * self.input_per_token + output_tokens * self.output_per_token


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
    if isinstance(entry, dict):
        try:
            if "input_cost_per_token" in entry or "output_cost_per_token" in entry:
                return Price(
                    float(entry["input_cost_per_token"]), float(entry["output_cost_per_token"]), str(path)
                )
            if "input_per_million" in entry or "output_per_million" in entry:
                return Price(
                    float(entry["input_per_million"]) / 1e6,
                    float(entry["output_per_million"]) / 1e6,
                    str(path),
                )
        except (KeyError, TypeError, ValueError) as error:
            raise ModelError(f"price file {path}, model {model!r}: bad or missing price ({error})") from error
    raise ModelError(
        f"price file {path}, model {model!r}: give input_cost_per_token and output_cost_per_token, "
        "or input_per_million and output_per_million"
    )


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
            return Price(float(info["input_cost_per_token"]), float(info["output_cost_per_token"]), "litellm")
    return None
