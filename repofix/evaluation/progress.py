"""The progress line: resolved / done / total, infrastructure errors and cost so far. On a
terminal it is one line rewritten in place (infrastructure errors get a line of their own);
elsewhere (logs, CI) one line per finished task."""

from __future__ import annotations

import sys
import threading
from typing import TextIO

from repofix.evaluation.model import TaskResult
from repofix.safetext import visible


class Progress:
    def __init__(
        self,
        total: int,
        *,
        done: int = 0,
        resolved: int = 0,
        infra: int = 0,
        cost: float = 0.0,
        stream: TextIO | None = None,
        quiet: bool = False,
    ):
        self.total, self.done, self.resolved, self.infra, self.cost = total, done, resolved, infra, cost
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.live = not quiet and getattr(self.stream, "isatty", lambda: False)()
        self._open = False  # a live line is on screen without its newline
        self._lock = threading.Lock()

    def note(self, text: str) -> None:
        if not self.quiet:
            with self._lock:
                self._end_line()
                print(visible(text), file=self.stream, flush=True)  # a build's output, a task's id

    def close(self) -> None:
        with self._lock:
            self._end_line()

    def _end_line(self) -> None:
        if self._open:
            print(file=self.stream, flush=True)
            self._open = False

    def line(self) -> str:
        width = len(str(self.total))
        rate = f" ({100 * self.resolved / self.done:.0f}%)" if self.done else ""
        return (
            f"[{self.done:>{width}}/{self.total}] resolved {self.resolved}{rate} · "
            f"infra errors {self.infra} · cost ${self.cost:.2f}"
        )

    def finished(self, result: TaskResult, *, replaces: TaskResult | None = None) -> None:
        """Count a finished task (`replaces`: its previous attempt, when it was retried)."""
        with self._lock:
            if replaces is not None:
                self.done -= 1
                self.resolved -= int(replaces.resolved)
                self.infra -= int(replaces.status.infra)
            self.done += 1
            self.resolved += int(result.resolved)
            self.infra += int(result.status.infra)
            self.cost += result.cost
            if self.quiet:
                return
            seconds = result.grade_seconds + result.agent_seconds
            # the task's id and the detail are the task file's and the repository's text (a failed
            # build's last line): escaped, so an escape sequence in them is seen, not obeyed
            last = visible(f"{result.task_id}: {result.status.value} ({seconds:.1f}s)", one_line=True)
            detail = visible(result.detail, one_line=True)
            if not self.live:
                detail = f" - {detail[:120]}" if result.status.infra else ""
                print(f"{self.line()} · {last}{detail}", file=self.stream, flush=True)
                return
            if result.status.infra:
                self._end_line()
                print(f"  {last}: {detail[:150]}", file=self.stream)
            print(f"\r\033[K{self.line()} · {last[:60]}", end="", file=self.stream, flush=True)
            self._open = True
