"""Source distributions from PyPI for the benchmarks that work on real projects (downloaded with pip,
kept in a cache outside the repository; nothing of them is committed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def download_sdist(spec: str, dest: Path) -> Path:
    """The sdist archive of `spec` ("name==version") in `dest`, downloaded with pip on first need."""
    name, version = spec.split("==")
    prefix = f"{name}-{version}".lower().replace("_", "-")

    def found() -> list[Path]:
        return [p for p in dest.glob("*.tar.gz") if p.name.lower().replace("_", "-").startswith(prefix)]

    if not found():
        dest.mkdir(parents=True, exist_ok=True)
        argv = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-q"]
        subprocess.run([*argv, "-d", str(dest), spec], check=True, capture_output=True)
    archives = found()
    if not archives:
        raise SystemExit(f"pip downloaded no sdist for {spec} into {dest}")
    return archives[0]
