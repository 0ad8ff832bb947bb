"""Ctrl-C (SIGINT) during `repofix eval run`: it always stops the run, which `--resume` continues.

A command that a script starts in the background (`cmd &`, no job control: how a CI rehearsal may
start the test suite) inherits SIGINT *ignored*, and Python then never raises KeyboardInterrupt: such
a run went on to its end and exited 0. So the run sets its own handler whatever it inherited, as the
agent's runs do (`agent/stopping.py`). The Ray executor also keeps the signal out of Ray's blocking
calls (Ray runs Python's handlers from inside them, and an exception raised there is Ray's to pass
on): during its run the handler only records the request, and its dispatch loop acts on it.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

Handler = Callable[[int, "FrameType | None"], Any]


@contextmanager
def on_sigint(handler: Handler) -> Iterator[None]:
    """`handler` for SIGINT during the block, then whatever was there before. Python runs signal
    handlers only in the main thread: from another thread (an embedding's) nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
