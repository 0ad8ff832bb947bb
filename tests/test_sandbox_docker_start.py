"""A container whose keep-alive ends as it starts (seen once in CI: it was marked for removal before its
network was cut) costs one more container, then a clear error; never a Docker API traceback, never a
container or scratch folder left behind."""

from __future__ import annotations

import os
import subprocess

import pytest
from conftest import require_backend, wait_until

pytestmark = pytest.mark.docker

# `cat` (the keep-alive) found first on the image's PATH, ending at once with a code of its own.
SHORT_LIVED = "FROM {base}\nUSER root\nRUN printf '#!/bin/sh\\nexit 7\\n' > /usr/local/bin/cat && chmod 755 /usr/local/bin/cat\n"


@pytest.fixture(scope="module")
def short_lived_image():
    require_backend("docker")
    from repofix.sandboxes.docker import DEFAULT_IMAGE

    tag = f"repofix-test-short-lived:{os.getpid()}"
    built = subprocess.run(
        ["docker", "build", "-q", "-t", tag, "-"],
        input=SHORT_LIVED.format(base=DEFAULT_IMAGE),
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    yield tag
    subprocess.run(["docker", "image", "rm", "-f", tag], capture_output=True)


def my_containers() -> list[str]:
    import docker

    return [
        c.id
        for c in docker.from_env().containers.list(
            all=True, sparse=True, filters={"label": f"org.repofix.owner-pid={os.getpid()}"}
        )
    ]


@pytest.mark.parametrize("setup", [(), ("echo preparing",)], ids=["no-setup", "setup"])
def test_a_keep_alive_that_ends_at_once_gets_one_more_container_then_a_clear_error(
    short_lived_image, setup, tmp_path, monkeypatch, capfd
):
    from repofix.sandboxes import SandboxError
    from repofix.sandboxes.docker import DockerSandbox

    monkeypatch.setenv("REPOFIX_SCRATCH", str(tmp_path / "scratch"))
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "a.py").write_text("x = 1\n")
    before = my_containers()
    with pytest.raises(SandboxError) as raised:
        DockerSandbox(tmp_path / "repo", setup=setup, image=short_lived_image)
    message = str(raised.value)
    assert "ended by itself" in message and "twice in a row" in message, message
    # the first one was noticed on stderr (once), and a second container was started after it; the exit
    # code is named when the engine has not yet removed the container (--rm), which is a race
    notices = [line for line in capfd.readouterr().err.splitlines() if "starting another" in line]
    assert len(notices) == 1 and "ended by itself" in notices[0], notices
    assert all("exit code 7" in text for text in (*notices, message) if "exit code" in text)
    # a container whose own removal (--rm) was under way when repofix removed it is listed until it ends
    assert wait_until(lambda: my_containers() == before), my_containers()
    assert not any((tmp_path / "scratch").iterdir())


def test_a_healthy_image_opens_first_time_without_a_notice(tmp_path, monkeypatch, capfd):
    require_backend("docker")
    from repofix.sandboxes.docker import DockerSandbox

    monkeypatch.setenv("REPOFIX_SCRATCH", str(tmp_path / "scratch"))
    (tmp_path / "repo").mkdir()
    with DockerSandbox(tmp_path / "repo") as box:
        assert box.run("echo ok").output.strip() == "ok"
        assert not box.network_connected()
    assert "starting another" not in capfd.readouterr().err
