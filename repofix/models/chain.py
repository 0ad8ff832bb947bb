"""`builtin,openai/gpt-4o`: ask the first model until it gives up, then the next, and so on.

A model gives up by returning a reply with `give_up=True` (its `content` says why) or by raising
`ModelUnavailable`. The switch is for good: the same conversation goes to the next model at once,
and every later call goes there too. Auth errors and the cost cap are never a reason to switch.
"""

from __future__ import annotations

import logging
from typing import Any

from repofix.models.base import Model, ModelGaveUp, ModelReply, ModelUnavailable

log = logging.getLogger("repofix.models")


class ChainModel:
    def __init__(self, models: list[Model]) -> None:
        if not models:
            raise ValueError("a model chain needs at least one model")
        self.models = models
        self.current = 0
        self.name = ",".join(model.name for model in models)

    @property
    def active(self) -> Model:
        return self.models[self.current]

    @property
    def reads_whole_output(self) -> bool:
        return reads_whole_output(self.active)

    def context_window(self) -> int | None:
        window = getattr(self.active, "context_window", None)
        return window() if callable(window) else None

    def query(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> ModelReply:
        notes: list[str] = []
        spent = ModelReply()  # what abandoned replies cost, carried into the returned one
        while True:
            model = self.active
            try:
                reply = model.query(messages, tools)
            except ModelUnavailable as error:
                reason, gave_up = str(error), isinstance(error, ModelGaveUp)
            else:
                gave_up = reply.give_up
                if not reply.give_up:
                    reply.notes = notes + reply.notes
                    reply.cost += spent.cost
                    reply.input_tokens += spent.input_tokens
                    reply.output_tokens += spent.output_tokens
                    return reply
                spent.cost += reply.cost
                spent.input_tokens += reply.input_tokens
                spent.output_tokens += reply.output_tokens
                reason = reply.content.strip() or "no reason given"
            if self.current + 1 >= len(self.models):
                kind = ModelGaveUp if gave_up else ModelUnavailable  # giving up is a stop reason of its own
                raise kind(f"every model in the chain {self.name} gave up; the last said: {reason}")
            self.current += 1
            note = f"{model.name} gave up ({reason}); switching to {self.active.name}"
            log.warning(note)
            notes.append(note)


def reads_whole_output(model: Model) -> bool:
    """Whether `model` needs every observation whole: the built-in repair engine reads a machine
    payload from its actions' output and has no context window to protect."""
    return bool(getattr(model, "reads_whole_output", getattr(model, "name", "") == "builtin"))
