"""Commands of the workspace room: checkpoints, diff, restore, undo."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import NoReturn

import click

from repofix.exitcodes import EXIT_NOT_DONE, EXIT_USAGE
from repofix.safetext import visible
from repofix.workspace.apply import undo_apply
from repofix.workspace.errors import WorkspaceError
from repofix.workspace.workspace import Workspace

_home = click.option(
    "--home", type=click.Path(), default=None, help="repofix home (default $REPOFIX_HOME or ~/.cache/repofix)"
)


def _refuse(error: Exception, code: int = EXIT_USAGE) -> NoReturn:
    """Said as every repofix command says it: a wrong run or checkpoint exits 2 (the input is wrong)."""
    click.echo(visible(f"repofix: {error}"), err=True)
    sys.exit(code)


def _open(run: str, home: str | None):
    try:
        return Workspace.open(run, home)
    except LookupError as exc:  # RunNotFound, or a run that never got a workspace
        _refuse(exc)


@click.command()
@click.argument("run")
@_home
def checkpoints(run: str, home: str | None) -> None:
    """List a run's checkpoints with the step and test summary of each."""
    ws = _open(run, home)
    for c in ws.store.list():
        when = time.strftime("%H:%M:%S", time.localtime(c.created))
        tests = c.tests_line
        step = "-" if c.step is None else str(c.step)
        click.echo(
            visible(
                f"#{c.n:<4} step {step:<4} {when}  {c.commit[:10]}  {c.label or ''}"
                + (f"  [{tests}]" if tests else ""),
                one_line=True,
            )
        )


@click.command()
@click.argument("run")
@click.argument("n", type=int, required=False)
@click.option(
    "--from", "start", type=int, default=None, help="compare with this checkpoint (default: the start)"
)
@_home
def diff(run: str, n: int | None, start: int | None, home: str | None) -> None:
    """Show the change from the run's start (or --from M) to checkpoint N (default: the latest)."""
    ws = _open(run, home)
    try:
        new = ws.current() if n is None else ws.store.get(n)
        old = ws.source.base if start is None else ws.store.get(start).commit
    except WorkspaceError as exc:
        _refuse(exc)
    text = ws.store.diff(old, new.commit)
    # On a terminal the model's bytes are shown escaped; piped (to `git apply`) the patch stays exact.
    sys.stdout.write(visible(text) if sys.stdout.isatty() else text)


@click.command()
@click.argument("run")
@click.argument("n", type=int)
@_home
def restore(run: str, n: int, home: str | None) -> None:
    """Make checkpoint N the run's current state (a resumed run continues from it)."""
    ws = _open(run, home)
    try:
        result = ws.restore(None, n, reason="requested from the command line")
    except WorkspaceError as exc:
        _refuse(exc)
    click.echo(
        f"run {ws.run_id}: checkpoint #{result.checkpoint.n} now holds the files of #{n} "
        f"({len(result.undone)} file(s) differ from before)"
    )


@click.command()
@click.option(
    "--repo",
    default=".",
    show_default=True,
    type=click.Path(exists=True, file_okay=False),
    help="The repository whose last --apply to reverse.",
)
@_home
def undo(repo: str, home: str | None) -> None:
    """Reverse the last `--apply` in this repository, only if none of its files changed since."""
    try:
        run_id, files = undo_apply(home, repo)
    except WorkspaceError as exc:
        _refuse(exc, EXIT_NOT_DONE)  # nothing undone (or rolled back): as before, 1
    click.echo(
        visible(f"undid the apply of run {run_id} in {Path(repo).resolve()}: {len(files)} file(s) restored")
    )
