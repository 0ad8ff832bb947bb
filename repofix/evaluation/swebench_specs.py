"""SWE-bench's own install specifications for a row, taken from the official `swebench` package.

The per-repository, per-version specs (`MAP_REPO_VERSION_TO_SPECS`: python, pre_install,
packages, pip_packages, install, test_cmd, eval_commands) ship with swebench up to 4.x; 5.x dropped
them (its rows carry a prebuilt `image` instead) but has the log parsers the rows name. Both cannot
live in one environment, so the specs are read by a Python that has them: the interpreter named by
REPOFIX_SWEBENCH_SPECS_PYTHON, else a venv with `swebench==4.1.0` that repofix makes on first need
(swebench_venv.py).

Nothing of the specs is re-typed here: a small script runs SWE-bench's own functions in that
interpreter (`get_requirements`, `get_environment_yml`, `get_test_directives`), with their one
network call, a file fetched from raw.githubusercontent.com at a commit, answered from the local
clone at the same commit (read with hardened git, as data; nothing of it runs on the host).
"""

from __future__ import annotations

import atexit
import json
import os
import select
import subprocess
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from repofix.evaluation import swebench_venv
from repofix.evaluation.swebench_venv import MANUAL, SPECS_PYTHON
from repofix.gitsafe import argv, git_env
from repofix.tasks import Task

_TIMEOUT = 300.0

# Runs in the interpreter that has the official package, for the whole run (importing swebench
# takes seconds): one JSON request per line on stdin, one JSON answer per line on stdout.
_SCRIPT = r"""
import json, posixpath, subprocess, sys
reply, sys.stdout = sys.stdout, sys.stderr  # nothing the package prints can break the protocol
head = {}
try:
    from importlib.metadata import version
    head["package"] = "swebench " + version("swebench")
    from swebench.harness import constants
    if not hasattr(constants, "MAP_REPO_VERSION_TO_SPECS"):
        head["error"] = head["package"] + " has no per-version install specifications (SWE-bench dropped them in 5.0)"
    else:
        from swebench.harness.test_spec import python as official
        from swebench.harness.utils import load_cached_environment_yml
except ImportError as error:
    head = {"error": "the official swebench package is not installed (%s)" % error}


class Reply:
    def __init__(self, code, text):
        self.status_code, self.text = code, text


def answer(request):
    instance = request["instance"]
    out = dict(head)
    spec = constants.MAP_REPO_VERSION_TO_SPECS.get(instance["repo"], {}).get(instance["version"])
    out["spec"] = spec
    if spec is None:
        return out
    raw = constants.SWE_BENCH_URL_RAW + instance["repo"] + "/"

    def get(url, headers=None, **_):
        # SWE-bench's only network call: a file of the repository at a commit.
        if not url.startswith(raw):
            return Reply(404, "")
        commit, _, path = url[len(raw):].partition("/")
        path = posixpath.normpath(path)
        # the commit is the row's (untrusted): never an option to git, never outside the tree
        if commit.startswith("-") or path.startswith("..") or path.startswith("/"):
            return Reply(404, "")
        done = subprocess.run(request["git"] + ["show", commit + ":" + path], capture_output=True,
                              env=request["git_env"])
        return Reply(200 if done.returncode == 0 else 404, done.stdout.decode("utf-8", "replace"))

    official.requests = type("Requests", (), {"get": staticmethod(get)})
    official.get_requirements_by_commit.cache_clear()  # another clone may answer differently
    official.get_environment_yml_by_commit.cache_clear()
    out["install_repo"] = constants.MAP_REPO_TO_INSTALL.get(instance["repo"])
    out["test_directives"] = official.get_test_directives(instance)
    try:
        cached = load_cached_environment_yml(instance["instance_id"])
        if cached:
            out["environment_yml"] = cached
        elif spec.get("packages") == "requirements.txt":
            out["requirements"] = official.get_requirements(instance)
        elif spec.get("packages") == "environment.yml":
            out["environment_yml"] = official.get_environment_yml(instance, "testbed")
    except ValueError as error:
        out["error"] = str(error)
    return out


for line in sys.stdin:
    out = head if "error" in head else answer(json.loads(line))
    reply.write(json.dumps(out) + "\n")
    reply.flush()
"""


class SpecsUnavailable(Exception):
    """The official specs cannot be read (no package with them, or it failed); says why."""


@dataclass(frozen=True)
class Official:
    """What SWE-bench's own code says about one row."""

    package: str  # e.g. "swebench 4.1.0"
    spec: dict[str, Any] | None  # MAP_REPO_VERSION_TO_SPECS[repo][version]; None: not in the specs
    requirements: str | None = None  # packages == "requirements.txt": the list SWE-bench installs
    environment_yml: str | None = None  # packages == "environment.yml" (or a cached one)
    install_repo: str | None = None  # MAP_REPO_TO_INSTALL[repo]
    test_directives: list[str] = field(default_factory=list)  # test files of the row's test_patch
    error: str = ""  # the spec is known but its requirement file could not be had


def specs_python(note: Callable[[str], None] = lambda _: None) -> str:
    """The interpreter named by REPOFIX_SWEBENCH_SPECS_PYTHON, else the cache's venv, made now if
    it is not there yet (SpecsUnavailable when it cannot be; asked once per process)."""
    named = os.environ.get(SPECS_PYTHON)
    if named:
        return named
    with _making:
        if _made_failure:
            raise SpecsUnavailable(_made_failure[0])
        try:
            return str(swebench_venv.ensure(note))
        except swebench_venv.VenvFailed as error:
            _made_failure.append(str(error))
            raise SpecsUnavailable(str(error)) from None


class _Reader:
    """The script above, running in one interpreter for as long as repofix runs."""

    def __init__(self, python: str):
        self.python = python
        self.errors = tempfile.TemporaryFile()  # noqa: SIM115  # lives as long as the reader
        try:
            self.process = subprocess.Popen(
                [python, "-c", _SCRIPT],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.errors,
                text=True,
            )
        except OSError as error:
            raise SpecsUnavailable(f"cannot run {python} ({SPECS_PYTHON}): {error}") from None

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
        except OSError:
            pass  # it has exited: said below
        ready, _, _ = select.select([self.process.stdout], [], [], _TIMEOUT)
        line = self.process.stdout.readline() if ready else ""
        if not line:
            self.errors.seek(0)
            text = self.errors.read().decode("utf-8", "replace").strip().splitlines()
            last = text[-1][:300] if text else (f"no answer in {_TIMEOUT:.0f}s" if not ready else "it exited")
            self.close()
            raise SpecsUnavailable(f"reading the official specs with {self.python} failed: {last}")
        try:
            answer: dict[str, Any] = json.loads(line)
        except json.JSONDecodeError:
            self.close()  # out of step with us: the next request starts a new reader
            raise SpecsUnavailable(
                f"reading the official specs with {self.python} failed: it answered {line[:200]!r}"
            ) from None
        return answer

    def close(self) -> None:
        """Stop the reader and let go of its pipes and error file (a restart makes a new one)."""
        self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()
        self.errors.close()


_readers: dict[str, _Reader] = {}
_cache: dict[str, Official] = {}
_unavailable: dict[str, str] = {}  # interpreter -> why it has no specs (asked once)
_lock = threading.Lock()
_making = threading.Lock()
_made_failure: list[str] = []  # why the cache's venv could not be made (pip is not retried per task)


def close_readers() -> None:
    """Stop every reader and let go of its pipes: at exit, and for a caller that swaps `_readers`
    (a reader dropped while it runs is killed by nobody and warns when it is collected)."""
    with _lock:
        for reader in _readers.values():
            reader.close()
        _readers.clear()


atexit.register(close_readers)


def official_for(task: Task, repo: Path) -> Official:
    """The official spec of `task` (a SWE-bench row), its requirement files read from `repo` (a
    clone holding the row's environment_setup_commit). Raises SpecsUnavailable."""
    instance = {
        "repo": task.repo.github,
        "version": str(task.extra.get("version")),
        "instance_id": task.id,
        "base_commit": task.base_commit,
        "test_patch": task.test_patch or "",
    }
    if isinstance(task.extra.get("environment_setup_commit"), str):
        instance["environment_setup_commit"] = task.extra["environment_setup_commit"]
    request = {"instance": instance, "git": argv(repo, []), "git_env": git_env()}
    key = json.dumps(instance, sort_keys=True)
    with _lock:  # one request at a time per reader; the answers are cached
        if key in _cache:
            return _cache[key]
        python = specs_python()
        if python in _unavailable:
            raise SpecsUnavailable(_unavailable[python])
        reader = _readers.get(python)
        if reader is None or reader.process.poll() is not None:
            reader = _readers[python] = _Reader(python)
        out = reader.ask(request)
        if "spec" not in out:
            _unavailable[python] = f"{out['error']} in {python}; {_HOW}"
            raise SpecsUnavailable(_unavailable[python])
        found = Official(
            package=out["package"],
            spec=out["spec"],
            requirements=out.get("requirements"),
            environment_yml=out.get("environment_yml"),
            install_repo=out.get("install_repo"),
            test_directives=list(out.get("test_directives") or []),
            error=out.get("error", ""),
        )
        _cache[key] = found
        return found


_HOW = f"SWE-bench's specs need swebench {swebench_venv.VERSION}; {MANUAL}"
