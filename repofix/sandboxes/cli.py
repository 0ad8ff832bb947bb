"""`repofix sandbox doctor|build|prune`."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import click

from repofix.config import SettingsError, load_settings
from repofix.exitcodes import EXIT_USAGE
from repofix.safetext import visible
from repofix.sandboxes import SandboxError, bwrap, cleanup, docker, interpreter, limits, open_sandbox
from repofix.sandboxes.bundle import runner_dir


@click.group()
def sandbox() -> None:
    """Check, build and clean up sandboxes."""


@sandbox.command()
@click.option(
    "--python", "python", default=None, help="Check this interpreter instead of the one a run would choose."
)
def doctor(python: str | None) -> None:
    """Report which sandbox backends work on this machine, and why not; and which Python a bwrap run in
    the current folder would use, and whether pytest imports there."""

    problems = {"docker": docker.available(), "bwrap": bwrap.available()}
    for name in ("docker", "bwrap"):
        if problems[name] is None:  # it should work: prove it with a real command
            started = time.monotonic()
            try:
                with open_sandbox(None, backend=name) as box:
                    result = box.run("echo ok")
                if result.stdout.strip() != "ok":
                    problems[name] = f"a test command failed: {result.output[-500:]}"
            except Exception as error:
                problems[name] = f"{type(error).__name__}: {error}"
            elapsed = time.monotonic() - started
        status = "ok" if problems[name] is None else "unavailable"
        detail = f"started and ran a command in {elapsed:.2f}s" if problems[name] is None else problems[name]
        click.echo(f"{name:7} {status:12} {detail}")
    if problems["bwrap"] is None and not limits.can_limit():
        click.echo("        note: bwrap cannot cap memory or pids here (needs root or a delegated cgroup)")
    click.echo("none    ok           no isolation; only with an explicit --sandbox none")
    click.echo(_python_report(python, bwrap_works=problems["bwrap"] is None))
    if all(problems.values()):
        raise SystemExit(EXIT_USAGE)


def _python_report(python: str | None, bwrap_works: bool) -> str:
    """The interpreter a bwrap run here would use, and whether pytest imports in it, tried in the sandbox."""

    here = Path.cwd()
    try:
        chosen = interpreter.choose(python or load_settings(here).python, here)
    except (SandboxError, SettingsError) as error:
        return visible(f"python  unusable     {error}")
    line = f"python  {chosen.executable} (Python {chosen.version}, {chosen.origin})"
    if not bwrap_works:
        return visible(f"{line}\n        pytest: not checked (bwrap does not work here)")
    probe = "import pytest, sys; print(pytest.__version__, sys.executable)"
    try:
        with open_sandbox(None, backend="bwrap", python=chosen.executable) as box:
            result = box.run(["python", "-c", probe], timeout=60)
    except SandboxError as error:
        return visible(f"{line}\n        pytest: not checked, the sandbox did not start: {error}")
    if result.ok:
        version = result.stdout.split()[0] if result.stdout.split() else "?"
        return visible(f"{line}\n        pytest {version} importable in the sandbox")
    last = (result.output.strip().splitlines() or ["(no output)"])[-1]
    return visible(
        f"{line}\n        pytest NOT importable in the sandbox ({last[:300]}): install it in that "
        "environment, or choose another with --python"
    )


@sandbox.command()
@click.option(
    "--base-image",
    default="repofix-base:bookworm",
    show_default=True,
    help="Base image (any Debian/Ubuntu-like image with python3; an offline host can use a locally "
    "imported one).",
)
@click.option("--tag", default=None, help="Image name (default: repofix-sandbox:latest or $REPOFIX_IMAGE).")
@click.option(
    "--build-base/--no-build-base",
    default=None,
    help="Build the default base image from Debian packages with debootstrap first (default: only "
    "when the base image is the default and missing).",
)
def build(base_image: str, tag: str | None, build_base: bool | None) -> None:
    """Build the Docker sandbox image from sandbox/Dockerfile."""

    engine = docker.client()
    tag = tag or docker.DEFAULT_IMAGE
    folder = runner_dir()
    if build_base is None:
        import docker as docker_sdk

        try:
            engine.images.get(base_image)
            build_base = False
        except docker_sdk.errors.ImageNotFound:
            build_base = base_image == "repofix-base:bookworm"
    if build_base:
        script = folder / "build_base.sh"
        click.echo(f"building the base image {base_image} with {script} ...", err=True)
        subprocess.run(["bash", str(script)], check=True)
    click.echo(f"building {tag} from {folder / 'Dockerfile'} (base {base_image}) ...", err=True)
    # The docker CLI, not the SDK: BuildKit and its progress output for the user, as `build_base.sh` (which
    # needs the CLI for `docker import`) builds the base image; everything else here uses the SDK.
    command = ["docker", "build", "--build-arg", f"BASE_IMAGE={base_image}", "-t", tag, str(folder)]
    result = subprocess.run(command)
    if result.returncode:
        click.echo(
            f"docker build failed (exit {result.returncode}); the command was: {' '.join(command)}", err=True
        )
        sys.exit(EXIT_USAGE)
    click.echo(f"built {tag}")


@sandbox.command()
@click.option("--dry-run", is_flag=True, help="Only list what would be removed.")
def prune(dry_run: bool) -> None:
    """Remove containers, volumes, cgroups and scratch folders that crashed runs left behind.

    Sandboxes end themselves when repofix dies (even by kill -9); this is for what a host reboot or a
    suspended engine left."""

    try:
        engine = docker.client()
    except SandboxError as error:
        engine = None
        click.echo(f"skipping Docker: {error}", err=True)
    removed = cleanup.prune(engine, dry_run=dry_run)
    verb = "would remove" if dry_run else "removed"
    for item in removed:
        click.echo(f"{verb} {item}")
    click.echo(f"{len(removed)} left-over item(s) {'would be removed' if dry_run else 'removed'}")
