"""What environment a sandbox gets: exactly the minimal one (names and values), its own HOME and
TMPDIR, never a host variable; and how the session's exports, per-call variables and `clean` runs
combine inside it. Written to kill the mutation benchmark's mutants of the env code."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import backend_params

from repofix.sandboxes.common import BASE_ENV
from repofix.sandboxes.interpreter import NAMES_DIR

BACKENDS = backend_params(("bwrap", "none"))
HOST_ONLY = {"OPENAI_API_KEY": "sk-env-test-secret-1234", "GITHUB_TOKEN": "ghp_env_test_5678", "FOO": "bar"}
ENVIRON = "import json, os; print(json.dumps(dict(os.environ)))"
TAIL = "/usr/local/bin:/usr/bin:/bin"


def environ(box, clean: bool = False) -> dict[str, str]:
    """The environment a command of the sandbox sees (PWD and the shell's own variables aside)."""
    result = box.run([sys.executable if box.backend == "none" else "python3", "-c", ENVIRON], clean=clean)
    assert result.ok, result.output
    return {k: v for k, v in json.loads(result.stdout).items() if k not in ("PWD", "SHLVL", "_")}


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_sandbox_gets_exactly_the_minimal_environment(make_sandbox, backend, monkeypatch):
    for name, value in HOST_ONLY.items():
        monkeypatch.setenv(name, value)
    # bwrap then runs the system's python3 (the PATH with `python`'s own folder); a venv's is tested below
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    box = make_sandbox(backend)
    for seen in (environ(box), environ(box, clean=True), json.loads(box.python(ENVIRON).stdout)):
        seen.pop("PWD", None)
        fixed = {k: v for k, v in BASE_ENV.items() if k not in ("PATH", "HOME")}
        assert {k: seen.get(k) for k in fixed} == fixed
        if backend == "none":
            scratch = Path(box.scratch)
            assert set(seen) == set(BASE_ENV) | {"TMPDIR"}
            assert seen["HOME"] == str(scratch / "home") and seen["TMPDIR"] == str(scratch / "tmp")
            assert seen["PATH"] == f"{Path(sys.executable).parent}:{TAIL}"
        else:
            venv = box.interpreter.venv
            assert set(seen) == set(BASE_ENV) | ({"VIRTUAL_ENV"} if venv else set())
            assert seen["HOME"] == "/home/sandbox"
            # a venv's bin first; else the interpreter's folder and the one holding `python`/`python3`
            middle = "" if venv else f"{NAMES_DIR}:"
            assert seen["PATH"] == f"{box.interpreter.bin_dir}:{middle}{TAIL}"
            assert seen.get("VIRTUAL_ENV") == venv
        assert not set(HOST_ONLY) & set(seen) and not set(HOST_ONLY.values()) & set(seen.values())


def test_the_none_sandbox_home_and_tmp_are_its_own_and_writable(make_sandbox):
    box = make_sandbox("none")
    result = box.run('touch "$HOME/h" "$TMPDIR/t" && ls "$HOME" "$TMPDIR"')
    assert result.ok, result.output
    assert (Path(box.scratch) / "home" / "h").exists() and (Path(box.scratch) / "tmp" / "t").exists()
    # The runner's own process (on the host, for this backend) was started with the same environment.
    assert box._host_env() == box.env


@pytest.mark.parametrize("backend", BACKENDS)
def test_exports_persist_but_clean_runs_get_the_starting_environment(make_sandbox, backend):
    box = make_sandbox(backend)
    assert box.run("export MINE=1; export LANG=xx; unset PAGER").ok
    session = environ(box)
    assert session["MINE"] == "1" and session["LANG"] == "xx" and "PAGER" not in session
    clean = environ(box, clean=True)
    assert "MINE" not in clean and clean["LANG"] == "C.UTF-8" and clean["PAGER"] == "cat"
    assert environ(box)["MINE"] == "1"  # a clean run leaves the session as it was


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_per_call_variable_sticks_only_when_the_command_changes_it(make_sandbox, backend):
    # Values of several characters: CPython shares one object per one-character string, so `is` would pass.
    box = make_sandbox(backend)
    assert box.run('echo "$ONCE"', env={"ONCE": "once-1"}).stdout == "once-1\n"  # the command sees it
    assert box.run('echo "$ONCE"', env={"ONCE": "once-2"}, clean=True).stdout == "once-2\n"
    assert box.run("export CHANGED=changed-2", env={"CHANGED": "changed-1"}).ok
    assert box.run("export SMALLER=a-value", env={"SMALLER": "b-value"}).ok  # changed, whichever way
    assert box.run("unset DROPPED", env={"DROPPED": "dropped-1"}).ok
    assert box.run("export KEPT=kept-1").ok
    assert box.run("true", env={"KEPT": "kept-1"}).ok  # the session had it already: still there after
    seen = environ(box)
    assert "ONCE" not in seen and seen["CHANGED"] == "changed-2" and seen["KEPT"] == "kept-1"
    assert seen["SMALLER"] == "a-value" and "DROPPED" not in seen


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_cd_carries_over_but_the_shells_own_variables_and_a_per_call_cwd_do_not(make_sandbox, backend):
    box = make_sandbox(backend)
    assert box.run("cd /tmp").ok
    # SHLVL, OLDPWD, PWD and `_` belong to the shell that exited: the next one starts afresh.
    assert box.run('echo "$SHLVL ${OLDPWD:-none}"; pwd').stdout.split() == ["1", "none", "/tmp"]
    assert box.run("pwd", cwd="/").stdout.strip() == "/"
    assert box.run("pwd").stdout.strip() == "/tmp"  # the per-call cwd did not move the session


def test_the_unsafe_sandbox_warning_points_at_the_caller_of_open_sandbox(tree):
    # A warning attributed to repofix's own files would be hidden by the default filters of many tools.
    from repofix.sandboxes import open_sandbox
    from repofix.sandboxes.local import UnsafeSandboxWarning

    with pytest.warns(UnsafeSandboxWarning) as record:
        box = open_sandbox(tree, backend="none")
    box.close()
    # pytest.warns records every warning: a ResourceWarning for another test's process collected meanwhile
    # (seen once in CI, from subprocess.py) is not this one
    ours = [w for w in record if issubclass(w.category, UnsafeSandboxWarning)]
    assert [Path(w.filename).name for w in ours] == [Path(__file__).name]


@pytest.mark.bwrap
def test_a_bwrap_sandbox_on_a_virtual_environment_gets_its_bin_and_virtual_env(make_sandbox, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    box = make_sandbox("bwrap", python=str(venv / "bin" / "python"))
    seen = environ(box)
    assert seen["PATH"] == f"{venv}/bin:{TAIL}" and seen["VIRTUAL_ENV"] == str(venv)
    assert set(seen) == set(BASE_ENV) | {"VIRTUAL_ENV"}


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_shell_that_leaves_no_state_keeps_the_previous_one(make_sandbox, backend):
    box = make_sandbox(backend)
    assert box.run("export KEEP=1; cd /tmp").ok
    box.run("export LOST=1; cd /; exec true")  # exec'd away: its exit trap never writes the state
    assert box.run('echo "${KEEP:-none} ${LOST:-none}"; pwd').stdout.split() == ["1", "none", "/tmp"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_program_is_looked_up_on_the_commands_own_path(make_sandbox, backend):
    # The session's PATH finds a program the model installed; a clean run (a test run) does not see it,
    # and a program that cannot start is a result (exit 127, its name), not a lost runner.
    box = make_sandbox(backend)
    made = box.run(
        'mkdir -p "$TMPDIR/mine" && printf \'#!/bin/sh\\necho from-mine\\n\' > "$TMPDIR/mine/mytool" && '
        'chmod +x "$TMPDIR/mine/mytool" && export PATH="$TMPDIR/mine:$PATH"'
        if backend == "none"
        else "mkdir -p /tmp/mine && printf '#!/bin/sh\\necho from-mine\\n' > /tmp/mine/mytool && "
        "chmod +x /tmp/mine/mytool && export PATH=/tmp/mine:$PATH"
    )
    assert made.ok, made.output
    assert box.run(["mytool"]).stdout == "from-mine\n"
    asked = time.monotonic()
    missing = box.run(["mytool", "--an-argument"], clean=True)
    waited = time.monotonic() - asked
    assert missing.exit_code == 127 and missing.stdout == ""
    # Its duration is measured inside the waiting: no threshold, only consistency between the two clocks.
    assert missing.stderr.startswith("repofix: cannot start mytool: ") and 0 <= missing.duration <= waited
    assert box.run("echo still-here").stdout == "still-here\n"


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_command_that_kills_its_process_group_leaves_the_session_and_its_exports(make_sandbox, backend):
    # Each command has a process group (a session) of its own: `kill 0` never reaches the runner.
    box = make_sandbox(backend)
    assert box.run("export KEEP=kept-1; cd /tmp").ok
    killed = box.run("kill -KILL 0")
    assert killed.exit_code is None and not killed.session_lost
    assert box.run('echo "${KEEP:-none}"; pwd').stdout.split() == ["kept-1", "/tmp"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_only_a_session_shell_command_sets_the_session_state(make_sandbox, backend):
    # The state file is the session shell's exit trap's; a clean run (the repository's tests) or an argv
    # command writing one at that path changes nothing: the session's variables and cwd are as they were.
    box = make_sandbox(backend)
    assert box.run("export MINE=mine-1; cd /tmp").ok
    forge = 'printf "/\\nFORGED=forged-1\\0" > "${TMPDIR:-/tmp}/.repofix-shell-state-$PPID"'
    assert box.run(forge, clean=True).ok
    assert box.run(["bash", "-c", forge]).ok
    session = environ(box)
    assert "FORGED" not in session and session["MINE"] == "mine-1"
    assert box.run("pwd").stdout == "/tmp\n"
