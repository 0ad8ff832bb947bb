"""`repofix ci run` (read-only token: do the work, write the artifact) and `repofix ci publish`
(write token: validate the artifact, push or suggest, update the PR's comment)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from repofix import config
from repofix.ci.artifact import ArtifactError
from repofix.ci.events import EventError, load_event
from repofix.ci.github import GitHub, GitHubError
from repofix.ci.gitops import default_remote
from repofix.ci.publish import DEFAULT_MAX_PATCH_BYTES, PublishSettings, publish_stage
from repofix.ci.runstage import RunSettings, run_stage
from repofix.ci.worker import WorkRequest, agent_work, run_in_worker
from repofix.config import UNSET, SettingsError
from repofix.exitcodes import EXIT_NOT_DONE, EXIT_USAGE
from repofix.redaction import redact, secrets_from_env
from repofix.safetext import visible
from repofix.workspace.errors import GitError

DEFAULT_ARTIFACT = "repofix-artifact"
BOT_LOGIN = "github-actions[bot]"


def _token() -> str | None:
    return os.environ.get("GITHUB_TOKEN") or os.environ.get("GH_TOKEN") or None


def _run_url() -> str:
    server = (os.environ.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")
    repository, run_id = os.environ.get("GITHUB_REPOSITORY"), os.environ.get("GITHUB_RUN_ID")
    return f"{server}/{repository}/actions/runs/{run_id}" if repository and run_id else ""


def _allow_list(values: tuple[str, ...]) -> list[str]:
    raw = list(values) or [config.env("ALLOW") or ""]
    return [
        name.strip().lstrip("@")
        for value in raw
        for name in value.replace("\n", ",").split(",")
        if name.strip()
    ]


@click.group()
def ci() -> None:
    """Run repofix as a bot on GitHub pull requests (inside GitHub Actions)."""


_common = [
    click.option(
        "--artifact-dir",
        type=click.Path(path_type=Path),
        default=DEFAULT_ARTIFACT,
        show_default=True,
        help="Folder for the patch, report.json, summary.md and the trajectory.",
    ),
    click.option(
        "--bot-login",
        default=lambda: config.env("BOT_LOGIN") or BOT_LOGIN,
        show_default=f"$REPOFIX_BOT_LOGIN, else {BOT_LOGIN}",
        help="The account repofix comments as (its comments never trigger it).",
    ),
    click.option(
        "--remote",
        default=None,
        help="Git remote of the repository [default: $REPOFIX_GIT_REMOTE, "
        "else $GITHUB_SERVER_URL/$GITHUB_REPOSITORY.git].",
    ),
]


def _with_common(function):
    for option in reversed(_common):
        function = option(function)
    return function


@ci.command("run")
@_with_common
@click.option(
    "--allow",
    multiple=True,
    help="Only these logins may trigger repofix (comma-separated or "
    "repeated; also $REPOFIX_ALLOW). They still need write access.",
)
# --model and --sandbox: without the flag, the settings decide ($REPOFIX_MODEL / $REPOFIX_SANDBOX, the config files)
@click.option(
    "--model", default=None, help="Model, e.g. openai/gpt-4o or scripted:FILE [default: the settings']."
)
@click.option("--sandbox", type=click.Choice(["docker", "bwrap", "none"]), default=None)
@click.option("--max-steps", type=int, default=None, help="Step limit [default: the settings', 30].")
@click.option(
    "--max-cost",
    metavar="USD|none",
    default=None,
    help=f"Stop when the model has cost this many dollars; {UNSET} for no cap.",
)
@click.option("--timeout", type=float, default=None, help="Wall-clock limit of the run in seconds.")
@click.option("--test-cmd", default=None, help="Test command (default: detected).")
@click.option(
    "--config-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=".",
    show_default=True,
    help="Read .repofix.toml / [tool.repofix] from here (the base branch), never from the PR head.",
)
@click.option(
    "--allow-unsandboxed",
    is_flag=True,
    default=lambda: config.env_flag("CI_ALLOW_UNSANDBOXED"),
    help="Permit the `none` sandbox (only for code you trust).",
)
def run(
    artifact_dir: Path,
    bot_login: str,
    remote: str | None,
    allow: tuple[str, ...],
    model: str | None,
    sandbox: str | None,
    max_steps: int | None,
    max_cost: str | None,
    timeout: float | None,
    test_cmd: str | None,
    config_dir: Path,
    allow_unsandboxed: bool,
) -> None:
    """Read the GitHub event, check who asked, run the agent on the PR head and write the artifact.
    Needs only a read-only token ($GITHUB_TOKEN)."""
    secrets = secrets_from_env()
    try:  # bad settings fail here, before any API call; the worker process reads them again
        agent_work(config_dir, model, sandbox, max_steps, max_cost, timeout, test_cmd, allow_unsandboxed)
    except SettingsError as error:  # the input is wrong, not the run: exit 2 as every command does
        click.echo(visible(f"Error: {error}"), err=True)
        raise SystemExit(EXIT_USAGE) from None

    def work(checkout: Path, instruction: str, mode: str, progress):
        # The agent runs in a new process whose environment never held a token (see repofix.ci.worker).
        request = WorkRequest(
            str(checkout),
            instruction,
            mode,
            str(config_dir.resolve()),
            model,
            sandbox,
            max_steps,
            max_cost,
            timeout,
            test_cmd,
            allow_unsandboxed,
        )
        return run_in_worker(request, checkout.parent, progress)

    try:
        event = load_event()
        github = GitHub(event.repository, _token())
        settings = RunSettings(
            artifact_dir=artifact_dir,
            remote=remote or default_remote(event.repository),
            bot_login=bot_login,
            allow=_allow_list(allow),
            run_url=_run_url(),
        )
        report = run_stage(event, github, work, settings, secrets)
    except (EventError, GitHubError) as error:
        raise click.ClickException(redact(str(error), secrets)) from None
    detail = report.reason or f"tests {report.tests_before} -> {report.tests_after}"
    click.echo(redact(f"repofix ci: {report.status}: {detail}", secrets))
    if report.status == "error":
        raise SystemExit(EXIT_NOT_DONE)


@ci.command("publish")
@_with_common
@click.option(
    "--allow",
    multiple=True,
    help="Only these logins may trigger repofix (as for `ci run`; checked again here).",
)
@click.option("--max-patch-bytes", type=int, default=None, help="Refuse larger patches [default: 50000].")
def publish(
    artifact_dir: Path,
    bot_login: str,
    remote: str | None,
    allow: tuple[str, ...],
    max_patch_bytes: int | None,
) -> None:
    """Validate the artifact of `ci run` and publish it: push a commit to a same-repository PR, or
    suggest the patch on a fork PR; update repofix's comment. Needs a token that may write. The event,
    the requester's permission and the pull request are checked again here, on GitHub."""
    secrets = secrets_from_env()
    try:
        event = load_event()
        settings = PublishSettings(
            artifact_dir=artifact_dir,
            remote=remote or default_remote(event.repository),
            repository=event.repository,
            bot_login=bot_login,
            max_patch_bytes=max_patch_bytes or DEFAULT_MAX_PATCH_BYTES,
            allow=_allow_list(allow),
            run_url=_run_url(),
        )
        result = publish_stage(event, GitHub(event.repository, _token()), settings, secrets)
    except (ArtifactError, EventError, GitHubError, GitError) as error:
        raise click.ClickException(redact(str(error), secrets)) from None
    click.echo(redact(f"repofix ci: {result.action}: {result.message.splitlines()[0]}", secrets))
    if result.action == "rejected":
        raise SystemExit(EXIT_NOT_DONE)
