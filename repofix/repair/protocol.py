"""The built-in model's side of the agent's action protocol: the snippet it defines in the
sandbox's Python (which runs a repair worker and prints what it printed, compressed, after a mark),
reading that result back from the conversation, and the goal the loop states (which tests to
repair). Like an LLM's, everything it learns arrives as messages; nothing here runs on the host."""

from __future__ import annotations

import base64
import json
import zlib
from typing import Any

from repofix.models.base import ModelReply, ToolCall

MARK = "REPOFIX-BUILTIN:"

# Runs in the sandbox's persistent Python namespace (Python >= 3.8, stdlib only).
SNIPPET = """
import base64 as _b, json as _j, os as _o, subprocess as _s, sys as _y, tempfile as _t, zlib as _z
def _repofix_builtin(request, source, timeout):
    path = _o.path.join(_t.gettempdir(), "repofix_repair_worker.py")
    with open(path, "w") as handle:
        handle.write(source)
    done = _s.run([_y.executable, path], input=_j.dumps(request), capture_output=True, text=True,
                  timeout=timeout, cwd=_o.getcwd())
    payload = {"stdout": done.stdout, "stderr": done.stderr[-3000:], "code": done.returncode}
    print(MARK + _b.b64encode(_z.compress(_j.dumps(payload).encode(), 9)).decode())
""".replace("MARK", repr(MARK), 1)


def tool_call(name: str, arguments: dict[str, Any], step: int) -> ModelReply:
    return ModelReply(content="", tool_calls=[ToolCall(f"builtin_{step}", name, arguments)], model="builtin")


def marked_payload(messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    for message in reversed(messages):
        if message.get("role") in ("tool", "user") and MARK in str(message.get("content") or ""):
            text = str(message["content"])
            blob = text[text.rindex(MARK) + len(MARK) :].split()[0]
            try:
                return json.loads(zlib.decompress(base64.b64decode(blob)))
            except (ValueError, zlib.error):
                return None  # cut by the output cap: the caller gives up with a message
        if message.get("role") == "tool":
            return None
    return None


def read_goal(messages: list[dict[str, Any]]) -> tuple[str, list[str]]:
    """("fix" | "red" | "none", target test ids) from the loop's goal, which follows the task text
    (never from inside the task text: that is the user's or an issue's)."""
    for message in messages:
        text = str(message.get("content") or "")
        if message.get("role") != "user" or "TASK>>>" not in text:
            continue
        # the goal sits between the task's end marker and the repository map (both the template's)
        after = text.split("\n# Repository map", 1)[0].rsplit("TASK>>>", 1)[-1]
        if "Goal, in two phases." in after:
            return "red", []
        lines = after.splitlines()
        start = next((i for i, line in enumerate(lines) if line.startswith("Goal:")), None)
        if start is None:
            return "none", []
        targets = []
        for line in lines[start + 1 :]:
            if not line.startswith("- "):
                break
            targets.append(line[2:].strip())
        return "fix", targets
    return "none", []
