"""`repofix eval run|report|compare`."""

from __future__ import annotations

import sys
import warnings
from datetime import datetime, timezone
from pathlib import Path

import click

from repofix import __version__
from repofix.atomic import write_atomic
from repofix.evaluation import candidates
from repofix.evaluation.compare import load_summary, markdown
from repofix.evaluation.environments import Environments
from repofix.evaluation.images import RELEASES
from repofix.evaluation.progress import Progress
from repofix.evaluation.ray_executor import RayExecutor, RayUnavailable, import_ray
from repofix.evaluation.report import write_reports
from repofix.evaluation.runner import RunOptions, run_evaluation
from repofix.evaluation.store import ResultsStore, StoreError
from repofix.exitcodes import EXIT_DONE, EXIT_INTERRUPTED, EXIT_NOT_DONE, EXIT_USAGE
from repofix.sandboxes import Limits, SandboxError, choose_backend
from repofix.tasks import TasksError, load_tasks
from repofix.tasks.predictions import Prediction, write_predictions


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
    + "), or use SWE-bench rows' official `image` (pulled when absent; the repository at /testbed).",
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
        source: candidates.CandidateSource
        if chosen[0] == "gold":
            source = candidates.GoldSource()
        elif chosen[0] == "empty":
            source = candidates.EmptySource()
        elif predictions is not None:  # exactly one of the four is given (checked above)
            given = candidates.PredictionsSource(predictions)
            extra = sorted(set(given.predictions) - {t.id for t in tasks})
            if extra:
                click.echo(
                    f"note: {len(extra)} prediction(s) name no task of the set, e.g. {extra[0]}", err=True
                )
            uncovered = [t.id for t in tasks if not given.covers(t)]
            if uncovered:
                click.echo(f"note: {len(uncovered)} task(s) have no prediction and are not graded", err=True)
            tasks = [t for t in tasks if given.covers(t)]
            source = given
        elif model is not None:
            source = candidates.AgentSource(model, backend, out_dir / "agent", mirror)
    except (TasksError, SandboxError) as error:
        _fail(str(error))
    if limit:
        tasks = tasks[:limit]
    if not tasks:
        _fail("no tasks to evaluate")
    sys.exit(
        _run(
            tasks,
            source,
            backend,
            out_dir,
            specs,
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
    )


def _run(
    tasks,
    source,
    backend,
    out_dir: Path,
    specs,
    *,
    jobs,
    resume,
    retry_errors,
    timeout,
    max_cost,
    quiet,
    mirror,
    ray=None,
    images="build",
) -> int:
    store = ResultsStore(out_dir)
    meta = store.get_meta()
    wanted = {"mode": source.mode, "model_name": source.name, "task_ids": [t.id for t in tasks]}
    if store.attempts() and not resume:
        store.close()
        _fail(f"{out_dir} already holds results: pass --resume to continue that run, or choose another --out")
    if resume and meta:
        for key, value in wanted.items():
            if meta.get(key) != value:
                store.close()
                _fail(
                    f"cannot resume {out_dir}: its {key} differs from this command's "
                    f"({str(meta.get(key))[:80]} vs {str(value)[:80]})"
                )
    store.set_meta(
        {
            **wanted,
            "specs": [str(s) for s in specs],
            "sandbox": backend,
            "jobs": jobs,
            "timeout": timeout,
            "max_cost": max_cost,
            "repofix": __version__,
            "started_at": meta.get("started_at") or datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }
    )
    finished = store.latest()
    progress = Progress(
        len(tasks),
        done=len(finished),
        resolved=sum(r.resolved for r in finished.values()),
        infra=sum(r.status.infra for r in finished.values()),
        cost=store.total_cost(),
        quiet=quiet,
    )
    progress.note(
        f"evaluating {len(tasks)} task(s) ({source.mode}: {source.name}) "
        f"{'on a Ray cluster' if ray else f'with {jobs} worker(s)'} in "
        f"{backend} sandboxes; results in {out_dir}" + (f"; {len(finished)} already done" if finished else "")
    )
    environments = Environments(
        backend, Limits(cpus=1.0 if jobs > 1 else 2.0), out_dir / "logs", echo=progress.note, images=images
    )
    executor = None
    if ray is not None:
        executor = RayExecutor(
            ray[0], backend, Limits(cpus=1.0), out_dir, slots=ray[1], task_limit=ray[2], note=progress.note
        )
        try:
            executor.connect()
        except RayUnavailable as error:
            store.close()
            _fail(str(error))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the 'none' backend's warning was the user's explicit choice
        outcome = run_evaluation(
            tasks,
            source,
            store,
            environments,
            out_dir,
            RunOptions(
                jobs=jobs, timeout=timeout, max_cost=max_cost, retry_errors=retry_errors, mirror=mirror
            ),
            progress,
            executor,
        )
    progress.close()
    store.set_meta(
        {"build_seconds": float(store.get_meta().get("build_seconds") or 0.0) + environments.build_seconds}
    )
    latest = store.latest()
    write_predictions(
        out_dir / "predictions.jsonl", [Prediction(r.task_id, r.model_name, r.patch) for r in latest.values()]
    )
    summary, chart_note = write_reports(out_dir, store)
    store.close()
    if chart_note:
        click.echo(f"note: no chart: {chart_note}", err=True)
    click.echo(
        f"{summary['resolved_instances']}/{summary['total_instances']} resolved "
        f"({100 * summary['resolve_rate']:.1f}%), {summary['gradeable_instances']} gradeable, "
        f"{summary['error_instances']} infrastructure error(s), "
        f"{len(summary['incomplete_ids'])} not run; cost ${summary['cost']:.2f}; report: {out_dir / 'report.md'}"
    )
    if outcome.stopped == "interrupted":
        click.echo(f"interrupted: continue with `repofix eval run ... --resume --out {out_dir}`", err=True)
        return EXIT_INTERRUPTED
    if outcome.stopped:
        click.echo(f"stopped: {outcome.stopped}", err=True)
        return EXIT_NOT_DONE
    if source.mode == "gold":
        return EXIT_DONE if summary["resolved_instances"] == summary["total_instances"] else EXIT_NOT_DONE
    if source.mode == "empty":
        return (
            EXIT_DONE
            if not summary["resolved_instances"] and not summary["error_instances"]
            else EXIT_NOT_DONE
        )
    return EXIT_DONE if not summary["error_instances"] and not summary["incomplete_ids"] else EXIT_NOT_DONE


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
