"""`repofix test`: run a repository's tests in a sandbox; print the baseline and the condensed feedback."""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from repofix.config import SettingsError, load_settings
from repofix.exitcodes import EXIT_DONE, EXIT_NOT_DONE, EXIT_USAGE
from repofix.safetext import visible
from repofix.sandboxes import SandboxError, choose_backend, open_sandbox
from repofix.testing.baseline import take_baseline
from repofix.testing.done import done
from repofix.testing.feedback import DEFAULT_BUDGET, condense


@click.command()
@click.option(
    "--repo",
    "repo",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=".",
    show_default=True,
    help="The repository to test (copied into the sandbox; never modified).",
)
@click.option(
    "--sandbox",
    "backend",
    type=click.Choice(["docker", "bwrap", "none"]),
    default=None,
    help="Sandbox backend (default: docker if its engine answers, else bwrap).",
)
@click.option(
    "--test-cmd",
    default=None,
    help="Test command (default: detected; pytest for Python projects, with their own configuration).",
)
@click.option("--setup", "setup", multiple=True, help="Setup command run first, with network (repeatable).")
@click.option(
    "--python",
    "python",
    default=None,
    help="bwrap sandbox: the project's Python interpreter (default: "
    "the python setting, $VIRTUAL_ENV, the repository's .venv, else python3).",
)
@click.option(
    "--budget", type=int, default=None, help="Token budget of the condensed feedback [default: 4000]."
)
@click.option(
    "--timeout", type=float, default=600.0, show_default=True, help="Seconds before the run is killed."
)
@click.option(
    "--reruns",
    type=int,
    default=1,
    show_default=True,
    help="Re-run failing tests this many times to tell flaky from real failures.",
)
@click.option(
    "--log-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where to keep the full log (default: a new temporary directory).",
)
def test(
    repo: Path,
    backend: str | None,
    test_cmd: str | None,
    setup: tuple[str, ...],
    python: str | None,
    budget: int | None,
    timeout: float,
    reruns: int,
    log_dir: Path | None,
) -> None:
    """Run the tests in a sandbox; print the baseline and the condensed feedback.

    Exit code 0 when every test passed, 1 when not (failures, crash, timeout, import or collection
    errors, nothing collected, missing runner), 2 on bad usage.
    """

    try:  # no engine, a bad interpreter, a failing setup command, a full disk: a message and exit 2
        if python and choose_backend(backend) != "bwrap":
            raise SandboxError(
                f"--python chooses the bwrap sandbox's interpreter; the {choose_backend(backend)} "
                "sandbox runs its own Python (use --sandbox bwrap, or leave --python out)"
            )
        python = python or load_settings(repo).python  # the user's config (a repository's only when trusted)
        box = open_sandbox(repo.resolve(), backend=backend, setup=setup, python=python, repo=repo.resolve())
    except (SandboxError, SettingsError, OSError) as error:
        click.echo(visible(f"repofix: {error}"), err=True)
        raise SystemExit(EXIT_USAGE) from None
    with box:
        log_dir = log_dir or Path(tempfile.mkdtemp(prefix="repofix-test-"))  # made only once there is a run
        baseline = take_baseline(box, test_cmd, reruns=reruns, timeout=timeout, log_dir=log_dir)
        run = baseline.run
        click.echo(f"$ {run.command}   (sandbox: {box.backend}, {run.duration:.1f}s)")
        click.echo(f"Baseline: {run.summary()}")
        if baseline.known_failures:
            click.echo(f"Known failures: {len(baseline.known_failures)}")
        if baseline.flaky:
            click.echo("Flaky (passed when re-run): " + ", ".join(sorted(baseline.flaky)))
        click.echo("")
        click.echo(condense(run, budget=budget or DEFAULT_BUDGET, flaky=baseline.flaky, workdir=box.workdir))
        click.echo("")
        click.echo(f"Full log: {run.log_path}")
    verdict = done(None, run, [], flaky=baseline.flaky)
    raise SystemExit(EXIT_DONE if verdict.done else EXIT_NOT_DONE)
