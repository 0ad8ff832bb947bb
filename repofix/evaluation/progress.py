"""The progress line: resolved / done / total and cost so far, one line per finished task."""

from __future__ import annotations

import sys
import threading
from typing import TextIO

from repofix.evaluation.model import TaskResult


class Progress:
    def __init__(self, total: int, *, done: int = 0, resolved: int = 0, infra: int = 0, cost: float = 0.0,
                 stream: TextIO | None = None, quiet: bool = False):
        self.total, self.done, self.resolved, self.infra, self.cost = total, done, resolved, infra, cost
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self._lock = threading.Lock()

    def note(self, text: str) -> None:
        if not self.quiet:
            with self._lock:
                print(text, file=self.stream, flush=True)

    def line(self) -> str:
        width = len(str(self.total))
        rate = f" ({100 * self.resolved / self.done:.0f}%)" if self.done else ""
        return (f"[{self.done:>{width}}/{self.total}] resolved {self.resolved}{rate} · "
                f"infra errors {self.infra} · cost ${self.cost:.2f}")

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
            if not self.quiet:
                seconds = result.grade_seconds + result.agent_seconds
                detail = f" - {result.detail[:120]}" if result.status.infra else ""
                print(f"{self.line()} · {result.task_id}: {result.status.value} ({seconds:.1f}s){detail}",
                      file=self.stream, flush=True)
