"""A crowd: six whole `repofix fix` runs started at once on one repository (scripted models, each writing its
own fix) all finish DONE on six distinct branches, each branch holding its own run's commit on the user's
HEAD, with nothing left behind (sandbox processes, scratch folders, temporary files, changes to the
user's checkout)."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from agent_helpers import act, clamp_repo, git, script, search_replace
from conftest import backend_params, require_backend
from test_lifecycle_kill import SUBMIT, branches, containers_of, sandbox_processes
from test_lifecycle_resume import CLI, ROOT, env_for

from repofix.runs.listing import list_runs
from repofix.sandboxes import cleanup
from repofix.sandboxes.docker import DEFAULT_IMAGE

pytestmark = pytest.mark.slow
CROWD = 6


def own_fix(i: int) -> dict:
    return act(
        "edit",
        "Compare the other way.",
        text=search_replace(
            "pkg/mathx.py",
            "    if x < hi:\n        return hi",
            f"    if x > hi:  # the fix of run {i}\n        return hi",
        ),
    )


@pytest.mark.parametrize("backend", backend_params(("bwrap", "docker")))
def test_six_runs_at_once_get_six_branches_each_with_its_own_commit(tmp_path, backend):
    require_backend(backend)
    repo, home, scratch = clamp_repo(tmp_path / "repo"), tmp_path / "home", tmp_path / "scratch"
    head = git(repo, "rev-parse", "HEAD").strip()
    env = env_for(home, REPOFIX_SCRATCH=str(scratch))
    crowd = [
        subprocess.Popen(
            [
                *CLI,
                "fix",
                "--repo",
                str(repo),
                "-m",
                script(tmp_path / f"s{i}.yaml", [own_fix(i), SUBMIT]),
                "--sandbox",
                backend,
                "--json",
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for i in range(CROWD)
    ]
    outcomes = []
    for run in crowd:
        out, err = run.communicate(timeout=1200)
        assert run.returncode == 0, out + err
        outcomes.append(json.loads(out))
    assert [o["status"] for o in outcomes] == ["done"] * CROWD
    names = [o["branch"] for o in outcomes]
    assert len(set(names)) == CROWD and sorted(branches(repo)) == sorted(f"refs/heads/{b}" for b in names)
    for i, outcome in enumerate(outcomes):
        branch = outcome["branch"]
        assert (
            git(repo, "rev-parse", f"{branch}^").strip() == head
        )  # one commit of its own on the user's HEAD
        assert f"# the fix of run {i}\n" in git(repo, "show", f"{branch}:pkg/mathx.py")
        assert f"Repofix-Run: {outcome['run_id']}" in git(repo, "log", "-1", "--format=%B", branch)
        assert not list((home / "runs" / outcome["run_id"]).glob("*.tmp"))
    assert {r.status for r in list_runs(home)} == {"resolved"} and len(list_runs(home)) == CROWD
    assert git(repo, "status", "--porcelain") == "" and git(repo, "rev-parse", "HEAD").strip() == head
    assert not sandbox_processes(scratch) and not list(scratch.iterdir())
    assert not (containers_of(*(run.pid for run in crowd)) if backend == "docker" else [])


@pytest.mark.docker
def test_a_container_removed_while_the_reaper_lists_them_is_skipped(monkeypatch):
    """What the crowd met on docker: a run starting its first sandbox lists repofix's containers while
    another run's container removes itself; inspecting the vanished one failed the starting run (404)."""
    require_backend("docker")
    import docker

    engine = docker.from_env()
    name = f"repofix-crowd-{os.getpid()}"
    gone = engine.containers.create(
        DEFAULT_IMAGE,
        ["sleep", "infinity"],
        name=name,
        labels={
            cleanup.LABEL: name,
            "org.repofix.owner": cleanup.owner_id(),
            "org.repofix.host": os.uname().nodename,
        },
    )
    listing = engine.api.containers

    def list_then_remove_one(*args, **kwargs):  # the other run's container goes right after the listing
        found = listing(*args, **kwargs)
        engine.api.remove_container(gone.id, force=True)
        return found

    monkeypatch.setattr(engine.api, "containers", list_then_remove_one)
    try:
        assert name not in " ".join(cleanup.reap_dead_containers(engine))
        engine.containers.create(DEFAULT_IMAGE, ["sleep", "infinity"], name=name, labels=gone.labels)
        gone = engine.containers.get(name)
        assert name not in " ".join(cleanup.prune(engine, dry_run=True))
    finally:
        for container in docker.from_env().containers.list(all=True, filters={"name": name}):
            container.remove(force=True)
