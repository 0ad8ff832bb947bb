"""Fast rejection by hot patching, the check job's side. A second warm process, the hot server
(hot_server.py, forked after the warm-up), imports the workspace once and keeps it; a candidate
whose edits lie inside one function's body is tried in a child of it that gives that function the
candidate's code (`__code__`) instead of importing the changed module afresh (100 ms a candidate
for a 6,000-line module, about 17 ms hot).

Only a rejection counts: a candidate that passes there is tried again the usual way (a fresh
import, then pytest), so a hot pass decides nothing."""

import json
import os
import select
import signal

from repofix.repair.insandbox.common import _quiet
from repofix.repair.insandbox.hot_server import _hot_serve


class _HotServer:
    """The check job's side: requests and replies, a JSON object a line, on two pipes. The first
    candidate waits for the server's warm-up (up to the call's deadline), which imports the
    workspace from disk; once the server is gone, candidates are tried the usual way."""

    def __init__(self, tests, plain, deadline):
        requests_r, requests_w = os.pipe()
        replies_r, replies_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the server
            os.close(requests_w)
            os.close(replies_r)
            try:
                _quiet()
                _hot_serve(tests, plain, os.fdopen(requests_r), os.fdopen(replies_w, "w"))
            finally:
                os._exit(0)
        os.close(requests_r)
        os.close(replies_w)
        self.pid, self.deadline, self.ready, self.unsent = pid, deadline, False, {}
        self.requests, self.replies, self.buffer = os.fdopen(requests_w, "w"), replies_r, b""

    def learn(self, path, original):
        """The original bytes of `path`, which the server patches each candidate's function from.
        Called before the check job writes a candidate of `path`: until the server's warm-up ended,
        no candidate may be written, or the server would import it as the original (the hot runs
        of heldout10's pystache then kept the first candidate's change of another file)."""
        if self.pid is not None and not self.ready:
            self._warm()
        self.unsent[path] = original

    def verdict(self, path, edits, limit):
        """(ok, reason) of the failing tests run on the candidate hot, or None: not patchable so,
        or the server gone."""
        if self.pid is None or not self.ready and not self._warm():
            return None
        for known, original in self.unsent.items():  # bytes as JSON text: latin-1 maps them one to one
            self._send({"read": known, "data": original.decode("latin-1")})
        self.unsent = {}
        self._send({"path": path, "edits": edits, "limit": limit})
        reply = self._reply(limit + 5.0)
        if not reply or not reply.get("hot"):
            return None
        return reply["ok"], reply["reason"]

    def _warm(self):
        import time

        wait = 600.0 if self.deadline is None else self.deadline - time.time()
        self.ready = self._reply(wait) is not None  # {"ready": true}, or the server is gone
        return self.ready

    def _send(self, request):
        if self.pid is None:
            return
        try:
            self.requests.write(json.dumps(request) + "\n")
            self.requests.flush()
        except OSError:
            self.close()

    def _reply(self, wait):
        """The next reply; None, with the server stopped, when it does not come within `wait`."""
        import time

        until = time.time() + wait
        while self.pid is not None and b"\n" not in self.buffer:
            left = until - time.time()
            if left <= 0 or not select.select([self.replies], [], [], left)[0]:
                self.close()
                break
            chunk = os.read(self.replies, 65536)
            if not chunk:
                self.close()
                break
            self.buffer += chunk
        if self.pid is None:
            return None
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def close(self):
        if self.pid is None:
            return
        pid, self.pid = self.pid, None
        for closing in (self.requests.close, lambda: os.close(self.replies)):
            try:
                closing()
            except OSError:
                pass
        try:
            os.kill(pid, signal.SIGKILL)  # it holds no state worth a goodbye; its children are timed
            os.waitpid(pid, 0)
        except OSError:
            pass


def _hot_turn(number, took_hot, took_usual):
    """Whether candidate `number` (from 1) is tried hot: while the hot runs have not yet rejected
    three, yes; until the usual runs have, no; then whichever way rejected faster of late (a hot
    child is forked from a process that holds the workspace: idna's tables made it the slower,
    40 ms a rejection against 18 ms), and every 25th candidate the other way, to follow a change."""
    if len(took_hot) < 3 or len(took_usual) < 3:
        return len(took_hot) < 3
    hot, usual = sorted(took_hot[-11:]), sorted(took_usual[-11:])
    return (hot[len(hot) // 2] <= usual[len(usual) // 2]) != (number % 25 == 0)
