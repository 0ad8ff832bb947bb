"""`repofix implement`, `repofix fix`, `repofix resume` and `repofix continue`; `show` and `demo` are in
their own modules (`agent/show.py`, `agent/demo.py`), the outcome's text in `agent/summary.py`.

Exit codes: 0 done, 1 not done, 2 usage or setup error."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from repofix.agent.api import run_agent
from repofix.agent.display import Display
from repofix.agent.request import AgentRequest, AgentSetupError
from repofix.agent.resume import continue_agent, resume_agent
from repofix.agent.stopping import Tracker, fail, guarded
from repofix.agent.summary import summary_text
from repofix.config import UNSET, load_settings
from repofix.exitcodes import EXIT_DONE, EXIT_NOT_DONE
from repofix.safetext import visible
from repofix.workspace import ApplyRefused, Workspace
from repofix.workspace.deliver import apply_to_worktree


def run_options(function):
    options = [
        click.option(
            "--repo", default=".", show_default=True, help="Repository: a path, a git URL, or owner/name."
        ),
        click.option(
            "--rev",
            default=None,
            help="Commit, branch or tag to start from (default: the checkout "
            "as it is, uncommitted changes included).",
        ),
        click.option(
            "--model",
            "-m",
            default=None,
            help="LiteLLM model (openai/gpt-4o, anthropic/..., "
            "ollama/..., hosted_vllm/... with --api-base), scripted:FILE, replay:RUN, builtin, or a "
            "chain like builtin,openai/gpt-4o. Env: REPOFIX_MODEL.",
        ),
        click.option("--api-base", default=None, help="Base URL of an OpenAI-compatible server."),
        click.option(
            "--price-file",
            default=None,
            type=click.Path(dir_okay=False),
            help="Prices for models LiteLLM does not know (JSON/YAML: model -> input/output per token).",
        ),
        click.option("--max-steps", type=click.IntRange(1), default=None, help="Step limit (default 30)."),
        click.option(
            "--max-cost",
            metavar="USD|none",
            default=None,
            help=f"Cost cap in USD (default 2); {UNSET} for no cap.",
        ),
        click.option("--timeout", type=click.FloatRange(1), default=None, help="Wall-time limit in seconds."),
        click.option(
            "--sandbox",
            type=click.Choice(["docker", "bwrap", "none"]),
            default=None,
            help="Sandbox backend (default: docker if its engine answers, else bwrap).",
        ),
        click.option("--test-cmd", default=None, help="Test command (default: pytest, detected)."),
        click.option(
            "--python",
            default=None,
            help="bwrap sandbox: the project's Python interpreter (default: "
            "$VIRTUAL_ENV, else the repository's .venv, else python3). Env: REPOFIX_PYTHON.",
        ),
        click.option(
            "--setup",
            multiple=True,
            help="Setup command run with network before the run "
            "(repeatable), e.g. --setup 'pip install -e .'",
        ),
        click.option(
            "--apply",
            "apply_",
            is_flag=True,
            help="Apply the result to your working tree "
            "(refused if it would overwrite your uncommitted changes).",
        ),
        click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON on stdout."),
        click.option(
            "--trust-repo-config",
            is_flag=True,
            default=None,
            help="Let the repository's .repofix.toml / "
            "[tool.repofix] set everything (model, endpoints, sandbox, setup...), not just its test command.",
        ),
    ]
    for option in reversed(options):
        function = option(function)
    return function


@click.command()
@click.argument("instruction")
@run_options
@click.option(
    "--tests-first/--no-tests-first",
    default=None,  # not given: the settings decide (default on)
    help="Red phase first: the model writes failing tests for the feature, which are then protected "
    "(default on; also tests_first in the settings).",
)
def implement(instruction: str, tests_first: bool | None, **options) -> None:
    """Implement a feature, test-first, and deliver it as a branch and a patch."""
    start(instruction, "implement", (), None, tests_first, options)


@click.command()
@click.argument("description", required=False, default="")
@run_options
@click.option("--test", "-t", "tests", multiple=True, help="A failing test id to fix (repeatable).")
@click.option("-k", "keyword", default=None, help="Fix only failing tests whose id contains this text.")
@click.option(
    "--tests-first/--no-tests-first",
    default=None,
    help="For a described bug: write a regression test first (default on).",
)
def fix(
    description: str, tests: tuple[str, ...], keyword: str | None, tests_first: bool | None, **options
) -> None:
    """Make the failing tests pass, or fix a described bug ("crash when the config is empty")."""
    start(description, "fix", tests, keyword, tests_first, options)


def start(instruction, mode, tests, keyword, tests_first, options) -> None:
    request = AgentRequest(
        repo=options["repo"], instruction=instruction, mode=mode, targets=tuple(tests), rev=options["rev"]
    )
    local = Path(options["repo"]) if Path(options["repo"]).is_dir() else None
    try:  # the one place a command's flags become settings (None: not given; "none": no value)
        settings = load_settings(
            local,
            trust_repo=options.get("trust_repo_config"),
            model=options["model"],
            api_base=options["api_base"],
            price_file=options["price_file"],
            max_steps=options["max_steps"],
            max_cost=options["max_cost"],
            timeout=options["timeout"],
            sandbox=options["sandbox"],
            test_cmd=options["test_cmd"],
            setup=options["setup"],
            python=options.get("python"),
            tests_first=tests_first,
            extra={"keyword": keyword} if keyword else None,
        )
    except ValueError as error:
        fail(str(error))
    if options.get("python") and settings.sandbox in ("docker", "none"):
        fail(
            f"--python chooses the bwrap sandbox's interpreter; the {settings.sandbox} sandbox runs its own "
            "Python (use --sandbox bwrap, or leave --python out)"
        )
    if settings.sandbox == "none":
        click.echo(
            "WARNING: --sandbox none runs the model's commands on this machine without isolation.", err=True
        )
    request.settings = settings
    display = Tracker(Display(settings.max_steps))
    outcome = guarded(lambda: _run(request, display), AgentSetupError, tracker=display)
    display.close()
    report(outcome, options["as_json"], options["apply_"])


def _run(request, display):
    return run_agent(request, progress=display)


def report(outcome, as_json: bool, apply_: bool) -> None:
    applied: list[str] = []
    apply_error = ""
    if apply_ and outcome.status == "done":
        try:
            applied = apply_to_worktree(Workspace.open(outcome.run_id), outcome.checkpoint)
        except ApplyRefused as error:
            apply_error = str(error)
    if as_json:
        data = {k: (str(v) if isinstance(v, Path) else v) for k, v in outcome.__dict__.items()}
        click.echo(json.dumps({**data, "applied": applied, "apply_error": apply_error}, indent=2))
    else:
        click.echo(visible(summary_text(outcome, applied, apply_error, apply_)))
    sys.exit(EXIT_DONE if outcome.status == "done" and not apply_error else EXIT_NOT_DONE)


def limit_options(function):
    for option in reversed(
        [
            click.option(
                "--model", "-m", default=None, help="Go on with another model than the recorded one."
            ),
            click.option(
                "--max-steps", type=click.IntRange(1), default=None, help="A new step limit (total steps)."
            ),
            click.option(
                "--max-cost",
                metavar="USD|none",
                default=None,
                help=f"A new cost cap in USD (total); {UNSET} for no cap.",
            ),
            click.option(
                "--timeout", type=click.FloatRange(1), default=None, help="A new wall-time limit in seconds."
            ),
            click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON on stdout."),
        ]
    ):
        function = option(function)
    return function


@click.command()
@click.argument("run_id")
@limit_options
def resume(
    run_id: str,
    model: str | None,
    max_steps: int | None,
    max_cost: float | str | None,
    timeout: float | None,
    as_json: bool,
) -> None:
    """Continue a run that stopped (kill, crash, a step/cost/time limit, a model error) from its best
    checkpoint, with its conversation kept; raise the limit that stopped it."""
    display = Tracker(Display(max_steps or 30), run_id)
    outcome = guarded(
        lambda: resume_agent(
            run_id, model=model, max_steps=max_steps, max_cost=max_cost, timeout=timeout, progress=display
        ),
        AgentSetupError,
        tracker=display,
    )
    display.close()
    report(outcome, as_json, False)


@click.command(name="continue")
@click.argument("run_id")
@click.argument("instruction")
@limit_options
def continue_(
    run_id: str,
    instruction: str,
    model: str | None,
    max_steps: int | None,
    max_cost: float | str | None,
    timeout: float | None,
    as_json: bool,
) -> None:
    """Give a finished run a follow-up instruction: a new phase from its final checkpoint, with its history,
    delivered as a new commit on the same branch."""
    display = Tracker(Display(max_steps or 30), run_id)
    outcome = guarded(
        lambda: continue_agent(
            run_id,
            instruction,
            model=model,
            max_steps=max_steps,
            max_cost=max_cost,
            timeout=timeout,
            progress=display,
        ),
        AgentSetupError,
        tracker=display,
    )
    display.close()
    report(outcome, as_json, False)
