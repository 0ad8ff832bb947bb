"""`repofix tasks`: list, validate, import and export task sets; print the spec schema."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from repofix.atomic import write_atomic
from repofix.exitcodes import EXIT_USAGE as EXIT_INVALID  # the input, not the tool, is wrong
from repofix.tasks.errors import display_path
from repofix.tasks.humanevalfix import read_humanevalfix
from repofix.tasks.load import load_tasks
from repofix.tasks.model import TasksError, spec_json_schema
from repofix.tasks.swebench import read_swebench, write_swebench
from repofix.tasks.writer import write_task_dir

_sources = click.argument("sources", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))


def _load(sources: tuple[Path, ...], check: bool = True):
    try:
        return load_tasks(sources, check=check)
    except TasksError as error:
        click.echo(str(error), err=True)
        sys.exit(EXIT_INVALID)


@click.group()
def tasks() -> None:
    """Task sets: YAML specs, SWE-bench rows, HumanEvalFix rows."""


@tasks.command("list")
@_sources
@click.option("--json", "as_json", is_flag=True, help="One JSON object per task instead of a table.")
def list_(sources: tuple[Path, ...], as_json: bool) -> None:
    """List the tasks in spec files, folders of specs, or SWE-bench/HumanEvalFix JSONL files."""
    found = _load(sources, check=False)
    if as_json:
        for task in found:
            click.echo(json.dumps(task.model_dump(include={"id", "repo", "base_commit", "tags"})))
        return
    width = max([len(task.id) for task in found] + [2])
    click.echo(f"{'id':<{width}}  {'F2P':>4} {'P2P':>5}  repository")
    for task in found:
        where = task.repo.describe()
        if task.repo.path is not None:
            where = f"path: {display_path(Path(task.repo.path))}"
        click.echo(f"{task.id:<{width}}  {len(task.FAIL_TO_PASS):>4} {len(task.PASS_TO_PASS):>5}  {where}")
    click.echo(f"{len(found)} task(s)")


@tasks.command()
@_sources
def validate(sources: tuple[Path, ...]) -> None:
    """Check task sources; print every problem (file: task: field: message) and exit 2 if any."""
    found = _load(sources)
    click.echo(f"{len(found)} task(s) valid")


@tasks.group("import")
def import_() -> None:
    """Convert rows from another format into spec folders (<DIR>/<id>/task.yaml)."""


_output = click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder to write into.",
)
_limit = click.option("--limit", type=click.IntRange(min=1), help="Only the first N rows.")


def _write(found, output: Path, limit: int | None) -> None:
    chosen = found[:limit] if limit else found
    for task in chosen:
        write_task_dir(task, output)
    click.echo(f"wrote {len(chosen)} task(s) to {output}")


@import_.command("swebench")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@_output
@_limit
def import_swebench(file: Path, output: Path, limit: int | None) -> None:
    """SWE-bench rows (.jsonl, .json or .parquet) -> spec folders."""
    try:
        found = read_swebench(file)
    except TasksError as error:
        click.echo(str(error), err=True)
        sys.exit(EXIT_INVALID)
    _write(found, output, limit)


@import_.command("humanevalfix")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@_output
@_limit
@click.option(
    "--tests",
    type=click.Choice(["hidden", "visible"]),
    default="hidden",
    show_default=True,
    help="hidden: tests arrive only with the test patch; visible: part of the repository, protected.",
)
def import_humanevalfix(file: Path, output: Path, limit: int | None, tests: str) -> None:
    """HumanEvalFix rows (HumanEvalPack JSONL) -> tiny repositories as spec folders."""
    try:
        found = read_humanevalfix(file, tests=tests)  # type: ignore[arg-type]
    except TasksError as error:
        click.echo(str(error), err=True)
        sys.exit(EXIT_INVALID)
    _write(found, output, limit)


@tasks.command("export")
@_sources
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="SWE-bench rows: .jsonl (JSON lines) or .json (a list).",
)
def export(sources: tuple[Path, ...], output: Path) -> None:
    """Write tasks as SWE-bench rows (tasks on GitHub only)."""
    found = _load(sources)
    try:
        write_swebench(output, found)
    except TasksError as error:
        click.echo(str(error), err=True)
        sys.exit(EXIT_INVALID)
    click.echo(f"wrote {len(found)} row(s) to {output}")


@tasks.command()
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write here, not stdout."
)
def schema(output: Path | None) -> None:
    """Print the JSON Schema of task spec files (committed as task_specs/schema.json)."""
    text = json.dumps(spec_json_schema(), indent=2) + "\n"
    if output is None:
        click.echo(text, nl=False)
    else:
        write_atomic(output, text)
