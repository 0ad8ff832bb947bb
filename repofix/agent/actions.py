"""The actions a model can take, as tool definitions, and the parsing of a reply into exactly
one action or a specific format error the model can correct."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field, replace
from typing import Any

from repofix.models import ModelReply

TOOLS: list[dict[str, Any]] = [
    {
        "name": "shell",
        "description": "Run a shell command in the repository's sandbox (bash). `cd` and "
        "`export` persist between calls. No network. Output is capped (head and tail kept).",
        "parameters": {
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "the command line"},
                "timeout": {"type": "number", "description": "seconds (default: the run's command timeout)"},
            },
            "required": ["command"],
        },
    },
    {
        "name": "python",
        "description": "Run Python in a namespace that persists between calls. Preloaded helpers: "
        "find(glob), grep(pattern, glob='**/*.py'), show(path, start=1, end=None), "
        "tests(*ids) -> {test id: outcome}. Chain many steps in one script and print only what matters.",
        "parameters": {"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]},
    },
    {
        "name": "view",
        "description": "Show a file (or a line range of it) with line numbers.",
        "parameters": {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "start": {"type": "integer"},
                "end": {"type": "integer"},
            },
            "required": ["path"],
        },
    },
    {
        "name": "edit",
        "description": "Change files. `text` holds SEARCH/REPLACE blocks, whole-file blocks, or a "
        "unified diff, exactly as described in the instructions. All of it applies, or nothing does.",
        "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    },
    {
        "name": "run_tests",
        "description": "Run the test suite, or only the given pytest node ids, and get a "
        "condensed report of what fails and why.",
        "parameters": {
            "type": "object",
            "properties": {"tests": {"type": "array", "items": {"type": "string"}}},
        },
    },
    {
        "name": "submit",
        "description": "Say you are finished. repofix runs the full test suite and accepts the "
        "work only if the task's tests pass and nothing that passed before fails.",
        "parameters": {
            "type": "object",
            "properties": {"summary": {"type": "string"}},
            "required": ["summary"],
        },
    },
]
TOOL_NAMES = [tool["name"] for tool in TOOLS]
_TYPES: dict[str, type | tuple[type, ...]] = {
    "string": str,
    "number": (int, float),
    "integer": int,
    "array": list,
    "object": dict,
}


def openai_tools() -> list[dict[str, Any]]:
    return [{"type": "function", "function": tool} for tool in TOOLS]


@dataclass(frozen=True)
class Action:
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    call_id: str = ""

    def key(self) -> str:
        """Identity for the stuck detector."""
        return f"{self.name}:{sorted(self.arguments.items())!r}"


@dataclass(frozen=True)
class FormatError:
    message: str
    call_id: str = ""


def parse_action(reply: ModelReply) -> Action | FormatError:
    """The one action in `reply`, or what is wrong with the reply."""
    calls = reply.tool_calls
    if not calls:
        return FormatError(
            "Your reply contained no action. Reply with exactly one action "
            f"({', '.join(TOOL_NAMES)}); use `submit` when you are finished."
        )
    if len(calls) > 1:
        names = ", ".join(call.name for call in calls)
        return FormatError(
            f"Your reply contained {len(calls)} actions ({names}); exactly one is allowed per "
            "reply. Nothing was run. Send them one at a time, or chain steps in one `python` "
            "script.",
            calls[0].id,
        )
    call = calls[0]
    spec = next((tool for tool in TOOLS if tool["name"] == call.name), None)
    if spec is None:
        return FormatError(
            f"Unknown action {call.name!r}. The actions are: {', '.join(TOOL_NAMES)}.", call.id
        )
    if call.parse_error:
        return FormatError(
            f"The arguments of `{call.name}` could not be read: {call.parse_error}. "
            "Send them as a JSON object.",
            call.id,
        )
    properties = spec["parameters"]["properties"]
    for name in spec["parameters"].get("required", []):
        if name not in call.arguments:
            return FormatError(f"`{call.name}` needs the argument `{name}`.", call.id)
    for name, value in call.arguments.items():
        if name not in properties:
            return FormatError(
                f"`{call.name}` has no argument `{name}`; it takes: {', '.join(properties)}.", call.id
            )
        expected = _TYPES[properties[name]["type"]]
        if not isinstance(value, expected) or isinstance(value, bool):
            return FormatError(
                f"`{call.name}`: `{name}` must be a {properties[name]['type']}, not {type(value).__name__}.",
                call.id,
            )
    return Action(call.name, dict(call.arguments), call.id)


def workspace_relative(path: str, workdir: str) -> str | None:
    """`path` as a model writes it (relative, `./x`, or absolute under the sandbox's `workdir`, such as
    `/workspace/pkg/mod.py`) made relative to the repository root; None when it leaves the repository."""
    root = workdir.rstrip("/")
    if path.startswith("/"):
        if path != root and not path.startswith(root + "/"):
            return None
        path = path[len(root) :].lstrip("/") or "."
    norm = posixpath.normpath(path)
    return None if norm == ".." or norm.startswith("../") else norm


def outside(path: str, workdir: str) -> str:
    """The observation for a path outside the repository (the run goes on)."""
    return (
        f"{path}: outside the repository ({workdir}). Give paths relative to the repository root "
        f"(pkg/mod.py) or under {workdir}/; use `shell` to look at other files."
    )


def resolve_paths(action: Action, workdir: str) -> tuple[Action, str]:
    """`action` with the paths of `view` and `run_tests` made relative to the repository, or an
    observation refusing a test id outside it. `view` keeps a path outside the repository (a saved
    log, or a refusal) for `execute.view` to judge; edits resolve their paths in `repofix.edits`."""
    arguments = dict(action.arguments)
    if action.name == "view" and isinstance(arguments.get("path"), str):
        arguments["path"] = workspace_relative(arguments["path"], workdir) or arguments["path"]
    elif action.name == "run_tests" and arguments.get("tests"):
        ids = []
        for test in arguments["tests"]:
            file, sep, rest = str(test).partition("::")
            if file.startswith("/") or file.startswith(".."):
                relative = workspace_relative(file, workdir)
                if relative is None:
                    return action, outside(file, workdir) + " Nothing was run."
                file = relative
            ids.append(file + sep + rest)
        arguments["tests"] = ids
    return replace(action, arguments=arguments), ""
