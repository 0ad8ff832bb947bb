"""The run stage's working half: a separate process, started with an environment that never held a
GitHub token, runs the agent on the pull request's head and writes what came of it to a JSON file.

    python -m repofix.ci.worker REQUEST.json     (started by `repofix ci run`, which holds the token)

Why a new process: a token removed from `os.environ` stays readable in `/proc/<pid>/environ` for the
whole life of the process that was started with it; a process started without it never had it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import click

from repofix.agent import AgentRequest, run_agent
from repofix.ci.runstage import WorkError
from repofix.config import load_settings
from repofix.exitcodes import EXIT_DONE, EXIT_USAGE
from repofix.redaction import is_secret_name

_MODEL_KEYS = ("_API_KEY", "_API_BASE")  # the host calls the model, so the worker keeps these


def clean_env(env: Mapping[str, str]) -> dict[str, str]:
    """`env` without credentials (GitHub tokens, other secrets, the action's INPUT_* values)."""
    return {
        name: value
        for name, value in env.items()
        if not (
            (is_secret_name(name) and not name.upper().endswith(_MODEL_KEYS)) or name.startswith("INPUT_")
        )
    }


@dataclass
class WorkRequest:
    """What the worker needs: where the PR head is checked out, the task, and the run's settings (read
    from the base branch's `config_dir`, never from the checkout)."""

    checkout: str
    instruction: str
    mode: str
    config_dir: str
    model: str | None = None
    sandbox: str | None = None
    max_steps: int | None = None
    max_cost: float | str | None = None  # a number, or "none": no cap
    timeout: float | None = None
    test_cmd: str | None = None
    allow_unsandboxed: bool = False


@dataclass
class WorkOutcome:
    """The part of the agent's outcome the run stage reports (untrusted: the run stage checks it)."""

    status: str
    tests_before: str = ""
    tests_after: str = ""
    files_changed: list[str] = field(default_factory=list)
    cost: float = 0.0
    run_id: str = ""
    summary: str = ""
    patch: str = ""
    run_dir: str = ""


def run_in_worker(
    request: WorkRequest, folder: Path, progress: Callable[[dict[str, Any]], None]
) -> WorkOutcome:
    """Start the worker with a clean environment, wait for it, and return its outcome (WorkError when
    it failed). `folder` is a private scratch folder for the request and the answer."""
    request_file, answer_file = folder / "work-request.json", folder / "work-outcome.json"
    request_file.write_text(json.dumps(asdict(request)), "utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "repofix.ci.worker", str(request_file), str(answer_file)],
        env=clean_env(os.environ),
        stdin=subprocess.DEVNULL,
        check=False,
    )
    try:
        answer = json.loads(answer_file.read_text("utf-8"))
    except (OSError, ValueError):
        raise WorkError(
            f"the run stage's worker process exited with code {done.returncode} and left no result"
        ) from None
    if answer.get("run_dir"):
        progress({"event": "workspace", "run_dir": answer["run_dir"]})
    if "error" in answer:
        raise WorkError(str(answer["error"]))
    known = WorkOutcome.__dataclass_fields__
    return WorkOutcome(**{name: value for name, value in answer.items() if name in known})


def agent_work(
    config_dir: Path | None,
    model: str | None,
    sandbox: str | None,
    max_steps: int | None,
    max_cost: float | str | None,
    timeout: float | None,
    test_cmd: str | None,
    allow_unsandboxed: bool = False,
):
    """The `work` function `ci run` calls: the agent loop on the PR head checkout.

    Settings come from `config_dir` (the workflow's checkout of the base branch), never from the PR
    head: a pull request must not choose its own sandbox, setup commands or model endpoint."""
    # the one place these flags become settings, as in the other CLIs (None: not given; "none": no value)
    settings = load_settings(
        config_dir,
        model=model,
        sandbox=sandbox,
        max_steps=max_steps,
        max_cost=max_cost,
        timeout=timeout,
        test_cmd=test_cmd,
    )
    if settings.sandbox == "none" and not allow_unsandboxed:
        # Without isolation the PR's code could read this process's tokens (e.g. from /proc).
        raise click.UsageError(
            "the `none` sandbox would let the pull request's code read the workflow's "
            "credentials; use docker or bwrap, or pass --allow-unsandboxed (trusted code only)"
        )

    def work(checkout: Path, instruction: str, mode: str, progress):
        request = AgentRequest(repo=checkout, instruction=instruction, mode=mode, settings=settings)
        return run_agent(request, progress=progress)

    return work


def _work(request: WorkRequest, answer_file: Path) -> None:
    seen: dict[str, Any] = {}

    def progress(event: dict[str, Any]) -> None:  # names and counts only, never command text or output
        if event.get("event") == "workspace":
            seen["run_dir"] = str(event.get("run_dir") or "")
        elif event.get("event") == "step":
            print(f"repofix: step {event.get('step')}: tests {event.get('tests')}", flush=True)

    try:
        work = agent_work(
            Path(request.config_dir),
            request.model,
            request.sandbox,
            request.max_steps,
            request.max_cost,
            request.timeout,
            request.test_cmd,
            request.allow_unsandboxed,
        )
        outcome = work(Path(request.checkout), request.instruction, request.mode, progress)
        answer: dict[str, Any] = asdict(
            WorkOutcome(
                status=outcome.status,
                tests_before=outcome.tests_before,
                tests_after=outcome.tests_after,
                files_changed=list(outcome.files_changed),
                cost=float(outcome.cost),
                run_id=outcome.run_id,
                summary=outcome.summary,
                patch=outcome.patch or "",
                run_dir=str(outcome.run_dir),
            )
        )
    except Exception as error:  # reported by the run stage in the PR's comment
        answer = {"error": f"{type(error).__name__}: {error}", "run_dir": seen.get("run_dir", "")}
    answer_file.write_text(json.dumps(answer), "utf-8")


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m repofix.ci.worker REQUEST.json OUTCOME.json", file=sys.stderr)
        return EXIT_USAGE
    request = WorkRequest(**json.loads(Path(argv[0]).read_text("utf-8")))
    _work(request, Path(argv[1]))
    return EXIT_DONE  # the outcome, an error included, is in the answer file


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
