"""repofix session runner: runs inside the sandbox and executes commands for the host.

Stdlib only, Python >= 3.8. The host starts it once per sandbox and talks to it over
stdin/stdout: each message is one JSON line, optionally followed by `payload` raw bytes.
It keeps the shell session (cwd, exported variables) and a persistent Python namespace
between commands, so a trivial command costs about a fork instead of a `docker exec`.

It is the child subreaper of everything it starts: after a command ends (or times out)
every process the command left behind, even ones that called setsid, is killed.
"""

import ctypes
import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time

import changes  # noqa: E402  (sibling module, bundled by the host)
import pyworker  # noqa: E402

PR_SET_CHILD_SUBREAPER = 36
STATE_FILE = "/tmp/.repofix-shell-state-%d" % os.getpid()
NOT_PERSISTED = {"_", "SHLVL", "OLDPWD", "PWD"}

IN = sys.stdin.buffer
OUT = sys.stdout.buffer


def send(header, payload=b""):
    if payload:
        header["payload"] = len(payload)
    OUT.write(json.dumps(header).encode() + b"\n" + payload)
    OUT.flush()


def receive():
    line = IN.readline()
    if not line:
        return None, b""
    header = json.loads(line)
    size = header.get("payload", 0)
    payload = IN.read(size) if size else b""
    return header, payload


class Capped:
    """Keeps the first and last `cap // 2` bytes of a stream and counts the rest. Linear time."""

    def __init__(self, cap):
        self.half = max(cap // 2, 1)
        self.head = bytearray()
        self.tail = bytearray()
        self.omitted = 0

    def add(self, data):
        room = self.half - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > 2 * self.half:
                drop = len(self.tail) - self.half
                del self.tail[:drop]
                self.omitted += drop

    def text(self):
        if len(self.tail) > self.half:
            self.omitted += len(self.tail) - self.half
            del self.tail[: len(self.tail) - self.half]
        body = self.head.decode("utf-8", "replace")
        if self.omitted:
            body += "\n[... %d bytes omitted by repofix ...]\n" % self.omitted
        return body + self.tail.decode("utf-8", "replace")


def oom_kills():
    """The cgroup's OOM-kill counter (v2 or v1), or None where it cannot be read."""
    for path, key in (("/sys/fs/cgroup/memory.events", "oom_kill"),
                      ("/sys/fs/cgroup/memory/memory.oom_control", "oom_kill")):
        try:
            with open(path) as handle:
                for line in handle:
                    name, _, value = line.partition(" ")
                    if name == key:
                        return int(value)
        except OSError:
            continue
    return None


def descendants(root):
    """Every live process below `root` (we are their subreaper, so orphans are ours too)."""
    try:
        return children_tree(root)
    except OSError:
        return scan_proc(root)


def children_tree(root):
    # /proc/PID/task/TID/children is O(descendants); absent on kernels without CONFIG_PROC_CHILDREN.
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        try:
            tasks = os.listdir("/proc/%d/task" % pid)
        except FileNotFoundError:
            continue
        for tid in tasks:
            try:
                with open("/proc/%d/task/%s/children" % (pid, tid)) as handle:
                    kids = [int(kid) for kid in handle.read().split()]
            except FileNotFoundError:
                if pid == root:
                    raise
                continue
            found.extend(kids)
            todo.extend(kids)
    return found


def scan_proc(root):
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry, "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        if fields[0] == b"Z":
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_all_except(keep):
    """SIGSTOP then SIGKILL every descendant but `keep`, until none is left. Returns how many."""
    killed = set()
    for _ in range(50):
        victims = [pid for pid in descendants(os.getpid()) if pid not in keep]
        if not victims:
            break
        for sig in (signal.SIGSTOP, signal.SIGKILL):  # stop first so a fork bomb cannot outrun us
            for pid in victims:
                try:
                    os.kill(pid, sig)
                except OSError:
                    pass
        killed.update(victims)
        time.sleep(0.005)
        reap()
    reap()
    return len(killed)


class Session:
    def __init__(self, workdir):
        self.cwd = workdir
        self.env = dict(os.environ)
        self.env.pop("REPOFIX_RUNNER", None)
        self.python = pyworker.Worker()

    # -- commands --------------------------------------------------------------------------
    def run(self, request, stdin):
        cap = request.get("cap", 262144)
        call_env = request.get("env") or {}
        env = dict(self.env, **call_env)
        cwd = request.get("cwd") or self.cwd
        command = request["cmd"]
        if isinstance(command, str):
            # Builtins only (no `env` fork): the cwd, then NAME=value\0 for every exported variable.
            script = ("trap '__rf=$?; { pwd; for __v in $(compgen -e); do printf \"%%s=%%s\\0\" "
                      "\"$__v\" \"${!__v}\"; done; } >%s 2>/dev/null; exit $__rf' EXIT\n%s"
                      % (STATE_FILE, command))
            argv = ["bash", "-c", script]
        else:
            argv = command
        before = oom_kills()
        started = time.monotonic()
        try:
            proc = subprocess.Popen(argv, cwd=cwd, env=env, start_new_session=True,
                                    stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except OSError as error:
            return {"exit_code": 127, "stdout": "", "stderr": "repofix: cannot start %s: %s\n"
                    % (argv[0], error), "duration": time.monotonic() - started}
        if stdin:
            threading.Thread(target=feed, args=(proc.stdin, stdin), daemon=True).start()
        result = collect(proc, [proc.stdout, proc.stderr], cap, started, request.get("timeout", 600))
        result["leftovers_killed"] = kill_all_except({self.python.pid})
        after = oom_kills()
        result["oom_killed"] = before is not None and after is not None and after > before
        if isinstance(command, str):
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
        result = self.python.execute(request["code"], self.cwd, request.get("cap", 262144),
                                     request.get("timeout", 600), collect)
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


def collect(proc, pipes, cap, started, timeout, done=None, wake=None):
    """Drain `pipes` into capped buffers until EOF and exit, or kill everything at the deadline.

    `done` (for the Python worker) is a callable telling when the step finished while the
    process and its pipes live on: then whatever is buffered is drained and the pipes stay open."""
    selector = selectors.DefaultSelector()
    buffers = {}
    for pipe in pipes:
        os.set_blocking(pipe.fileno(), False)
        buffers[pipe.fileno()] = Capped(cap)
        selector.register(pipe, selectors.EVENT_READ)
    if wake is not None:  # a pipe that becomes readable when `done` may have changed
        selector.register(wake, selectors.EVENT_READ)
    deadline = started + timeout
    exited_at = None
    timed_out = False
    while selector.get_map():
        now = time.monotonic()
        finished = proc.poll() is not None if done is None else done()
        if finished and exited_at is None:
            exited_at = now
            if done is not None:
                drain(selector, buffers)
                break
        # Background children may hold the pipes open after the command ends: give them a moment.
        if exited_at is not None and now - exited_at > 0.2:
            break
        if now >= deadline:
            timed_out = True
            break
        for key, _ in selector.select(min(0.05, deadline - now)):
            if key.fileobj == wake:
                continue
            try:
                data = os.read(key.fd, 65536)
            except BlockingIOError:
                continue
            if data:
                buffers[key.fd].add(data)
            else:
                selector.unregister(key.fileobj)
    if timed_out:
        kill_all_except(set())
    for pipe in pipes + ([wake] if wake is not None else []):
        try:
            selector.unregister(pipe)
        except (KeyError, ValueError):
            pass
    selector.close()
    code = proc.wait() if done is None else None
    out, err = (buffers[pipe.fileno()] for pipe in pipes)
    if done is None:
        for pipe in pipes:
            pipe.close()
    result = {"stdout": out.text(), "stderr": err.text(), "duration": time.monotonic() - started,
              "omitted_bytes": out.omitted + err.omitted, "timed_out": timed_out}
    result["truncated"] = result["omitted_bytes"] > 0
    if timed_out:
        result["exit_code"], result["signal"] = None, signal.SIGKILL
    elif code is not None:
        result["exit_code"] = code if code >= 0 else None
        result["signal"] = -code if code < 0 else None
    return result


def untar(dest, data):
    os.makedirs(dest, exist_ok=True)
    proc = subprocess.run(["tar", "-x", "-C", dest, "--no-same-owner", "-m"], input=data,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode:
        return {"error": "tar -x failed: %s" % proc.stderr.decode("utf-8", "replace")[-2000:]}
    return {"ok": True}


def tar(source):
    proc = subprocess.run(["tar", "-c", "-C", source, "."], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode:
        return {"error": "tar -c failed: %s" % proc.stderr.decode("utf-8", "replace")[-2000:]}, b""
    return {"ok": True}, proc.stdout


def drain(selector, buffers):
    while True:
        events = selector.select(0)
        if not events:
            return
        events = [(key, mask) for key, mask in events if key.fd in buffers]
        if not events:
            return
        for key, _ in events:
            try:
                data = os.read(key.fd, 65536)
            except BlockingIOError:
                continue
            if not data:
                selector.unregister(key.fileobj)
                continue
            buffers[key.fd].add(data)


def main():
    workdir = sys.argv[1] if len(sys.argv) > 1 else os.getcwd()
    try:
        ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    session = Session(workdir)
    tracker = changes.Tracker(workdir)
    send({"op": "hello", "pid": os.getpid(), "python": sys.version.split()[0]})
    while True:
        request, payload = receive()
        if request is None:
            break
        op = request["op"]
        try:
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
            else:
                send({"error": "unknown op %r" % op})
        except Exception as error:  # report, keep serving: the host decides what to do
            send({"error": "%s: %s" % (type(error).__name__, error)})
    session.python.stop()
    kill_all_except(set())


if __name__ == "__main__":
    main()
