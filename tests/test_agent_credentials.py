"""Model errors classified right: a missing key stops `repofix fix` before anything starts (exit 2,
the variable named), a missing or refused key is never retried, and `fix "description"` without a
model is a setup error like `implement`. Through the CLI; the LiteLLM HTTP path against a local server."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from agent_helpers import act, clamp_repo, script
from conftest import require_backend
from openai_server import OpenAIServer, auth_error

import repofix.agent  # noqa: F401  (registers `builtin`, which the chains below begin with)
from repofix.models import ModelAuthError, ModelError, check_credentials, make_model

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "from repofix.cli import main; main()"]
KEYS = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "OPENAI_API_BASE",
    "OPENAI_BASE_URL",
)


def repofix(*args: str, home: Path, **env: str) -> subprocess.CompletedProcess:
    """The real command with no provider key in its environment (plus `env`)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("REPOFIX_") and k not in KEYS}
    clean.update(REPOFIX_HOME=str(home), PYTHONPATH=str(ROOT), **env)
    return subprocess.run([*CLI, *args], env=clean, capture_output=True, text=True, timeout=600, cwd=ROOT)


@pytest.fixture
def no_keys(monkeypatch):
    for name in KEYS:
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(
    "model, variables",
    [
        ("openai/gpt-4o", ["OPENAI_API_KEY"]),
        ("gpt-4o", ["OPENAI_API_KEY"]),
        ("anthropic/claude-sonnet-4-5", ["ANTHROPIC_API_KEY"]),
        ("gemini/gemini-2.0-flash", ["GOOGLE_API_KEY", "GEMINI_API_KEY"]),
        ("builtin,openai/gpt-4o", ["OPENAI_API_KEY"]),  # every model of a chain is checked
    ],
)
def test_a_missing_key_is_named_by_the_variables_litellm_reads(no_keys, model, variables):
    with pytest.raises(ModelAuthError) as raised:
        check_credentials(make_model(model))
    for variable in variables:
        assert variable in str(raised.value)
    assert "has no credentials" in str(raised.value) and "Nothing was started" in str(raised.value)


# the pre-check above, through the real command once per command that takes a model (each run
# imports LiteLLM afresh: the model matrix is checked in-process)
@pytest.mark.parametrize(
    "command, model, variable",
    [
        (["fix"], "gpt-4o", "OPENAI_API_KEY"),
        (["implement", "add wrap()"], "builtin,anthropic/claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
    ],
)
def test_missing_key_stops_before_anything_starts(tmp_path, command, model, variable):
    repo = clamp_repo(tmp_path / "repo")
    home = tmp_path / "home"
    result = repofix(*command, "--repo", str(repo), "--model", model, "--sandbox", "bwrap", home=home)
    assert result.returncode == 2, result.stderr[-2000:]
    assert variable in result.stderr
    assert "has no credentials" in result.stderr and "Nothing was started" in result.stderr
    assert "retrying" not in result.stderr and "Traceback" not in result.stderr
    assert not (home / "runs").exists() or not list((home / "runs").iterdir())  # no run, no sandbox


@pytest.mark.parametrize(
    "spec, options",
    [
        ("ollama/qwen2.5-coder", {}),  # a local provider needs no key
        ("hosted_vllm/coder", {}),
        ("openai/gpt-4o", {"api_base": "http://127.0.0.1:9/v1"}),  # a given endpoint: the call will tell
        ("openai/gpt-4o", {"api_key": "sk-given-in-settings"}),
        ("scripted:{script}", {}),
    ],
)
def test_no_pre_check_where_no_key_is_read_from_the_environment(tmp_path, no_keys, spec, options):
    model = make_model(
        spec.format(
            script=script(tmp_path / "s.yaml", [act("submit", summary="x")]).removeprefix("scripted:")
        ),
        **options,
    )
    check_credentials(model)  # does not raise


@pytest.mark.parametrize("model", ["foo", "nosuchprovider/xyz", "builtin,gtp4o"])
def test_a_model_name_no_provider_serves_is_refused_by_the_pre_check(no_keys, model):
    unknown = model.split(",")[-1]
    with pytest.raises(ModelError) as raised:
        check_credentials(make_model(model))
    assert str(raised.value).startswith(f"{unknown}: LiteLLM cannot tell which provider serves this model")
    assert "Nothing was started" in str(raised.value)


def test_a_model_name_no_provider_serves_stops_before_anything_starts(tmp_path):
    repo = clamp_repo(tmp_path / "repo")
    home = tmp_path / "home"
    result = repofix("fix", "--repo", str(repo), "--model", "builtin,gtp4o", "--sandbox", "bwrap", home=home)
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stderr.startswith("repofix: gtp4o: LiteLLM cannot tell which provider serves this model")
    assert "Nothing was started" in result.stderr and "Traceback" not in result.stderr
    assert "Provider List" not in result.stdout + result.stderr  # LiteLLM's own banner stays quiet
    assert not (home / "runs").exists() or not list((home / "runs").iterdir())  # no run, no sandbox


def test_an_unknown_name_with_an_endpoint_is_left_to_the_server(no_keys):
    check_credentials(make_model("my-local-coder", api_base="http://127.0.0.1:9/v1"))  # does not raise


def test_key_set_passes_the_pre_check(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-set-but-never-sent")
    check_credentials(make_model("openai/gpt-4o"))
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(ModelAuthError, match="OPENAI_API_KEY"):
        check_credentials(make_model("openai/gpt-4o"))


def test_missing_key_at_call_time_is_not_retried(no_keys, caplog):
    """With --api-base the pre-check is skipped; the provider SDK's "Missing credentials" (which
    LiteLLM reports as an InternalServerError) ends the call at once, without reaching the server."""
    server = OpenAIServer().start()
    try:
        model = make_model("openai/gpt-4o", api_base=server.url)
        with (
            caplog.at_level(logging.WARNING, logger="repofix.models"),
            pytest.raises(ModelAuthError, match="OPENAI_API_KEY"),
        ):
            model.query([{"role": "user", "content": "hi"}])
        assert server.requests == []
        assert not [r for r in caplog.records if "retrying" in r.getMessage()]
    finally:
        server.stop()


def test_refused_key_is_asked_once_and_the_run_says_why(tmp_path):
    """A key the provider refuses (401) through the whole CLI: one request, a model_error outcome."""
    require_backend("bwrap")
    repo = clamp_repo(tmp_path / "repo")
    server = OpenAIServer().start()
    try:
        for _ in range(5):
            server.add(auth_error())
        result = repofix(
            "fix",
            "--repo",
            str(repo),
            "--model",
            "openai/gpt-4o",
            "--api-base",
            server.url,
            "--sandbox",
            "bwrap",
            "--json",
            home=tmp_path / "home",
            OPENAI_API_KEY="sk-refused-key",
        )
        assert len(server.requests) == 1
    finally:
        server.stop()
    assert result.returncode in (1, 2), result.stderr[-2000:]  # not done; never a traceback, never done
    outcome = json.loads(result.stdout)
    assert outcome["status"] != "done" and outcome["reason"] == "model_error"
    assert "OPENAI_API_KEY" in outcome["message"] and "sk-refused-key" not in result.stdout + result.stderr


def test_fix_with_a_description_and_no_model_is_a_setup_error(tmp_path):
    repo = clamp_repo(tmp_path / "repo")
    home = tmp_path / "home"
    result = repofix(
        "fix", "clamp returns hi for values in range", "--repo", str(repo), "--sandbox", "bwrap", home=home
    )
    assert result.returncode == 2, result.stderr[-2000:]
    assert (
        "No model configured" in result.stderr and "a described bug needs a language model" in result.stderr
    )
    assert "Traceback" not in result.stderr
    assert not (home / "runs").exists() or not list((home / "runs").iterdir())
