"""The text protocol for models without native tool calling: tools are described in the system
prompt, the model answers with fenced blocks (```tool:NAME ... ```), and the conversation's
tool-call turns are rewritten as plain text turns. The loop never sees the difference: replies
carry `tool_calls` either way."""

from __future__ import annotations

import json
import re
from importlib import resources
from string import Template
from typing import Any

from repofix.models.base import CACHE_MARK, ToolCall

_BLOCK = re.compile(
    r"^(?P<fence>`{3,}|~{3,})tool:(?P<name>[\w.\-]+)[ \t]*\n(?:(?P<body>.*?)\n)?(?P=fence)[ \t]*$",
    re.MULTILINE | re.DOTALL,
)


def instructions(tools: list[dict[str, Any]]) -> str:
    """The system-prompt section that teaches the protocol and lists the tools."""
    template = resources.files("repofix.models").joinpath("prompts/text_protocol.md").read_text("utf-8")
    lines = []
    for tool in tools:
        function = tool.get("function", tool)
        parameters = function.get("parameters") or {}
        required = set(parameters.get("required") or [])
        lines.append(f"- `{function['name']}`: {function.get('description', '').strip()}")
        for name, spec in (parameters.get("properties") or {}).items():
            flag = "required" if name in required else "optional"
            lines.append(
                f"    - `{name}` ({spec.get('type', 'any')}, {flag}): {spec.get('description', '').strip()}"
            )
    return Template(template).substitute(tools="\n".join(lines))


def _single_text_parameter(tool: dict[str, Any] | None) -> str | None:
    """The name of a tool's only (or only required) string argument, if it has exactly one."""
    if tool is None:
        return None
    parameters = tool.get("function", tool).get("parameters") or {}
    properties = parameters.get("properties") or {}
    candidates = list(parameters.get("required") or []) or list(properties)
    if len(candidates) == 1 and properties.get(candidates[0], {}).get("type", "string") == "string":
        return candidates[0]
    return None


def parse_calls(text: str, tools: list[dict[str, Any]] | None, id_prefix: str = "text_") -> list[ToolCall]:
    """Every ```tool:NAME block in `text`, in order, as tool calls with ids `{id_prefix}{n}`."""
    by_name = {tool.get("function", tool)["name"]: tool for tool in tools or []}
    calls = []
    for index, match in enumerate(_BLOCK.finditer(text), start=1):
        name, body = match["name"], (match["body"] or "")
        tool = by_name.get(name)
        single = _single_text_parameter(tool)
        arguments: dict[str, Any] = {}
        error = None
        parsed = _json_object(body)
        properties = set(
            ((tool or {}).get("function", tool or {}).get("parameters") or {}).get("properties") or []
        )
        if parsed is not None and (single is None or set(parsed) <= properties):
            arguments = parsed
        elif single is not None:
            arguments = {single: body}
        elif body.strip():
            error = f"the arguments of `{name}` must be a JSON object with its named arguments"
        calls.append(ToolCall(id=f"{id_prefix}{index}", name=name, arguments=arguments, parse_error=error))
    return calls


def _json_object(body: str) -> dict[str, Any] | None:
    if not body.strip().startswith("{"):
        return None
    try:
        value = json.loads(body)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def render_call(call: ToolCall | dict[str, Any]) -> str:
    """A tool call written the way the protocol expects, for rewriting native history as text."""
    if isinstance(call, dict):  # OpenAI-shaped
        function = call.get("function", call)
        name, arguments = function.get("name", ""), function.get("arguments", {})
        body = arguments if isinstance(arguments, str) else json.dumps(arguments)
    else:
        name, body = call.name, json.dumps(call.arguments)
    fence = "```"
    while fence in body:
        fence += "`"
    return f"{fence}tool:{name}\n{body}\n{fence}"


def to_text_messages(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
) -> list[dict[str, Any]]:
    """The conversation rewritten for a model that only reads and writes text. Consecutive user
    turns (the answers to several tool calls) become one, so the roles alternate as providers require."""
    names: dict[str, str] = {}
    result: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        mark = {CACHE_MARK: True} if message.get(CACHE_MARK) else {}
        if role == "assistant" and message.get("tool_calls"):
            content = message.get("content") or ""
            if "tool:" not in content:  # written by a native-tools model earlier in a chain
                content = "\n\n".join([content, *map(render_call, message["tool_calls"])]).strip()
            for call in message["tool_calls"]:
                names[call.get("id", "")] = call.get("function", call).get("name", "")
            turn = {"role": "assistant", "content": content, **mark}
        elif role == "tool":
            name = message.get("name") or names.get(message.get("tool_call_id", ""), "the action")
            turn = {"role": "user", "content": f"Result of `{name}`:\n{message.get('content') or ''}", **mark}
        else:
            turn = dict(message)
        previous = result[-1] if result else None
        if (
            previous
            and previous["role"] == turn["role"] == "user"
            and isinstance(previous.get("content"), str)
            and isinstance(turn.get("content"), str)
        ):
            previous["content"] = f"{previous['content']}\n\n{turn['content']}"
            previous.update(mark)
        else:
            result.append(turn)
    if tools:
        guide = instructions(tools)
        if result and result[0].get("role") == "system":
            result[0] = {**result[0], "content": f"{result[0].get('content') or ''}\n\n{guide}".strip()}
        else:
            result.insert(0, {"role": "system", "content": guide})
    return result
