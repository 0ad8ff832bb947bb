"""Writing a file so that a reader (or a crash) never sees half of it: a temporary file in the same
folder, then a rename over the target. Every room writes state, reports, patches and logs this way."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


@contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """A temporary path beside `path` to write; renamed over `path` when the block ends without an
    error, removed otherwise. Its name is `.<name>.XXXX.tmp` (the run folder's clean-up knows it), cut
    short so that a 255-byte file name still leaves room."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:64]}.", suffix=".tmp")
    os.close(handle)
    try:
        yield Path(temporary)
        os.replace(temporary, path)
    finally:
        Path(temporary).unlink(missing_ok=True)


def write_atomic(path: Path, data: str | bytes, *, mode: int | None = None, durable: bool = False) -> Path:
    """Write `data` (text as UTF-8, newlines as given) to `path` atomically; `mode` sets the permission
    bits, `durable` fsyncs before the rename (state a crash must not lose)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    with replacing(path) as temporary:
        with open(temporary, "wb") as handle:
            handle.write(raw)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
    return path


def write_json_atomic(path: Path, data: Any) -> None:
    """JSON state (sorted, indented, UTF-8) written atomically and durably."""
    text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    write_atomic(path, text, durable=True)
