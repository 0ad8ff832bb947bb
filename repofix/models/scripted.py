"""A model that answers from a script: deterministic replies for tests, demos and replays.

A script is a list; each item is one reply:
- a string: the reply's text. Fenced ```tool:NAME blocks in it become tool calls, exactly as
  for a text-protocol LiteLLM model, so a script reads like what a real model writes;
- a mapping with any of `content`, `tool_calls` (a list of `{name, arguments, id?}`), the
  shorthand `tool` + `arguments` for one call, `give_up`, `input_tokens`, `output_tokens`, `cost`.
When the script runs out, `query` raises `ScriptExhausted` (a `ModelError`): a test that needs
more replies than it wrote should fail loudly rather than get an invented "submit".
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from repofix.models import text_protocol
from repofix.models.base import Budget, ModelError, ModelReply, ToolCall

_REPLY_KEYS = {
    "content",
    "tool_calls",
    "tool",
    "arguments",
    "give_up",
    "input_tokens",
    "output_tokens",
    "cost",
}


class ScriptExhausted(ModelError):
    """The scripted model was asked for more replies than its script holds."""


class ScriptedModel:
    """Returns the script's replies in order. `requests` keeps what each call was asked
    (messages and tools, deep-copied) so tests can check what the model saw."""

    def __init__(
        self,
        replies: Sequence[str | dict[str, Any] | ModelReply],
        *,
        name: str = "scripted",
        budget: Budget | None = None,
    ) -> None:
        self.name = name
        self.budget = budget or Budget()
        self._replies = [_to_reply(item, index) for index, item in enumerate(replies)]
        self.position = 0
        self.requests: list[tuple[list[dict[str, Any]], list[dict[str, Any]] | None]] = []

    @classmethod
    def from_file(cls, path: str | Path, *, budget: Budget | None = None) -> ScriptedModel:
        return cls(load_script(path), name=f"scripted:{path}", budget=budget)

    @property
    def remaining(self) -> int:
        return len(self._replies) - self.position

    def query(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> ModelReply:
        if self.position >= len(self._replies):
            raise ScriptExhausted(
                f"{self.name} has no reply left: its script holds {len(self._replies)} replies and all were used"
            )
        template = self._replies[self.position]
        # A scripted reply's declared cost stands in for the estimate, so cost caps are testable.
        self.budget.check(template.cost)
        self.requests.append((copy.deepcopy(messages), copy.deepcopy(tools)))
        self.position += 1
        reply = copy.deepcopy(template)
        if not reply.tool_calls and "tool:" in reply.content:
            reply.tool_calls = text_protocol.parse_calls(reply.content, tools)
            for number, call in enumerate(reply.tool_calls, start=1):
                call.id = f"call_{self.position}_{number}"
        reply.model = reply.model or self.name
        self.budget.add(reply.cost)
        return reply


def load_script(path: str | Path) -> list[Any]:
    """A script file: a YAML or JSON list of replies (or a mapping with a `replies` list)."""
    path = Path(path)
    try:
        text = path.read_text("utf-8")
    except OSError as error:
        raise ModelError(f"cannot read the script {path}: {error}") from error
    import yaml

    try:
        data = json.loads(text) if path.suffix.lower() == ".json" else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as error:
        raise ModelError(f"the script {path} cannot be parsed: {error}") from error
    if isinstance(data, dict) and "replies" in data:
        data = data["replies"]
    if not isinstance(data, list):
        raise ModelError(f"the script {path} must be a list of replies (or a mapping with `replies:`)")
    return data


def _to_reply(item: str | dict[str, Any] | ModelReply, index: int) -> ModelReply:
    if isinstance(item, ModelReply):
        return item
    if isinstance(item, str):
        return ModelReply(content=item)
    if not isinstance(item, dict):
        raise ModelError(f"script reply {index + 1} must be text or a mapping, not {type(item).__name__}")
    unknown = set(item) - _REPLY_KEYS
    if unknown:
        raise ModelError(
            f"script reply {index + 1} has unknown keys {sorted(unknown)}; allowed: {sorted(_REPLY_KEYS)}"
        )
    calls = list(item.get("tool_calls") or [])
    if "tool" in item:
        calls.append({"name": item["tool"], "arguments": item.get("arguments") or {}})
    tool_calls = []
    for number, call in enumerate(calls, start=1):
        if not isinstance(call, dict) or "name" not in call:
            raise ModelError(f"script reply {index + 1}: each tool call needs a `name`")
        arguments = call.get("arguments") or {}
        if not isinstance(arguments, dict):
            raise ModelError(f"script reply {index + 1}: arguments of `{call['name']}` must be a mapping")
        tool_calls.append(
            ToolCall(str(call.get("id") or f"call_{index + 1}_{number}"), str(call["name"]), arguments)
        )
    return ModelReply(
        content=str(item.get("content") or ""),
        tool_calls=tool_calls,
        input_tokens=int(item.get("input_tokens") or 0),
        output_tokens=int(item.get("output_tokens") or 0),
        cost=float(item.get("cost") or 0.0),
        give_up=bool(item.get("give_up", False)),
    )
