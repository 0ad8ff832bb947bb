"""A whole run through LiteLLM's HTTP path with a small history window: a 40 MB flood reaches the
model bounded, old steps fold into one-line records the provider accepts, cached tokens are
recorded and priced per step, and `show` and the end summary say what was spent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agent_helpers import DIRECT_FIX, RIGHT_FIX, WRONG_FIX, act, clamp_repo
from click.testing import CliRunner
from conftest import require_backend
from openai_server import OpenAIServer, tool_call

from repofix.agent import AgentRequest, run_agent
from repofix.agent.summary import summary_text
from repofix.cli import main
from repofix.config import Settings
from repofix.models import load_replies
from repofix.models.tokens import count_text

FLOOD = (
    "python3 -c \"import sys\nfor i in range(400000): sys.stdout.write('debug %d ' % i + 'x' * 90 + '\\n')\""
)
REPLIES = [
    act("shell", "Lots of output.", command=FLOOD),
    act("view", "Look.", path="pkg/mathx.py"),
    act("run_tests", "What fails?"),
    act("python", "Search.", code="print(grep('return', 'pkg/*.py'))"),
    act("shell", "List.", command="ls -R"),
    WRONG_FIX,
    RIGHT_FIX,
]
GPT4O = (2.5e-6, 1.25e-6, 1e-5)  # input, cached input, output: LiteLLM's bundled prices


@pytest.mark.bwrap
def test_a_run_stays_small_and_accounts_for_cached_tokens(tmp_path, monkeypatch):
    require_backend("bwrap")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    monkeypatch.setenv("REPOFIX_HOME", str(tmp_path / "home"))
    with OpenAIServer(count=True) as server:
        server.add(
            *(
                tool_call(r["tool"], r["arguments"], call_id=f"call_{n}", content=r["content"])
                for n, r in enumerate(REPLIES, 1)
            )
        )
        settings = Settings(
            model="openai/gpt-4o",
            api_base=server.url,
            sandbox="bwrap",
            home=str(tmp_path / "home"),
            history_steps=2,
        )
        outcome = run_agent(AgentRequest(repo=clamp_repo(tmp_path / "repo"), mode="fix", settings=settings))
        requests = list(server.requests)
    assert outcome.status == "done", outcome.message  # every request was accepted by the strict server
    record = json.loads(Path(outcome.trajectory_file).read_text(encoding="utf-8"))
    flood = record["steps"][0]["observation"]
    assert count_text(flood) <= 2500 and "/repofix-logs/step-001-shell.log" in flood
    assert "debug 399999" in requests[1].raw  # the newest step goes whole ...
    assert "debug 399999" not in requests[-1].raw  # ... and later folds into its record
    assert "[step 1: shell python3 -c" in requests[-1].raw and "step-001-shell.log" in requests[-1].raw
    assert max(server.cache.prompt_tokens) < 12000
    steps = record["steps"]
    assert all(s["input_tokens"] > 0 and s["output_tokens"] > 0 for s in steps)
    assert sum(s["cached_tokens"] for s in steps) > 0
    for s in steps:
        price_in, price_cached, price_out = GPT4O
        expected = (
            (s["input_tokens"] - s["cached_tokens"]) * price_in
            + s["cached_tokens"] * price_cached
            + s["output_tokens"] * price_out
        )
        assert s["cost"] == pytest.approx(expected)
    assert outcome.extra["cached_tokens"] == sum(s["cached_tokens"] for s in steps)
    assert f"cached) / {outcome.extra['output_tokens']} out" in summary_text(outcome, [], "", False)
    shown = CliRunner().invoke(main, ["show", outcome.run_id])
    assert shown.exit_code == 0, shown.output
    assert (
        f"tokens {outcome.extra['input_tokens']} in ({outcome.extra['cached_tokens']} cached)" in shown.output
    )


@pytest.mark.bwrap
def test_a_10_mb_reply_is_stored_once_and_not_sent_again_in_full(tmp_path, monkeypatch):
    require_backend("bwrap")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    monkeypatch.setenv("REPOFIX_HOME", str(tmp_path / "home"))
    huge = "Let me think. " + "very long musing " * 600_000  # 10 MB
    with OpenAIServer() as server:
        server.add(
            tool_call("shell", {"command": "echo hi"}, call_id="call_1", content=huge, usage=(900, 90)),
            tool_call(DIRECT_FIX["tool"], DIRECT_FIX["arguments"], call_id="call_2"),
        )
        settings = Settings(
            model="openai/gpt-4o", api_base=server.url, sandbox="bwrap", home=str(tmp_path / "home")
        )
        outcome = run_agent(AgentRequest(repo=clamp_repo(tmp_path / "repo"), mode="fix", settings=settings))
        requests = list(server.requests)
    assert outcome.status == "done", outcome.message
    assert len(requests[1].raw) < 60_000  # the reply went back to the model cut
    trajectory = Path(outcome.trajectory_file)
    assert len(huge) < trajectory.stat().st_size < 1.2 * len(huge)  # kept once
    record = json.loads(trajectory.read_text(encoding="utf-8"))
    assert load_replies(record)[0].content == huge  # a replay still gets it whole
    shown = CliRunner().invoke(main, ["show", outcome.run_id])
    assert "thought: Let me think. very long musing" in shown.output
