"""`repofix eval run|report|compare`."""

from __future__ import annotations

import signal
import sys
from datetime import datetime, timezone
from pathlib import Path

import click

from repofix.atomic import write_atomic
from repofix.evaluation import interrupts, launch
from repofix.evaluation.compare import load_summary, markdown
from repofix.evaluation.images import RELEASES
from repofix.evaluation.ray_join import RayUnavailable, import_ray
from repofix.evaluation.report import write_reports
from repofix.evaluation.store import StoreError
from repofix.exitcodes import EXIT_INTERRUPTED, EXIT_USAGE
from repofix.sandboxes import SandboxError, choose_backend
from repofix.tasks import TasksError, load_tasks


@click.group("eval")
def eval_group() -> None:
    """Evaluate on task sets, graded as SWE-bench grades; reports and comparisons."""


def _fail(message: str) -> None:
    click.echo(f"repofix eval: {message}", err=True)
    sys.exit(EXIT_USAGE)


@eval_group.command("run")
@click.argument("specs", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--gold", "mode", flag_value="gold", help="Grade the reference patches (validates a task set).")
@click.option(
    "--empty", "mode", flag_value="empty", help="Grade no patch at all (every task must stay unresolved)."
)
@click.option(
    "--predictions",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Grade a SWE-bench predictions file (instance_id, model_name_or_path, model_patch).",
)
@click.option("--model", help="Run the repofix agent with this model on every task, then grade its patch.")
@click.option(
    "-j",
    "--jobs",
    default=1,
    show_default=True,
    type=click.IntRange(1, 64),
    help="Tasks graded at the same time, each in its own sandbox.",
)
@click.option("--resume", is_flag=True, help="Continue the run in --out, skipping tasks already finished.")
@click.option("--retry-errors", is_flag=True, help="With --resume: run infrastructure errors again.")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Run folder (results.sqlite, reports, logs). Default: repofix-eval/<mode>-<time>.",
)
@click.option(
    "--sandbox",
    type=click.Choice(["docker", "bwrap", "none"]),
    help="Sandbox backend (default: docker if its engine answers, else bwrap).",
)
@click.option(
    "--timeout",
    default=300.0,
    show_default=True,
    type=click.FloatRange(1),
    help="Seconds for one task's test run.",
)
@click.option(
    "--mirror",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Folder of local clones (owner/name) for tasks whose repository is on GitHub or a URL.",
)
@click.option(
    "--max-cost", type=click.FloatRange(0), help="Stop starting tasks once this many USD are spent."
)
@click.option(
    "--images",
    type=click.Choice(["build", "swebench"]),
    default="build",
    show_default=True,
    help="Docker images: build them from each task's environment (offline: Python "
    + ", ".join(RELEASES)
    + "; others with uv, online: UV_PYTHON_INSTALL_MIRROR), or use SWE-bench rows' official `image` (pulled when absent; the repository at /testbed).",
)
@click.option("--ids", multiple=True, help="Only these task ids (repeatable).")
@click.option("--limit", type=click.IntRange(1), help="Only the first N tasks.")
@click.option("-q", "--quiet", is_flag=True, help="No progress lines.")
@click.option(
    "--executor",
    type=click.Choice(["local", "ray"]),
    default="local",
    show_default=True,
    help="Where tasks run: threads on this machine, or an existing Ray cluster (pip install 'repofix[ray]').",
)
@click.option(
    "--address",
    help="With --executor ray: the cluster (auto, HOST:PORT or ray://HOST:PORT; "
    "default: $RAY_ADDRESS, else auto).",
)
@click.option(
    "--task-limit",
    default=7200.0,
    show_default=True,
    type=click.FloatRange(1),
    help="With --executor ray: seconds for one whole task (environment, candidate, grading) before it "
    "is stopped on its node, with its sandbox.",
)
@click.pass_context
def run_command(
    ctx: click.Context,
    specs: tuple[Path, ...],
    mode: str | None,
    predictions: Path | None,
    model: str | None,
    jobs: int,
    resume: bool,
    retry_errors: bool,
    out_dir: Path | None,
    sandbox: str | None,
    timeout: float,
    mirror: Path | None,
    max_cost: float | None,
    ids: tuple[str, ...],
    limit: int | None,
    quiet: bool,
    executor: str,
    address: str | None,
    task_limit: float,
    images: str,
) -> None:
    """Grade every task of SPECS (task spec files or folders, SWE-bench or HumanEvalFix rows).

    Exactly one of --gold, --empty, --predictions FILE, --model M. Exit code 0 when the run is
    complete and, for --gold, every task resolved / for --empty, none did; 1 otherwise; 2 for
    bad usage; 130 when interrupted (finished tasks are kept: continue with --resume).
    """
    if address and executor != "ray":
        _fail("--address needs --executor ray")
    if images == "swebench" and model:
        # The agent would edit /workspace while the image's installed package stays at /testbed.
        _fail("--images swebench grades given patches (--gold, --empty, --predictions), not --model")
    if executor == "ray":
        try:
            import_ray()
        except RayUnavailable as error:
            _fail(str(error))
    # With Ray, -j caps the tasks in flight only when given; by default the cluster's CPUs decide.
    slots = jobs if ctx.get_parameter_source("jobs") is not click.core.ParameterSource.DEFAULT else None
    chosen = [
        name
        for name, given in (
            ("gold", mode == "gold"),
            ("empty", mode == "empty"),
            ("predictions", predictions),
            ("model", model),
        )
        if given
    ]
    if len(chosen) != 1:
        _fail("choose exactly one of --gold, --empty, --predictions FILE, --model M")
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    out_dir = out_dir or Path("repofix-eval") / f"{chosen[0]}-{stamp}"
    try:
        tasks = load_tasks(list(specs))
    except TasksError as error:
        _fail(str(error))
    if ids:
        unknown = sorted(set(ids) - {t.id for t in tasks})
        if unknown:
            _fail(f"no such task id(s): {', '.join(unknown)}")
        tasks = [t for t in tasks if t.id in set(ids)]
    try:
        backend = choose_backend(sandbox)
        if images == "swebench" and backend != "docker":
            _fail(f"--images swebench needs Docker sandboxes (this run would use {backend})")
        source, tasks = launch.choose_source(
            chosen[0],
            tasks,
            backend,
            out_dir,
            predictions=predictions,
            model=model,
            mirror=mirror,
            note=lambda line: click.echo(line, err=True),
        )
    except (TasksError, SandboxError) as error:
        _fail(str(error))
    if limit:
        tasks = tasks[:limit]
    if not tasks:
        _fail("no tasks to evaluate")
    settings = launch.Settings(
        jobs=jobs,
        resume=resume,
        retry_errors=retry_errors,
        timeout=timeout,
        max_cost=max_cost,
        quiet=quiet,
        mirror=mirror,
        ray=(address, slots, task_limit) if executor == "ray" else None,
        images=images,
    )
    try:
        with interrupts.on_sigint(signal.default_int_handler):  # even if started with SIGINT ignored
            code = launch.run(
                tasks, source, backend, out_dir, specs, settings, lambda text, err: click.echo(text, err=err)
            )
    except launch.UsageError as error:
        _fail(str(error))
    except KeyboardInterrupt:  # outside the grading loop (joining the cluster, writing the reports)
        click.echo(launch.resume_hint(out_dir), err=True)
        code = EXIT_INTERRUPTED
    sys.exit(code)


@eval_group.command("report")
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
def report_command(run_dir: Path) -> None:
    """Write report.md, report.json and chart.png of a run folder again from its results."""
    try:
        summary, note = write_reports(run_dir)
    except StoreError as error:
        _fail(str(error))
    if note:
        click.echo(f"note: no chart: {note}", err=True)
    click.echo(
        f"{summary['resolved_instances']}/{summary['total_instances']} resolved; wrote {run_dir / 'report.md'}"
    )


@eval_group.command("compare")
@click.argument("a", type=click.Path(path_type=Path))
@click.argument("b", type=click.Path(path_type=Path))
@click.option(
    "--out", "out_file", type=click.Path(dir_okay=False, path_type=Path), help="Also write the table here."
)
def compare_command(a: Path, b: Path, out_file: Path | None) -> None:
    """Compare two runs (run folders) on the same task set, task by task."""
    try:
        text = markdown(load_summary(a), load_summary(b), str(a), str(b))
    except StoreError as error:
        _fail(str(error))
    click.echo(text, nl=False)
    if out_file:
        write_atomic(out_file, text)
