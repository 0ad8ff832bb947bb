"""The LiteLLM model over real HTTP against the OpenAI-compatible test server."""

from __future__ import annotations

import json
import socket

import pytest
from openai_server import (
    OpenAIServer,
    auth_error,
    context_length_exceeded,
    error,
    rate_limited,
    server_error,
    text,
    tool_call,
)

from repofix.models import (
    Budget,
    ContextLengthError,
    CostLimitExceeded,
    ModelAuthError,
    ModelUnavailable,
    make_model,
    tool_message,
)
from repofix.models.litellm_model import LiteLLMModel, import_litellm

KEY = "sk-test-0123456789-secret"
USER = [{"role": "user", "content": "Say hello."}]
SHELL_TOOL = {
    "type": "function",
    "function": {
        "name": "run_shell",
        "description": "Run a shell command in the sandbox.",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string", "description": "the command"}},
            "required": ["command"],
        },
    },
}


@pytest.fixture
def server():
    with OpenAIServer() as running:
        yield running


def model_for(server, name: str = "openai/test-model", **options) -> LiteLLMModel:
    options.setdefault("retry_base_delay", 0.01)
    options.setdefault("timeout", 10)
    return LiteLLMModel(name, api_base=server.url, api_key=KEY, **options)


@pytest.fixture
def price_file(tmp_path):
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"openai/test-model": {"input_per_million": 1.0, "output_per_million": 2.0}}))
    return path


def test_text_reply_with_usage_and_unknown_price(server):
    server.add(text("Hello!", usage=(12, 3)), text("Again.", usage=(20, 2)))
    model = model_for(server)
    reply = model.query(USER)
    assert (reply.content, reply.tool_calls) == ("Hello!", [])
    assert (reply.input_tokens, reply.output_tokens) == (12, 3)
    assert (reply.cost, reply.cost_known) == (0.0, False)
    assert len(reply.notes) == 1 and "no price known for openai/test-model" in reply.notes[0]
    assert model.query(USER).notes == []  # the note is said once
    sent = server.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.body["model"] == "test-model"
    assert sent.messages == USER
    assert "tools" not in sent.body and not sent.body.get("stream")


def test_native_tool_calls(server):
    server.add(tool_call("run_shell", {"command": "pytest -q"}, call_id="call_abc"))
    server.add(tool_call("run_shell", "{not json", call_id="call_bad"))
    model = model_for(server, native_tools=True)
    reply = model.query(USER, tools=[SHELL_TOOL])
    assert [(c.id, c.name, c.arguments, c.parse_error) for c in reply.tool_calls] == [
        ("call_abc", "run_shell", {"command": "pytest -q"}, None)
    ]
    assert server.requests[0].body["tools"] == [SHELL_TOOL]
    history = [
        *USER,
        reply.assistant_message(),
        tool_message(reply.tool_calls[0], "1 passed"),
    ]
    bad = model.query(history, tools=[SHELL_TOOL])
    assert bad.tool_calls[0].arguments == {} and "not valid JSON" in bad.tool_calls[0].parse_error
    assert server.requests[1].messages[1]["tool_calls"][0]["id"] == "call_abc"
    assert server.requests[1].messages[2] == {
        "role": "tool",
        "tool_call_id": "call_abc",
        "name": "run_shell",
        "content": "1 passed",
    }


def test_text_protocol_when_tools_are_not_native(server):
    server.add(text("I will run the tests.\n```tool:run_shell\npytest -q\n```\n"))
    model = model_for(server, native_tools=False)
    history = [
        {"role": "system", "content": "You fix code."},
        *USER,
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "run_shell", "arguments": '{"command": "ls"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "setup.py"},
    ]
    reply = model.query(history, tools=[SHELL_TOOL])
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [
        ("text_1_1", "run_shell", {"command": "pytest -q"})
    ]
    sent = server.requests[0].body
    assert "tools" not in sent
    assert sent["messages"][0]["content"].startswith("You fix code.")
    assert "```tool:" in sent["messages"][0]["content"] and "`run_shell`" in sent["messages"][0]["content"]
    assert [m["role"] for m in sent["messages"]] == ["system", "user", "assistant", "user"]
    assert "```tool:run_shell" in sent["messages"][2]["content"]
    assert sent["messages"][3]["content"] == "Result of `run_shell`:\nsetup.py"


@pytest.mark.parametrize(
    "failure", [rate_limited, server_error, lambda: error(503, "busy", type_="server_error")]
)
def test_retries_then_succeeds(server, failure):
    server.add(failure(), failure(), text("finally"))
    assert model_for(server, max_retries=2).query(USER).content == "finally"
    assert len(server.requests) == 3


def test_gives_up_after_retries(server):
    server.add(*[server_error() for _ in range(3)])
    with pytest.raises(ModelUnavailable, match="after 3 attempts"):
        model_for(server, max_retries=2).query(USER)
    assert len(server.requests) == 3


@pytest.mark.parametrize(
    ("response", "exception", "message"),
    [
        (auth_error, ModelAuthError, "OPENAI_API_KEY"),
        (context_length_exceeded, ContextLengthError, "context window"),
    ],
)
def test_no_retry_on_auth_or_context_length(server, response, exception, message):
    server.add(response(), text("never reached"))
    with pytest.raises(exception, match=message):
        model_for(server, max_retries=3).query(USER)
    assert len(server.requests) == 1


def test_timeout_is_retried(server):
    server.add(text("too late", delay=2.0), text("in time"))
    reply = model_for(server, timeout=0.5, max_retries=1).query(USER)
    assert reply.content == "in time"
    assert len(server.requests) == 2


def test_timeout_without_retries_is_reported(server):
    server.add(text("too late", delay=2.0))
    with pytest.raises(ModelUnavailable, match="Timeout"):
        model_for(server, timeout=0.5, max_retries=0).query(USER)


@pytest.mark.parametrize("suffix", ["json", "yaml"])
def test_cost_from_a_user_price_file(server, tmp_path, suffix):
    path = tmp_path / f"prices.{suffix}"
    if suffix == "json":
        path.write_text(
            json.dumps({"test-model": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}})
        )
    else:
        path.write_text("openai/test-model:\n  input_per_million: 1.0\n  output_per_million: 2.0\n")
    server.add(text("priced", usage=(1000, 500)))
    model = model_for(server, price_file=path)
    reply = model.query(USER)
    assert reply.cost_known and reply.cost == pytest.approx(0.002)
    assert model.budget.spent == pytest.approx(0.002)
    assert reply.notes == []


def test_cost_from_litellm_price_map_offline(server):
    # The prices and limits are LiteLLM's bundled data, which changes with its version: read, not pinned.
    bundled = import_litellm().model_cost["gpt-4o"]
    assert 1_000 < bundled["max_output_tokens"] < 100_000 and bundled["output_cost_per_token"] > 0
    server.add(text("priced", usage=(1000, 500)))
    reply = model_for(server, name="openai/gpt-4o", max_tokens=100_000).query(USER)
    want = 1000 * bundled["input_cost_per_token"] + 500 * bundled["output_cost_per_token"]
    assert reply.cost_known and reply.cost == pytest.approx(want)
    assert (
        server.requests[0].body["max_tokens"] == bundled["max_output_tokens"]
    )  # lowered to the output limit


def test_cost_cap_refuses_before_the_call(server, price_file):
    server.add(text("never sent"))
    model = model_for(server, price_file=price_file, max_tokens=1000, budget=Budget(max_cost=0.001))
    with pytest.raises(CostLimitExceeded, match="--max-cost"):
        model.query(USER)  # up to 1000 output tokens at $2/M could cost $0.002
    assert server.requests == []


def test_cost_cap_stops_the_call_that_could_exceed_it(server, price_file):
    server.add(text("first", usage=(2000, 200)), text("never sent"))
    model = model_for(server, price_file=price_file, max_tokens=100, budget=Budget(max_cost=0.0025))
    assert model.query(USER).cost == pytest.approx(0.0024)
    with pytest.raises(CostLimitExceeded):
        model.query(USER)
    assert len(server.requests) == 1


def test_cost_cap_holds_even_when_the_price_is_unknown(server):
    model = model_for(server, budget=Budget(max_cost=1.0, spent=1.0))
    with pytest.raises(CostLimitExceeded):
        model.query(USER)
    assert server.requests == []


def test_api_key_only_in_the_authorization_header(server):
    server.add(
        text("ok"),
        error(
            401, f"Incorrect API key provided: {KEY}.", type_="invalid_request_error", code="invalid_api_key"
        ),
    )
    model = make_model("openai/test-model", api_base=server.url, api_key=KEY)
    reply = model.query(USER)
    assert KEY not in json.dumps(reply.to_dict()) and KEY not in repr(model)
    with pytest.raises(ModelAuthError) as raised:
        model.query(USER)
    assert KEY not in str(raised.value)
    for request in server.requests:
        assert KEY not in request.raw
        # header names are case-insensitive: an HTTP/2-minded client sends them in lower case
        assert [name.lower() for name, value in request.headers.items() if KEY in value] == ["authorization"]


def test_connection_refused_is_unavailable_and_names_the_server():
    # A port held bound but not listening refuses connections, and nothing else can take it meanwhile
    # (a port freed by a stopped server may be reused by any process of the host).
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{held.getsockname()[1]}/v1"
        model = LiteLLMModel(
            "openai/test-model", api_base=url, api_key=KEY, max_retries=1, retry_base_delay=0.01
        )
        with pytest.raises(ModelUnavailable, match=f"at {url} still failing after 2 attempts"):
            model.query(USER)


def test_missing_usage_is_counted_locally(server, price_file):
    server.add(text("a reply of a few words", usage=(0, 0)))
    reply = model_for(server, price_file=price_file).query(USER)
    assert reply.input_tokens > 0 and reply.output_tokens > 0 and reply.cost > 0


def test_native_model_writing_blocks_is_still_understood(server):
    server.add(text("```tool:run_shell\nls\n```"))
    reply = model_for(server, native_tools=True).query(USER, tools=[SHELL_TOOL])
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("run_shell", {"command": "ls"})]
