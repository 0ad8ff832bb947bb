"""Host side of the session runner protocol (written down in sandbox/PROTOCOL.md): one JSON line
per message, optionally followed by raw payload bytes. Every read has a deadline, so a hung or dead
runner turns into `RunnerDied`, never into a hung repofix; a reply that breaks the protocol turns
into `MalformedReply` (or `ChannelForged`), never into a traceback."""

from __future__ import annotations

import contextlib
import hmac
import json
import os
import secrets
import selectors
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

from repofix.sandboxes.base import ChannelForged, CommandResult, MalformedReply, RunnerDied, SandboxError
from repofix.sandboxes.bundle import BOOT, runner_bundle, runner_dir

# The protocol this host speaks; the runner's PROTOCOL_VERSION (sandbox/runner.py) must be the same.
PROTOCOL_VERSION = 1
GRACE = 30.0  # seconds the host waits beyond a command's own timeout before declaring the runner dead


class RunnerClient:
    """Starts the runner with `argv + ["-S", "-c", BOOT, workdir, scratch]` and speaks its protocol.
    (-S: the runner needs only the stdlib, and skipping site-packages saves most of Python's start-up.)

    The channel is guarded twice: the runner makes itself non-dumpable, so the sandbox user cannot open
    its /proc/<pid>/fd; and every reply carries a per-session secret, sent over stdin (never argv or
    the environment), so a line injected into its stdout some other way is detected, not believed."""

    def __init__(
        self,
        argv: Sequence[str],
        workdir: str,
        scratch: str,
        env: Mapping[str, str] | None = None,
        stderr_log: Path | None = None,
        pass_fds: Sequence[int] = (),
    ):
        self.log_path = stderr_log
        log = open(stderr_log, "ab") if stderr_log else subprocess.DEVNULL  # noqa: SIM115
        self.proc = subprocess.Popen(
            [*argv, "-S", "-c", BOOT, workdir, scratch],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            env=dict(env or {}),
            start_new_session=True,
            pass_fds=tuple(pass_fds),
        )
        if not isinstance(log, int):
            log.close()
        assert self.proc.stdin is not None and self.proc.stdout is not None  # both are pipes
        self._stdin, self._stdout = self.proc.stdin, self.proc.stdout
        self._buffer = bytearray()  # grown in place: a 300 MiB tar appended as bytes was copied 5,000 times
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._stdout, selectors.EVENT_READ)
        os.set_blocking(self._stdout.fileno(), False)
        self._secret = secrets.token_hex(16)
        try:
            self.pid = self._handshake()
        except BaseException:  # a runner that did not start leaves no process, pipe or selector behind
            self.kill()
            raise

    def _handshake(self) -> int:
        """Send the bundle and the secret; check the runner's `hello`; return the runner's pid."""
        bundle = runner_bundle()
        try:
            self._stdin.write(b"%d\n" % len(bundle) + bundle + self._secret.encode() + b"\n")
            self._stdin.flush()
            hello, _ = self._receive(time.monotonic() + 60)
        except (BrokenPipeError, RunnerDied) as error:
            raise SandboxError(f"the session runner did not start: {error}{self._log_tail()}") from None
        version = hello.get("protocol")
        if type(version) is not int or version != PROTOCOL_VERSION:  # True == 1.0 == 1, but not a version
            raise SandboxError(
                f"the session runner speaks protocol version {version!r}, this repofix "
                f"speaks version {PROTOCOL_VERSION}: the runner came from {runner_dir()}, which "
                "belongs to another repofix installation; reinstall repofix"
            )
        return self._field(hello, "pid", int, "hello")

    # -- protocol ---------------------------------------------------------------------------
    def request(
        self, header: dict, payload: bytes = b"", wait: float = 60.0, limit: int | None = None
    ) -> tuple[dict, bytes]:
        """Send one request and return its reply (header, payload; one over `limit` bytes is a
        MalformedReply, not read); an error reply raises SandboxError."""
        if payload:
            header = dict(header, payload=len(payload))
        try:
            self._stdin.write(json.dumps(header).encode() + b"\n" + payload)
            self._stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise RunnerDied(f"the session runner is gone{self._log_tail()}") from None
        return self.reply(wait, limit)

    def reply(self, wait: float = 60.0, limit: int | None = None) -> tuple[dict, bytes]:
        """The runner's next reply; an error reply raises SandboxError with the runner's message."""
        reply, data = self._receive(time.monotonic() + wait, limit)
        if "error" in reply:
            raise SandboxError(f"sandbox runner: {reply['error']}")
        return reply, data

    def _receive(self, deadline: float, limit: int | None = None) -> tuple[dict, bytes]:
        line = self._read_until(lambda: self._buffer.find(b"\n") + 1, deadline)
        try:
            header = json.loads(line)
        except ValueError:  # bad UTF-8 too
            header = None
        if not isinstance(header, dict) or not hmac.compare_digest(str(header.pop("key", "")), self._secret):
            self.kill()
            raise ChannelForged(
                "a process in the sandbox wrote to the session runner's channel (a line that is not "
                f"a reply carrying the session's secret: {line[:200]!r}); it was ignored and the "
                "runner killed"
            )
        size = header.get("payload", 0)
        if type(size) is not int or size < 0:  # a bool is an int, but not a size
            self._malformed(f"its 'payload' is {size!r}, not a byte count")
        if limit is not None and size > limit:
            self._malformed(f"its payload of {size} bytes is more than the {limit} the folder can hold")
        data = self._read_until(lambda: size if len(self._buffer) >= size else 0, deadline) if size else b""
        return header, data

    def _malformed(self, problem: str, op: str = "") -> NoReturn:
        """A reply that carries the secret but breaks the protocol: the channel cannot be trusted to be
        in step any more, so the runner is killed (restart() starts a fresh one)."""
        self.kill()
        raise MalformedReply(
            f"the session runner's reply{f' to {op!r}' if op else ''} broke the protocol "
            f"(sandbox/PROTOCOL.md): {problem}; the runner was killed{self._log_tail()}"
        )

    def _field(self, reply: dict, name: str, kind: type | tuple[type, ...], op: str) -> Any:
        """`reply[name]`, checked to be a `kind`; anything else is a MalformedReply."""
        value = reply.get(name)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            self._malformed(f"{name!r} is {value!r}", op)
        return value

    def _read_until(self, ready, deadline: float) -> bytes:
        while True:
            end = ready()
            if end:
                chunk = bytes(self._buffer[:end])
                del self._buffer[:end]
                return chunk
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.kill()
                raise RunnerDied("the session runner stopped answering; it was killed")
            if self._selector.select(min(remaining, 1.0)):
                data = os.read(self._stdout.fileno(), 1 << 20)
                if not data:
                    self.proc.wait()
                    raise RunnerDied(
                        f"the session runner died (exit {self.proc.returncode}){self._log_tail()}"
                    )
                self._buffer += data

    def _log_tail(self) -> str:
        if self.log_path and self.log_path.exists():
            tail = self.log_path.read_bytes()[-2000:].decode("utf-8", "replace").strip()
            if tail:
                return f"\n--- runner log ---\n{tail}"
        return ""

    # -- operations -------------------------------------------------------------------------
    def run(self, command, *, cwd, env, stdin, timeout, cap, clean: bool = False) -> CommandResult:
        if isinstance(stdin, str):
            stdin = stdin.encode()
        header = {
            "op": "run",
            "cmd": command if isinstance(command, str) else list(command),
            "cwd": cwd,
            "env": dict(env or {}),
            "timeout": timeout,
            "cap": cap,
            "clean": clean,
        }
        reply, _ = self.request(header, stdin or b"", wait=timeout + GRACE)
        return self._result(reply, "run")

    def python(self, code: str, *, timeout: float, cap: int) -> CommandResult:
        reply, _ = self.request(
            {"op": "python", "code": code, "timeout": timeout, "cap": cap}, wait=timeout + GRACE
        )
        return self._result(reply, "python")

    def _result(self, reply: dict, op: str) -> CommandResult:
        self._field(reply, "exit_code", (int, type(None)), op)
        self._field(reply, "stdout", str, op)
        self._field(reply, "stderr", str, op)
        return to_result(reply)

    def read_files(self, paths: Sequence[str]) -> dict[str, bytes | None]:
        reply, data = self.request({"op": "read", "paths": list(paths)}, wait=300)
        files: dict[str, bytes | None] = {}
        offset = 0
        for path, size in self._field(reply, "sizes", dict, "read").items():
            if type(size) is not int:
                self._malformed(f"the size of {path!r} is {size!r}", "read")
            if size < 0:
                files[path] = None
            else:
                files[path] = data[offset : offset + size]
                offset += size
        if offset != len(data):
            self._malformed(f"the sizes add up to {offset} bytes, the payload has {len(data)}", "read")
        return files

    def write_files(self, files: Mapping[str, bytes | None], modes: Mapping[str, int] | None = None) -> None:
        spec: dict[str, list[int | None] | None] = {}
        blobs: list[bytes] = []
        for path, content in files.items():
            if content is None:
                spec[path] = None
            else:
                spec[path] = [len(content), (modes or {}).get(path)]
                blobs.append(content)
        self.request({"op": "write", "files": spec}, b"".join(blobs), wait=300)

    def changes(self, reset: bool = True) -> dict:
        reply, _ = self.request({"op": "changes", "reset": reset}, wait=300)
        for path, entry in self._field(reply, "modified", dict, "changes").items():
            if not isinstance(entry, list) or len(entry) != 2:
                self._malformed(f"the entry of {path!r} is {entry!r}, not [mode, is_symlink]", "changes")
        self._field(reply, "deleted", list, "changes")
        return reply

    def snapshot(self) -> None:
        self.request({"op": "snapshot"}, wait=300)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        """End the runner and let go of its pipes: a killed runner is never spoken to again."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self._release()

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self._stdin.close()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.kill()
        self._release()

    def _release(self) -> None:
        self._selector.close()
        for pipe in (self._stdin, self._stdout):
            with contextlib.suppress(
                OSError
            ):  # unflushed bytes to a dead runner: the pipe closes all the same
                pipe.close()


def to_result(reply: dict) -> CommandResult:
    return CommandResult(
        exit_code=reply.get("exit_code"),
        stdout=reply.get("stdout", ""),
        stderr=reply.get("stderr", ""),
        duration=reply.get("duration", 0.0),
        timed_out=reply.get("timed_out", False),
        oom_killed=reply.get("oom_killed", False),
        truncated=reply.get("truncated", False),
        omitted_bytes=reply.get("omitted_bytes", 0),
        signal=reply.get("signal"),
        leftovers_killed=reply.get("leftovers_killed", 0),
        session_lost=reply.get("session_lost", False),
    )
