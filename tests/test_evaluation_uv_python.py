"""Python images through uv, for versions no Debian release here ships: tested with no GitHub and no
astral.sh. The test serves a python-build-standalone mirror of its own on the Docker bridge's
gateway (the build containers reach the host there), holding an "install_only" archive it makes
itself: Debian bookworm's Python 3.11 taken out of the default image and laid out as
python-build-standalone lays out its interpreters (`python/bin`, `python/lib/python3.X`), which
runs from wherever uv puts it. uv checks every archive against the sha256 it ships with, so the
test gives uv its list of downloads too (UV_PYTHON_DOWNLOADS_JSON_URL), naming the archive at its
GitHub address: uv reaches it only through UV_PYTHON_INSTALL_MIRROR. uv itself comes from PyPI."""

from __future__ import annotations

import hashlib
import http.server
import ipaddress
import json
import subprocess
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import unquote

import pytest

from repofix.evaluation import uv_python
from repofix.evaluation.environments import Environments
from repofix.evaluation.grading import grade
from repofix.evaluation.images import PYTHON_REPO, image_id, run_once
from repofix.evaluation.model import Candidate, Status
from repofix.sandboxes.docker import DEFAULT_IMAGE
from tests.conftest import TEST_LIMITS, containers_running, require_backend, require_pypi
from tests.test_evaluation_grading import make_task
from tests.test_evaluation_images import AgentDouble, evaluate

pytestmark = [pytest.mark.docker, pytest.mark.network, pytest.mark.slow]
GITHUB = "https://github.com/astral-sh/python-build-standalone/releases/download"
BUILD = "20991231"  # a release python-build-standalone never made: only this test's mirror has it
# Debian's interpreter and its standard library (symbolic links resolved: uv refuses absolute ones), in python-build-standalone's install_only layout.
REPACK = (
    "set -e; export PATH=/usr/bin:/bin; d=$(mktemp -d); mkdir -p $d/python/bin $d/python/lib; cp /usr/bin/python3.11 $d/python/bin/; "
    "ln -s python3.11 $d/python/bin/python3; ln -s python3.11 $d/python/bin/python; "
    "cp -RL /usr/lib/python3.11 $d/python/lib/; tar -C $d -czf - python"
)


def bridge_gateway() -> str:
    """The bridge's gateway address; some Docker engines (Debian's 20.10) record only the subnet,
    whose first host docker0 then holds."""
    done = subprocess.run(
        ["docker", "network", "inspect", "bridge", "--format", "{{json (index .IPAM.Config 0)}}"],
        capture_output=True,
        text=True,
        check=True,
    )
    config = json.loads(done.stdout)
    if config.get("Gateway"):
        return config["Gateway"]
    return str(next(ipaddress.ip_network(config["Subnet"]).hosts()))


@contextmanager
def mirror(files: dict[str, bytes]) -> Iterator[tuple[str, list[str]]]:
    """An HTTP server on the bridge gateway, on a port of its own: `files` by path, 404 otherwise.
    Yields its URL and the paths asked for."""
    asked: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            path = unquote(self.path)
            asked.append(path)
            body = files.get(path)
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            try:
                self.wfile.write(body or b"")
            except ConnectionError:  # uv gave up on this one (it retries)
                pass

        def log_message(self, *args: object) -> None:
            pass

    gateway = bridge_gateway()
    server = http.server.ThreadingHTTPServer((gateway, 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://{gateway}:{server.server_address[1]}", asked
    finally:
        server.shutdown()
        thread.join()
        server.server_close()


def repacked_interpreter(folder: Path) -> bytes:
    archive = folder / "python.tar.gz"
    with archive.open("wb") as out:
        made = run_once(
            ["--entrypoint", "/bin/sh", DEFAULT_IMAGE, "-c", REPACK], out, timeout=300, what="repack"
        )
    assert made.returncode == 0, made.stderr.decode()
    return archive.read_bytes()


def downloads_json(version: str, name: str, archive: bytes) -> bytes:
    major, minor, patch = (int(part) for part in version.split("."))
    entry = {
        "name": "cpython",
        "arch": {"family": "x86_64", "variant": None},
        "os": "linux",
        "libc": "gnu",
        "major": major,
        "minor": minor,
        "patch": patch,
        "prerelease": "",
        "url": f"{GITHUB}/{BUILD}/{name.replace('+', '%2B')}",
        "sha256": hashlib.sha256(archive).hexdigest(),
        "variant": None,
        "build": BUILD,
    }
    return json.dumps({f"cpython-{version}-linux-x86_64-gnu": entry}).encode()


def leftover_containers() -> list[str]:
    return containers_running("uv python install")


def test_a_python_uv_installs_from_a_mirror_is_the_images_python3_and_runs_tasks(tmp_path, monkeypatch):
    require_backend("docker")
    require_pypi()
    archive = repacked_interpreter(tmp_path)
    name = f"cpython-3.11.2+{BUILD}-x86_64-unknown-linux-gnu-install_only.tar.gz"
    files = {f"/pbs/{BUILD}/{name}": archive, "/downloads.json": downloads_json("3.11.2", name, archive)}
    tag = f"repofix-test-uv-{uuid.uuid4().hex[:8]}:3.11"
    notes: list[str] = []
    with mirror(files) as (url, asked):
        monkeypatch.setenv("UV_PYTHON_INSTALL_MIRROR", f"{url}/pbs")
        monkeypatch.setenv("UV_PYTHON_DOWNLOADS_JSON_URL", f"{url}/downloads.json")
        try:
            uv_python.build("3.11", tag, tmp_path / "build.log", notes.append)
            assert f"/pbs/{BUILD}/{name}" in asked  # through the mirror, not GitHub
            probe = "import sys; print(sys.prefix, sys.base_prefix, sys.version.split()[0])"
            shown = run_once(
                ["--entrypoint", "python3", tag, "-c", probe], subprocess.PIPE, timeout=120, what="x"
            )
            prefix, base_prefix, version = shown.stdout.decode().split()
            assert prefix == "/opt/venv" and version == "3.11.2"  # the sandbox venv, as on Debian images
            assert base_prefix == f"{uv_python.INSTALL_DIR}/cpython-3.11.2-linux-x86_64-gnu"  # uv's, not /usr
            # A task in that image, with a setup step built on top: the runner and the pytest plugin work.
            check = "python3 -c 'import sys; assert sys.base_prefix.startswith(\"/opt/uv-python/\")'"
            task = make_task(environment={"image": tag, "python": "3.11", "setup": [check]})
            environments = Environments("docker", TEST_LIMITS, tmp_path / "logs")
            recipe = environments.describe(task).removeprefix("docker:")
            try:
                result = grade(
                    task, Candidate(task.patch or "", "gold"), environments, timeout=120, log_dir=tmp_path
                )
            finally:
                subprocess.run(["docker", "image", "rm", "-f", recipe], capture_output=True)
            assert result.status is Status.RESOLVED, result.detail
        finally:
            subprocess.run(["docker", "image", "rm", "-f", tag], capture_output=True)
    assert notes[0].startswith(
        f"building {tag} (Python 3.11) with uv from UV_PYTHON_INSTALL_MIRROR={url}/pbs"
    )
    assert any("uv python install" in note for note in notes[1:])  # the build's progress, step by step
    assert image_id(f"{tag.split(':')[0]}-base:3.11") is None  # the intermediate tag is gone
    assert leftover_containers() == []


def test_a_python_uv_cannot_get_fails_before_any_setup_step_naming_what_can_be_had(tmp_path, monkeypatch):
    require_backend("docker")
    require_pypi()
    tag = f"{PYTHON_REPO}:3.10"
    if image_id(tag) is not None:
        pytest.skip(f"{tag} is on this host already: nothing to install")
    task = make_task(environment={"python": "3.10", "setup": ["true"]})
    notes: list[str] = []
    with mirror({}) as (url, asked):  # a mirror that has nothing: uv's download gets a 404
        # with a password in it, which neither the progress lines nor the message may show
        monkeypatch.setenv("UV_PYTHON_INSTALL_MIRROR", url.replace("://", "://me:s3cret@") + "/pbs")
        monkeypatch.delenv("UV_PYTHON_DOWNLOADS_JSON_URL", raising=False)
        agent = AgentDouble()
        environments = Environments("docker", TEST_LIMITS, tmp_path / "logs", echo=notes.append)
        result = evaluate([task], agent, environments, tmp_path / "run")[task.id]
    assert result.status is Status.ENV_FAILED, result.detail
    assert "wants Python 3.10: no Debian release here ships it" in result.detail
    assert "offline: 3.9 (Debian bullseye), 3.11 (Debian bookworm), 3.13 (Debian trixie)" in result.detail
    assert "404" in result.detail and "set UV_PYTHON_INSTALL_MIRROR" in result.detail
    assert [path for path in asked if path.startswith("/pbs/") and "cpython-3.10." in path]
    assert agent.asked == []  # the agent never started
    assert not [note for note in notes if note.startswith("building environment")]  # nor the setup
    assert "s3cret" not in result.detail and not [note for note in notes if "s3cret" in note]
    assert image_id(tag) is None and image_id(f"{PYTHON_REPO}-base:3.10") is None
    assert leftover_containers() == []
