"""State files of a run: always written to a temporary file and renamed, so a crash at any instant
leaves either the old or the new content, never half of one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def read_json(path: Path, default: Any = None) -> Any:
    """Read a JSON state file; `default` when it does not exist yet."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return default
