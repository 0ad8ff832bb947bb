"""`repofix show RUN --messages`: the whole conversation as the model was sent it (system prompt,
task, every reply and observation), escaped for the terminal; `--json` for scripts; the built-in
engine's compressed payloads summarised, not dumped. Real runs through the CLI on bwrap."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from agent_helpers import DIRECT_FIX, act, clamp_repo, script
from conftest import require_backend

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "from repofix.cli import main; main()"]
LONG_BASE64 = re.compile(r"[A-Za-z0-9+/]{256,}")


def repofix(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REPOFIX_")}
    env.update(REPOFIX_HOME=str(home), PYTHONPATH=str(ROOT))
    return subprocess.run([*CLI, *args], env=env, capture_output=True, text=True, timeout=900, cwd=ROOT)


def fix(tmp_path: Path, model: str) -> tuple[dict, Path]:
    require_backend("bwrap")
    repo = clamp_repo(tmp_path / "repo")
    home = tmp_path / "home"
    result = repofix("fix", "--repo", str(repo), "--model", model, "--sandbox", "bwrap", "--json", home=home)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout), home


def test_messages_show_the_whole_conversation_escaped(tmp_path):
    replies = [
        act("shell", "Look around.", command="printf 'hostile \\033]0;title\\007 \\033[31mred\\n'"),
        DIRECT_FIX,
    ]  # verified after the edit: no submit needed
    outcome, home = fix(tmp_path, script(tmp_path / "s.yaml", replies))
    trajectory = json.loads(Path(outcome["trajectory_file"]).read_text())

    shown = repofix("show", outcome["run_id"], "--messages", home=home)
    assert shown.returncode == 0, shown.stderr
    text = shown.stdout
    system, task = trajectory["messages"][0]["content"], trajectory["messages"][1]["content"]
    assert system.strip().splitlines()[0] in text and "SEARCH/REPLACE" in text  # the system prompt, whole
    assert task.strip().splitlines()[-1] in text  # the task, to its last line
    assert "== [0] system ==" in text and "== [1] user ==" in text and "== [2] assistant ==" in text
    assert "Look around." in text and "-> shell" in text
    assert "hostile \\x1b]0;title\\x07 \\x1b[31mred" in text  # the sandbox's escapes, shown, not obeyed
    assert "\x1b" not in text and "\x07" not in text
    assert "    if x > hi:" in text  # the edit's text as a block
    assert "nothing regressed: done." in text  # the last observation: the edit was verified

    as_json = repofix("show", outcome["run_id"], "--messages", "--json", home=home)
    assert as_json.returncode == 0, as_json.stderr
    assert "\x1b" not in as_json.stdout
    messages = json.loads(as_json.stdout)
    assert [m["role"] for m in messages] == ["system", "user"] + ["assistant", "tool"] * len(replies)
    assert messages[0]["content"] == system and messages[1]["content"] == task
    call = messages[2]["tool_calls"][0]
    assert call["function"]["name"] == "shell" and messages[3]["tool_call_id"] == call["id"]
    assert "\x1b]0;title" in messages[3]["content"]  # JSON keeps the real text, escaped by json itself
    assert all("record" in m for m in messages[3::2])  # each observation's one-line record


def test_builtin_payloads_are_summarised(tmp_path):
    outcome, home = fix(tmp_path, "builtin")
    recorded = Path(outcome["trajectory_file"]).read_text()
    assert LONG_BASE64.search(recorded)  # the record keeps the payload...
    for extra in ([], ["--json"]):
        shown = repofix("show", outcome["run_id"], "--messages", *extra, home=home)
        assert shown.returncode == 0, shown.stderr
        assert not LONG_BASE64.search(shown.stdout)  # ...the person sees its size
        assert re.search(r"\[base64 payload, \d+ bytes, not shown\]", shown.stdout)
        assert "REPOFIX-BUILTIN:" in shown.stdout


@pytest.mark.parametrize("args", [["--messages"], ["--messages", "--json"]])
def test_unknown_run_is_a_clear_error(tmp_path, args):
    result = repofix("show", "no-such-run", *args, home=tmp_path / "home")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and "no-such-run" in result.stderr
