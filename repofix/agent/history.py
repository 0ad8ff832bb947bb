"""What the model is sent: the run keeps the whole conversation (the record), and every call gets
a compact view of it.

- The system prompt, the task and the last `keep` to `2 * keep - 1` steps go in full. Older steps
  shrink to one line each (action, outcome, checkpoint, test counts, where the full text is).
  Steps are folded `keep` at a time, not one per call, so the prefix of the view stays byte-identical
  for `keep` calls in a row and providers' prompt caches keep hitting (evals/bench_context.py
  measured both policies).
- Messages are only rewritten, never dropped: every tool call keeps its answer and the roles
  alternate exactly as in the record, as providers require.
- A reply or tool-call argument larger than the observation budget is sent cut (it is kept whole in
  the record, once).
- The view never exceeds the model's context window; when the provider still says it is too long,
  the view is shrunk and the call retried once.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from repofix.agent.observe import LOG_PATH
from repofix.models import ContextLengthError, Model, ModelReply, tool_message
from repofix.models.base import CACHE_MARK
from repofix.models.tokens import count_messages, fit

RECORD = "repofix"  # our metadata on a message (its one-line record); never sent to a provider
REPLY_TOKENS = 2000  # a recent reply (or one tool-call argument) is sent cut above this
STORE_ONCE = 64 * 1024  # characters: a longer reply text is stored in the trajectory once
OLD_TEXT = 300  # characters of an old step's thought and arguments that stay
_STATUS = re.compile(r"^\[(exit code -?\d+|timed out[^;\]]*|killed[^\]]*)", re.MULTILINE)


def answers(reply: ModelReply, observation: str, record: str) -> list[dict[str, Any]]:
    """The turns answering `reply`: every tool call gets one (only the first ran), or one user turn."""
    if reply.tool_calls:
        turns = [
            tool_message(call, observation if index == 0 else "Not run: one action per reply.")
            for index, call in enumerate(reply.tool_calls)
        ]
    else:
        turns = [{"role": "user", "content": observation}]
    turns[0][RECORD] = {"record": record}
    return turns


def step_reply(reply: ModelReply, message: int) -> dict[str, Any]:
    """The reply as the trajectory's step keeps it; an oversized text is kept once, in the
    conversation (`messages[message]`), and the step points at it."""
    data = reply.to_dict()
    if len(reply.content) > STORE_ONCE:
        data["content"], data["content_in_message"] = "", message
    return data


def record_line(
    step: int,
    action: str,
    arguments: dict[str, Any],
    observation: str,
    checkpoint: int | None,
    tests: str,
    where: str = "",
) -> str:
    """The one line an old step becomes in the model's view; `where` is the file holding its full text."""
    argument = next((str(value) for value in arguments.values() if value not in (None, "")), "")
    argument = " ".join(argument.split())
    argument = f" {argument[:80]}{'…' if len(argument) > 80 else ''}" if argument else ""
    status = _STATUS.search(observation)
    lines = [line for line in observation.splitlines() if line.strip()]
    outcome = status[1] if status else (" ".join(lines[0].split())[:100] if lines else "(no output)")
    logs = LOG_PATH.findall(observation)
    where = where or (logs[-1] if logs else "")
    full = f"; full text: {where}" if where else ""
    return f"[step {step}: {action}{argument} -> {outcome}; checkpoint {checkpoint}; tests: {tests}{full}]"


def compact(messages: list[dict[str, Any]], keep: int, batch: int | None = None) -> list[dict[str, Any]]:
    """The view of `messages` to send. `keep` <= 0 sends every step in full."""
    starts = [i for i, message in enumerate(messages) if message.get("role") == "assistant"]
    if keep <= 0 or not starts:
        folded = 0
    else:
        batch = batch or keep
        folded = max(0, (len(starts) - keep) // batch * batch)
    boundary = starts[folded] if folded < len(starts) else len(messages)
    first = starts[0] if starts else len(messages)
    view = []
    for index, message in enumerate(messages):
        if first <= index < boundary:
            view.append(_folded(message))
        elif message.get("role") == "assistant" and index >= first:
            view.append(_bounded_reply(message))
        else:
            view.append({k: v for k, v in message.items() if k != RECORD})
    if view:  # everything up to here stays identical until the next fold
        stable = max(boundary, first) - 1
        view[max(stable, 0)][CACHE_MARK] = True
    return view


def _folded(message: dict[str, Any]) -> dict[str, Any]:
    if message.get("role") == "assistant":
        folded: dict[str, Any] = {"role": "assistant", "content": _short(message.get("content"))}
        if message.get("tool_calls"):
            folded["tool_calls"] = [_short_call(call, OLD_TEXT) for call in message["tool_calls"]]
            folded["content"] = folded["content"] or None
        return folded
    bare = {k: v for k, v in message.items() if k != RECORD}
    record = (message.get(RECORD) or {}).get("record")
    if record:
        bare["content"] = record
    elif isinstance(bare.get("content"), str) and len(bare["content"]) > OLD_TEXT:
        bare["content"] = _short(bare["content"])
    return bare


def _bounded_reply(message: dict[str, Any]) -> dict[str, Any]:
    bounded = {k: v for k, v in message.items() if k != RECORD}
    if isinstance(bounded.get("content"), str):
        bounded["content"] = _bounded(bounded["content"], REPLY_TOKENS)
    if bounded.get("tool_calls"):
        bounded["tool_calls"] = [_short_call(call, None) for call in bounded["tool_calls"]]
    return bounded


def _short(text: Any) -> str:
    text = text if isinstance(text, str) else ""
    return (
        text if len(text) <= OLD_TEXT else f"{text[:OLD_TEXT]}… [{len(text)} characters in the run's record]"
    )


def _short_call(call: dict[str, Any], chars: int | None) -> dict[str, Any]:
    """A tool call with long string arguments cut: to `chars` characters, or (None) to the reply budget."""
    function = call.get("function") or {}
    arguments = function.get("arguments")
    if not isinstance(arguments, str) or len(arguments) <= (chars or REPLY_TOKENS):
        return call
    try:
        values = json.loads(arguments)
    except ValueError:
        values = None
    if not isinstance(values, dict):
        cut = _short(arguments) if chars else _bounded(arguments, REPLY_TOKENS)
        return {**call, "function": {**function, "arguments": cut}}
    for name, value in values.items():
        if isinstance(value, str):
            values[name] = _short(value) if chars else _bounded(value, REPLY_TOKENS)
    return {**call, "function": {**function, "arguments": json.dumps(values)}}


@functools.lru_cache(maxsize=256)
def _bounded(text: str, budget: int) -> str:
    if len(text) <= budget:  # a token is at least one character: no need to count
        return text
    return fit(text, budget, "sent cut: the whole text is in the run's record")


# -- the call ---------------------------------------------------------------------------------
def query(
    model: Model, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, keep: int
) -> ModelReply:
    """Ask `model` with a compact view of `messages` that fits its context window; when the
    provider says it does not fit anyway, shrink the view and retry once."""
    view = compact(messages, keep)
    window = _window(model)
    if window and count_messages(_plain(view), tools) > window:
        view = shrink(messages, tools, window, keep)
    try:
        return model.query(view, tools=tools)
    except ContextLengthError:
        limit = int(count_messages(_plain(view), tools) * 0.6)
        return model.query(shrink(messages, tools, limit, keep), tools=tools)


def shrink(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, limit: int, keep: int
) -> list[dict[str, Any]]:
    """The largest view within `limit` tokens: fewer full steps, then every message cut to a share."""
    for steps in (min(keep, 2) if keep > 0 else 2, 1):
        view = compact(messages, steps, batch=1)
        total = count_messages(_plain(view), tools)
        if total <= limit:
            return view
    share = max(limit // max(len(view) // 2, 4), 100)
    view = [
        {**m, "content": fit(m["content"], share, "cut to fit the context window")}
        if isinstance(m.get("content"), str) and len(m["content"]) > share
        else m
        for m in view
    ]
    total = count_messages(_plain(view), tools)
    if total > limit:
        raise ContextLengthError(
            f"even shrunk to {total} tokens the conversation exceeds the {limit}-token limit for this call"
        )
    return view


def _plain(view: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in m.items() if k != CACHE_MARK} for m in view]


def _window(model: Model) -> int | None:
    window = getattr(model, "context_window", None)
    return window() if callable(window) else None
