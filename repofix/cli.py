"""The `repofix` command line. Subcommands live in their rooms and are imported lazily,
so `repofix --help` never pays for importing LiteLLM, docker or git."""

from __future__ import annotations

import importlib

import click

from repofix import __version__
from repofix.exitcodes import EXIT_DONE, EXIT_NOT_DONE, EXIT_USAGE

# name -> ("module:attribute" of a click command or group, one-line summary for `repofix --help`).
# Rooms add their commands here; the summary lives here so `--help` imports no room at all.
COMMANDS: dict[str, tuple[str, str] | str] = {
    "implement": (
        "repofix.agent.cli:implement",
        "Implement a feature, test-first; deliver a branch and a patch.",
    ),
    "fix": ("repofix.agent.cli:fix", "Make the failing tests pass, or fix a described bug."),
    "resume": ("repofix.agent.cli:resume", "Continue a stopped run (kill, limit, model error)."),
    "continue": (
        "repofix.agent.cli:continue_",
        "Give a finished run a follow-up instruction (a new commit).",
    ),
    "show": ("repofix.agent.show:show", "Print a run's trajectory readably."),
    "test": (
        "repofix.testing.cli:test",
        "Run a repository's tests in a sandbox; print the baseline and feedback.",
    ),
    "demo": ("repofix.agent.demo:demo", "Try repofix offline on a small bundled project with a bug."),
    "runs": ("repofix.runs.cli:runs", "List runs with their status; `runs prune` removes old ones."),
    "checkpoints": (
        "repofix.workspace.cli:checkpoints",
        "List a run's checkpoints with step and test summary.",
    ),
    "diff": ("repofix.workspace.cli:diff", "Show a run's change up to checkpoint N."),
    "restore": ("repofix.workspace.cli:restore", "Make checkpoint N the run's current state."),
    "undo": ("repofix.workspace.cli:undo", "Reverse the last --apply, if nothing changed since."),
    "eval": ("repofix.evaluation.cli:eval_group", "Evaluate on task sets, graded as SWE-bench grades."),
    "tasks": ("repofix.tasks.cli:tasks", "Task sets: list, validate, import, export."),
    "sandbox": ("repofix.sandboxes.cli:sandbox", "Check (doctor), build and clean up (prune) sandboxes."),
    "ci": ("repofix.ci.cli:ci", "Run as a GitHub Actions bot on pull requests: `ci run`, then `ci publish`."),
}

# Exit codes: repofix.exitcodes (a foundation module, so rooms need not import this one).
__all__ = ["COMMANDS", "EXIT_DONE", "EXIT_NOT_DONE", "EXIT_USAGE", "main"]


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None:
            return None
        module_name, attribute = (target if isinstance(target, str) else target[0]).split(":")
        return getattr(importlib.import_module(module_name), attribute)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl(
                [(name, entry[1] if isinstance(entry, tuple) else "") for name, entry in COMMANDS.items()]
            )


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="repofix")
def main() -> None:
    """repofix: an autonomous, test-driven coding agent.

    It copies a repository into a sandbox, lets a model write patches, runs the tests,
    feeds back condensed failures and revises until every assertion passes. Your branch,
    index and working tree are never touched unless you pass --apply.
    """
