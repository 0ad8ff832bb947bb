"""A tree bigger than the sandbox's workspace is refused before it is copied: at once, with the sizes
and the setting to raise, leaving no container or scratch folder. (A 2 GB tree used to be tarred in
memory, then the runner holding the tmpfs workspace was killed for memory, exit 137.)"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from agent_helpers import clamp_repo, git
from conftest import TEST_LIMITS, backend_params, require_backend, wait_until

from repofix.sandboxes import open_sandbox
from repofix.sandboxes.base import SandboxError, TreeTooBig

ROOT = Path(__file__).resolve().parents[1]
ISOLATING = backend_params(("docker", "bwrap"))
ONE_MIB = dataclasses.replace(TEST_LIMITS, workspace_mb=1)


def sparse(path: Path, size: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch()
    os.truncate(path, size)
    return path


def containers_of_this_process() -> set[str]:
    import docker

    found = docker.from_env().containers.list(
        all=True, sparse=True, filters={"label": f"org.repofix.owner-pid={os.getpid()}"}
    )
    return {c.id for c in found}


def opened(tree: Path, backend: str, limits=ONE_MIB):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return open_sandbox(tree, backend=backend, limits=limits)


@pytest.mark.parametrize("backend", ISOLATING)
def test_a_tree_over_the_workspace_is_refused_before_copying(tree, tmp_path, backend, monkeypatch):
    require_backend(backend)
    monkeypatch.setenv("REPOFIX_SCRATCH", str(tmp_path / "scratch"))
    sparse(tree / "data" / "blob.bin", 2 << 30)  # 2 GiB: building its tar would take a minute and 2 GiB
    before = containers_of_this_process() if backend == "docker" else set()
    with pytest.raises(TreeTooBig) as refused:  # before the tar is built
        opened(tree, backend)
    message = str(refused.value)
    assert f"into the {backend} sandbox take 2048.0 MiB, more than its 1 MiB workspace" in message
    assert "(largest: data/blob.bin (2048.0 MiB))" in message, message
    assert "limits.workspace_mb" in message and "REPOFIX_LIMITS_WORKSPACE_MB=" in message
    assert wait_until(lambda: not any((tmp_path / "scratch").iterdir()), 30)
    if backend == "docker":
        assert wait_until(lambda: containers_of_this_process() <= before, 30)


@pytest.mark.parametrize("backend", backend_params())
def test_links_are_not_counted_and_a_tree_that_fits_is_copied(tree, tmp_path, backend):
    require_backend(backend)
    sparse(tree / "half.bin", 1 << 19)
    (tree / "link.bin").symlink_to(sparse(tmp_path / "elsewhere" / "huge.bin", 2 << 30))
    box = opened(tree, backend)
    try:
        assert box.run("test -L link.bin && test $(wc -c < half.bin) = 524288").ok
    finally:
        box.close()


def test_the_none_sandbox_has_no_workspace_size_to_check(tree):
    """Its workspace is a host folder, not a tmpfs of limits.workspace_mb."""
    sparse(tree / "two.bin", 2 << 20)
    box = opened(tree, "none")
    try:
        assert box.run("test $(wc -c < two.bin) = 2097152").ok
    finally:
        box.close()


@pytest.mark.parametrize("backend", ISOLATING)
def test_the_cli_says_what_to_raise_and_does_not_offer_a_resume(tmp_path, backend):
    """A committed file (cloned as it is) makes the tree too big: exit 2, one paragraph naming the
    setting; the run is an error, not something `resume` (which keeps the run's limits) could go on with."""
    require_backend(backend)
    repo = clamp_repo(tmp_path / "repo")
    sparse(repo / "blob.bin", 2 << 20)
    git(repo, "add", "blob.bin")
    git(repo, "-c", "user.email=dev@example.com", "-c", "user.name=Dev", "commit", "-qm", "blob")
    replies = tmp_path / "replies.yaml"
    replies.write_text("[]\n")
    home, scratch = tmp_path / "home", tmp_path / "scratch"
    env = {k: v for k, v in os.environ.items() if not k.startswith("REPOFIX_")}
    env.update(
        REPOFIX_HOME=str(home),
        REPOFIX_SCRATCH=str(scratch),
        REPOFIX_LIMITS_WORKSPACE_MB="1",
        PYTHONPATH=str(ROOT),
    )
    result = subprocess.run(
        [sys.executable, "-c", "from repofix.cli import main; main()", "fix", "--repo", str(repo)]
        + ["--model", f"scripted:{replies}", "--sandbox", backend],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 2, result.stderr
    said = result.stderr.strip().splitlines()[-1]
    assert said.startswith(f"repofix: the files to copy into the {backend} sandbox take "), said
    assert "largest: blob.bin (2.0 MiB)" in said and "REPOFIX_LIMITS_WORKSPACE_MB=" in said
    assert "Traceback" not in result.stderr and "resume" not in result.stderr
    (run,) = (home / "runs").iterdir()
    assert json.loads((run / "state.json").read_text())["status"] == "error"
    assert wait_until(lambda: not any(scratch.iterdir()), 30)


@pytest.mark.parametrize(("folder", "setting"), [(".", "limits.workspace_mb"), ("~", "limits.home_mb")])
def test_a_setup_that_fills_a_folder_says_which_setting_sizes_it(
    tree, tmp_path, monkeypatch, folder, setting
):
    """bwrap's setup commands write into the sandbox's sized folders (they wrote on host folders, and
    what they left was refused only afterwards, once on the host's disk): the write fails there, and
    the message names the settings that size each folder; nothing is left in the scratch folder."""
    require_backend("bwrap")
    monkeypatch.setenv("REPOFIX_SCRATCH", str(tmp_path / "scratch"))
    limits = dataclasses.replace(TEST_LIMITS, workspace_mb=8, home_mb=8)
    with warnings.catch_warnings(), pytest.raises(SandboxError) as refused:
        warnings.simplefilter("ignore")
        open_sandbox(
            tree, backend="bwrap", limits=limits, setup=[f"head -c 20000000 /dev/zero > {folder}/blob"]
        )
    message = str(refused.value)
    assert message.startswith("setup command failed (exit 1)") and "No space left on device" in message
    assert setting in message and "the home folder, where installs go, 8 MiB" in message
    assert wait_until(lambda: not any((tmp_path / "scratch").iterdir()), 30)
