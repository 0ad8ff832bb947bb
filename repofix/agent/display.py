"""Progress display: one live status line on a terminal, plain lines otherwise (CI logs, pipes)."""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from repofix.safetext import visible


class Display:
    def __init__(self, max_steps: int, stream: TextIO | None = None, live: bool | None = None):
        self.stream = stream or sys.stderr  # looked up now, so a redirected stderr (click's runner) is used
        self.live = self.stream.isatty() if live is None else live
        self.max_steps = max_steps
        self.started = time.monotonic()
        self.state: dict[str, Any] = {"step": 0, "action": "starting", "tests": "", "cost": 0.0}

    def __call__(self, event: dict[str, Any]) -> None:
        kind = event["event"]
        if kind == "note":
            self.line(event["message"])
        elif kind == "workspace":
            self.line(f"run {event['run_id']}  ({event['run_dir']})")
        elif kind == "sandbox":
            self.status(action=f"starting the {event['backend']} sandbox")
        elif kind == "baseline":
            self.status(action="running the tests once before any change")
        elif kind == "baselined":
            self.line(f"baseline: {event['summary']}  (phase: {event['phase']})")
        elif kind == "thinking":
            self.status(step=event["step"], action="waiting for the model")
        elif kind == "action":
            detail = event.get("detail", "").split("\n")[0] if event.get("detail") else ""
            self.status(action=f"{event['action']} {detail}".strip()[:60])
        elif kind == "tests":
            self.status(
                action="running tests" + (f" ({event['selection']} selected)" if event["selection"] else "")
            )
        elif kind == "verifying":
            self.status(action="verifying in a fresh sandbox")
        elif kind in ("tested", "step"):
            self.status(
                tests=event.get("tests") or event.get("summary", ""),
                cost=event.get("cost", self.state["cost"]),
            )
            if kind == "step" and not self.live:
                self.line(self.render())

    def status(self, **changes: Any) -> None:
        self.state.update(changes)
        if self.live:
            self.stream.write("\r\033[K" + self.render())
            self.stream.flush()

    def render(self) -> str:
        s = self.state
        elapsed = time.monotonic() - self.started
        return visible(
            f"step {s['step']}/{self.max_steps} | {s['action']} | tests {s['tests'] or '-'} | "
            f"${s['cost']:.4f} | {elapsed:.0f}s",
            one_line=True,
        )

    def line(self, text: str) -> None:
        if self.live:
            self.stream.write("\r\033[K")
        self.stream.write(visible(text) + "\n")  # text from the model or the sandbox: never interpreted
        self.stream.flush()

    def close(self) -> None:
        if self.live:
            self.stream.write("\r\033[K")
            self.stream.flush()
