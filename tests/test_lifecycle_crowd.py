"""A crowd: six whole `repofix fix` runs started at once on one repository (scripted models, each writing its
own fix) all finish DONE on six distinct branches, each branch holding its own run's commit on the user's
HEAD, with nothing left behind (sandbox processes, scratch folders, temporary files, changes to the
user's checkout)."""

from __future__ import annotations

import json
import subprocess

import pytest
from agent_helpers import act, clamp_repo, git, script, search_replace
from conftest import backend_params, require_backend
from test_lifecycle_kill import SUBMIT, branches, containers_of, sandbox_processes
from test_lifecycle_resume import CLI, ROOT, env_for

from repofix.runs.listing import list_runs

pytestmark = pytest.mark.slow
CROWD = 6


def own_fix(i: int) -> dict:
    return act("edit", "Compare the other way.", text=search_replace(
        "pkg/mathx.py", "    if x < hi:\n        return hi", f"    if x > hi:  # the fix of run {i}\n        return hi"))


@pytest.mark.parametrize("backend", backend_params(("bwrap", "docker")))
def test_six_runs_at_once_get_six_branches_each_with_its_own_commit(tmp_path, backend):
    require_backend(backend)
    repo, home, scratch = clamp_repo(tmp_path / "repo"), tmp_path / "home", tmp_path / "scratch"
    head = git(repo, "rev-parse", "HEAD").strip()
    env = env_for(home, REPOFIX_SCRATCH=str(scratch))
    crowd = [subprocess.Popen([*CLI, "fix", "--repo", str(repo), "-m", script(tmp_path / f"s{i}.yaml", [own_fix(i), SUBMIT]),
                               "--sandbox", backend, "--json"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, cwd=ROOT)
             for i in range(CROWD)]
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
        assert git(repo, "rev-parse", f"{branch}^").strip() == head  # one commit of its own on the user's HEAD
        assert f"# the fix of run {i}\n" in git(repo, "show", f"{branch}:pkg/mathx.py")
        assert f"Repofix-Run: {outcome['run_id']}" in git(repo, "log", "-1", "--format=%B", branch)
        assert not list((home / "runs" / outcome["run_id"]).glob("*.tmp"))
    assert {r.status for r in list_runs(home)} == {"resolved"} and len(list_runs(home)) == CROWD
    assert git(repo, "status", "--porcelain") == "" and git(repo, "rev-parse", "HEAD").strip() == head
    assert not sandbox_processes(scratch) and not list(scratch.iterdir())
    assert not (containers_of(*(run.pid for run in crowd)) if backend == "docker" else [])
