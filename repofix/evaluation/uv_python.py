"""Python images through uv, for the versions no Debian release here ships (3.8, 3.10, 3.12, ...):
on the default Debian base, `uv` (from PyPI) installs a python-build-standalone interpreter, which
becomes the image's `python3`; the sandbox Dockerfile then builds the same venv (pytest,
pytest-timeout, coverage) on it as on a Debian-built image, so everything downstream is unchanged.

uv downloads those interpreters from releases.astral.sh / GitHub. Behind a firewall, uv's own
settings point it elsewhere, and are passed on to the build when set on the host:
UV_PYTHON_INSTALL_MIRROR (a mirror of python-build-standalone's releases) and
UV_PYTHON_DOWNLOADS_JSON_URL (a list of downloads of one's own)."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from repofix.evaluation import images
from repofix.evaluation.images import EnvironmentFailed, progress_lines, stream_build
from repofix.sandboxes.session import runner_dir

SETTINGS = ("UV_PYTHON_INSTALL_MIRROR", "UV_PYTHON_DOWNLOADS_JSON_URL")
BASE = "repofix-base:bookworm"  # the default image's base (scripts/install.sh builds it)
UV = "uv>=0.6,<1"  # 0.6: UV_PYTHON_DOWNLOADS_JSON_URL
INSTALL_DIR = "/opt/uv-python"
# uv's and pip's own error lines: what the message quotes when the install fails.
_ANSI = re.compile(r"\x1b\[[0-9;]*m")  # the classic builder colours a step's stderr
_USERINFO = re.compile(r"://[^/@\s]+@")
_ERROR = re.compile(r"^\s*(error|cause|caused by)\b:?", re.IGNORECASE)
_BUILDKIT = re.compile(r"^#\d+ [\d.]+ ")  # BuildKit's step and time before each line


def dockerfile(version: str, settings: list[str]) -> str:
    """uv installed first (a layer of its own, cached across versions and mirrors), then the
    interpreter, run by python3 / python3.X / python in /usr/local/bin, ahead of Debian's python3
    on the PATH. Those are scripts that exec it, not symbolic links: `python3 -m venv` through a
    link would take the link's folder for the venv's home, and Python would look for its standard
    library next to it (/usr/lib/python3.X: Debian's, or none). The settings come as build
    arguments, so they are not in the image's environment (the sandboxes never see them); Docker
    records them in the build history."""
    find = f'py="$(realpath "$(/opt/uv/bin/uv python find {version})")"'
    wrappers = (
        f'for name in python3 python{version} python; do printf \'#!/bin/sh\\nexec "%s" "$@"\\n\' "$py" '
        "> /usr/local/bin/$name && chmod 755 /usr/local/bin/$name; done"
    )
    check = (
        f"import sys; assert sys.executable.startswith('{INSTALL_DIR}/'), sys.executable; print(sys.version)"
    )
    lines = [
        f"FROM {BASE}",
        "USER root",
        f"RUN python3 -m venv /opt/uv && /opt/uv/bin/pip install --no-cache-dir --quiet '{UV}' && rm -rf /root/.cache",
        *[f"ARG {name}" for name in settings],
        f"ENV UV_PYTHON_INSTALL_DIR={INSTALL_DIR} UV_PYTHON_PREFERENCE=only-managed",
        f"RUN /opt/uv/bin/uv python install --no-cache {version} && {find} && {wrappers} "
        f'&& rm -rf /root/.cache && python3 -c "{check}"',
    ]
    return "\n".join(lines) + "\n"


def build(version: str, tag: str, log: Path, echo: Callable[[str], None]) -> None:
    """The Debian base (built once, as for the default image), uv's layer on it (tagged
    `<repo>-base:<version>` while the build needs it), then the sandbox Dockerfile, tagged `tag`.
    Raises EnvironmentFailed naming what can be had offline and the mirror setting; nothing is
    left tagged on failure."""
    settings = [name for name in SETTINGS if os.environ.get(name)]
    repo, _, label = tag.partition(":")
    uv_base, folder = f"{repo}-base:{label}", runner_dir()
    where = ", ".join(f"{name}={_redact(os.environ[name])}" for name in settings) or "its default source"
    echo(f"building {tag} (Python {version}) with uv from {where}: this takes minutes, once; log: {log}")
    show = progress_lines(tag, echo)
    try:
        with (
            log.open("w", encoding="utf-8") as stream,
            tempfile.TemporaryDirectory(prefix="repofix-uv-") as context,
        ):
            env = {**os.environ, "REPOFIX_DEBIAN_SUITE": "bookworm", "REPOFIX_BASE_IMAGE": BASE}
            code, timed_out = stream_build(["bash", str(folder / "build_base.sh")], stream, show, env)
            if code != 0:
                raise EnvironmentFailed(f"building {BASE} for uv's Python {version} failed", log)
            (Path(context) / "Dockerfile").write_text(dockerfile(version, settings), encoding="utf-8")
            args = [arg for name in settings for arg in ("--build-arg", name)]  # values from the environment
            argv = ["docker", "build", "--force-rm", *args, "-t", uv_base, context]
            code, timed_out = stream_build(argv, stream, show)
            if code != 0:
                stream.flush()
                raise EnvironmentFailed(_uv_failed(version, log, timed_out, code), log)
            argv = ["docker", "build", "--force-rm", "--build-arg", f"BASE_IMAGE={uv_base}", "-t", tag]
            code, timed_out = stream_build([*argv, str(folder)], stream, show)
        if code != 0:
            raise EnvironmentFailed(
                f"building {tag} on uv's Python {version} "
                + ("timed out" if timed_out else f"failed (docker build exit {code})"),
                log,
            )
    finally:  # the final image keeps its layers; the uv base's tag only served the last build
        subprocess.run(["docker", "image", "rm", uv_base], capture_output=True)


def _redact(text: str) -> str:
    """A mirror's address as shown: without the user and password it may carry."""
    return _USERINFO.sub("://***@", text)


def _uv_failed(version: str, log: Path, timed_out: bool, code: int | None) -> str:
    text = _ANSI.sub("", log.read_text(encoding="utf-8", errors="replace"))
    lines = [_BUILDKIT.sub("", line) for line in text.splitlines()]
    errors = [line.strip() for line in lines if _ERROR.match(line)]
    if errors and errors[0].lower().startswith("error"):  # uv: the error, its causes, deepest last
        url = [line for line in errors[1:-1] if "download `" in line][:1]  # the address it tried
        errors = [errors[0], *url, *errors[1:][-1:]]
    reason = (
        "timed out" if timed_out else _redact("; ".join(errors[-3:]) or f"docker build exit {code}")[:500]
    )
    return (
        f"the task wants Python {version}: no Debian release here ships it (offline: "
        f"{images.offline_versions()}) and uv could not install it ({reason}); uv needs PyPI and "
        "python-build-standalone's downloads: behind a firewall, set UV_PYTHON_INSTALL_MIRROR to a "
        "mirror of its releases (or UV_PYTHON_DOWNLOADS_JSON_URL), or give the task one of those versions"
    )
