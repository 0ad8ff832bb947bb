"""Running a downloaded project's code for the screening (bench_builtin_screen.py): its setup.py runs
when pip prepares the sdist's metadata and its tests run when the suite is tried, so both run in
bubblewrap as an unprivileged user, with a read-only root, /work and /root hidden (the interpreter
bound back), and only the folders the step must write bound writable. The suite runs with no
network; the download keeps the network (pip must reach the index) but can write only the sdists.

A suite is run the way bench_builtin_bugs.failing_tests runs it (same pytest options and
environment, no .pyc written), with a plugin that records every test's outcome, the warnings and
the subtests, which the qualifying rules need and failing_tests does not report."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

EVALS = Path(__file__).resolve().parent
HIDDEN = [Path("/work"), Path("/root"), Path("/home")]
# pip's own settings (its index, its certificates) are bound back read-only for the download
PIP_PATHS = [Path.home() / ".config" / "pip", Path("/etc/pip.conf")]
PIP_PATH_VARS = ["PIP_CERT", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "PIP_FIND_LINKS"]

OUTCOMES_PLUGIN = """import json, os
outcomes, warnings, subtests = {}, [], []
RANK = {"passed": 0, "skipped": 1, "xpassed": 2, "xfailed": 3, "failed": 4, "error": 5}
def note(nodeid, outcome):  # a test's worst report stands (a teardown error after a pass)
    if RANK[outcome] >= RANK.get(outcomes.get(nodeid), -1):
        outcomes[nodeid] = outcome
def pytest_runtest_logreport(report):
    if hasattr(report, "context"):  # a SubtestReport: a subtest's outcome hides in one test's
        subtests.append(report.nodeid)
        return
    if hasattr(report, "wasxfail"):
        note(report.nodeid, "xfailed" if report.skipped else "xpassed")
    elif report.failed:
        note(report.nodeid, "failed" if report.when == "call" else "error")
    elif report.skipped:
        note(report.nodeid, "skipped")
    elif report.when == "call":
        note(report.nodeid, "passed")
def pytest_collectreport(report):
    if report.failed:
        outcomes["collect:" + report.nodeid] = "error"
def pytest_warning_recorded(warning_message, when, nodeid, location):
    warnings.append(f"{nodeid or when}: {warning_message.category.__name__}: {warning_message.message}"[:300])
def pytest_sessionfinish(session, exitstatus):
    with open(os.environ["SCREEN_OUTCOMES_OUT"], "w") as out:
        json.dump({"outcomes": outcomes, "warnings": warnings, "subtests": subtests}, out)
"""


@dataclass
class SuiteRun:
    """One run of a project's suite: None for `exit` when it hung past the timeout."""

    exit: int | None
    outcomes: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    subtests: list[str] = field(default_factory=list)
    output: str = ""

    @property
    def passed(self) -> bool:
        return self.exit == 0 and bool(self.outcomes)

    @property
    def clean(self) -> bool:
        """Passed with every test plainly passing: no skip, xfail, warning or subtest."""
        plain = all(o == "passed" for o in self.outcomes.values())
        return self.passed and plain and not self.warnings and not self.subtests


def bwrap_argv(
    argv: list[str],
    cwd: Path,
    writable: list[Path],
    env: dict[str, str],
    network: bool,
    readable: Sequence[Path] = (),
) -> list[str]:
    """`argv` inside bubblewrap: new namespaces (no network unless asked), uid 65534 with no
    capability, the host's root read-only, /tmp a fresh tmpfs, /work, /root and /home hidden but for
    the interpreter, and only `writable` (bound at their own paths) writable."""
    args = ["bwrap", "--unshare-all", "--unshare-user", "--uid", "65534", "--gid", "65534"]
    args += ["--share-net"] if network else []
    args += ["--die-with-parent", "--new-session", "--cap-drop", "ALL", "--ro-bind", "/", "/"]
    args += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    for hidden in HIDDEN:
        if hidden.is_dir():
            args += ["--tmpfs", str(hidden)]
    for prefix in dict.fromkeys([sys.base_prefix, sys.prefix]):
        args += ["--ro-bind", prefix, prefix]
    if network:
        extra = PIP_PATHS + [Path(os.environ[v]) for v in PIP_PATH_VARS if os.environ.get(v)]
        for path in extra:
            args += ["--ro-bind-try", str(path), str(path)]
    for path in readable:
        args += ["--ro-bind", str(path), str(path)]
    for path in writable:
        args += ["--bind", str(path), str(path)]
    args += ["--chdir", str(cwd), "--clearenv"]
    for key, value in env.items():
        args += ["--setenv", key, value]
    return [*args, *argv]


def download_python(cache: Path) -> Path:
    """An interpreter for pip's downloads: a venv in the cache with setuptools and wheel. Without
    wheel (this machine's interpreter has none) pip prepares even a plain setup.py's metadata in an
    isolated build environment it installs setuptools into first: 25 s a project, not 2."""
    venv = cache / "pip-venv"
    python = venv / "bin" / "python"
    if not (venv / "ready").exists():
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        subprocess.run([python, "-m", "pip", "install", "-q", "setuptools", "wheel"], check=True)
        (venv / "ready").touch()
    return python


def sandboxed_download(
    spec: str, sdists: Path, pip_cache: Path, python: Path | None = None, timeout: float = 180
) -> str | None:
    """Download `spec`'s sdist into `sdists` with evals/sdists.download_sdist, in the sandbox (pip
    runs the sdist's setup.py to read its metadata) with `python` (default: this one); None when it
    is there, else pip's last words."""
    sdists.mkdir(parents=True, exist_ok=True)
    pip_cache.mkdir(parents=True, exist_ok=True)
    code = (
        f"import sys, subprocess; sys.path.insert(0, {str(EVALS)!r}); from sdists import download_sdist\n"
        "try:\n"
        f"    download_sdist({spec!r}, __import__('pathlib').Path({str(sdists)!r}))\n"
        "except subprocess.CalledProcessError as e:\n"
        "    sys.exit((e.stderr or b'').decode(errors='replace').strip()[-3000:] or 'pip failed')\n"
    )
    keep = {k: v for k, v in os.environ.items() if k.startswith(("PIP_", "SSL_", "REQUESTS_"))}
    env = {**keep, "PATH": "/usr/bin:/bin", "HOME": "/tmp", "PIP_CACHE_DIR": str(pip_cache)}
    python = python or Path(sys.executable)
    readable = [EVALS, python.parent.parent]  # the venv's folder (in the cache, under /work)
    argv = bwrap_argv([str(python), "-c", code], Path("/tmp"), [sdists, pip_cache], env, True, readable)
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"download took over {timeout:.0f} s"
    if done.returncode == 0:
        return None
    return (done.stderr.strip() or f"exit {done.returncode}")[-3000:]


def run_suite(tree: Path, timeout: float = 60, hashseed: str = "0", sandbox: bool = True) -> SuiteRun:
    """The suite of a tree built by bench_builtin_bugs.project_tree, run once as failing_tests runs
    it (and in the sandbox unless told not to: the tests only write files they make themselves)."""
    with tempfile.TemporaryDirectory(prefix="screen-run-") as tmp:
        (Path(tmp) / "_screenoutcomes.py").write_text(OUTCOMES_PLUGIN)
        out = Path(tmp) / "outcomes.json"
        argv = [sys.executable, "-m", "pytest", "-q", "--tb=no", "-p", "no:randomly", "-p", "_screenoutcomes"]
        env = {
            "PATH": "/usr/bin:/bin",
            "PYTHONHASHSEED": hashseed,
            "HOME": str(tree),
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONPATH": tmp,
            "SCREEN_OUTCOMES_OUT": str(out),
        }
        if sandbox:
            argv = bwrap_argv(argv, tree, [tree, Path(tmp)], env, network=False)
        try:
            done = subprocess.run(
                argv, cwd=tree, capture_output=True, text=True, timeout=timeout, env=env, errors="replace"
            )
        except subprocess.TimeoutExpired:
            return SuiteRun(None)
        data = json.loads(out.read_text()) if out.exists() else {}
    return SuiteRun(
        done.returncode,
        data.get("outcomes", {}),
        data.get("warnings", []),
        data.get("subtests", []),
        (done.stdout + done.stderr)[-2000:],
    )


def available() -> bool:
    """Whether bubblewrap can make the sandbox here (the screening refuses to run a suite without)."""
    if shutil.which("bwrap") is None:
        return False
    argv = bwrap_argv(["true"], Path("/"), [], {}, network=False)
    return subprocess.run(argv, capture_output=True).returncode == 0
