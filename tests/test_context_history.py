"""What the model is sent: compact views that providers accept (checked by a test server that
refuses malformed conversations as providers do), a byte-stable prefix, cache breakpoints for
Anthropic, the context window respected, and one shrink-and-retry on a context-length error."""

from __future__ import annotations

import json

import pytest
from anthropic_server import AnthropicServer, Usage, message, too_long, tool_use
from openai_server import OpenAIServer, context_length_exceeded, malformed, text

from repofix.agent.actions import openai_tools
from repofix.agent.history import RECORD, answers, compact, query, record_line
from repofix.models import ChainModel, ContextLengthError, ModelReply, ScriptedModel, ToolCall
from repofix.models.chain import reads_whole_output
from repofix.models.litellm_import import import_litellm
from repofix.models.litellm_model import LiteLLMModel
from repofix.models.tokens import count_messages

TOOLS = openai_tools()
BIG = "\n".join(f"E   AssertionError: value {i} differs in tests/test_mod.py::test_{i}" for i in range(300))


def conversation(steps: int, observation: str = BIG) -> list[dict]:
    """A run's record: native tool calls, one reply with two calls, one with none (a format error)."""
    messages = [
        {"role": "system", "content": "You are repofix."},
        {"role": "user", "content": "Fix the bug."},
    ]
    for n in range(1, steps + 1):
        if n == 3:
            reply = ModelReply(
                "Two at once.",
                [
                    ToolCall(f"c{n}a", "shell", {"command": "ls"}),
                    ToolCall(f"c{n}b", "view", {"path": "a.py"}),
                ],
            )
        elif n == 5:
            reply = ModelReply("I forgot the action.")
        else:
            reply = ModelReply(f"Step {n}.", [ToolCall(f"c{n}", "shell", {"command": f"pytest -k t{n}"})])
        messages.append(reply.assistant_message())
        shown = f"{observation}\n[exit code 1]"
        line = record_line(n, "shell", {"command": f"pytest -k t{n}"}, shown, n, f"{n} passed, 3 failed")
        messages.extend(answers(reply, shown, line))
    return messages


def test_the_server_refuses_what_providers_refuse():
    messages = conversation(4)
    broken = [m for m in messages if m.get("tool_call_id") != "c2"]  # an unanswered call
    assert "tool_call_id" in malformed({"messages": broken, "tools": TOOLS})
    assert "without tools" in malformed({"messages": messages})
    assert "alternate" in malformed(
        {"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]}
    )
    assert malformed({"messages": messages, "tools": TOOLS}) is None


@pytest.mark.parametrize("native", [True, False], ids=["native-tools", "text-protocol"])
@pytest.mark.parametrize("keep", [0, 1, 3, 6])
def test_compacted_views_are_accepted_by_a_strict_server(native, keep):
    messages = conversation(14)
    with OpenAIServer() as server:
        model = LiteLLMModel(
            "openai/test-model", api_base=server.url, api_key="sk-test", native_tools=native, max_retries=0
        )
        for end in range(3, len(messages) + 1):  # every prefix a run would send: after a step's answers
            if end < len(messages) and messages[end]["role"] != "assistant":
                continue
            server.add(text("ok"))
            model.query(compact(messages[:end], keep), tools=TOOLS)
        assert all(RECORD not in m for r in server.requests for m in r.messages)


def test_old_steps_become_one_line_records_and_recent_ones_stay_whole():
    messages = conversation(14)
    view = compact(messages, 3)  # 14 steps, folded 3 at a time: the last 5 stay whole
    whole = [m for m in view if m.get("content", "").startswith(BIG[:40])]
    records = [m["content"] for m in view if str(m.get("content", "")).startswith("[step ")]
    assert len(whole) == 5  # steps 10 to 14
    assert records[0].startswith("[step 1: shell pytest -k t1 -> exit code 1; checkpoint 1; tests: 1 passed")
    assert records[0].endswith("3 failed]")  # no file named: the record is all there is
    assert len(records) == 9  # steps 1-9, one line each
    assert count_messages(view) < count_messages(compact(messages, 0)) / 2
    assert len(view) == len(compact(messages, 0))  # nothing dropped: every call keeps its answer


def test_the_prefix_is_byte_stable_between_folds():
    messages = conversation(20, observation="short output")
    keep, changed = 4, 0
    previous = None
    for end in range(3, len(messages) + 1):
        if end < len(messages) and messages[end]["role"] != "assistant":
            continue
        view = [
            json.dumps({k: v for k, v in m.items() if k != "repofix_cache"})
            for m in compact(messages[:end], keep)
        ]
        if previous is not None and view[: len(previous)] != previous:
            changed += 1
        previous = view
    assert changed == (20 - keep) // keep  # the prefix changes only when a batch of steps folds


def test_an_oversized_reply_is_kept_once_in_the_record_and_sent_cut():
    messages = conversation(2, observation="ok")
    huge = "Here is my plan. " + "blah " * 2_000_000  # a 10 MB reply
    reply = ModelReply(huge, [ToolCall("c9", "edit", {"text": "x" * 3_000_000})])
    messages.append(reply.assistant_message())
    messages.extend(answers(reply, "edited", "[step 3: edit]"))
    view = compact(messages, 6)
    assert len(json.dumps(view)) < 40_000
    assert messages[-2]["content"] == huge  # the record keeps it whole


def test_a_context_length_error_shrinks_the_view_and_retries_once():
    messages = conversation(12)
    with OpenAIServer() as server:
        server.add(context_length_exceeded(), text("fits now"))
        model = LiteLLMModel("openai/test-model", api_base=server.url, api_key="sk-test", native_tools=True)
        reply = query(model, messages, TOOLS, keep=6)
        assert reply.content == "fits now"
        first, second = (count_messages(r.messages) for r in server.requests)
        assert second <= 0.6 * first
        server.add(context_length_exceeded(), context_length_exceeded(), text("never asked"))
        with pytest.raises(ContextLengthError):
            query(model, messages, TOOLS, keep=6)
        assert len(server.requests) == 4  # one retry, not more


def test_the_context_window_is_never_exceeded(tmp_path):
    prices = tmp_path / "prices.json"
    prices.write_text(
        json.dumps(
            {"local-llm": {"input_per_million": 1, "output_per_million": 2, "max_input_tokens": 12000}}
        )
    )
    messages = conversation(30)
    with OpenAIServer(count=True) as server:
        model = LiteLLMModel(
            "openai/local-llm",
            api_base=server.url,
            api_key="sk-test",
            native_tools=True,
            price_file=prices,
            max_tokens=1000,
        )
        assert model.context_window() == int((12000 - 1000) * 0.9)
        server.add(text("ok"))
        query(model, messages, TOOLS, keep=6)
        assert server.cache.prompt_tokens[0] <= 12000 - 1000


def test_anthropic_requests_carry_cache_breakpoints_and_cached_tokens_are_priced():
    messages = conversation(14, observation="some output " * 200)
    with AnthropicServer() as server:
        server.add(
            tool_use("shell", {"command": "ls"}, usage=Usage(200, 30, cache_read=5000, cache_write=800))
        )
        model = LiteLLMModel(
            "anthropic/claude-sonnet-4-5", api_base=server.url, api_key="sk-ant-test", native_tools=True
        )
        reply = query(model, messages, TOOLS, keep=3)
        body = server.bodies[0]
    assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
    marked = [i for i, m in enumerate(body["messages"]) if "cache_control" in json.dumps(m)]
    assert (
        len(marked) == 2 and marked[-1] == len(body["messages"]) - 1
    )  # end of the folded prefix, newest turn
    assert json.dumps(body).count("cache_control") <= 4
    assert '"repofix' not in json.dumps(body)  # our own keys never reach the provider
    assert (reply.input_tokens, reply.cached_tokens, reply.cache_write_tokens) == (6000, 5000, 800)
    # claude-sonnet-4-5: $3/M input, $0.30/M cache read, $3.75/M cache write, $15/M output
    assert reply.cost == pytest.approx(200 * 3e-6 + 5000 * 3e-7 + 800 * 3.75e-6 + 30 * 15e-6)


def test_an_anthropic_prompt_too_long_error_also_shrinks_and_retries():
    messages = conversation(10)
    with AnthropicServer() as server:
        server.add(too_long(), message("done"))
        model = LiteLLMModel(
            "anthropic/claude-sonnet-4-5",
            api_base=server.url,
            api_key="sk-ant-test",
            native_tools=True,
            max_retries=0,
        )
        assert query(model, messages, TOOLS, keep=6).content == "done"
        assert len(json.dumps(server.bodies[1])) < len(json.dumps(server.bodies[0]))


def test_only_the_built_in_engine_reads_outputs_whole_and_a_chain_follows_its_active_model():
    engine = ScriptedModel([ModelReply("no idea", give_up=True)], name="builtin")
    llm = LiteLLMModel("openai/gpt-4o", api_base="http://127.0.0.1:9", api_key="sk-test")
    chain = ChainModel([engine, ScriptedModel([ModelReply("ok")], name="llm")])
    assert reads_whole_output(engine) and not reads_whole_output(llm)
    assert reads_whole_output(chain) and chain.context_window() is None
    chain.query([{"role": "user", "content": "hi"}])  # the engine gives up: the chain moves on
    assert not reads_whole_output(chain)
    # LiteLLM's bundled limits change with its version: read here, never pinned
    bundled = import_litellm().model_cost["gpt-4o"]
    room = min(4096, bundled["max_output_tokens"])  # the default max_tokens, lowered to the model's
    window = int((bundled["max_input_tokens"] - room) * 0.9)
    assert ChainModel([llm]).context_window() == llm.context_window() == window
