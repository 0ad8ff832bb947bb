"""The sandbox protocol, the same on every backend."""

from __future__ import annotations

import json
import os
import re
import sys
from contextlib import nullcontext
from pathlib import Path

import pytest
from conftest import backend_params

from repofix.sandboxes import ChannelForged, MalformedReply, RunnerDied, SandboxError, open_sandbox
from repofix.sandboxes.bundle import runner_dir
from repofix.sandboxes.session import PROTOCOL_VERSION, RunnerClient

sys.path.insert(0, str(runner_dir()))
import runner  # noqa: E402  (the in-sandbox module, imported directly to compare it with the spec)

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
    assert box.run('echo "[$ONLY_NOW]"; pwd').stdout.split() == ["[]", box.workdir]


@pytest.mark.parametrize("backend", ALL)
def test_argv_commands_and_stdin(make_sandbox, backend):
    box = make_sandbox(backend)
    result = box.run(
        ["python3", "-c", "import sys; print(sys.argv[1:], sys.stdin.read().upper())", "a b", "$HOME"],
        stdin="piped text",
    )
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
    box.write_files(
        {
            "new/deep/file.txt": "héllo\n".encode(),
            "run.sh": b"#!/bin/sh\necho ran\n",
            "link": b"new/deep/file.txt",
        },
        modes={"run.sh": 0o100755, "link": 0o120000},
    )
    box.write_files({"pkg/calc.py": None})
    assert box.run("./run.sh && cat link").stdout == "ran\nhéllo\n"
    changes = box.changes()
    assert changes.modified == {
        "new/deep/file.txt": (0o100644, False),
        "run.sh": (0o100755, False),
        "link": (0o120000, True),
    }
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


TRICKY_NAMES = {
    "run.sh": (b"#!/bin/sh\necho ran\n", 0o755),
    "with space/and 'quotes'.txt": (b"spaced\n", 0o644),
    "é/naïve.py": (b"x = 1\n", 0o644),
    "deep/" + "d" * 90 + "/" + "f" * 120 + ".txt": (b"long\n", 0o644),  # over ustar's 100 bytes
    "-starts-with-dash": (b"dash\n", 0o600),
}


@pytest.mark.parametrize("backend", ALL)
def test_a_tree_arrives_as_it_is(make_sandbox, backend, tmp_path, monkeypatch):
    """What copy_in tars on the host arrives in the workspace: contents, modes, empty folders, long and
    non-ASCII names, a name that is not UTF-8, symlinks as links (never what they point to), hard links;
    whatever your TAR_OPTIONS say, and the workspace keeps its own mode (not the source folder's)."""
    monkeypatch.setenv("TAR_OPTIONS", "--dereference --exclude-vcs")
    root = tmp_path / "tricky"
    for name, (data, mode) in TRICKY_NAMES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
        (root / name).chmod(mode)
    (root / "empty" / "folder").mkdir(parents=True)
    os.symlink("/etc/shadow", root / "absolute-link")  # a link out of the tree stays a link
    os.symlink("run.sh", root / "relative-link")
    os.link(root / "run.sh", root / "hard-link")
    os.mkfifo(root / "fifo")  # read by nothing: the copy must not block on it
    latin = os.fsencode(str(root)) + b"/latin-\xe9.txt"
    with open(latin, "wb") as handle:
        handle.write(b"latin\n")
    (root / ".gitignore").write_text("*.log\n")
    root.chmod(0o700)
    box = make_sandbox(backend, source=root)
    assert box.read_files([".gitignore"]) == {".gitignore": b"*.log\n"}
    if backend != "none":  # a tmpfs of its own, 0755, whatever the host folder's mode
        assert box.run(["stat", "-c", "%a", box.workdir]).stdout == "755\n"
    for name, (data, mode) in TRICKY_NAMES.items():
        assert box.read_files([name]) == {name: data}
        shown = box.run(["stat", "-c", "%a", "--", name]).stdout.strip()
        assert shown == f"{mode:o}", name
    assert box.run("test -d empty/folder && echo yes").stdout == "yes\n"
    assert box.run(["readlink", "absolute-link"]).stdout == "/etc/shadow\n"
    assert box.run("./relative-link && cat hard-link").stdout == "ran\n#!/bin/sh\necho ran\n"
    assert box.run("cat latin-*.txt").stdout == "latin\n"
    owners = box.run(["stat", "-c", "%u", "run.sh"]).stdout.strip()
    assert owners != "0" or backend == "none", (
        "the host's owners are dropped: the sandbox user owns the files"
    )


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
    with (
        pytest.warns(UserWarning) if backend == "none" else nullcontext(),
        open_sandbox(tree, backend=backend) as box,
    ):
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
    assert box.run('echo alive; echo "[$KEPT]"').stdout.split() == ["alive", "[]"]


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


# -- the protocol itself: its spec, malformed requests, malformed replies ------------------------------------


def test_spec_lists_every_operation_and_both_sides_speak_one_version():
    spec = (runner_dir() / "PROTOCOL.md").read_text()
    documented = set(re.findall(r"^\| `(\w+)`", spec, flags=re.M))
    assert documented == {*runner.FIELDS, "hello"}
    assert runner.PROTOCOL_VERSION == PROTOCOL_VERSION
    assert f"(version {PROTOCOL_VERSION})" in spec.splitlines()[0]


# Raw request bytes (a real pipe, the runner's stdin) and the error the runner answers with.
MALFORMED = [
    (b"not json\n", "bad request: the request is not JSON"),
    (b"\xff\xfe{}\n", "bad request: the request is not JSON"),
    (b"[1, 2]\n", "bad request: the request is not a JSON object"),
    (b'{"op": "ping", "payload": -3}\n', "'payload' must be a byte count"),
    (b'{"op": "ping", "payload": "12"}\n', "'payload' must be a byte count"),
    (b'{"op": "launch", "payload": 6}\n{"op"}', "unknown op 'launch'"),  # its payload is consumed too
    (b'{"cmd": "true"}\n', "unknown op None"),
    (b'{"op": "run", "cmd": "true"}\n', "op 'run' lacks the field[(]s[)] timeout, cap"),
    (b'{"op": "read"}\n', "op 'read' lacks the field[(]s[)] paths"),
]


@pytest.mark.parametrize("backend", ALL)
def test_malformed_requests_are_answered_and_the_runner_keeps_serving(make_sandbox, backend):
    box = make_sandbox(backend)
    assert box.run("export KEPT=still-here").ok
    pid = box.client.pid
    for raw, error in MALFORMED:
        box.client.proc.stdin.write(raw)
        box.client.proc.stdin.flush()
        with pytest.raises(SandboxError, match=f"^sandbox runner: .*{error}") as caught:
            box.client.reply(wait=30)
        assert not isinstance(caught.value, RunnerDied), raw
        # The very same runner (and shell session) answers the next request.
        assert box.run('echo "$KEPT"').stdout == "still-here\n", raw
    assert box.client.pid == pid and box.client.alive()


@pytest.mark.parametrize("backend", ALL)
def test_unknown_op_is_refused_by_name(make_sandbox, backend):
    box = make_sandbox(backend)
    with pytest.raises(
        SandboxError,
        match=r"unknown op 'launch' \(protocol 1 knows changes, ping, python, read, run, snapshot, tar, untar, write\)$",
    ):
        box.client.request({"op": "launch", "missiles": 3})
    assert box.client.request({"op": "ping"})[0]["pid"] == box.client.pid


# A stand-in for the runner on the far end of a real pipe: it reads the bundle and the session's key the way
# the runner does, says `hello` (argv[1]), then answers each request with the next scripted line (argv[2]);
# "KEY" in them becomes the session's key.
FAKE_RUNNER = r"""
import json, sys
stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
stdin.read(int(stdin.readline()))
key = stdin.readline().strip().decode()
hello, replies = sys.argv[1], json.loads(sys.argv[2])
for line in [hello] + replies:
    stdout.write(line.replace("KEY", key).encode("utf-8", "surrogateescape"))
    stdout.flush()
    if not stdin.readline():
        break
"""
HELLO = '{"op": "hello", "protocol": %s, "pid": 7, "python": "3.8.0", "key": "KEY"}\n'


def fake_client(tmp_path: Path, hello: str, *replies: str) -> RunnerClient:
    return RunnerClient(
        [sys.executable, "-c", FAKE_RUNNER, hello, json.dumps(replies)], str(tmp_path), str(tmp_path)
    )


@pytest.mark.parametrize("version", ["0", "2", "null", '"1"', "true", "1.0"])
def test_a_runner_of_another_protocol_version_is_refused(tmp_path, version):
    spoken = {"null": "None", '"1"': "'1'", "true": "True"}.get(version, version)
    with pytest.raises(
        SandboxError, match=f"runner speaks protocol version {spoken}, this repofix speaks version 1"
    ):
        fake_client(tmp_path, HELLO % version)


def test_a_hello_without_pid_is_a_malformed_reply(tmp_path):
    with pytest.raises(MalformedReply, match=r"reply to 'hello' broke the protocol .*'pid' is None"):
        fake_client(tmp_path, '{"op": "hello", "protocol": 1, "key": "KEY"}\n')


# What the host is sent back for a `read` of one path, and the error it must turn that into.
MALFORMED_REPLIES = [
    ("garbage\n", ChannelForged, "not a reply carrying the session's secret: b'garbage"),
    ("\udcff\udcfe\n", ChannelForged, "not a reply carrying the session's secret"),
    ('["KEY"]\n', ChannelForged, "not a reply carrying the session's secret"),
    ('{"sizes": {"a": 1}, "payload": 1}\nx', ChannelForged, "not a reply carrying the session's secret"),
    ('{"key": "KEY", "payload": "many"}\n', MalformedReply, "its 'payload' is 'many', not a byte count"),
    ('{"key": "KEY", "payload": -1}\n', MalformedReply, "its 'payload' is -1, not a byte count"),
    ('{"key": "KEY"}\n', MalformedReply, "reply to 'read' broke the protocol .*'sizes' is None"),
    ('{"key": "KEY", "sizes": {"a": "1"}}\n', MalformedReply, "the size of 'a' is '1'"),
    (
        '{"key": "KEY", "sizes": {"a": 5}, "payload": 2}\nxy',
        MalformedReply,
        "add up to 5 bytes, the payload has 2",
    ),
]


@pytest.mark.parametrize(("reply", "kind", "message"), MALFORMED_REPLIES)
def test_malformed_replies_are_a_clear_error_and_the_runner_is_killed(tmp_path, reply, kind, message):
    client = fake_client(tmp_path, HELLO % 1, reply)
    try:
        with pytest.raises(kind, match=message) as caught:
            client.read_files(["a"])
        assert isinstance(caught.value, RunnerDied)  # the agent's loop restarts the sandbox's runner
        assert not client.alive()
    finally:
        client.close()


def test_a_malformed_changes_entry_is_a_malformed_reply(tmp_path):
    client = fake_client(tmp_path, HELLO % 1, '{"key": "KEY", "modified": {"a": 33188}, "deleted": []}\n')
    try:
        with pytest.raises(MalformedReply, match=r"the entry of 'a' is 33188, not \[mode, is_symlink\]"):
            client.changes()
    finally:
        client.close()


def test_a_well_formed_reply_from_the_stand_in_is_believed(tmp_path):
    # The stand-in above speaks the protocol: the errors of the previous tests are the replies' own.
    client = fake_client(
        tmp_path,
        HELLO % 1,
        '{"key": "KEY", "sizes": {"a": 2, "b": -1}, "payload": 2}\nxy',
        '{"key": "KEY", "exit_code": 0, "stdout": 5, "stderr": ""}\n',
    )
    try:
        assert client.pid == 7
        assert client.read_files(["a", "b"]) == {"a": b"xy", "b": None}
        with pytest.raises(MalformedReply, match="reply to 'run' broke the protocol .*'stdout' is 5"):
            client.run("true", cwd=None, env=None, stdin=None, timeout=5, cap=100)
    finally:
        client.close()


def test_a_payload_over_the_limit_asked_for_is_not_read(tmp_path):
    """bwrap's setup asks for its folders' tars with a limit (twice the folder and 64 MiB): a reply
    announcing more is refused before a byte of it is held, and the runner killed."""
    client = fake_client(tmp_path, HELLO % 1, '{"key": "KEY", "payload": 1000000000000}\n')
    try:
        with pytest.raises(MalformedReply, match="its payload of 1000000000000 bytes is more than the 4096"):
            client.request({"op": "tar", "source": "/workspace"}, limit=4096)
        assert not client.alive()
    finally:
        client.close()


def test_a_large_payload_arrives_whole(tmp_path):
    """Read in 64 KiB pipe reads into one growing buffer (appending to bytes copied it every time)."""
    size = 48 << 20
    client = RunnerClient([sys.executable, "-c", BIG_REPLY, str(size)], str(tmp_path), str(tmp_path))
    try:
        _, data = client.request({"op": "tar", "source": "/workspace"}, wait=120)
        assert len(data) == size and data[:1] == b"a" and data[-1:] == b"z"
    finally:
        client.close()


BIG_REPLY = r"""
import sys
stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
stdin.read(int(stdin.readline()))
key = stdin.readline().strip()
stdout.write(b'{"op": "hello", "protocol": 1, "pid": 7, "python": "3.8.0", "key": "%s"}\n' % key)
stdout.flush()
size = int(sys.argv[1])
stdin.readline()
stdout.write(b'{"key": "%s", "payload": %d}\n' % (key, size) + b"a" + b"m" * (size - 2) + b"z")
stdout.flush()
stdin.readline()
"""
