"""The same trajectory through the LiteLLM model over real HTTP (the OpenAI-compatible test server)
as through the scripted model: same actions, same observations; the server sees the tools and
never an API key taken from the environment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agent_helpers import RIGHT_FIX, WRONG_FIX, act, clamp_repo, script
from conftest import require_backend
from openai_server import OpenAIServer, text, tool_call

from repofix.agent import AgentRequest, run_agent
from repofix.agent.actions import TOOL_NAMES, openai_tools
from repofix.config import Settings

FAKE_KEY = "sk-envonly-0123456789abcdef"
REPLIES = [
    act("shell", "Is a key visible in here?", command="printenv OPENAI_API_KEY; echo exit=$?"),
    WRONG_FIX,
    RIGHT_FIX,
]


def as_response(reply: dict, number: int, native: bool):
    """A scripted reply as the provider would send it: a native tool call, or a fenced text block."""
    if native:
        return tool_call(
            reply["tool"], reply["arguments"], call_id=f"call_{number}", content=reply["content"]
        )
    block = f"```tool:{reply['tool']}\n{json.dumps(reply['arguments'])}\n```"
    return text(f"{reply['content']}\n\n{block}")


def run(
    tmp_path: Path, name: str, model: str, notes: list[str] | None = None, **settings
) -> tuple[object, dict]:
    repo = clamp_repo(tmp_path / name / "repo")
    request = AgentRequest(
        repo=repo,
        mode="fix",
        settings=Settings(model=model, sandbox="bwrap", home=str(tmp_path / name / "home"), **settings),
    )
    notes = [] if notes is None else notes

    def progress(event: dict) -> None:  # the notes the run shows as it goes
        if event["event"] == "note":
            notes.append(event["message"])

    outcome = run_agent(request, progress)
    return outcome, json.loads(Path(outcome.trajectory_file).read_text(encoding="utf-8"))


def sequence(record: dict) -> list[tuple]:
    return [
        (s["action"], s["arguments"], s["observation"], s["checkpoint"], s["tests"]) for s in record["steps"]
    ]


@pytest.fixture(scope="module")
def scripted(tmp_path_factory):
    require_backend("bwrap")
    tmp = tmp_path_factory.mktemp("scripted")
    outcome, record = run(tmp, "run", script(tmp / "replies.yaml", REPLIES))
    assert outcome.status == "done", outcome.message
    return record


@pytest.mark.bwrap
@pytest.mark.parametrize(
    "model, native",
    [("openai/test-model", False), ("openai/gpt-4o", True)],
    ids=["text-protocol", "native-tools"],
)
def test_litellm_over_http_gives_the_scripted_trajectory(tmp_path, monkeypatch, scripted, model, native):
    require_backend("bwrap")
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    with OpenAIServer() as server:
        server.add(*(as_response(reply, n, native) for n, reply in enumerate(REPLIES, 1)))
        url = server.url
        notes: list[str] = []
        outcome, record = run(tmp_path, "litellm", model, notes, api_base=url)
        requests = list(server.requests)
    assert outcome.status == "done", outcome.message
    assert sequence(record) == sequence(scripted)
    assert record["steps"][0]["observation"].startswith("exit=1")  # the key never entered the sandbox
    assert len(requests) == len(REPLIES)
    for request in requests:
        if native:
            assert request.body["tools"] == openai_tools()
        else:  # the text protocol describes every tool in the system message
            assert "tools" not in request.body
            system = request.messages[0]["content"]
            assert all(f"- `{name}`:" in system for name in TOOL_NAMES) and "```tool:" in system
        assert FAKE_KEY not in request.raw
    # later requests carry the observations the loop fed back
    assert "assert 10 == 5" in json.dumps(requests[2].messages)
    assert FAKE_KEY not in Path(outcome.trajectory_file).read_text(encoding="utf-8")
    assert record["model"] == model and record["settings"]["api_base"] == url
    # a model without a known price says so once, as the run goes; one with a price says nothing
    unpriced = [note for note in notes if note.startswith(f"no price known for {model}")]
    assert len(unpriced) == (0 if model == "openai/gpt-4o" else 1), notes
