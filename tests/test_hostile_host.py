"""Hostile repositories and models against the host side of repofix, through the real `repofix fix`
command with scripted models: nothing they write or configure may run a program on the host, reach
a checkpoint or a delivered branch with a name git would refuse, leave the user's working tree half
applied, read files outside the repository, drive the user's terminal, or choose security settings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from agent_helpers import CLAMP, DIRECT_FIX, act, clamp_repo, git, script
from conftest import backend_params, require_backend

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "from repofix.cli import main; main()"]
FIXED = CLAMP.replace("x < hi", "x > hi")
ISOLATING = backend_params(("docker", "bwrap"))


def repofix(*args: str, home: Path, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("REPOFIX_")}
    clean.update(REPOFIX_HOME=str(home), PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.run([*CLI, *args], env=clean, capture_output=True, text=True, timeout=600, cwd=cwd)


def tree_of(repo: Path, rev: str) -> list[str]:
    return git(repo, "ls-tree", "-r", "--name-only", rev).splitlines()


# Names a model's shell command writes; each must be refused, never checkpointed or delivered.
HOSTILE_NAMES = {
    ".GIT/hooks/post-checkout": "mkdir -p .GIT/hooks && printf '#!/bin/sh\\ntouch /tmp/pwned\\n' > .GIT/hooks/post-checkout",
    "sub/.git": "mkdir -p sub && printf 'gitdir: /tmp/elsewhere\\n' > sub/.git",
    "pkg/.Git/config": "mkdir -p pkg/.Git && printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' > pkg/.Git/config",
    "not-utf8": "touch \"$(printf 'bad\\377name.py')\"",
    "over-long": "p=$(printf 'd%.0s' $(seq 200)); mkdir -p $p/$p/$p/$p/$p/$p/$p/$p/$p/$p/$p && touch $p/$p/$p/$p/$p/$p/$p/$p/$p/$p/$p/f.py",
    "fifo": "mkfifo pipe.py",
    ".gitmodules symlink": "ln -s /etc/passwd .gitmodules",
}


@pytest.mark.parametrize("backend", ISOLATING)
def test_names_git_would_refuse_are_refused_and_never_delivered(tmp_path, backend):
    require_backend(backend)
    repo = clamp_repo(tmp_path / "repo")
    writes = act("shell", "Make some files.", command=" ; ".join(HOSTILE_NAMES.values()) + " ; ls -a")
    model = script(tmp_path / "s.yaml", [writes, DIRECT_FIX])
    home = tmp_path / "home"
    result = repofix("fix", "--repo", str(repo), "--model", model, "--sandbox", backend, "--json", home=home)
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout)
    assert outcome["status"] == "done" and outcome["files_changed"] == ["pkg/mathx.py"]
    trajectory = json.loads(Path(outcome["trajectory_file"]).read_text())
    observation = trajectory["steps"][0]["observation"]
    for reason in ("is (or a filesystem would read it as) .git", "is not valid UTF-8", "bytes long",
                   "special file", ".gitmodules must not be a symlink"):
        assert reason in observation, observation
    assert observation.count("refused because") == len(HOSTILE_NAMES), observation
    assert "bad\\xffname.py" in observation  # the undecodable byte is shown, escaped
    # not in any checkpoint of the run, not on the delivered branch
    store = home / "runs" / outcome["run_id"] / "repo"
    for ref in git(store, "for-each-ref", "--format=%(refname)", "refs/repofix/").split():
        assert sorted(tree_of(store, ref)) == ["pkg/__init__.py", "pkg/mathx.py", "tests/test_mathx.py"]
    assert sorted(tree_of(repo, outcome["branch"])) == ["pkg/__init__.py", "pkg/mathx.py", "tests/test_mathx.py"]
    assert not Path("/tmp/pwned").exists()
