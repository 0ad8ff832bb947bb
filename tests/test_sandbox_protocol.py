"""The sandbox protocol, the same on every backend."""

from __future__ import annotations

import os
from contextlib import nullcontext
from pathlib import Path

import pytest
from conftest import backend_params

from repofix.sandboxes import RunnerDied, SandboxError, open_sandbox

ALL = backend_params()


@pytest.mark.parametrize("backend", ALL)
def test_shell_state_persists_between_commands(make_sandbox, backend):
    box = make_sandbox(backend)
    assert box.run("mkdir -p sub && cd sub && export GREETING=hello").ok
    result = box.run('pwd; echo "$GREETING"')
    assert result.stdout.splitlines() == [f"{box.workdir}/sub", "hello"]
    assert box.run("exit 3").exit_code == 3
    assert box.run("pwd").stdout.strip() == f"{box.workdir}/sub"  # `exit` keeps the state too


@pytest.mark.parametrize("backend", ALL)
def test_per_call_env_and_cwd_do_not_stick(make_sandbox, backend):
    box = make_sandbox(backend)
    assert box.run("echo $ONLY_NOW; pwd", env={"ONLY_NOW": "x"}, cwd="/tmp").stdout.split() == ["x", "/tmp"]
    assert box.run("echo \"[$ONLY_NOW]\"; pwd").stdout.split() == ["[]", box.workdir]


@pytest.mark.parametrize("backend", ALL)
def test_argv_commands_and_stdin(make_sandbox, backend):
    box = make_sandbox(backend)
    result = box.run(["python3", "-c", "import sys; print(sys.argv[1:], sys.stdin.read().upper())", "a b", "$HOME"],
                     stdin="piped text")
    assert result.stdout.strip() == "['a b', '$HOME'] PIPED TEXT"
    missing = box.run(["no-such-program-xyz"])
    assert missing.exit_code == 127 and "no-such-program-xyz" in missing.stderr


@pytest.mark.parametrize("backend", ALL)
def test_python_namespace_persists_and_survives_errors(make_sandbox, backend):
    box = make_sandbox(backend)
    assert box.python("import os\ncounter = 41").ok
    assert box.python("counter += 1\ncounter").stdout.strip() == "42"
    failed = box.python("1 / 0")
    assert failed.exit_code == 1 and "ZeroDivisionError" in failed.stderr
    assert box.python("print(counter, os.getcwd())").stdout.split() == ["42", box.workdir]
    lost = box.python("while True: pass", timeout=1)
    assert lost.timed_out and lost.session_lost
    after = box.python("print('counter' in globals())")
    assert after.stdout.strip() == "False"


@pytest.mark.parametrize("backend", ALL)
def test_files_in_and_out(make_sandbox, backend, tmp_path):
    box = make_sandbox(backend)
    box.changes()  # reset
    box.write_files({"new/deep/file.txt": "héllo\n".encode(), "run.sh": b"#!/bin/sh\necho ran\n",
                     "link": b"new/deep/file.txt"}, modes={"run.sh": 0o100755, "link": 0o120000})
    box.write_files({"pkg/calc.py": None})
    assert box.run("./run.sh && cat link").stdout == "ran\nhéllo\n"
    changes = box.changes()
    assert changes.modified == {"new/deep/file.txt": (0o100644, False), "run.sh": (0o100755, False),
                                "link": (0o120000, True)}
    assert changes.deleted == ["pkg/calc.py"]
    assert not box.changes()
    files = box.read_files(["run.sh", "link", "pkg/calc.py"])
    assert files == {"run.sh": b"#!/bin/sh\necho ran\n", "link": b"new/deep/file.txt", "pkg/calc.py": None}
    with pytest.raises(SandboxError, match="outside the workspace"):
        box.read_files(["../etc/passwd"])
    box.copy_out(box.workdir, tmp_path / "out")
    assert (tmp_path / "out" / "new" / "deep" / "file.txt").read_text() == "héllo\n"
    assert os.access(tmp_path / "out" / "run.sh", os.X_OK)
    assert (tmp_path / "out" / "link").is_symlink()


@pytest.mark.parametrize("backend", ALL)
def test_tests_run_inside(make_sandbox, backend):
    box = make_sandbox(backend)
    result = box.run("python3 -m pytest -q -p no:cacheprovider", timeout=120)
    assert result.ok, result.output
    assert "1 passed" in result.stdout


@pytest.mark.parametrize("backend", ALL)
def test_multiprocessing_locks_and_pools_work(make_sandbox, backend):
    # Their semaphores live in a writable /dev/shm (toolz's own suite uses a Pool): without one,
    # such tests fail in the sandbox only, and a repair run takes them for bugs.
    box = make_sandbox(backend)
    script = "import multiprocessing as m\nwith m.Pool(2) as pool:\n    print(m.Lock() is not None, pool.map(abs, [-1, -2]))"
    result = box.run(["python3", "-c", script], timeout=60)
    assert result.ok, result.output
    assert result.stdout.strip() == "True [1, 2]"
    assert box.run("touch /dev/shm/x && rm /dev/shm/x").ok


@pytest.mark.parametrize("backend", ALL)
def test_host_secrets_never_enter(tree, backend, monkeypatch):
    from conftest import require_backend

    require_backend(backend)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-very-secret-1234")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret_token_5678")
    with pytest.warns(UserWarning) if backend == "none" else nullcontext(), open_sandbox(tree, backend=backend) as box:
        # An isolating sandbox sees only its own processes, so /proc/* is all of them; the `none` backend
        # shares the host's /proc, where other people's processes are not this test's business.
        environs = "/proc/*/environ" if backend != "none" else "/proc/self/environ /proc/$$/environ"
        result = box.run(f"env; cat {environs} 2>/dev/null | tr '\\0' '\\n'")
        python = box.python("import os; print(dict(os.environ))")
    for leaked in ("sk-test-very-secret-1234", "ghp_secret_token_5678", "OPENAI_API_KEY", "GITHUB_TOKEN"):
        assert leaked not in result.stdout and leaked not in python.stdout


@pytest.mark.parametrize("backend", ALL)
def test_runner_death_is_reported_and_restartable(make_sandbox, backend):
    box = make_sandbox(backend)
    box.run("export KEPT=1")
    with pytest.raises(RunnerDied):
        box.run("kill -9 $(cat /proc/$$/stat | cut -d' ' -f4)")  # the runner is the shell's parent
        box.run("true")
    box.restart()
    assert box.run("echo alive; echo \"[$KEPT]\"").stdout.split() == ["alive", "[]"]


@pytest.mark.parametrize("backend", ALL)
def test_closed_sandbox_leaves_nothing(tree, backend):
    from conftest import require_backend

    require_backend(backend)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        box = open_sandbox(tree, backend=backend)
    scratch = getattr(box, "scratch", None)
    container = getattr(box, "container", None)
    box.run("sleep 1000 &")
    box.close()
    box.close()  # twice is fine
    with pytest.raises(SandboxError, match="closed"):
        box.run("true")
    assert scratch is None or not Path(scratch).exists()
    if container is not None:
        import docker.errors

        with pytest.raises(docker.errors.NotFound):
            container.reload()


def test_missing_source_is_a_clear_error(tmp_path):
    with pytest.raises(SandboxError, match="no such directory"):
        open_sandbox(tmp_path / "nope", backend="none")


def test_unknown_backend_is_a_clear_error(tree):
    with pytest.raises(SandboxError, match="choose one of docker, bwrap, none"):
        open_sandbox(tree, backend="vm")
