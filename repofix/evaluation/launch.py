"""One `repofix eval run` after its options are checked: the candidate source, the run folder
(resuming only the same run), the workers, the reports and the exit code. Bad usage raises
`UsageError` with the message for the person; the CLI prints it."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from repofix import __version__
from repofix.evaluation import candidates
from repofix.evaluation.environments import Environments
from repofix.evaluation.progress import Progress
from repofix.evaluation.ray_executor import RayExecutor
from repofix.evaluation.ray_join import RayUnavailable
from repofix.evaluation.report import write_reports
from repofix.evaluation.runner import RunOptions, run_evaluation
from repofix.evaluation.store import ResultsStore
from repofix.evaluation.swebench_env import needs_specs
from repofix.evaluation.swebench_specs import SpecsUnavailable, specs_python
from repofix.exitcodes import EXIT_DONE, EXIT_INTERRUPTED, EXIT_NOT_DONE
from repofix.sandboxes import Limits
from repofix.tasks import Task
from repofix.tasks.predictions import Prediction, write_predictions


class UsageError(Exception):
    """The command cannot run as given; the message says why."""


@dataclass(frozen=True)
class Settings:
    jobs: int = 1
    resume: bool = False
    retry_errors: bool = False
    timeout: float = 300.0
    max_cost: float | None = None
    quiet: bool = False
    mirror: Path | None = None
    ray: tuple[str | None, int | None, float] | None = None  # (address, slots, task limit) or local
    images: str = "build"  # where Docker images come from (Environments' `images`)


def choose_source(
    mode: str,
    tasks: list[Task],
    backend: str,
    out_dir: Path,
    *,
    predictions: Path | None,
    model: str | None,
    mirror: Path | None,
    note: Callable[[str], None],
) -> tuple[candidates.CandidateSource, list[Task]]:
    """The candidate source of `mode` and the tasks it can grade (a predictions file may cover
    only some of them; the others are named in a note)."""
    if mode == "gold":
        return candidates.GoldSource(), tasks
    if mode == "empty":
        return candidates.EmptySource(), tasks
    if mode == "predictions" and predictions is not None:
        given = candidates.PredictionsSource(predictions)
        extra = sorted(set(given.predictions) - {t.id for t in tasks})
        if extra:
            note(f"note: {len(extra)} prediction(s) name no task of the set, e.g. {extra[0]}")
        uncovered = [t.id for t in tasks if not given.covers(t)]
        if uncovered:
            note(f"note: {len(uncovered)} task(s) have no prediction and are not graded")
        return given, [t for t in tasks if given.covers(t)]
    assert model is not None  # the CLI checked that exactly one mode is given
    return candidates.AgentSource(model, backend, out_dir / "agent", mirror), tasks


def open_store(
    out_dir: Path,
    source: candidates.CandidateSource,
    tasks: list[Task],
    specs: Sequence[Path],
    backend: str,
    settings: Settings,
) -> ResultsStore:
    """The run folder's store, with this run's meta; a folder holding another run is refused."""
    store = ResultsStore(out_dir)
    meta = store.get_meta()
    wanted = {"mode": source.mode, "model_name": source.name, "task_ids": [t.id for t in tasks]}
    if store.attempts() and not settings.resume:
        store.close()
        raise UsageError(
            f"{out_dir} already holds results: pass --resume to continue that run, or choose another --out"
        )
    if settings.resume and meta:
        for key, value in wanted.items():
            if meta.get(key) != value:
                store.close()
                raise UsageError(
                    f"cannot resume {out_dir}: its {key} differs from this command's "
                    f"({str(meta.get(key))[:80]} vs {str(value)[:80]})"
                )
    store.set_meta(
        {
            **wanted,
            "specs": [str(s) for s in specs],
            "sandbox": backend,
            "jobs": settings.jobs,
            "timeout": settings.timeout,
            "max_cost": settings.max_cost,
            "repofix": __version__,
            "started_at": meta.get("started_at") or datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }
    )
    return store


def run(
    tasks: list[Task],
    source: candidates.CandidateSource,
    backend: str,
    out_dir: Path,
    specs: Sequence[Path],
    settings: Settings,
    echo: Callable[[str, bool], None],
) -> int:
    """Grade `tasks`, write the reports, and return the exit code. `echo(text, to_stderr)`."""
    if any(needs_specs(task, official_image=settings.images == "swebench") for task in tasks):
        # SWE-bench rows: the specs interpreter is made now (once per user), not by the first task,
        # so that a failure to make it stops the run before any task with the cause.
        try:
            specs_python(note=lambda line: None if settings.quiet else echo(line, True))
        except SpecsUnavailable as error:
            raise UsageError(str(error)) from None
    store = open_store(out_dir, source, tasks, specs, backend, settings)
    finished = store.latest()
    progress = Progress(
        len(tasks),
        done=len(finished),
        resolved=sum(r.resolved for r in finished.values()),
        infra=sum(r.status.infra for r in finished.values()),
        cost=store.total_cost(),
        quiet=settings.quiet,
    )
    progress.note(
        f"evaluating {len(tasks)} task(s) ({source.mode}: {source.name}) "
        f"{'on a Ray cluster' if settings.ray else f'with {settings.jobs} worker(s)'} in "
        f"{backend} sandboxes; results in {out_dir}" + (f"; {len(finished)} already done" if finished else "")
    )
    environments = Environments(
        backend,
        Limits(cpus=1.0 if settings.jobs > 1 else 2.0),
        out_dir / "logs",
        echo=progress.note,
        images=settings.images,
    )
    executor = None
    if settings.ray is not None:
        address, slots, task_limit = settings.ray
        executor = RayExecutor(
            address,
            backend,
            Limits(cpus=1.0),
            out_dir,
            slots=slots,
            task_limit=task_limit,
            note=progress.note,
        )
        try:
            executor.connect()
        except RayUnavailable as error:
            store.close()
            raise UsageError(str(error)) from None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the 'none' backend's warning was the user's explicit choice
        outcome = run_evaluation(
            tasks,
            source,
            store,
            environments,
            out_dir,
            RunOptions(
                jobs=settings.jobs,
                timeout=settings.timeout,
                max_cost=settings.max_cost,
                retry_errors=settings.retry_errors,
                mirror=settings.mirror,
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
        echo(f"note: no chart: {chart_note}", True)
    echo(
        f"{summary['resolved_instances']}/{summary['total_instances']} resolved "
        f"({100 * summary['resolve_rate']:.1f}%), {summary['gradeable_instances']} gradeable, "
        f"{summary['error_instances']} infrastructure error(s), "
        f"{len(summary['incomplete_ids'])} not run; cost ${summary['cost_spent']:.2f}; report: {out_dir / 'report.md'}",
        False,
    )
    if outcome.stopped == "interrupted":
        echo(resume_hint(out_dir), True)
        return EXIT_INTERRUPTED
    if outcome.stopped:
        echo(f"stopped: {outcome.stopped}", True)
        return EXIT_NOT_DONE
    return exit_code(source.mode, summary)


def resume_hint(out_dir: Path) -> str:
    return f"interrupted: continue with `repofix eval run ... --resume --out {out_dir}`"


def exit_code(mode: str, summary: dict) -> int:
    """--gold: done when every task resolved; --empty: when none did and none errored; otherwise
    when every task was graded without an infrastructure error."""
    if mode == "gold":
        return EXIT_DONE if summary["resolved_instances"] == summary["total_instances"] else EXIT_NOT_DONE
    if mode == "empty":
        clean = not summary["resolved_instances"] and not summary["error_instances"]
        return EXIT_DONE if clean else EXIT_NOT_DONE
    return EXIT_DONE if not summary["error_instances"] and not summary["incomplete_ids"] else EXIT_NOT_DONE
