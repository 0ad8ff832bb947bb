"""Money and credentials stop a run; they never move it elsewhere. Over real HTTP to the local
OpenAI-compatible server: the cost cap counts the prompt, and a chain never switches models after an
auth error or the cost cap (two mutants of these rules survived the old suite)."""

from __future__ import annotations

import json

import pytest
from openai_server import OpenAIServer, auth_error, text

from repofix.models import Budget, CostLimitExceeded, ModelAuthError, ModelGaveUp
from repofix.models.chain import ChainModel
from repofix.models.litellm_model import LiteLLMModel
from repofix.models.scripted import ScriptedModel

KEY = "sk-test-limits"
USER = [{"role": "user", "content": "Say hello."}]
# ~30k tokens whatever the tokenizer: 6,000 distinct short words (never fewer than one token each).
LONG_PROMPT = [{"role": "user", "content": " ".join(f"w{n}x{n * 7 % 997}" for n in range(6000))}]


@pytest.fixture
def server():
    with OpenAIServer() as running:
        yield running


@pytest.fixture
def price_file(tmp_path):
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"openai/test-model": {"input_per_million": 1.0, "output_per_million": 2.0}}))
    return path


def model_for(server, **options) -> LiteLLMModel:
    return LiteLLMModel(
        "openai/test-model", api_base=server.url, api_key=KEY, retry_base_delay=0.01, timeout=10, **options
    )


def test_the_cost_cap_counts_the_prompt_not_only_the_answer(server, price_file):
    """A 6,000-word prompt is at least 6,000 input tokens ($0.006 at $1/M); with 10 output tokens at most
    ($0.00002) a cap of $0.005 must refuse before sending. Ignoring the prompt would send it."""
    server.add(text("never sent"))
    model = model_for(server, price_file=price_file, max_tokens=10, budget=Budget(max_cost=0.005))
    with pytest.raises(CostLimitExceeded):
        model.query(LONG_PROMPT)
    assert server.requests == []
    cheap = model_for(server, price_file=price_file, max_tokens=10, budget=Budget(max_cost=0.005))
    assert cheap.query(USER).content == "never sent"  # a short prompt under the same cap goes through


def test_a_chain_does_not_switch_models_after_an_auth_error(server):
    server.add(auth_error())
    fallback = ScriptedModel(["I would have answered."])
    chain = ChainModel([model_for(server), fallback])
    with pytest.raises(ModelAuthError):
        chain.query(USER)
    assert chain.current == 0 and fallback.remaining == 1 and len(server.requests) == 1


def test_a_chain_does_not_switch_models_at_the_cost_cap(server, price_file):
    fallback = ScriptedModel(["I would have answered."])
    capped = model_for(server, price_file=price_file, budget=Budget(max_cost=1.0, spent=1.0))
    chain = ChainModel([capped, fallback])
    with pytest.raises(CostLimitExceeded):
        chain.query(USER)
    assert chain.current == 0 and fallback.remaining == 1 and server.requests == []


def test_a_chain_does_switch_when_a_model_gives_up():
    chain = ChainModel([ScriptedModel([{"give_up": True, "content": "no idea"}]), ScriptedModel(["here"])])
    reply = chain.query(USER)
    assert reply.content == "here" and chain.current == 1 and "gave up (no idea)" in reply.notes[0]


@pytest.mark.parametrize("size", [1, 2, 3])
def test_when_every_model_gives_up_the_chain_says_so_with_the_last_reason(size):
    models = [ScriptedModel([{"give_up": True, "content": f"stuck {n}"}]) for n in range(size)]
    chain = ChainModel(models)
    with pytest.raises(
        ModelGaveUp, match=rf"every model in the chain .* gave up; the last said: stuck {size - 1}$"
    ):
        chain.query(USER)
    assert chain.current == size - 1 and all(m.remaining == 0 for m in models)
