"""The persistent Python namespace of a sandbox session (the agent's state manager).

A long-lived child process executes snippets in one namespace; its stdout/stderr are pipes the
runner drains, and two extra pipes carry control messages. A snippet that times out or crashes
the interpreter loses the namespace; the runner says so and starts a fresh one next time."""

import json
import os
import subprocess
import sys

WORKER = r"""
import ast, json, os, sys, traceback
ctl_in = os.fdopen(int(sys.argv[1]), "rb", buffering=0)
ctl_out = os.fdopen(int(sys.argv[2]), "wb", buffering=0)
namespace = {"__name__": "__main__"}
reader = ctl_in
while True:
    line = b""
    while not line.endswith(b"\n"):
        chunk = reader.read(1)
        if not chunk:
            sys.exit(0)
        line += chunk
    request = json.loads(line)
    code = 0
    try:
        os.chdir(request["cwd"])
        tree = ast.parse(request["code"], "<step>", "exec")
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)  # echo the value of a final expression
        exec(compile(tree, "<step>", "exec"), namespace)
        if last is not None:
            value = eval(compile(last, "<step>", "eval"), namespace)
            if value is not None:
                print(repr(value))
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    except BaseException:
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    ctl_out.write(json.dumps({"exit_code": code}).encode() + b"\n")
"""


class Worker:
    def __init__(self):
        self.proc = None
        self.pid = -1
        self.lost = False  # a previous namespace was lost and nobody has been told yet

    def start(self):
        to_worker_r, self.to_worker = os.pipe()
        self.from_worker, from_worker_w = os.pipe()
        self.proc = subprocess.Popen(
            [sys.executable, "-u", "-c", WORKER, str(to_worker_r), str(from_worker_w)],
            pass_fds=(to_worker_r, from_worker_w),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        os.close(to_worker_r)
        os.close(from_worker_w)
        os.set_blocking(self.from_worker, False)
        self.pid = self.proc.pid
        self.reply = b""

    def alive(self):
        if self.proc is None:
            return False
        try:
            os.kill(self.pid, 0)
        except OSError:
            return False
        with open("/proc/%d/stat" % self.pid, "rb") as handle:
            return b") Z" not in handle.read()

    def execute(self, code, cwd, cap, timeout, collect):
        import time

        if not self.alive():
            if self.proc is not None:
                self.lost = True
                self.stop()
            self.start()
        started = time.monotonic()
        os.write(self.to_worker, json.dumps({"code": code, "cwd": cwd}).encode() + b"\n")
        finished = {}

        def done():
            try:
                self.reply += os.read(self.from_worker, 4096)
            except BlockingIOError:
                pass
            if b"\n" in self.reply:
                line, _, self.reply = self.reply.partition(b"\n")
                finished.update(json.loads(line))
                return True
            return not self.alive()

        result = collect(
            self.proc,
            [self.proc.stdout, self.proc.stderr],
            cap,
            started,
            timeout,
            done,
            wake=self.from_worker,
        )
        if "exit_code" in finished:
            result["exit_code"] = finished["exit_code"]
        else:  # timed out or the interpreter died: the namespace is gone
            result["exit_code"] = None
            result["session_lost"] = True
            if not result["timed_out"]:
                result["stderr"] += "\nrepofix: the Python session died; its variables are lost.\n"
            self.stop()
        if self.lost:
            result["session_lost"] = True
            self.lost = False
        return result

    def stop(self):
        if self.proc is None:
            return
        try:
            os.kill(self.pid, 9)
        except OSError:
            pass
        for fd in (self.to_worker, self.from_worker):
            try:
                os.close(fd)
            except OSError:
                pass
        for pipe in (self.proc.stdout, self.proc.stderr):
            pipe.close()
        try:
            self.proc.wait(timeout=5)
        except (subprocess.TimeoutExpired, ChildProcessError):
            pass
        self.proc = None
        self.pid = -1
