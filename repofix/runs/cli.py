"""`repofix runs`: list runs with their status, and `repofix runs prune`."""

from __future__ import annotations

import time

import click

from repofix.runs.listing import list_runs
from repofix.runs.listing import prune as do_prune


@click.group(invoke_without_command=True)
@click.option(
    "--home", type=click.Path(), default=None, help="repofix home (default $REPOFIX_HOME or ~/.cache/repofix)"
)
@click.pass_context
def runs(ctx: click.Context, home: str | None) -> None:
    """List runs with their status (newest first); `runs prune` removes old ones."""
    ctx.obj = {"home": home}
    if ctx.invoked_subcommand is not None:
        return
    found = list_runs(home)
    if not found:
        click.echo("no runs yet")
        return
    for run in found:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(run.created))
        checkpoint = "-" if run.checkpoint is None else f"#{run.checkpoint}"
        click.echo(f"{run.run_id:<44} {run.status:<11} {checkpoint:>5}  {when}  {run.source}")


@runs.command()
@click.option("--older-than", "days", type=float, default=14.0, show_default=True, help="age in days")
@click.option("--keep", type=int, default=10, show_default=True, help="always keep this many newest runs")
@click.option("--include-active", is_flag=True, help="also remove runs whose process is still running")
@click.option("--dry-run", is_flag=True, help="only show what would be removed")
@click.pass_context
def prune(ctx: click.Context, days: float, keep: int, include_active: bool, dry_run: bool) -> None:
    """Remove old run folders (and their checkpoints)."""
    removed = do_prune(
        ctx.obj["home"], older_than_days=days, keep=keep, include_active=include_active, dry_run=dry_run
    )
    verb = "would remove" if dry_run else "removed"
    click.echo(f"{verb} {len(removed)} run(s)" + "".join(f"\n  {r}" for r in removed))
