"""Process control for the session runner: capped output collection, the cgroup OOM counter,
and finding and killing every descendant (the runner is their subreaper). Stdlib only, Python >= 3.8."""

import os
import selectors
import signal
import time


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
    for path, key in (
        ("/sys/fs/cgroup/memory.events", "oom_kill"),
        ("/sys/fs/cgroup/memory/memory.oom_control", "oom_kill"),
    ):
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
        fields = stat[stat.rfind(b")") + 2 :].split()
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


def collect(proc, pipes, cap, started, timeout, done=None, wake=None, keep=()):
    """Drain `pipes` into capped buffers until EOF and exit, or at the deadline kill every process
    but those in `keep` (a shell command's timeout spares the Python worker and its namespace).

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
        kill_all_except(set(keep))
        drain(selector, buffers)  # what the killed processes wrote before they died is kept
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
    result = {
        "stdout": out.text(),
        "stderr": err.text(),
        "duration": time.monotonic() - started,
        "omitted_bytes": out.omitted + err.omitted,
        "timed_out": timed_out,
    }
    result["truncated"] = result["omitted_bytes"] > 0
    if timed_out:
        result["exit_code"], result["signal"] = None, signal.SIGKILL
    elif code is not None:
        result["exit_code"] = code if code >= 0 else None
        result["signal"] = -code if code < 0 else None
    return result


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
