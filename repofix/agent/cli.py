"""`repofix implement`, `repofix fix`, `repofix resume`, `repofix continue` and `repofix show`.

Exit codes: 0 done, 1 not done, 2 usage or setup error."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import click

from repofix.agent.api import AgentRequest, AgentSetupError, run_agent
from repofix.agent.conversation import messages_json, render
from repofix.agent.display import Display
from repofix.agent.resume import continue_agent, resume_agent
from repofix.agent.stopping import Tracker, go_on, on_signal, one_line
from repofix.agent.trajectory import Trajectory
from repofix.config import UNSET, SettingsError, load_settings
from repofix.exitcodes import EXIT_DONE, EXIT_NOT_DONE, EXIT_USAGE
from repofix.models import ModelError
from repofix.runs import open_run
from repofix.safetext import visible
from repofix.sandboxes import SandboxError
from repofix.workspace import ApplyRefused, Workspace, WorkspaceError
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


def guarded(action, *setup_errors, tracker: Tracker | None = None):
    """Run `action`; setup problems become a clear message and exit code 2. A run stopped by a signal
    or by a resource failure (full disk, read-only folder) is saved; the message says how to resume it."""
    if tracker is not None and threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, on_signal)
    try:
        return action()
    except KeyboardInterrupt as stop:
        signum = getattr(stop, "signum", signal.SIGINT)
        if tracker:
            tracker.close()
        fail(f"stopped by {signal.Signals(signum).name}" + go_on(tracker), code=128 + signum)
    except OSError as error:  # ENOSPC, EROFS, EACCES...: the cause and the path, not a traceback
        if tracker:
            tracker.close()
        where = f": {error.filename}" if error.filename else ""
        fail(f"{error.strerror or error}{where}" + go_on(tracker))
    except (*setup_errors, SettingsError, ModelError, SandboxError, WorkspaceError, LookupError) as error:
        if tracker:
            tracker.close()
        started = (
            tracker is not None and tracker.started
        )  # a refusal before the run began has nothing to resume
        fail(one_line(error, tracker) + (go_on(tracker) if started else ""))


def fail(message: str, code: int = EXIT_USAGE) -> None:
    click.echo(visible(f"repofix: {message}"), err=True)
    sys.exit(code)


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


# How to go on after each resumable stop (the limit to raise).
RESUME_HINTS = {
    "step_limit": " --max-steps N",
    "cost_limit": " --max-cost USD",
    "time_limit": " --timeout SECONDS",
    "model_error": "   (once the model provider answers again)",
}


def summary_text(outcome, applied, apply_error, apply_) -> str:
    head = {"done": "DONE", "not_done": "NOT DONE"}.get(outcome.status, outcome.status.upper())
    lines = [
        f"{head} ({outcome.reason}): {outcome.message}",
        f"  tests:      {outcome.tests_before}  ->  {outcome.tests_after}",
        f"  files:      {', '.join(outcome.files_changed) or 'none changed'}",
        f"  steps/cost: {outcome.steps} steps, ${outcome.cost:.4f}",
        f"  tokens:     {token_line(outcome.extra or {})}",
    ]
    if (outcome.extra or {}).get("test_infra_not_counted"):
        lines.append(
            f"  not counted: the model changed test infrastructure, the verdict used yours: "
            f"{', '.join(outcome.extra['test_infra_not_counted'])}"
        )
    lines += branch_lines(outcome.branch, outcome.commit, outcome.snapshot)
    if outcome.patch_file:
        lines.append(f"  patch:      {outcome.patch_file}")
    lines.append(f"  trajectory: {outcome.trajectory_file}   (repofix show {outcome.run_id})")
    hint = RESUME_HINTS.get(outcome.reason) if outcome.status != "done" else None
    if hint is not None:
        lines.append(f"  to go on:   repofix resume {outcome.run_id}{hint}")
    if applied:
        lines.append(f"  applied to your working tree: {', '.join(applied)}  (repofix undo reverses it)")
    if apply_error:
        lines.append(f"  NOT applied: {apply_error}")
    elif apply_ and outcome.status != "done":
        lines.append("  not applied: the run is not done (the patch file holds the best checkpoint)")
    return "\n".join(lines)


def branch_lines(branch: str | None, commit: str | None, snapshot: str | None) -> list[str]:
    """Where the result went: the branch, and what its commits on the user's HEAD hold."""
    if not branch:
        return []
    lines = [f"  branch:     {branch}  (your branch, index and working tree are untouched)"]
    if snapshot and commit:
        lines.append(
            f"  commits:    2 on your HEAD: {snapshot[:12]} your uncommitted work at the start (snapshot), "
            f"{commit[:12]} the fix"
        )
    return lines


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


@click.command()
@click.argument("run_id")
@click.option("--full", is_flag=True, help="Show every observation in full.")
@click.option("--messages", is_flag=True, help="Print the whole conversation as the model was sent it.")
@click.option("--json", "as_json", is_flag=True, help="With --messages: the messages as JSON, for scripts.")
def show(run_id: str, full: bool, messages: bool, as_json: bool) -> None:
    """Print a run's trajectory readably, or (--messages) its whole conversation."""
    folder = guarded(lambda: open_run(run_id))
    if not folder.trajectory_file.exists():
        fail(f"run {run_id} has no trajectory yet")
    data = Trajectory.load(folder.trajectory_file).data
    if messages or as_json:
        conversation = data.get("messages") or []
        if as_json:  # json.dumps escapes every control character; ensure_ascii the rest
            click.echo(json.dumps(messages_json(conversation), indent=2))
        else:
            click.echo(visible(render(conversation)))
        return

    def echo(text: str) -> None:  # everything in a trajectory came from the model or the sandbox
        click.echo(visible(text))

    echo(
        f"run {data['run_id']}  mode {data.get('mode')}  model {data.get('model')}  "
        f"status {data.get('status')} ({data.get('reason', '')})"
    )
    echo(f"task: {data.get('task') or '(make the failing tests pass)'}")
    for step in data["steps"]:
        args = json.dumps(step.get("arguments", {}), ensure_ascii=False)
        echo(f"\n-- step {step['step']}: {step['action']} {args if full else args[:200]}")
        reply = step.get("reply") or {}
        thought = reply.get("content") or ""
        if isinstance(reply.get("content_in_message"), int):  # an oversized reply, stored once
            thought = str((data["messages"][reply["content_in_message"]] or {}).get("content") or "")
        if thought:
            echo(f"   thought: {thought if full else thought[:300]}")
        observation = step.get("observation", "")
        lines = observation.rstrip("\n").split("\n") if observation else []  # a \r stays visible
        shown = lines if full else lines[:15]
        echo("\n".join("   | " + line for line in shown))
        if len(shown) < len(lines):
            echo(f"   | ... {len(lines) - len(shown)} more lines (--full)")
        echo(
            f"   checkpoint {step.get('checkpoint')}  tests {step.get('tests')}  cost ${step.get('cost', 0):.4f}"
            f"  tokens {token_line(step)}"
        )
    totals = data.get("totals", {})
    echo(
        f"\n{data.get('status')}: {data.get('message', '')}  total ${totals.get('cost', 0):.4f}, "
        f"tokens {token_line(totals)}"
    )
    delivered = data.get("delivered") or {}
    if delivered.get("branch"):
        echo(f"  files:      {', '.join(delivered.get('files') or []) or 'none changed'}")
    for line in branch_lines(delivered.get("branch"), delivered.get("commit"), delivered.get("snapshot")):
        echo(line)


def token_line(counts: dict) -> str:
    """Input (of it cached, written to the cache) and output tokens, as a run or a step recorded them."""
    tokens_in, cached, written = (
        int(counts.get(k) or 0) for k in ("input_tokens", "cached_tokens", "cache_write_tokens")
    )
    cache = (
        f" ({cached} cached" + (f", {written} written to the cache" if written else "") + ")"
        if cached or written
        else ""
    )
    return f"{tokens_in} in{cache} / {int(counts.get('output_tokens') or 0)} out"


@click.command()
@click.option(
    "--model",
    "-m",
    default=None,
    help="Model to use (default: the configured one, else the built-in "
    "repair engine, which needs no network and no API key).",
)
@click.option(
    "--sandbox", type=click.Choice(["docker", "bwrap", "none"]), default=None, help="Sandbox backend."
)
@click.option(
    "--dest",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where to put the demo repository (default: a new temporary folder).",
)
def demo(model: str | None, sandbox: str | None, dest: Path | None) -> None:
    """Try repofix on a small bundled project with a bug: copies it into a fresh git repository and
    runs `repofix fix` there, delivering the fix as a branch."""
    source = Path(__file__).resolve().parents[2] / "examples" / "quickstart"
    if not source.is_dir():
        fail(f"the bundled example is missing ({source}); run the demo from a repofix checkout")
    dest = dest or Path(tempfile.mkdtemp(prefix="repofix-demo-")) / "quickstart"
    if dest.exists() and any(dest.iterdir()):
        fail(f"{dest} is not empty; choose another --dest")
    shutil.copytree(source, dest, dirs_exist_ok=True)
    for command in (
        ["init", "-q", "-b", "main"],
        ["add", "-A"],
        [
            "-c",
            "user.name=repofix demo",
            "-c",
            "user.email=demo@repofix.invalid",
            "commit",
            "-qm",
            "quickstart: a shop with a bug",
        ],
    ):
        subprocess.run(["git", "-C", str(dest), *command], check=True)
    click.echo(f"demo repository: {dest}", err=True)
    options = dict(
        repo=str(dest),
        rev=None,
        model=model,
        api_base=None,
        price_file=None,
        max_steps=None,
        max_cost=None,
        timeout=None,
        sandbox=sandbox,
        test_cmd=None,
        setup=(),
        apply_=False,
        as_json=False,
    )
    start("", "fix", (), None, None, options)
