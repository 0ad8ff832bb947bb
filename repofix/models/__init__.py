"""Models: one protocol (`Model.query(messages, tools) -> ModelReply`) and `make_model(spec)`.

Specs: `scripted:FILE`, `replay:RUN_OR_FILE`, `builtin`, a LiteLLM model string
(`openai/gpt-4o`, `anthropic/...`, `ollama/...`, `hosted_vllm/...`), or a comma-separated chain
of these (`builtin,openai/gpt-4o`). Importing this package is cheap: LiteLLM loads on first use.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from repofix.models.base import (
    Budget,
    ContextLengthError,
    CostLimitExceeded,
    Model,
    ModelAuthError,
    ModelError,
    ModelGaveUp,
    ModelReply,
    ModelUnavailable,
    ToolCall,
    tool_message,
)
from repofix.models.chain import ChainModel
from repofix.models.litellm_model import LiteLLMModel
from repofix.models.providers import describe_missing_model
from repofix.models.replay import load_replies, replay_model
from repofix.models.scripted import ScriptedModel, ScriptExhausted

__all__ = [
    "Budget",
    "ChainModel",
    "ContextLengthError",
    "CostLimitExceeded",
    "Model",
    "ModelAuthError",
    "ModelError",
    "ModelReply",
    "ModelGaveUp",
    "ModelUnavailable",
    "ScriptExhausted",
    "ScriptedModel",
    "ToolCall",
    "check_credentials",
    "describe_missing_model",
    "load_replies",
    "make_model",
    "register_model",
    "tool_message",
]


# Models that rooms above this one provide, by spec name: the agent registers `builtin` (the repair
# engine), so this room never imports the repair room, which builds on it.
FACTORIES: dict[str, Callable[..., Model]] = {}


def register_model(name: str, factory: Callable[..., Model]) -> None:
    """Make `make_model(name, **options)` return `factory(**options)` (options: make_model's extra keywords)."""
    FACTORIES[name] = factory


def make_model(
    spec: str | None,
    *,
    max_cost: float | None = None,
    budget: Budget | None = None,
    api_base: str | None = None,
    api_key: str | None = None,
    timeout: float = 120.0,
    max_retries: int = 4,
    max_tokens: int = 4096,
    temperature: float | None = 0.0,
    price_file: str | Path | None = None,
    native_tools: bool | None = None,
    runs_dir: str | Path | None = None,
    **builtin_options: Any,
) -> Model:
    """The model a spec names. All models of a chain share one `Budget` (made from `max_cost`
    unless given), so the cost cap holds for the whole run. `builtin_options` go to the
    built-in repair engine only."""
    if not spec or not spec.strip():
        raise ModelError(describe_missing_model())
    budget = budget or Budget(max_cost=max_cost)
    parts = [part.strip() for part in spec.split(",") if part.strip()]
    models: list[Model] = []
    for part in parts:
        if part.startswith("scripted:"):
            models.append(ScriptedModel.from_file(part.removeprefix("scripted:"), budget=budget))
        elif part.startswith("replay:"):
            models.append(replay_model(part.removeprefix("replay:"), runs_dir=runs_dir, budget=budget))
        elif part in FACTORIES:
            models.append(FACTORIES[part](**builtin_options))
        elif part == "builtin":
            raise ModelError(
                "the built-in repair engine (`builtin`) is registered by the agent: import "
                "repofix.agent before making it"
            )
        else:
            models.append(
                LiteLLMModel(
                    part,
                    api_base=api_base,
                    api_key=api_key,
                    budget=budget,
                    timeout=timeout,
                    max_retries=max_retries,
                    max_tokens=max_tokens,
                    temperature=temperature,
                    price_file=price_file,
                    native_tools=native_tools,
                )
            )
    return models[0] if len(models) == 1 else ChainModel(models)


def check_credentials(model: Model) -> None:
    """Before anything starts: raise ModelError when LiteLLM cannot route a model's name, and
    ModelAuthError naming the environment variables LiteLLM reads a model's key from when none is
    set (every LiteLLM model of a chain is checked)."""
    for part in getattr(model, "models", None) or [model]:
        unknown = getattr(part, "unknown_provider", None)
        why = unknown() if callable(unknown) else None
        if why:
            raise ModelError(
                f"{part.name}: LiteLLM cannot tell which provider serves this model ({why}). Name it "
                "provider/model (openai/gpt-4o, anthropic/claude-sonnet-4-5, ollama/llama3), use builtin or "
                "scripted:FILE, or give --api-base for an OpenAI-compatible server. Nothing was started."
            )
        missing = getattr(part, "missing_credentials", None)
        keys = missing() if callable(missing) else []
        if keys:
            names, verb = ", ".join(keys), "is" if len(keys) == 1 else "are"
            raise ModelAuthError(
                f"{part.name} has no credentials: LiteLLM reads them from {names} in the environment, which "
                f"{verb} not set. Set it (export {keys[0]}=...), or give --api-base for an OpenAI-compatible "
                "server. Nothing was started."
            )
