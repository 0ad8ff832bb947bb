"""Build outputs: what an environment's install steps made inside the repository (C extensions
compiled in place, generated modules, egg-info), laid onto each task's tree before its tests.

SWE-bench builds an instance's image with the repository at the environment-setup commit,
installs it, then checks out the instance's base commit: the files the install made survive the
checkout. repofix's images are shared by the tasks of one (repository, version) and each sandbox
gets its own copy of the task's tree, so the image keeps those files in a tar instead
(`OUTPUTS_TAR`), and they are added to the tree (never replacing one of its files), which gives
the same result. SWE-bench's own images hold them in /testbed, as the repository's untracked files.
"""

from __future__ import annotations

import json
import tarfile
import tempfile
from pathlib import Path

from repofix.atomic import replacing
from repofix.evaluation.images import EnvironmentFailed, image_id, run_once

OUTPUTS_TAR = "/opt/repofix-outputs.tar"
BEFORE = "/tmp/repofix-before"  # in the build: the repository's paths before the setup steps
MAX_BYTES = 2 << 30

# Runs in the image (any Python >= 3.5, stdlib only): argv = folder, output tar ("-" = stdout),
# then BEFORE's path (files not listed there are outputs) or "git" (the untracked files).
COLLECT = r"""
import os, subprocess, sys, tarfile
root, out, how = sys.argv[1:4]
os.chdir(root)
if how == "git":
    done = subprocess.run(["git", "ls-files", "-z", "--others"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    names = [os.fsdecode(n) for n in done.stdout.split(b"\0") if n] if done.returncode == 0 else []
else:
    with open(how, "rb") as listed:
        before = set(os.fsdecode(n)[2:] for n in listed.read().split(b"\0") if n)
    names = []
    for folder, dirs, files in os.walk("."):
        dirs[:] = [d for d in dirs if d != ".git"]
        names += [os.path.join(folder, f)[2:] for f in files if os.path.join(folder, f)[2:] not in before]
SKIP = ("__pycache__", ".pytest_cache", ".tox", ".eggs", ".git", ".mypy_cache")
stream = sys.stdout.buffer if out == "-" else open(out, "wb")
with tarfile.open(fileobj=stream, mode="w|") as archive:
    for name in sorted(names):
        parts = name.split("/")
        if parts[0] == "build" or any(p in SKIP for p in parts) or name.endswith((".pyc", ".o")):
            continue
        if os.path.isfile(name) and not os.path.islink(name):
            archive.add(name, recursive=False)
stream.flush()
"""


def dockerfile_lines(when: str) -> list[str]:
    """The recipe Dockerfile's lines: "before" the setup steps, and "after" them."""
    if when == "before":
        return [f"RUN find . -mindepth 1 -print0 > {BEFORE}"]
    collect = ["python3", "-c", COLLECT, "/workspace", OUTPUTS_TAR, BEFORE]
    return [f"RUN {json.dumps(collect)}", f"RUN rm -f {BEFORE}"]


def fetch(image: str, repository: str | None) -> Path:
    """The image's build outputs as a tar on the host, read once per image id. `repository`:
    None for repofix's recipe images (their OUTPUTS_TAR), else the folder holding the
    repository (SWE-bench's /testbed), whose untracked files are collected."""
    ident = (image_id(image) or image).split(":")[-1]
    cache = Path(tempfile.gettempdir()) / "repofix-outputs" / f"{ident}.tar"
    if cache.exists():
        return cache
    cache.parent.mkdir(parents=True, exist_ok=True)
    if repository is None:
        command = ["--entrypoint", "cat", image, OUTPUTS_TAR]
    else:
        command = ["--user", "0", "--entrypoint", "/bin/sh", image, "-c"]
        command += ['exec "$(command -v python3)" -c "$0" "$@"', COLLECT, repository, "-", "git"]
    # Written under a name of its own, then renamed: workers fetching at once never share a file,
    # and a failed or timed-out read leaves nothing behind.
    with replacing(cache) as partial, partial.open("wb") as stream:
        done = run_once(command, stream, timeout=1800, what=f"reading the build outputs of {image}")
        if done.returncode != 0:
            reason = done.stderr.decode(errors="replace").strip()[-300:]
            raise EnvironmentFailed(f"cannot read the build outputs of the image {image}: {reason}")
    return cache


def lay_onto(tree: Path, outputs: Path) -> int:
    """Add the outputs to `tree`, never replacing a file of it (one committed since the
    environment's commit stays as committed). Returns how many were added."""
    try:
        with tarfile.open(outputs) as archive:
            members = [m for m in archive.getmembers() if m.isfile() and not _taken(tree, m.name)]
            if sum(m.size for m in members) > MAX_BYTES:
                raise EnvironmentFailed(f"the image's build outputs are over {MAX_BYTES >> 30} GiB")
            # The image was built by the task's setup (untrusted): the data filter keeps every
            # file inside the tree, as a plain file with safe permissions.
            archive.extractall(tree, members=members, filter="data")
    except (tarfile.TarError, OSError) as error:
        raise EnvironmentFailed(
            f"cannot lay the image's build outputs onto the task's tree: {error}"
        ) from None
    return len(members)


def _taken(tree: Path, name: str) -> bool:
    path = tree / name
    return path.exists() or path.is_symlink()
