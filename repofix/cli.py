"""The `repofix` command line. Subcommands live in their rooms and are imported lazily,
so `repofix --help` never pays for importing LiteLLM, docker or git."""

from __future__ import annotations

import importlib

import click

from repofix import __version__

# name -> "module:attribute" of a click command or group. Rooms add their commands here.
COMMANDS: dict[str, str] = {
    "sandbox": "repofix.sandboxes.cli:sandbox",
    "tasks": "repofix.tasks.cli:tasks",
    "runs": "repofix.runs.cli:runs",
    "checkpoints": "repofix.workspace.cli:checkpoints",
    "diff": "repofix.workspace.cli:diff",
    "restore": "repofix.workspace.cli:restore",
    "undo": "repofix.workspace.cli:undo",
    "eval": "repofix.evaluation.cli:eval_group",
}

# Exit codes scripts can rely on.
EXIT_DONE, EXIT_NOT_DONE, EXIT_USAGE = 0, 1, 2


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None:
            return None
        module_name, attribute = target.split(":")
        return getattr(importlib.import_module(module_name), attribute)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Short help without importing every room: read it from the registry's docstrings lazily.
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=70)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="repofix")
def main() -> None:
    """repofix: an autonomous, test-driven coding agent.

    It copies a repository into a sandbox, lets a model write patches, runs the tests,
    feeds back condensed failures and revises until every assertion passes. Your branch,
    index and working tree are never touched unless you pass --apply.
    """
