"""Docker images for evaluation environments: one sandbox image per Python version, built offline
on first need from the Debian release that ships that version (debootstrap, as the default image
is built; other versions online with uv, uv_python.py), SWE-bench's official per-instance images, and the helpers every image build shares
(streamed progress, a time limit, one build per image per host)."""

from __future__ import annotations

import fcntl
import json
import os
import re
import subprocess
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from subprocess import CompletedProcess
from typing import IO, TextIO

from repofix.sandboxes import cleanup
from repofix.sandboxes.common import BASE_ENV
from repofix.sandboxes.docker import Layout
from repofix.sandboxes.session import runner_dir

BUILD_TIMEOUT = 3600.0
PYTHON_REPO = "repofix-python"  # Python images are tagged repofix-python:<major.minor>
# Python version -> the Debian release shipping it. Older releases (buster 3.7, stretch 3.5) are
# only on archive.debian.org now, which offline hosts (and the development machine) cannot reach.
RELEASES = {"3.9": "bullseye", "3.11": "bookworm", "3.13": "trixie"}
UV_OLDEST = (3, 8)  # the oldest CPython uv (0.13, the uv_python pin's current release) downloads

# SWE-bench's images: the repository at /testbed, installed into the conda env `testbed`; the
# runner runs on conda's own Python (recent), the tests on the env's (as old as 3.5).
SWEBENCH_LAYOUT = Layout(
    "/testbed",
    "/opt/miniconda3/envs/testbed/bin:/opt/miniconda3/bin:" + BASE_ENV["PATH"],
    "/opt/miniconda3/bin/python3",
)


class EnvironmentFailed(Exception):
    """The task's environment could not be made (build or setup failed); `log` has the details."""

    def __init__(self, message: str, log: Path | None = None):
        super().__init__(message + (f" (log: {log})" if log else ""))
        self.log = log


def minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


def python_image(version: str) -> str | None:
    """The image that gives `version` (e.g. "3.9"): from a Debian release (RELEASES) or else from uv;
    None for a version that names no major.minor ("3", "three") or that neither offers (2.7, 3.6):
    that fails at once, with no build started."""
    wanted = minor(version)
    if not re.fullmatch(r"\d+\.\d+", wanted):
        return None
    if wanted not in RELEASES and tuple(int(part) for part in wanted.split(".")) < UV_OLDEST:
        return None
    return f"{PYTHON_REPO}:{wanted}"


def offline_versions() -> str:
    return ", ".join(f"{v} (Debian {r})" for v, r in RELEASES.items())


def python_matches(wanted: str | None, actual: str) -> bool:
    return wanted is None or actual == wanted or actual.startswith(wanted + ".")


def unavailable(wanted: str, default_image: str, default_python: str) -> str:
    return (
        f"the task wants Python {wanted}, which cannot be had here: {default_image} has Python "
        f"{default_python}, images are built offline for Python {offline_versions()}, and uv installs "
        f"{UV_OLDEST[0]}.{UV_OLDEST[1]} and later online; give the task an environment.image with Python "
        f"{wanted}, or a python field such as 3.10"
    )


# The sandbox images ship pytest plugins of their own (pytest-timeout) that SWE-bench's environments
# do not have; one that no longer loads with the pytest the setup installed (pytest-timeout 2.2+ on
# pytest < 7: `module 'pytest' has no attribute 'StashKey'`) would fail every test run, so it goes.
_DROP_BROKEN_PLUGINS = """import subprocess, sys
for module, package in (("pytest_timeout", "pytest-timeout"),):
    try:
        __import__(module)
    except ImportError:
        continue
    except Exception as error:
        print(f"{package} does not load with this pytest ({error}): uninstalled")
        subprocess.run([sys.executable, "-m", "pip", "uninstall", "-y", "-q", package], check=True)
"""


# SWE-bench rows: the environment is what its setup installs, as SWE-bench's has nothing else. The
# image's own plugins go before the setup (which may install them again): loaded by entry point
# into every pytest of the interpreter, they also reach a pytest the tests import from the task's
# own tree, which the check after the setup never sees (pytest's rows: the base commit's pytest
# predates the `StashKey` that pytest-timeout needs; the setup commit's has it).
_DROP_IMAGE_PLUGINS = """import importlib.metadata, subprocess, sys
for package in ("pytest-timeout",):
    try:
        importlib.metadata.distribution(package)
    except importlib.metadata.PackageNotFoundError:
        continue
    subprocess.run([sys.executable, "-m", "pip", "uninstall", "-y", "-q", package], check=True)
"""


def dockerfile(
    base_image: str,
    setup: list[str],
    python: str | None,
    key: str,
    around: tuple[list[str], list[str]] = ([], []),
    *,
    own_plugins: bool = True,
) -> str:
    """Setup runs as root (the venv in /opt is root's) in /workspace holding the repository, so
    `pip install -r requirements.txt` and `pip install -e .` work, between the `around` lines;
    the workspace is emptied afterwards because every sandbox mounts its own copy of the task's
    tree there. `own_plugins=False`: the base image's pytest plugins are removed before setup."""
    lines = [
        f"FROM {base_image}",
        "USER root",
        "COPY --chown=1000:1000 repo/ /workspace/",
        "WORKDIR /workspace",
        *around[0],
    ]
    if not own_plugins:
        lines.append(f"RUN {json.dumps(['python3', '-c', _DROP_IMAGE_PLUGINS])}")
    lines += [f"RUN {json.dumps(['/bin/bash', '-c', 'set -e; ' + command])}" for command in setup]
    if python:
        lines.append(f"RUN {json.dumps(['python3', '-c', _version_check(python)])}")
    lines.append(f"RUN {json.dumps(['python3', '-c', _DROP_BROKEN_PLUGINS])}")
    lines += [
        *around[1],
        "RUN find /workspace -mindepth 1 -delete",
        "USER sandbox",
        f"LABEL org.repofix.env={key}",
    ]
    return "\n".join(lines) + "\n"


def _version_check(python: str) -> str:
    return (
        "import platform,sys; v=platform.python_version(); "
        f"sys.exit(0 if v=={python!r} or v.startswith({python + '.'!r}) else "
        f"'this image has Python '+v+', the task wants {python}')"
    )


def build_python_image(version: str, log: Path, echo: Callable[[str], None]) -> None:
    """Debian base (debootstrap, cached like the default base) + sandbox/Dockerfile on top."""
    release, tag = RELEASES[minor(version)], f"{PYTHON_REPO}:{minor(version)}"
    base, folder = f"repofix-base:{release}", runner_dir()
    echo(
        f"building {tag} (Python {minor(version)}) from Debian {release}: this takes minutes, once; log: {log}"
    )
    with log.open("w", encoding="utf-8") as stream:
        env = {**os.environ, "REPOFIX_DEBIAN_SUITE": release, "REPOFIX_BASE_IMAGE": base}
        code, timed_out = stream_build(
            ["bash", str(folder / "build_base.sh")], stream, progress_lines(tag, echo), env
        )
        if code != 0:
            raise EnvironmentFailed(
                f"building the Debian {release} base for Python {version} "
                + ("timed out" if timed_out else f"failed (exit {code})"),
                log,
            )
        argv = ["docker", "build", "--build-arg", f"BASE_IMAGE={base}", "-t", tag, str(folder)]
        code, timed_out = stream_build(argv, stream, progress_lines(tag, echo))
    if code != 0:
        raise EnvironmentFailed(f"building {tag} " + ("timed out" if timed_out else failed(code, log)), log)


COMMAND = "$ "  # in a build's log, the line that starts each command's output (`failed` reads it)


def failed(code: int | None, log: Path) -> str:
    """`failed (docker build exit 1: <the build's last error line>)`: the cause where the run's
    summary shows it, not only in a log that may be gone by the time someone reads it."""
    text = log.read_text(encoding="utf-8", errors="replace")
    output = text.rsplit("\n" + COMMAND, 1)[-1].splitlines()[
        1:
    ]  # the last command's output, not the Dockerfile
    last = next((line.strip()[:300] for line in reversed(output) if line.strip()), "")
    return f"failed (docker build exit {code}" + (f": {last})" if last else ")")


def ensure_present(image: str) -> None:
    """A named image (SWE-bench's official ones): here already, or pulled; else a clear error."""
    if image_id(image) is not None:
        return
    pulled = subprocess.run(
        ["docker", "pull", "--quiet", image], capture_output=True, text=True, timeout=3600
    )
    if pulled.returncode != 0:
        reason = (pulled.stderr.strip().splitlines() or [f"exit {pulled.returncode}"])[-1][:300]
        raise EnvironmentFailed(f"the image {image} is not on this host and cannot be pulled: {reason}")


# The engine's words for a container it could not start, of an image that works the next time: seen
# under a full test suite with two Ray nodes, "failed to create shim task ... executable file not
# found" (python3, which the image has) and "unable to find user sandbox: no matching entries in
# passwd file" (a user the image has). Nothing ran in it, so one more container loses nothing;
# twice is an answer (an image without python3 or without its USER).
NOT_STARTED = ("failed to create shim task", "unable to find user")


def not_started(said: str) -> bool:
    return any(words in said for words in NOT_STARTED)


def python_version(image: str) -> str:
    """The version of the image's `python3`. Raises EnvironmentFailed."""
    argv = ["--entrypoint", "python3", image, "-c", "import platform; print(platform.python_version())"]
    probe = run_once(argv, subprocess.PIPE, timeout=300, what=f"the python3 probe of {image}")
    if probe.returncode != 0 and not_started(probe.stderr.decode(errors="replace")):
        probe = run_once(argv, subprocess.PIPE, timeout=300, what=f"the python3 probe of {image}")
    if probe.returncode != 0:
        reason = probe.stderr.decode(errors="replace").strip()[-300:]
        raise EnvironmentFailed(f"cannot run python3 in the image {image}: {reason}")
    return probe.stdout.decode().strip()


def run_once(
    argv: list[str], stdout: IO[bytes] | int, *, timeout: float, what: str
) -> CompletedProcess[bytes]:
    """`docker run --rm` with no network, labelled as every repofix container is (so a killed owner's
    is swept); on timeout the container is removed too (killing the client would leave it running)
    and EnvironmentFailed names `what`."""
    name = f"repofix-once-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    labels = [f"--label={key}={value}" for key, value in cleanup.owner_labels(name).items()]
    command = ["docker", "run", "--rm", "--name", name, "--network", "none", *labels, *argv]
    try:
        return subprocess.run(command, stdout=stdout, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        subprocess.run(["docker", "rm", "-f", name], capture_output=True)
        raise EnvironmentFailed(f"{what} did not finish within {timeout:.0f} s") from None


def stream_build(
    argv: list[str], log: TextIO, show: Callable[[str], None], env: Mapping[str, str] | None = None
) -> tuple[int | None, bool]:
    """Run a build, every line to `log`, progress lines to `show`: (exit code, timed out).

    A build that failed because the engine could not create a step's container runs once more.
    Seen in CI and in rehearsals under a full suite: step 7 ran `python3`, step 8's container on
    step 7's image had no `python3` ("failed to create shim task ... not found"), and that image
    ran `python3` fine afterwards. Nothing ran in the refused container and the steps before it
    are cached, so the second build costs little; the same answer twice is the answer."""
    code, timed_out, refused = _build_once(argv, log, show, env)
    if code != 0 and not timed_out and refused:
        log.write("(the engine could not create a step's container; nothing ran in it: building once more)\n")
        show("the engine could not create a step's container: building once more")
        code, timed_out, _ = _build_once(argv, log, show, env)
    return code, timed_out


def _build_once(
    argv: list[str], log: TextIO, show: Callable[[str], None], env: Mapping[str, str] | None
) -> tuple[int | None, bool, bool]:
    """One build: (exit code, timed out, whether the engine refused to create a container)."""
    log.write(f"{COMMAND}{' '.join(argv)}\n")
    log.flush()
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    assert process.stdout is not None
    # The output is read to its end, so the time limit needs a watchdog of its own.
    watchdog = threading.Timer(BUILD_TIMEOUT, process.kill)
    watchdog.start()
    code, refused = None, False
    try:
        for line in process.stdout:
            log.write(line)
            refused = refused or not_started(line)
            if line.startswith("[build_base"):
                show(line.split("] ", 1)[-1].strip()[:100])
            elif line.startswith("Step ") or line.startswith("#") and " RUN " in line:
                show(line.strip()[:100])
        code = process.wait()
    finally:
        timed_out = not watchdog.is_alive() and code != 0
        watchdog.cancel()
        if code is None:  # the loop raised (the log's disk is full, Ctrl-C): end the build, never drop it
            process.kill()
            process.wait()
        process.stdout.close()
    return code, timed_out, refused


def progress_lines(tag: str, echo: Callable[[str], None]) -> Callable[[str], None]:
    """A build's output lines, shown indented under the image being built."""
    return lambda line: echo(f"  {tag}: {line}")


@contextmanager
def host_lock(tag: str) -> Iterator[None]:
    """Across processes on one host (several cluster workers, several evaluations): one build
    per image, the others wait for it and then reuse the image."""
    folder = Path(tempfile.gettempdir()) / "repofix-env-locks"
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / f"{tag.replace(':', '-').replace('/', '_')}.lock").open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def image_id(image: str) -> str | None:
    done = subprocess.run(
        ["docker", "image", "inspect", "--format", "{{.Id}}", image], capture_output=True, text=True
    )
    return done.stdout.strip() if done.returncode == 0 else None
