"""Environments: where a task's tests run. With Docker, one image per recipe (start image,
setup commands, repository), built once with network and cached under a hash of the recipe; the
tasks then run from it with the network off. The start image is the default sandbox image, or
the image of the Python version the task asks for (images.py), or the task's own image, or with
`images="swebench"` the row's official image. With bwrap / none, the setup commands run in each
task's sandbox through `Sandbox.setup` (network during setup only)."""

from __future__ import annotations

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

from repofix.evaluation import build_outputs, images, uv_python
from repofix.evaluation.images import EnvironmentFailed, progress_lines, python_matches
from repofix.gitsafe import argv, git_env
from repofix.sandboxes import Limits, Sandbox, open_sandbox
from repofix.sandboxes.docker import DEFAULT_IMAGE, DockerSandbox, Layout
from repofix.tasks import Task

ENV_REPO = "repofix-env"  # images are tagged repofix-env:<recipe hash>
IMAGE_SOURCES = ("build", "swebench")
__all__ = ["EnvironmentFailed", "Environments", "python_matches"]


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
        # 2: the image keeps the setup's build outputs; 3: broken base plugins dropped; 4: SWE-bench
        # rows' images without the base image's own plugins
        "format": 4,
    }
    return hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()[:16]


class Environments:
    """Opens a sandbox for a task's prepared tree, in the task's environment. Thread safe: an
    image is built once even when several workers need it at the same time, and a failed build
    is not retried within one evaluation. `images="swebench"`: each task runs in its row's
    official `image` (pulled when absent), with the repository at /testbed; no build."""

    def __init__(
        self,
        backend: str,
        limits: Limits,
        log_dir: Path,
        echo: Callable[[str], None] = lambda line: None,
        images: str = "build",
    ):
        self.backend, self.limits, self.log_dir, self.echo = backend, limits, log_dir, echo
        if images not in IMAGE_SOURCES:
            raise ValueError(f"images must be one of {IMAGE_SOURCES}, not {images!r}")
        self.images = images
        self._lock = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}
        self._failed: dict[str, EnvironmentFailed] = {}
        self._python: dict[str, str] = {}
        self._ids: dict[str, str] = {}
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
            self._timed(lambda: self.image_for(task, repo))

    def check(self, task: Task) -> str | None:
        """Before any setup step (the agent's included): the image `task` starts from, made if
        needed (None off Docker). Raises EnvironmentFailed when its Python cannot be had."""
        env = task.environment
        if self.backend == "docker":
            return self._timed(lambda: self.start_image(task))
        if env.image or self.images == "swebench":
            raise EnvironmentFailed(
                f"the task needs the image {env.image or task.extra.get('image')}: use --sandbox docker"
            )
        if not python_matches(env.python, platform.python_version()):
            raise EnvironmentFailed(
                f"the task wants Python {env.python}; the {self.backend} sandbox has "
                f"{platform.python_version()} (use --sandbox docker, which builds images for Python "
                f"{', '.join(images.RELEASES)} offline, others with uv)"
            )
        return None

    @contextmanager
    def sandbox(self, task: Task, tree: Path, base: Path) -> Iterator[Sandbox]:
        """A sandbox on `tree` ready to run `task`'s tests. Raises EnvironmentFailed."""
        env = task.environment
        self.check(task)
        if self.backend == "docker":
            image = self._timed(lambda: self.image_for(task, base))
            swebench = self.images == "swebench"
            layout = images.SWEBENCH_LAYOUT if swebench else Layout()
            if swebench or env.setup:  # what the install built in the repository, as SWE-bench keeps it
                build_outputs.lay_onto(tree, build_outputs.fetch(image, layout.workdir if swebench else None))
            with DockerSandbox(tree, limits=self.limits, image=image, layout=layout) as box:
                yield box
            return
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
        start = self.start_image(task)
        if task.environment.setup and self.images != "swebench":
            return f"docker:{self._recipe_tag(task, start)}"
        return f"docker:{start}"

    # -- docker images ------------------------------------------------------------------------
    def start_image(self, task: Task) -> str:
        """The image the task's setup (if any) builds on, with the Python it asks for."""
        env = task.environment
        if self.images == "swebench":
            image = task.extra.get("image")
            if not isinstance(image, str) or not image.strip():
                raise EnvironmentFailed("--images swebench: the task's row has no `image` field")
            self._once(image, lambda: images.ensure_present(image))
            return image
        if env.image:
            self._check_python(env.image, env.python)
            return env.image
        if env.python is None or python_matches(env.python, self._python_of(DEFAULT_IMAGE)):
            return DEFAULT_IMAGE
        tag = images.python_image(env.python)
        if tag is None:
            raise EnvironmentFailed(
                images.unavailable(env.python, DEFAULT_IMAGE, self._python_of(DEFAULT_IMAGE))
            )
        log = self.log_dir / f"build-{tag.replace(':', '-')}.log"
        self._once(tag, lambda: self._build_python(images.minor(env.python or ""), tag, log))
        return tag

    def image_for(self, task: Task, base: Path) -> str:
        start = self.start_image(task)
        if self.images == "swebench":
            return start  # built by SWE-bench with its own install steps; its tests' Python is conda's
        if not task.environment.setup:
            return start
        image = self._recipe_tag(task, start)  # on the start image (its Python checked): the setup
        self._once(image, lambda: self._build(image, start, task, base))
        return image

    def _timed(self, make: Callable[[], str]) -> str:
        started = time.monotonic()
        try:
            return make()
        finally:
            self._waited.seconds = getattr(self._waited, "seconds", 0.0) + time.monotonic() - started

    def _recipe_tag(self, task: Task, start: str) -> str:
        with self._lock:  # the start image's id is part of every recipe: a rebuilt one means new images
            known = self._ids.get(start)
        if known is None:
            known = images.image_id(start) or start
            with self._lock:
                self._ids[start] = known
        return f"{ENV_REPO}:{recipe_hash(known, task)}"

    def _once(self, tag: str, make: Callable[[], None]) -> None:
        with self._lock:
            lock = self._locks.setdefault(tag, threading.Lock())
        with lock, images.host_lock(tag):
            if tag in self._failed:
                raise self._failed[tag]
            if images.image_id(tag) is not None:
                return
            try:
                make()
            except EnvironmentFailed as error:
                self._failed[tag] = error
                raise

    def _build_python(self, version: str, tag: str, log: Path) -> None:
        log.parent.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        try:  # from the Debian release that ships it, else (online) with uv
            if version in images.RELEASES:
                images.build_python_image(version, log, self.echo)
            else:
                uv_python.build(version, tag, log, self.echo)
        finally:
            with self._lock:
                self.build_seconds += time.monotonic() - started
        self.echo(f"Python {version} image built in {time.monotonic() - started:.0f}s")

    def _build(self, tag: str, start: str, task: Task, base: Path) -> None:
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
            around = (build_outputs.dockerfile_lines("before"), build_outputs.dockerfile_lines("after"))
            swebench_row = "swebench" in task.tags  # imported from a SWE-bench row
            text = images.dockerfile(
                start,
                task.environment.setup,
                task.environment.python,
                tag.split(":")[1],
                around,
                own_plugins=not swebench_row,
            )
            (Path(context) / "Dockerfile").write_text(text, encoding="utf-8")
            with log.open("w", encoding="utf-8") as stream:
                stream.write(text + "\n")
                argv = ["docker", "build", "--force-rm", "-t", tag, context]
                code, timed_out = images.stream_build(argv, stream, progress_lines(tag, self.echo))
        seconds = time.monotonic() - started
        with self._lock:
            self.build_seconds += seconds
        if timed_out:
            self.echo(f"environment {tag} TIMED OUT after {seconds:.0f}s; log: {log}")
            raise EnvironmentFailed(
                f"building the environment image {tag} took over {images.BUILD_TIMEOUT:.0f}s and was stopped",
                log,
            )
        if code != 0:
            self.echo(f"environment {tag} FAILED after {seconds:.0f}s; log: {log}")
            raise EnvironmentFailed(f"building the environment image {tag} {images.failed(code, log)}", log)
        self.echo(f"environment {tag} built in {seconds:.0f}s")

    def _python_of(self, image: str) -> str:
        with self._lock:
            actual = self._python.get(image)
        if actual is None:
            actual = images.python_version(image)
            with self._lock:
                self._python[image] = actual
        return actual

    def _check_python(self, image: str, wanted: str | None) -> None:
        if wanted is not None and not python_matches(wanted, actual := self._python_of(image)):
            raise EnvironmentFailed(
                f"the task wants Python {wanted}, but the image {image} has Python {actual} "
                f"(give the task an environment.image with Python {wanted}, or drop its python field)"
            )

    def _write_log(self, name: str, text: str) -> Path:
        path = self.log_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path


def _at_setup_commit(repo: Path, task: Task, log: Path) -> None:
    """SWE-bench rows: the image of a (repository, version) is built from the repository at the
    row's `environment_setup_commit`, as SWE-bench builds it, not at whichever task's base commit
    came first (a later base may need dependencies an earlier one did not declare). A checkout
    holding one commit (repositories.checkout from a mirror) gets its history and tags back
    first: setuptools_scm and the like compute the version from them at install time. A mirror
    that cannot give it (a partial clone missing old objects) leaves the one commit: most builds
    do not read the history."""
    if (repo / ".git" / "shallow").exists():
        subprocess.run(
            argv(repo, ["fetch", "--quiet", "--unshallow", "--tags", "origin"]),
            capture_output=True,
            env=git_env(),
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
