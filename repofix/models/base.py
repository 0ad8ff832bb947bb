"""The model protocol every room codes against: `Model.query(messages, tools) -> ModelReply`.

Messages and tools use the OpenAI chat-completions shapes (what LiteLLM speaks), so the loop
builds one conversation whatever the provider. Cheap to import: no LiteLLM here.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, runtime_checkable

# Set by the history on the message that ends the stable prefix of a view: where a prompt-cache
# breakpoint belongs. Models remove it before sending.
CACHE_MARK = "repofix_cache"


class ModelError(Exception):
    """A model call failed in a way that retrying will not fix (bad request, exhausted script...)."""


class ModelAuthError(ModelError):
    """The provider rejected the credentials. Never retried."""


class ContextLengthError(ModelError):
    """The conversation no longer fits the model's context window. Never retried."""


class CostLimitExceeded(ModelError):
    """Raised *before* a call that could take spending past the cap; no request was sent."""


class ModelUnavailable(ModelError):
    """The provider kept failing (rate limits, server errors, timeouts) after every retry,
    or a model in a chain gave up and nothing follows it."""


class ModelGaveUp(ModelUnavailable):
    """Every model in a chain gave up; the message ends with the last one's reason."""


@dataclass
class ToolCall:
    """One action the model asked for. `arguments` is always a dict; when the model wrote
    arguments that are not a JSON object, `arguments` is {} and `parse_error` says why, so the
    loop can answer with a precise format error instead of guessing."""

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    parse_error: str | None = None

    def to_openai(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": json.dumps(self.arguments)},
        }


@dataclass
class ModelReply:
    """What one model call produced, plus its accounting.

    `cost_known` is False when no price was found (then `cost` is 0.0). `raw` is the
    provider's response as plain JSON data, for the trajectory; it never holds credentials.
    `give_up` is how a model in a chain says "I cannot do this, ask the next one".
    `notes` carries one-time remarks for the user (e.g. "price unknown").
    `input_tokens` counts every prompt token, cached ones included.
    """

    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    cost_known: bool = True
    raw: dict[str, Any] | None = None
    give_up: bool = False
    notes: list[str] = field(default_factory=list)
    model: str = ""
    cached_tokens: int = 0  # of input_tokens, read from the provider's prompt cache
    cache_write_tokens: int = 0  # of input_tokens, written to the prompt cache (Anthropic bills them extra)

    def assistant_message(self) -> dict[str, Any]:
        """The reply as an OpenAI assistant message, ready to append to the conversation."""
        # Some providers reject an empty text block next to tool calls; None is accepted everywhere.
        content = self.content or (None if self.tool_calls else "")
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if self.tool_calls:
            message["tool_calls"] = [call.to_openai() for call in self.tool_calls]
        return message

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelReply:
        """Rebuild a reply from `to_dict()` output (e.g. a trajectory step); unknown keys are ignored
        so newer trajectories still load."""
        calls = []
        for index, call in enumerate(data.get("tool_calls") or []):
            if "function" in call:  # tolerate OpenAI-shaped calls too
                function = call["function"]
                arguments, error = parse_arguments(function.get("arguments"))
                calls.append(
                    ToolCall(call.get("id") or f"call_{index}", function.get("name", ""), arguments, error)
                )
            else:
                calls.append(
                    ToolCall(
                        id=call.get("id") or f"call_{index}",
                        name=call.get("name", ""),
                        arguments=dict(call.get("arguments") or {}),
                        parse_error=call.get("parse_error"),
                    )
                )
        return cls(
            content=data.get("content") or "",
            tool_calls=calls,
            input_tokens=int(data.get("input_tokens") or 0),
            output_tokens=int(data.get("output_tokens") or 0),
            cost=float(data.get("cost") or 0.0),
            cost_known=bool(data.get("cost_known", True)),
            raw=data.get("raw"),
            give_up=bool(data.get("give_up", False)),
            notes=list(data.get("notes") or []),
            model=data.get("model") or "",
            cached_tokens=int(data.get("cached_tokens") or 0),
            cache_write_tokens=int(data.get("cache_write_tokens") or 0),
        )


def parse_arguments(arguments: Any) -> tuple[dict[str, Any], str | None]:
    """Tool-call arguments as a dict, or ({}, reason) when they are not a JSON object."""
    if arguments is None or arguments == "":
        return {}, None
    if isinstance(arguments, dict):
        return arguments, None
    try:
        value = json.loads(arguments)
    except (TypeError, ValueError) as error:
        return {}, f"arguments are not valid JSON: {error}"
    if not isinstance(value, dict):
        return {}, f"arguments must be a JSON object, got {type(value).__name__}"
    return value, None


def tool_message(call: ToolCall, content: str) -> dict[str, Any]:
    """The conversation turn that answers one tool call (OpenAI's `role: tool` shape); the
    text protocol rewrites it for models without native tools."""
    return {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": content}


@runtime_checkable
class Model(Protocol):
    """Anything that answers a conversation. `tools` are OpenAI function-tool schemas."""

    name: str

    def query(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> ModelReply: ...


@dataclass
class Budget:
    """Money spent so far against an optional cap, shared by every model of a run (and restored
    on resume by passing the recorded `spent`)."""

    max_cost: float | None = None
    spent: float = 0.0

    def check(self, estimate: float = 0.0) -> None:
        """Refuse a call whose worst-case cost would take spending past the cap."""
        if self.max_cost is None:
            return
        if self.spent >= self.max_cost or self.spent + estimate > self.max_cost:
            raise CostLimitExceeded(
                f"cost cap reached: spent ${self.spent:.4f} of ${self.max_cost:.4f}; the next call could "
                f"cost up to ${estimate:.4f}. Raise --max-cost to continue."
            )

    def add(self, cost: float) -> None:
        self.spent += cost
