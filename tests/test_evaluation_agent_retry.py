"""`repofix eval run --model ... --resume --retry-errors` with the real agent on bwrap (LiteLLM over
real HTTP): infrastructure errors that really happened the first time (the provider answered 500; the
repository was not in the mirror yet) run again; a resolved and an unresolved task do not."""

from __future__ import annotations

import json
import shutil

import pytest
from openai_server import server_error
from test_evaluation_agent_kill import MODEL, finish, rows, start, task_replies
from test_evaluation_agent_runs import write_specs
from test_lifecycle_resume import env_for

from repofix.exitcodes import EXIT_DONE, EXIT_NOT_DONE
from tests.conftest import require_backend
from tests.openai_server import OpenAIServer
from tests.test_evaluation_grading import HIDDEN_TESTS, VISIBLE_TESTS, diff, git, make_task

pytestmark = [pytest.mark.bwrap, pytest.mark.slow, pytest.mark.timeout(900)]  # several real agent runs
# the fix makes add(2, 3) == 5 but not this: the agent's patch is graded unresolved
STRICTER = HIDDEN_TESTS + "\n\ndef test_add_twice():\n    assert add(2, 2) == 5\n"


def mirror_clone(folder, task) -> str:
    """`task`'s files as a git clone at folder/acme/mathx; returns its base commit."""
    clone = folder / "acme" / "mathx"
    clone.mkdir(parents=True)
    for name, content in task.repo.files.items():
        (clone / name).parent.mkdir(parents=True, exist_ok=True)
        (clone / name).write_text(content)
    git(clone, "init", "-q", "-b", "main")
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", "base")
    return git(clone, "rev-parse", "HEAD")


def test_retry_errors_runs_real_infrastructure_errors_again_and_nothing_else(tmp_path):
    require_backend("bwrap")
    staged = tmp_path / "staged"
    base = mirror_clone(staged, make_task())
    tasks = [
        make_task(id="ok"),
        make_task(id="down"),
        make_task(
            id="wrong",
            test_patch=diff("tests/test_mathx.py", VISIBLE_TESTS, STRICTER),
            FAIL_TO_PASS=["tests/test_mathx.py::test_add", "tests/test_mathx.py::test_add_twice"],
        ),
        make_task(id="gone", repo={"github": "acme/mathx"}, base_commit=base),
    ]
    specs = write_specs(tmp_path / "specs", tasks)
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({MODEL: {"input_per_million": 1.0, "output_per_million": 2.0}}))
    mirror = tmp_path / "mirror"
    mirror.mkdir()  # empty: "gone" cannot get its repository the first time
    with OpenAIServer() as server:
        env = env_for(
            tmp_path / "home",
            REPOFIX_TESTS_FIRST="false",
            REPOFIX_API_BASE=server.url,
            REPOFIX_PRICE_FILE=str(prices),
            REPOFIX_MODEL_CALL_MAX_RETRIES="0",
            OPENAI_API_KEY="sk-test",
        )
        out = tmp_path / "run"
        # ok: fixed; down: the provider fails its first request; wrong: fixed, graded unresolved
        server.add(*task_replies(), server_error(), *task_replies())
        code, output = finish(start(env, specs, out, "--mirror", str(mirror)))
        assert code == EXIT_NOT_DONE, output
        first = {task: status for task, _, status, _ in rows(out)}
        assert first == {"ok": "resolved", "down": "error", "wrong": "unresolved", "gone": "error"}, output
        assert len(server.requests) == 5

        shutil.copytree(staged / "acme", mirror / "acme")  # the mirror is complete now
        server.add(*task_replies(), *task_replies())  # down, then gone
        args = ("--mirror", str(mirror), "--resume", "--retry-errors")
        code, output = finish(start(env, specs, out, *args))
        assert code == EXIT_DONE, output  # no infrastructure error left ("wrong" is the model's)
        assert len(server.requests) == 9  # only down and gone asked the model again
    latest = {task: (attempt, status) for task, attempt, status, _ in rows(out)}
    assert latest == {
        "ok": (1, "resolved"),
        "down": (2, "resolved"),
        "wrong": (1, "unresolved"),
        "gone": (2, "resolved"),
    }
    summary = json.loads((out / "report.json").read_text())
    assert summary["resolved_ids"] == ["ok", "down", "gone"] and summary["error_ids"] == []
    assert summary["unresolved_ids"] == ["wrong"]
