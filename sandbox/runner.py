"""repofix session runner: runs inside the sandbox and executes commands for the host.

Stdlib only, Python >= 3.8. The host starts it once per sandbox and talks to it over
stdin/stdout: each message is one JSON line, optionally followed by `payload` raw bytes.
It keeps the shell session (cwd, exported variables) and a persistent Python namespace
between commands, so a trivial command costs about a fork instead of a `docker exec`.

It is the child subreaper of everything it starts: after a command ends (or times out)
every process the command left behind, even ones that called setsid, is killed.

The messages (every operation, its fields, its reply, the error shape) are written down in
PROTOCOL.md beside this file; `FIELDS` below is the runner's half of that table.
"""

import ctypes
import json
import os
import subprocess
import sys
import threading
import time

import changes  # noqa: E402  (sibling modules, bundled by the host)
import pyworker  # noqa: E402
from procs import collect, kill_all_except, oom_kills  # noqa: E402

PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
# Where the shell leaves its cwd and exported variables after each command (TMPDIR: the none backend's scratch).
STATE_FILE = os.path.join(os.environ.get("TMPDIR", "/tmp"), ".repofix-shell-state-%d" % os.getpid())
NOT_PERSISTED = {"_", "SHLVL", "OLDPWD", "PWD"}

IN = sys.stdin.buffer
OUT = sys.stdout.buffer
KEY = ""  # the session's secret, the host's first line after the bundle; every reply carries it
# Bumped whenever a message changes shape; sent in `hello`, checked by the host (repofix/sandboxes/session.py).
PROTOCOL_VERSION = 1
# Every operation and the fields a request for it must carry (optional ones are in PROTOCOL.md).
FIELDS = {
    "run": ("cmd", "timeout", "cap"),
    "python": ("code", "timeout", "cap"),
    "changes": (),
    "snapshot": (),
    "read": ("paths",),
    "write": ("files",),
    "untar": ("dest",),
    "tar": ("source",),
    "ping": (),
}


class BadRequest(Exception):
    """A malformed request: answered with an error reply, and the runner keeps serving."""


def send(header, payload=b""):
    header["key"] = KEY
    if payload:
        header["payload"] = len(payload)
    OUT.write(json.dumps(header).encode() + b"\n" + payload)
    OUT.flush()


def receive():
    """The next request as (header, payload), or (None, b"") at the end of input. A malformed one
    raises BadRequest after its line (and its payload, when the size was readable) is consumed, so
    the next request is read from where it starts."""
    line = IN.readline()
    if not line:
        return None, b""
    try:
        header = json.loads(line.decode("utf-8"))
    except ValueError as error:  # UnicodeDecodeError is a ValueError too
        raise BadRequest("the request is not JSON (%s): %r" % (error, line[:200])) from None
    if not isinstance(header, dict):
        raise BadRequest("the request is not a JSON object: %r" % line[:200])
    size = header.get("payload", 0)
    if type(size) is not int or size < 0:  # noqa: E721  (a bool is an int, but not a size)
        raise BadRequest("'payload' must be a byte count (an integer >= 0), not %r" % (size,))
    payload = IN.read(size) if size else b""
    if len(payload) < size:
        raise BadRequest("the input ended %d bytes into a %d-byte payload" % (len(payload), size))
    op = header.get("op")
    if op not in FIELDS:
        raise BadRequest(
            "unknown op %r (protocol %d knows %s)" % (op, PROTOCOL_VERSION, ", ".join(sorted(FIELDS)))
        )
    missing = [name for name in FIELDS[op] if name not in header]
    if missing:
        raise BadRequest("op %r lacks the field(s) %s" % (op, ", ".join(missing)))
    return header, payload


class Session:
    def __init__(self, workdir):
        self.workdir = self.cwd = workdir
        self.env = dict(os.environ)
        self.env.pop("REPOFIX_RUNNER", None)
        # The environment the sandbox started with: `clean` commands get it, never the session's exports.
        self.base_env = dict(self.env)
        self.python = pyworker.Worker()

    # -- commands --------------------------------------------------------------------------
    def run(self, request, stdin):
        cap = request["cap"]  # required: the host's Limits.output_bytes is the one definition
        call_env = request.get("env") or {}
        clean = bool(request.get("clean"))  # repofix's own runs: not the model's variables or cwd
        env = dict(self.base_env if clean else self.env, **call_env)
        cwd = request.get("cwd") or (self.workdir if clean else self.cwd)
        command = request["cmd"]
        if isinstance(command, str) and clean:
            argv = ["/bin/bash", "-c", command]
        elif isinstance(command, str):
            # Builtins only (no `env` fork): the cwd, then NAME=value\0 for every exported variable.
            script = (
                'trap \'__rf=$?; { pwd; for __v in $(compgen -e); do printf "%%s=%%s\\0" '
                '"$__v" "${!__v}"; done; } >%s 2>/dev/null; exit $__rf\' EXIT\n%s' % (STATE_FILE, command)
            )
            argv = ["bash", "-c", script]
        else:
            argv = command
        before = oom_kills()
        started = time.monotonic()
        try:
            proc = subprocess.Popen(
                argv,
                cwd=cwd,
                env=env,
                start_new_session=True,
                stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except OSError as error:
            return {
                "exit_code": 127,
                "stdout": "",
                "stderr": "repofix: cannot start %s: %s\n" % (argv[0], error),
                "duration": time.monotonic() - started,
            }
        if stdin:
            threading.Thread(target=feed, args=(proc.stdin, stdin), daemon=True).start()
        result = collect(
            proc, [proc.stdout, proc.stderr], cap, started, request["timeout"], keep={self.python.pid}
        )
        result["leftovers_killed"] = kill_all_except({self.python.pid})
        after = oom_kills()
        result["oom_killed"] = before is not None and after is not None and after > before
        if isinstance(command, str) and not clean:
            self.load_state(call_env, keep_cwd=request.get("cwd") is not None)
        return result

    def load_state(self, call_env, keep_cwd):
        try:
            with open(STATE_FILE, "rb") as handle:
                data = handle.read()
            os.unlink(STATE_FILE)
        except OSError:
            return  # the shell was killed or exec'd: keep the previous state
        cwd, _, env_blob = data.partition(b"\n")
        env = {}
        for item in env_blob.split(b"\0"):
            name, sep, value = item.partition(b"=")
            if sep:
                env[name.decode("utf-8", "replace")] = value.decode("utf-8", "replace")
        for name in NOT_PERSISTED:
            env.pop(name, None)
        for name, value in call_env.items():  # per-call variables do not stick unless changed
            if env.get(name) == value and self.env.get(name) != value:
                env.pop(name)
        if not keep_cwd:  # a per-call cwd does not move the session
            self.cwd = cwd.decode("utf-8", "replace") or self.cwd
        self.env = env

    def run_python(self, request):
        started = time.monotonic()
        before = oom_kills()
        result = self.python.execute(request["code"], self.cwd, request["cap"], request["timeout"], collect)
        result["leftovers_killed"] = kill_all_except({self.python.pid})
        after = oom_kills()
        result["oom_killed"] = before is not None and after is not None and after > before
        result["duration"] = time.monotonic() - started
        return result


def feed(pipe, data):
    try:
        pipe.write(data)
        pipe.close()
    except OSError:
        pass  # the command closed its stdin early: that is its business


def untar(dest, data):
    os.makedirs(dest, exist_ok=True)
    proc = subprocess.run(
        ["tar", "-x", "-C", dest, "--no-same-owner", "-m"],
        input=data,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    if proc.returncode:
        return {"error": "tar -x failed: %s" % proc.stderr.decode("utf-8", "replace")[-2000:]}
    return {"ok": True}


def tar(source):
    proc = subprocess.run(["tar", "-c", "-C", source, "."], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode:
        return {"error": "tar -c failed: %s" % proc.stderr.decode("utf-8", "replace")[-2000:]}, b""
    return {"ok": True}, proc.stdout


def main():
    global KEY
    workdir = sys.argv[1] if len(sys.argv) > 1 else os.getcwd()
    os.closerange(3, 4096)  # nothing the launcher left open (bwrap's namespace fd) reaches a command
    KEY = IN.readline().strip().decode()
    try:
        libc = ctypes.CDLL(None)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        # Non-dumpable: /proc/<runner>/fd, mem and environ become root's, closed to the commands it runs
        # (same uid, no CAP_SYS_PTRACE), so none can write into or read from the channel to the host.
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    session = Session(workdir)
    tracker = changes.Tracker(workdir)
    send({"op": "hello", "protocol": PROTOCOL_VERSION, "pid": os.getpid(), "python": sys.version.split()[0]})
    while True:
        try:
            request, payload = receive()
            if request is None:
                break
            op = request["op"]
            if op == "run":
                send(session.run(request, payload))
            elif op == "python":
                send(session.run_python(request))
            elif op == "changes":
                send(tracker.changes(request.get("reset", True)))
            elif op == "snapshot":
                tracker.snapshot()
                send({"ok": True})
            elif op == "read":
                send(*changes.read_files(workdir, request["paths"]))
            elif op == "write":
                changes.write_files(workdir, request["files"], payload)
                send({"ok": True})
            elif op == "untar":
                send(untar(request["dest"], payload))
            elif op == "tar":
                send(*tar(request["source"]))
            elif op == "ping":
                send({"ok": True, "pid": os.getpid()})
        except BadRequest as error:
            send({"error": "bad request: %s" % error})
        except Exception as error:  # report, keep serving: the host decides what to do
            send({"error": "%s: %s" % (type(error).__name__, error)})
    session.python.stop()
    kill_all_except(set())


if __name__ == "__main__":
    main()
