"""A run's conversation as the model was sent it, for `repofix show RUN --messages`: the system
prompt, the task, every reply with its tool calls and every observation, in order. Compressed
payloads (the built-in engine's base64 blobs) are summarised, not dumped; the caller escapes the
text for the terminal."""

from __future__ import annotations

import json
import re
from typing import Any

from repofix.agent.history import RECORD

# A long run of base64 characters: a payload no person reads (the built-in engine sends its
# coverage spectra and candidate verdicts this way).
_BLOB = re.compile(r"[A-Za-z0-9+/]{256,}={0,2}")


def summarise(text: str) -> str:
    """`text` with every base64 payload replaced by a one-line note of its size."""
    return _BLOB.sub(lambda m: f"[base64 payload, {len(m.group()) * 3 // 4} bytes, not shown]", text)


def _plain(value: Any) -> Any:
    if isinstance(value, str):
        return summarise(value)
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def messages_json(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages in OpenAI's shape (role, content, tool_calls, tool_call_id, name), payloads
    summarised; `record` is the one line a step became once older steps were folded."""
    shown = []
    for message in messages:
        item: dict[str, Any] = {
            key: message[key]
            for key in ("role", "content", "tool_calls", "tool_call_id", "name")
            if key in message
        }
        record = (message.get(RECORD) or {}).get("record")
        if record:
            item["record"] = record
        shown.append(_plain(item))
    return shown


def render(messages: list[dict[str, Any]]) -> str:
    """The conversation as text: a header per message, then its content and tool calls."""
    blocks = []
    for number, message in enumerate(messages_json(messages)):
        role = message.get("role", "?")
        head = f"== [{number}] {role}"
        if role == "tool":
            head += f" ({message.get('name', '')} {message.get('tool_call_id', '')})".replace(" )", ")")
        parts = [head + " =="]
        content = message.get("content")
        if isinstance(content, list):  # content blocks: their text
            content = "\n".join(
                str(block.get("text", block)) if isinstance(block, dict) else str(block) for block in content
            )
        if content:
            parts.append(str(content).rstrip("\n"))
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            parts.append(f"-> {function.get('name', '?')} ({call.get('id', '')})")
            parts.extend(_arguments(function.get("arguments")))
        if message.get("record"):
            parts.append(f"(when folded, sent as: {message['record']})")
        blocks.append("\n".join(parts))
    return "\n\n".join(blocks)


def _arguments(raw: Any) -> list[str]:
    """A tool call's arguments, one per line; a multi-line value (code, an edit) as a block."""
    try:
        arguments = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return [f"   (unreadable arguments) {raw}"]
    if not isinstance(arguments, dict):
        return [f"   {arguments!r}"]
    lines = []
    for name, value in arguments.items():
        if isinstance(value, str) and "\n" in value:
            lines.append(f"   {name}:")
            lines.extend(f"   | {line}" for line in value.rstrip("\n").split("\n"))
        else:
            lines.append(f"   {name}: {json.dumps(value, ensure_ascii=False)}")
    return lines
