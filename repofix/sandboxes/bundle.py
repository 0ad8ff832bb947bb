"""The runner's code as the host ships it: `sandbox/`'s modules in a zip, sent over the runner's
stdin and started by `BOOT`, so no backend needs to mount or copy files first."""

from __future__ import annotations

import importlib.util
import io
import marshal
import zipfile
from pathlib import Path

RUNNER_FILES = ("runner.py", "pyworker.py", "changes.py", "procs.py", "watch.py")

# Bootstraps the runner from a zip sent over stdin, so no backend needs to mount or copy files first.
BOOT = (
    "import os,sys;n=int(sys.stdin.buffer.readline());d=sys.stdin.buffer.read(n);"
    "p=os.path.join(sys.argv[2],'.repofix-runner-%d.zip'%os.getpid());"
    "f=open(p,'wb');f.write(d);f.close();sys.path.insert(0,p);import runner;runner.main()"
)


def runner_dir() -> Path:
    """The `sandbox/` folder: shipped in the wheel as `repofix._sandbox`, or at the checkout root."""
    installed = Path(__file__).resolve().parents[1] / "_sandbox"
    if (installed / "runner.py").exists():
        return installed
    return Path(__file__).resolve().parents[2] / "sandbox"


_bundle: bytes | None = None


def runner_bundle() -> bytes:
    """The runner's modules as a zip: sources, plus bytecode for this Python so a sandbox running the
    same version skips compiling them at every start (another version falls back to the sources)."""
    global _bundle
    if _bundle is None:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            for name in RUNNER_FILES:
                source = (runner_dir() / name).read_bytes()
                archive.writestr(name, source)
                code = compile(source, name, "exec", dont_inherit=True)
                header = (
                    importlib.util.MAGIC_NUMBER
                    + (0b01).to_bytes(4, "little")
                    + importlib.util.source_hash(source)
                )  # an unchecked-hash pyc: no mtime to compare
                archive.writestr(name[:-3] + ".pyc", header + marshal.dumps(code))
        _bundle = buffer.getvalue()
    return _bundle
