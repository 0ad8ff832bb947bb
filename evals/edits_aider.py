"""Aider's edit appliers, side by side with repofix in evals/bench_edits.py.

Aider (aider-chat, pinned below) is installed by the benchmark into its own virtual environment
(VENV, outside the repository; never a dependency of repofix). This file is both the client the
benchmark uses and the shim it runs with the venv's Python: the shim reads one JSON request per
line ({"format": "udiff" | "search-replace", "edit": text, "files": {path: content}}), applies the
edit the way Aider's UnifiedDiffCoder / EditBlockCoder.apply_edits do (same functions, files in a
scratch folder), and answers {"ok": bool, "files": {path: content | null}}. A failure Aider reports
(it raises for any hunk or block that does not apply) is a refusal.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

AIDER = "aider-chat==0.86.1"
VENV = Path(os.environ.get("REPOFIX_AIDER_VENV", "/work/cache/aider-venv"))


def ensure_venv() -> Path:
    """The venv's Python, creating the venv and installing Aider into it if needed."""
    python = VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    check = subprocess.run([str(python), "-c", "import aider.coders.udiff_coder"], capture_output=True)
    if check.returncode != 0:
        subprocess.run([str(python), "-m", "pip", "install", "-q", AIDER], check=True, timeout=1800)
    return python


class Aider:
    """A long-lived shim process (importing Aider takes seconds)."""

    def __init__(self) -> None:
        env = {**os.environ, "PYTHONPATH": ""}
        self.proc = subprocess.Popen(
            [str(ensure_venv()), __file__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )

    def apply(self, fmt: str, edit: str, files: dict[str, str]) -> dict[str, str | None] | None:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps({"format": fmt, "edit": edit, "files": files}) + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        return answer["files"] if answer["ok"] else None

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)


# --- the shim (runs inside Aider's venv) ----------------------------------------------------------


def _udiff(edit: str, root: Path) -> None:
    from aider.coders import udiff_coder as u

    if "```diff" not in edit:
        edit = f"```diff\n{edit}```\n"  # Aider reads diffs from fenced blocks only
    edits, last = [], None
    for path, hunk in u.find_diffs(edit):
        path = path or last
        last = path
        edits.append((path, hunk))
    seen, uniq = set(), []
    for path, hunk in edits:  # UnifiedDiffCoder.apply_edits, without the chat around it
        hunk = u.normalize_hunk(hunk)
        key = f"{path}\n" + "".join(hunk)
        if hunk and key not in seen:
            seen.add(key)
            uniq.append((path, hunk))
    for path, hunk in uniq:
        full = root / path
        content = full.read_text() if full.exists() else None
        new = u.do_replace(full, content, hunk)
        if not new:
            raise ValueError(f"hunk does not apply to {path}")
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_text(new)


def _search_replace(edit: str, root: Path, names: list[str]) -> None:
    from aider.coders import editblock_coder as e

    for path, original, updated in e.find_original_update_blocks(edit, e.DEFAULT_FENCE, names):
        if path is None:
            continue  # a shell command block
        full = root / path
        content = full.read_text() if full.exists() else None
        new = e.do_replace(full, content, original, updated, e.DEFAULT_FENCE)
        if not new and original.strip():
            raise ValueError(f"block does not apply to {path}")
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_text(new or "")


def _serve() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        root = Path(tempfile.mkdtemp(prefix="aider-shim-"))
        try:
            for path, content in request["files"].items():
                (root / path).parent.mkdir(parents=True, exist_ok=True)
                (root / path).write_text(content)
            ok = True
            try:
                if request["format"] == "udiff":
                    _udiff(request["edit"], root)
                else:
                    _search_replace(request["edit"], root, list(request["files"]))
            except Exception:  # noqa: BLE001 - any failure Aider raises is its refusal
                ok = False
            files = {str(p.relative_to(root)): p.read_text() for p in root.rglob("*") if p.is_file()}
            print(json.dumps({"ok": ok, "files": files}), flush=True)
        finally:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    _serve()
