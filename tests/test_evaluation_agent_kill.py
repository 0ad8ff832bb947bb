"""`repofix eval run --model` killed with SIGKILL while a task's agent is working, then `--resume`:
the finished task is skipped, the interrupted one is done again, and the final report is a clean
run's. The agent is real (bwrap), its model LiteLLM over real HTTP (the OpenAI-compatible test
server, with a price file, so costs are LiteLLM's and repofix's real accounting). The kill happens
while the server holds the interrupted task's second model request (its first step done and paid
for): a real in-flight task, no sleep. What that killed attempt spent still counts against the cap."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import threading
from pathlib import Path

import pytest
from openai_server import OpenAIServer, Response, text
from test_agent_resume import alive, descendants
from test_evaluation_agent_runs import FIX, write_specs
from test_lifecycle_resume import CLI, ROOT, env_for

from repofix.exitcodes import EXIT_NOT_DONE
from tests.conftest import require_backend, wait_until
from tests.test_evaluation_grading import make_task

pytestmark = [pytest.mark.bwrap, pytest.mark.slow, pytest.mark.timeout(900)]  # several real agent runs
MODEL = "openai/test-model"  # unknown to LiteLLM: the text protocol, priced by the price file
USAGE = (1000, 100)  # tokens per request: $0.0012 at the prices below


def reply(tool: str, arguments: dict, hold: threading.Event | None = None) -> Response:
    block = f"```tool:{tool}\n{json.dumps(arguments)}\n```"
    response = text(f"On it.\n\n{block}", usage=USAGE)
    response.hold = hold
    return response


def task_replies() -> list[Response]:
    return [reply("edit", {"text": FIX}), reply("submit", {"summary": "add() adds"})]


def start(env: dict[str, str], specs: Path, out: Path, *extra: str) -> subprocess.Popen:
    args = ["eval", "run", str(specs), "--model", MODEL, "--sandbox", "bwrap", "--out", str(out), *extra]
    return subprocess.Popen(
        [*CLI, *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
        start_new_session=True,
    )


def finish(process: subprocess.Popen) -> tuple[int, str]:
    output, _ = process.communicate(timeout=900)
    return process.returncode, output


def rows(out: Path) -> list[tuple]:
    with sqlite3.connect(out / "results.sqlite") as db:
        found = db.execute("SELECT task_id, attempt, status, cost FROM results ORDER BY rowid").fetchall()
    return [(task, attempt, status, round(cost, 9)) for task, attempt, status, cost in found]


def comparable(out: Path) -> dict:
    """What a run produced, without what differs between any two runs (times, folders, dates)."""
    summary = json.loads((out / "report.json").read_text())
    summary.pop("run"), summary.pop("seconds")
    for row in summary["tasks"].values():
        for key in ("build_seconds", "grade_seconds", "test_seconds", "agent_seconds"):
            row.pop(key)
    files = {
        str(p.relative_to(out)): p.read_text()
        for p in sorted((out / "tasks").rglob("*"))
        if p.name in ("report.json", "patch.diff")
    }
    return {"summary": summary, "files": files, "predictions": (out / "predictions.jsonl").read_text()}


def test_killed_mid_task_then_resumed_equals_a_clean_run(tmp_path):
    require_backend("bwrap")
    specs = write_specs(tmp_path / "specs", [make_task(id="t0"), make_task(id="t1")])
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({MODEL: {"input_per_million": 1.0, "output_per_million": 2.0}}))
    with OpenAIServer() as server:
        env = env_for(
            tmp_path / "home",
            REPOFIX_TESTS_FIRST="false",
            REPOFIX_API_BASE=server.url,
            REPOFIX_PRICE_FILE=str(prices),
            OPENAI_API_KEY="sk-test",
            TMPDIR=str(tmp_path / "tmp"),  # where the runs' scratch and temporary folders go
        )
        (tmp_path / "tmp").mkdir()
        held = threading.Event()
        # t1's edit is answered (and paid for); its submit is held
        server.add(
            *task_replies(), reply("edit", {"text": FIX}), reply("submit", {"summary": "add() adds"}, held)
        )
        out = tmp_path / "run"
        first = start(env, specs, out)
        try:
            # t0 finished (its two requests) and t1's agent, one paid step in, waits for an answer
            assert wait_until(lambda: len(server.requests) == 4 or first.poll() is not None, 600)
            assert first.poll() is None, finish(first)[1]
            tree = descendants(first.pid)
            assert any("bwrap" in command for command in tree.values())  # t1's sandbox is open
            os.kill(first.pid, signal.SIGKILL)
            first.wait(timeout=30)
        finally:
            held.set()
            if first.poll() is None:
                first.kill()
        assert wait_until(lambda: not alive(tree))  # nothing of the killed run is left running
        assert rows(out) == [("t0", 1, "resolved", 0.0024)]  # t1 left no row, nor half of one
        assert sorted(p.name for p in (out / "tasks").iterdir()) == ["t0"]

        # The killed attempt's $0.0012 is spent too: with a $0.003 cap, $0.0024 + $0.0012 leaves nothing
        code, output = finish(start(env, specs, out, "--resume", "--max-cost", "0.003"))
        assert code == EXIT_NOT_DONE and "stopped: cost cap reached" in output, output
        assert len(server.requests) == 4 and len(rows(out)) == 1

        server.add(*task_replies())
        code, output = finish(start(env, specs, out, "--resume"))
        assert code == 0, output
        assert len(server.requests) == 6  # t0 was not run again; t1 was, from its start
        assert rows(out) == [("t0", 1, "resolved", 0.0024), ("t1", 1, "resolved", 0.0024)]
        # nothing the killed run had on disk is left (the resumed run reaped it), no copy of a repository
        assert [p.name for p in (tmp_path / "tmp").iterdir()] == ["repofix-sandboxes"]
        assert not list((tmp_path / "tmp" / "repofix-sandboxes").iterdir())

        server.add(*task_replies(), *task_replies())
        code, output = finish(start(env, specs, tmp_path / "clean"))
        assert code == 0, output
    assert comparable(out) == comparable(tmp_path / "clean")
