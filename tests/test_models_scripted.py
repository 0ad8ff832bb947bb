"""Scripted, replay and chain models, the text protocol, and make_model's specs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from openai_server import OpenAIServer, text

from repofix.models import (
    FACTORIES,
    Budget,
    ChainModel,
    CostLimitExceeded,
    ModelError,
    ModelGaveUp,
    ModelReply,
    ScriptedModel,
    ScriptExhausted,
    ToolCall,
    describe_missing_model,
    load_replies,
    make_model,
)
from repofix.models.text_protocol import parse_calls, to_text_messages

USER = [{"role": "user", "content": "Fix the bug."}]


def tool(name: str, **properties: str) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": f"{name} tool",
            "parameters": {
                "type": "object",
                "properties": {key: {"type": kind} for key, kind in properties.items()},
                "required": list(properties),
            },
        },
    }


TOOLS = [tool("run_shell", command="string"), tool("edit", path="string", diff="string"), tool("submit")]


# --- text protocol ---------------------------------------------------------------------------


def test_parse_calls_reads_raw_json_and_empty_bodies():
    reply = (
        "Let me look.\n```tool:run_shell\ngrep -rn 'x' .\n```\n"
        '```tool:edit\n{"path": "a.py", "diff": "--- a\\n+++ b"}\n```\n'
        "```tool:submit\n```"
    )
    calls = parse_calls(reply, TOOLS)
    assert [(c.name, c.arguments, c.parse_error) for c in calls] == [
        ("run_shell", {"command": "grep -rn 'x' ."}, None),
        ("edit", {"path": "a.py", "diff": "--- a\n+++ b"}, None),
        ("submit", {}, None),
    ]
    assert [c.id for c in calls] == ["text_1", "text_2", "text_3"]


def test_parse_calls_longer_fence_and_errors():
    body = "print('```')\n"
    reply = f"````tool:run_shell\n{body}````\n```tool:edit\nnot json\n```\n```python\nignored\n```"
    calls = parse_calls(reply, TOOLS)
    assert calls[0].arguments == {"command": body.rstrip("\n")}
    assert calls[1].name == "edit" and calls[1].arguments == {} and "JSON object" in calls[1].parse_error
    assert len(calls) == 2
    assert parse_calls("no actions here", TOOLS) == []
    assert parse_calls("```tool:unknown_tool\nx\n```", TOOLS)[0].name == "unknown_tool"


def test_to_text_messages_adds_the_protocol_without_a_system_message():
    messages = to_text_messages(USER, TOOLS)
    assert messages[0]["role"] == "system" and "`edit`" in messages[0]["content"]
    assert "`diff` (string, required)" in messages[0]["content"]
    assert messages[1:] == USER
    assert to_text_messages(USER, None) == USER


# --- scripted --------------------------------------------------------------------------------


def test_scripted_replies_in_order_and_records_requests():
    model = ScriptedModel(
        [
            "Running tests.\n```tool:run_shell\npytest -q\n```",
            {"tool": "edit", "arguments": {"path": "a.py", "diff": "d"}, "cost": 0.5, "input_tokens": 7},
            {"content": "done", "tool_calls": [{"name": "submit"}]},
        ]
    )
    first = model.query(USER, TOOLS)
    assert [(c.id, c.name, c.arguments) for c in first.tool_calls] == [
        ("call_1_1", "run_shell", {"command": "pytest -q"})
    ]
    second = model.query([*USER, first.assistant_message()], TOOLS)
    assert (second.tool_calls[0].name, second.cost, second.input_tokens) == ("edit", 0.5, 7)
    third = model.query(USER, TOOLS)
    assert third.content == "done" and third.tool_calls[0].name == "submit" and third.model == "scripted"
    assert model.requests[1][0][1]["tool_calls"][0]["function"]["name"] == "run_shell"
    assert model.requests[0][1] == TOOLS and model.remaining == 0 and model.budget.spent == 0.5
    with pytest.raises(ScriptExhausted, match="3 replies"):
        model.query(USER, TOOLS)


def test_scripted_is_deterministic():
    """Two models on the same script give the same whole sequence of replies, call ids included."""
    script = ["```tool:run_shell\nls\n```", {"tool": "submit"}, "```tool:run_shell\npwd\n```"]

    def replay() -> list[dict]:
        model = ScriptedModel(script)
        return [model.query(USER, TOOLS).to_dict() for _ in script]

    first, second = replay(), replay()
    assert first == second
    assert [(r["tool_calls"][0]["name"], r["tool_calls"][0]["arguments"]) for r in first] == [
        ("run_shell", {"command": "ls"}),
        ("submit", {}),
        ("run_shell", {"command": "pwd"}),
    ]


@pytest.mark.parametrize("suffix", ["yaml", "json"])
def test_scripted_from_file(tmp_path, suffix):
    replies = ["hello", {"tool": "run_shell", "arguments": {"command": "ls"}}]
    path = tmp_path / f"replies.{suffix}"
    path.write_text(
        json.dumps(replies)
        if suffix == "json"
        else "replies:\n  - hello\n  - tool: run_shell\n    arguments: {command: ls}\n"
    )
    model = make_model(f"scripted:{path}")
    assert model.query(USER).content == "hello"
    assert model.query(USER, TOOLS).tool_calls[0].arguments == {"command": "ls"}


def test_scripted_rejects_bad_scripts(tmp_path):
    with pytest.raises(ModelError, match="unknown keys"):
        ScriptedModel([{"contnet": "typo"}])
    with pytest.raises(ModelError, match="cannot read"):
        make_model(f"scripted:{tmp_path / 'missing.yaml'}")
    (tmp_path / "bad.yaml").write_text("a: [")
    with pytest.raises(ModelError, match="cannot be parsed"):
        make_model(f"scripted:{tmp_path / 'bad.yaml'}")


def test_scripted_cost_cap_refuses_before_replying():
    model = ScriptedModel(
        [{"content": "cheap", "cost": 0.4}, {"content": "dear", "cost": 0.4}], budget=Budget(max_cost=0.5)
    )
    assert model.query(USER).content == "cheap"
    with pytest.raises(CostLimitExceeded):
        model.query(USER)
    assert model.remaining == 1 and len(model.requests) == 1


# --- replay ----------------------------------------------------------------------------------


def trajectory_of(replies: list[ModelReply]) -> dict:
    steps = [{"n": 0, "observation": "baseline"}]
    steps += [{"n": i + 1, "reply": reply.to_dict(), "observation": "ok"} for i, reply in enumerate(replies)]
    return {"format_version": 1, "steps": steps}


def test_replay_reproduces_recorded_replies(tmp_path):
    recorded = [
        ModelReply("look", [ToolCall("c1", "run_shell", {"command": "ls"})], 10, 2, 0.01, True, {"id": "x"}),
        ModelReply("done", [ToolCall("c2", "submit")], 12, 1, 0.02, True),
    ]
    run = tmp_path / "runs" / "run-42"
    run.mkdir(parents=True)
    (run / "trajectory.json").write_text(json.dumps(trajectory_of(recorded)))
    for spec, options in [
        (f"replay:{run / 'trajectory.json'}", {}),
        (f"replay:{run}", {}),
        ("replay:run-42", {"runs_dir": tmp_path / "runs"}),
    ]:
        model = make_model(spec, **options)
        replayed = [model.query(USER, TOOLS), model.query(USER, TOOLS)]
        assert [(r.content, r.tool_calls, r.cost) for r in replayed] == [
            (r.content, r.tool_calls, r.cost) for r in recorded
        ]
        assert "replaying 2 recorded replies" in replayed[0].notes[0]
        with pytest.raises(ScriptExhausted):
            model.query(USER, TOOLS)


def test_load_replies_accepts_openai_shaped_calls_and_rejects_empty():
    trajectory = {
        "steps": [
            {
                "reply": {
                    "content": "",
                    "tool_calls": [
                        {
                            "id": "c9",
                            "type": "function",
                            "function": {"name": "run_shell", "arguments": '{"command": "ls"}'},
                        }
                    ],
                }
            }
        ]
    }
    assert load_replies(trajectory)[0].tool_calls == [ToolCall("c9", "run_shell", {"command": "ls"})]
    with pytest.raises(ModelError, match="no `steps`"):
        load_replies({})
    with pytest.raises(ModelError, match="no model replies"):
        load_replies({"steps": [{"observation": "x"}]})
    with pytest.raises(ModelError, match="no trajectory found"):
        make_model("replay:does-not-exist")


# --- chain, make_model, missing model ----------------------------------------------------------


def test_chain_switches_for_good_when_the_first_gives_up():
    first = ScriptedModel([{"content": "no candidate patch", "give_up": True, "cost": 0.1}], name="first")
    second = ScriptedModel(["one", "two"], name="second")
    chain = ChainModel([first, second])
    reply = chain.query(USER)
    assert reply.content == "one" and reply.cost == pytest.approx(0.1)
    assert "first gave up (no candidate patch); switching to second" in reply.notes[0]
    assert chain.query(USER).content == "two" and chain.active is second and chain.name == "first,second"
    assert second.requests[0][0] == USER


def test_chain_raises_when_everyone_gives_up():
    chain = ChainModel(
        [ScriptedModel([{"give_up": True}]), ScriptedModel([{"content": "x", "give_up": True}])]
    )
    with pytest.raises(ModelGaveUp, match="every model in the chain .* the last said: x$"):
        chain.query(USER)


def test_chain_of_scripted_and_litellm_through_the_server(tmp_path):
    script = tmp_path / "giveup.yaml"
    script.write_text("- {content: cannot repair this, give_up: true}\n")
    with OpenAIServer() as server:
        server.add(text("from the server", usage=(5, 5)))
        model = make_model(
            f"scripted:{script},openai/test-model", api_base=server.url, api_key="sk-x", max_cost=1.0
        )
        assert isinstance(model, ChainModel)
        assert model.models[0].budget is model.models[1].budget
        assert model.query(USER).content == "from the server"
        assert server.requests[0].messages == USER


def test_make_model_without_a_spec_explains_what_to_set():
    with pytest.raises(ModelError) as raised:
        make_model("")
    assert str(raised.value) == describe_missing_model()
    for word in ("--model", "REPOFIX_MODEL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        assert word in describe_missing_model()


def test_builtin_unregistered_says_who_registers_it(monkeypatch):
    monkeypatch.delitem(FACTORIES, "builtin", raising=False)  # as before the agent room is imported
    with pytest.raises(ModelError, match="registered by the agent"):
        make_model("builtin")


def test_builtin_is_registered_by_the_agent_and_is_a_model():
    import repofix.agent  # noqa: F401  (registers `builtin`: the models room does not import repair)
    from repofix.models.base import Model
    from repofix.repair.model import BuiltinModel

    model = make_model("builtin")
    assert isinstance(model, Model) and isinstance(model, BuiltinModel)


def test_importing_models_does_not_import_litellm():
    code = "import sys, repofix.models; assert 'litellm' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
