"""Environments: where a task's tests run. With Docker, one image per recipe (base image,
Python version, setup commands, repository), built once with network and cached under a hash of
the recipe; the tasks then run from it with the network off. With bwrap / none, the setup
commands run in each task's sandbox through `Sandbox.setup` (network during setup only)."""

from __future__ import annotations

import fcntl
import hashlib
import json
import platform
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from repofix.gitsafe import argv, git_env
from repofix.sandboxes import Limits, Sandbox, open_sandbox
from repofix.sandboxes.docker import DEFAULT_IMAGE
from repofix.tasks import Task

ENV_REPO = "repofix-env"  # images are tagged repofix-env:<recipe hash>
BUILD_TIMEOUT = 3600.0


class EnvironmentFailed(Exception):
    """The task's environment could not be made (build or setup failed); `log` has the details."""

    def __init__(self, message: str, log: Path | None = None):
        super().__init__(message + (f" (log: {log})" if log else ""))
        self.log = log


def repo_identity(task: Task) -> str:
    """What makes two tasks share an environment: the same repository (and version, if given)."""
    source = task.repo
    if source.files is not None:
        ident = "files:" + hashlib.sha256(json.dumps(source.files, sort_keys=True).encode()).hexdigest()
    else:
        ident = source.describe()
    version = task.extra.get("version")
    ident = f"{ident}@{version}" if version is not None else ident
    setup_commit = task.extra.get("environment_setup_commit")
    return f"{ident}#{setup_commit}" if isinstance(setup_commit, str) else ident


def recipe_hash(base_image_id: str, task: Task) -> str:
    recipe = {
        "base": base_image_id,
        "python": task.environment.python,
        "setup": task.environment.setup,
        "repo": repo_identity(task),
        "format": 2,  # 2: the files the setup generated are kept (GENERATED)
    }
    return hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()[:16]


# Files the setup wrote into the repository that git does not track (setuptools_scm's _version.py,
# in-place compiled extensions): kept in the image, put back into each task's tree (never over
# the tree's own files), as they stay in SWE-bench's /testbed.
GENERATED = "/opt/repofix/generated.tar"
_SAVE_GENERATED = f"""import os, subprocess, tarfile
try:
    done = subprocess.run(["git", "-c", "safe.directory=*", "ls-files", "-z", "--others"], capture_output=True)
except OSError:
    raise SystemExit(0)
names = [n for n in done.stdout.decode("utf-8", "surrogateescape").split("\\0") if n and "__pycache__/" not in n]
if done.returncode == 0 and names:
    os.makedirs(os.path.dirname({GENERATED!r}), exist_ok=True)
    with tarfile.open({GENERATED!r}, "w") as archive:
        for name in names:
            archive.add(name, recursive=False)
    os.chmod({GENERATED!r}, 0o644)
"""
RESTORE_GENERATED = f"""import os, tarfile
if os.path.exists({GENERATED!r}):
    with tarfile.open({GENERATED!r}) as archive:
        for member in archive.getmembers():
            if not os.path.lexists(member.name):
                archive.extract(member, ".")
"""


def dockerfile(base_image: str, setup: list[str], python: str | None, key: str) -> str:
    """Setup runs as root (the venv in /opt is root's) in /workspace holding the repository, so
    `pip install -r requirements.txt` and `pip install -e .` work; the workspace is emptied
    afterwards because every sandbox mounts its own copy of the task's tree there, and what
    the setup generated in it is kept aside (GENERATED)."""
    lines = [
        f"FROM {base_image}",
        "USER root",
        "COPY --chown=1000:1000 repo/ /workspace/",
        "WORKDIR /workspace",
    ]
    lines += [f"RUN {json.dumps(['/bin/bash', '-c', 'set -e; ' + command])}" for command in setup]
    if python:
        lines.append(f"RUN {json.dumps(['python3', '-c', _version_check(python)])}")
    lines.append(f"RUN {json.dumps(['python3', '-c', _SAVE_GENERATED])}")
    lines += ["RUN find /workspace -mindepth 1 -delete", "USER sandbox", f"LABEL org.repofix.env={key}"]
    return "\n".join(lines) + "\n"


def _version_check(python: str) -> str:
    return (
        "import platform,sys; v=platform.python_version(); "
        f"sys.exit(0 if v=={python!r} or v.startswith({python + '.'!r}) else "
        f"'this image has Python '+v+', the task wants {python}')"
    )


def python_matches(wanted: str | None, actual: str) -> bool:
    return wanted is None or actual == wanted or actual.startswith(wanted + ".")


class Environments:
    """Opens a sandbox for a task's prepared tree, in the task's environment. Thread safe: an
    image is built once even when several workers need it at the same time, and a failed build
    is not retried within one evaluation."""

    def __init__(
        self, backend: str, limits: Limits, log_dir: Path, echo: Callable[[str], None] = lambda line: None
    ):
        self.backend, self.limits, self.log_dir, self.echo = backend, limits, log_dir, echo
        self._lock = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}
        self._failed: dict[str, EnvironmentFailed] = {}
        self._python: dict[str, str] = {}
        self._base_id: str | None = None
        self.build_seconds = 0.0  # spent building images, all workers together
        self._waited = threading.local()  # per worker: time in image builds (or waiting for one)

    def take_build_seconds(self) -> float:
        """The calling worker's time in image builds (or waiting for one) since the last call,
        so a task's grading time does not hide the build of an image shared by many tasks."""
        seconds = getattr(self._waited, "seconds", 0.0)
        self._waited.seconds = 0.0
        return seconds

    def prepare(self, task: Task, repo: Path) -> None:
        """Build what the task's sandboxes need (Docker: its image) from `repo`, the repository at
        its base commit before any patch. Raises EnvironmentFailed."""
        if self.backend == "docker":
            started = time.monotonic()
            try:
                self.image_for(task, repo)
            finally:
                self._waited.seconds = getattr(self._waited, "seconds", 0.0) + time.monotonic() - started

    @contextmanager
    def sandbox(self, task: Task, tree: Path, base: Path) -> Iterator[Sandbox]:
        """A sandbox on `tree` ready to run `task`'s tests. Raises EnvironmentFailed."""
        env = task.environment
        if self.backend == "docker":
            started = time.monotonic()
            image = self.image_for(task, base)
            self._waited.seconds = getattr(self._waited, "seconds", 0.0) + time.monotonic() - started
            with open_sandbox(tree, backend="docker", limits=self.limits, image=image) as box:
                if task.environment.setup:
                    _restore_generated(box, image)
                yield box
            return
        if env.image:
            raise EnvironmentFailed(f"the task needs the image {env.image}: use --sandbox docker")
        if not python_matches(env.python, platform.python_version()):
            raise EnvironmentFailed(
                f"the task wants Python {env.python}; the {self.backend} sandbox has "
                f"{platform.python_version()} (use --sandbox docker with a matching image)"
            )
        with open_sandbox(tree, backend=self.backend, limits=self.limits) as box:
            if env.setup:
                results = box.setup(env.setup)
                if not results[-1].ok or len(results) < len(env.setup):
                    log = self._write_log(
                        f"setup-{task.id.replace('/', '__')}.log",
                        "\n".join(f"$ {c}\n{r.output}" for c, r in zip(env.setup, results, strict=False)),
                    )
                    last = results[-1]
                    raise EnvironmentFailed(
                        f"setup command {env.setup[len(results) - 1]!r} failed "
                        f"(exit {last.exit_code}{', timed out' if last.timed_out else ''})",
                        log,
                    )
            yield box

    def describe(self, task: Task) -> str:
        if self.backend != "docker":
            return self.backend
        env = task.environment
        return f"docker:{env.image or (self._recipe_tag(task) if env.setup else DEFAULT_IMAGE)}"

    # -- docker images ------------------------------------------------------------------------
    def image_for(self, task: Task, base: Path) -> str:
        if task.environment.image:
            image = task.environment.image
        elif not task.environment.setup:
            image = DEFAULT_IMAGE
        else:
            image = self._recipe_tag(task)
            # Before any setup step runs: a build whose Python is wrong would only fail at its end.
            self._check_python(DEFAULT_IMAGE, task.environment.python)
            self._build_once(image, task, base)
        self._check_python(image, task.environment.python)
        return image

    def _recipe_tag(self, task: Task) -> str:
        if (
            self._base_id is None
        ):  # the base image's id is part of every recipe: a rebuilt base means new images
            self._base_id = _image_id(DEFAULT_IMAGE) or DEFAULT_IMAGE
        return f"{ENV_REPO}:{recipe_hash(self._base_id, task)}"

    def _build_once(self, tag: str, task: Task, base: Path) -> None:
        with self._lock:
            lock = self._locks.setdefault(tag, threading.Lock())
        with lock, _host_lock(tag):
            if tag in self._failed:
                raise self._failed[tag]
            if _image_id(tag) is not None:
                return
            try:
                self._build(tag, task, base)
            except EnvironmentFailed as error:
                self._failed[tag] = error
                raise

    def _build(self, tag: str, task: Task, base: Path) -> None:
        log = self.log_dir / f"build-{tag.split(':')[1]}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        self.echo(
            f"building environment {tag} for {repo_identity(task)} ({len(task.environment.setup)} "
            f"setup command(s)); log: {log}"
        )
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="repofix-env-") as context:
            shutil.copytree(base, Path(context) / "repo", symlinks=True)
            _at_setup_commit(Path(context) / "repo", task, log)
            text = dockerfile(
                DEFAULT_IMAGE, task.environment.setup, task.environment.python, tag.split(":")[1]
            )
            (Path(context) / "Dockerfile").write_text(text, encoding="utf-8")
            with log.open("w", encoding="utf-8") as stream:
                stream.write(text + "\n")
                stream.flush()
                process = subprocess.Popen(
                    ["docker", "build", "--force-rm", "-t", tag, context],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                )
                assert process.stdout is not None
                # The output is read to its end, so the time limit needs a watchdog of its own.
                watchdog = threading.Timer(BUILD_TIMEOUT, process.kill)
                watchdog.start()
                code = None
                try:
                    for line in process.stdout:
                        stream.write(line)
                        if line.startswith("Step ") or line.startswith("#") and " RUN " in line:
                            self.echo(f"  {tag}: {line.strip()[:100]}")
                    code = process.wait()
                finally:
                    timed_out = not watchdog.is_alive() and code != 0
                    watchdog.cancel()
        seconds = time.monotonic() - started
        with self._lock:
            self.build_seconds += seconds
        if timed_out:
            self.echo(f"environment {tag} TIMED OUT after {seconds:.0f}s; log: {log}")
            raise EnvironmentFailed(
                f"building the environment image {tag} took over {BUILD_TIMEOUT:.0f}s and was stopped", log
            )
        if code != 0:
            self.echo(f"environment {tag} FAILED after {seconds:.0f}s; log: {log}")
            raise EnvironmentFailed(
                f"building the environment image {tag} failed (docker build exit {code})", log
            )
        self.echo(f"environment {tag} built in {seconds:.0f}s")

    def _check_python(self, image: str, wanted: str | None) -> None:
        if wanted is None:
            return
        with self._lock:
            actual = self._python.get(image)
        if actual is None:
            probe = subprocess.run(
                [
                    "docker",
                    "run",
                    "--rm",
                    "--network",
                    "none",
                    "--entrypoint",
                    "python3",
                    image,
                    "-c",
                    "import platform; print(platform.python_version())",
                ],
                capture_output=True,
                text=True,
                timeout=300,
            )
            if probe.returncode != 0:
                raise EnvironmentFailed(
                    f"cannot run python3 in the image {image}: {probe.stderr.strip()[-300:]}"
                )
            actual = probe.stdout.strip()
            with self._lock:
                self._python[image] = actual
        if not python_matches(wanted, actual):
            raise EnvironmentFailed(
                f"the task wants Python {wanted}, which is not available: the image {image} "
                f"has Python {actual} only (give the task an environment.image with Python "
                f"{wanted}, or drop its python field to run on {actual})"
            )

    def _write_log(self, name: str, text: str) -> Path:
        path = self.log_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path


def _restore_generated(box: Sandbox, image: str) -> None:
    done = box.run(["python3", "-c", RESTORE_GENERATED], timeout=300)
    if not done.ok:
        raise EnvironmentFailed(
            f"cannot put the files the setup generated back into the tree (image {image}): "
            f"{done.output.strip()[-300:]}"
        )


def _at_setup_commit(repo: Path, task: Task, log: Path) -> None:
    """SWE-bench rows: the image of a (repository, version) is built from the repository at the
    row's `environment_setup_commit`, as SWE-bench builds it, not at whichever task's base commit
    came first (a later base may need dependencies an earlier one did not declare). A checkout
    holding one commit (repositories.checkout from a mirror) gets its history and tags back
    first: setuptools_scm and the like compute the version from them at install time."""
    if (repo / ".git" / "shallow").exists():
        done = subprocess.run(
            argv(repo, ["fetch", "--quiet", "--unshallow", "--tags", "origin"]),
            capture_output=True,
            text=True,
            env=git_env(),
        )
        if done.returncode != 0:
            raise EnvironmentFailed(
                f"cannot fetch the repository's history for the build: {done.stderr.strip()[:300]}", log
            )
    commit = task.extra.get("environment_setup_commit")
    if not isinstance(commit, str) or not (repo / ".git").exists():
        return
    done = subprocess.run(
        argv(repo, ["checkout", "--quiet", "--force", "--detach", commit, "--"]),
        capture_output=True,
        text=True,
        env=git_env(),
    )
    if done.returncode != 0:
        raise EnvironmentFailed(
            f"cannot check out the environment setup commit {commit[:12]}: {done.stderr.strip()[:300]}", log
        )


@contextmanager
def _host_lock(tag: str) -> Iterator[None]:
    """Across processes on one host (several cluster workers, several evaluations): one build
    per image, the others wait for it and then reuse the image."""
    folder = Path(tempfile.gettempdir()) / "repofix-env-locks"
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / f"{tag.replace(':', '-')}.lock").open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _image_id(image: str) -> str | None:
    done = subprocess.run(
        ["docker", "image", "inspect", "--format", "{{.Id}}", image], capture_output=True, text=True
    )
    return done.stdout.strip() if done.returncode == 0 else None
