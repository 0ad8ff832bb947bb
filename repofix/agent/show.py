"""`repofix show`: a run's trajectory, readably, or its whole conversation."""

from __future__ import annotations

import json

import click

from repofix.agent.conversation import messages_json, render
from repofix.agent.stopping import fail, guarded
from repofix.agent.summary import branch_lines, token_line
from repofix.agent.trajectory import Trajectory
from repofix.runs import open_run
from repofix.safetext import visible


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
