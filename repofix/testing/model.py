"""The results model: what one test run found, per test and for the run as a whole."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Outcome(str, Enum):
    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"  # setup/teardown error, or a module that failed to collect
    SKIPPED = "skipped"
    XFAILED = "xfailed"
    XPASSED = "xpassed"  # non-strict: pytest counts it as a success (strict ones arrive as FAILED)

    @property
    def ok(self) -> bool:
        """Counts as passing for the done rule, as pytest's exit code and SWE-bench do."""
        return self in (Outcome.PASSED, Outcome.XFAILED, Outcome.XPASSED)

    @property
    def bad(self) -> bool:
        return self in (Outcome.FAILED, Outcome.ERROR)


class RunStatus(str, Enum):
    """What happened to the run as a whole. Only COMPLETED means every collected test was run."""

    COMPLETED = "completed"
    COLLECTION_ERROR = "collection_error"  # some test modules failed to collect; the rest ran
    IMPORT_ERROR = "import_error"  # a conftest/plugin/test module could not be imported
    CRASHED = "crashed"  # the interpreter died (signal, OOM, os._exit) before writing its report
    TIMEOUT = "timeout"  # killed by the timeout, possibly mid-run
    NO_TESTS = "no_tests"  # the runner ran but collected nothing
    RUNNER_MISSING = "runner_missing"  # the test command or pytest itself is not installed
    USAGE_ERROR = "usage_error"  # bad command-line arguments or configuration
    INTERNAL_ERROR = "internal_error"  # pytest's own internal error

    @property
    def ran_tests(self) -> bool:
        return self in (RunStatus.COMPLETED, RunStatus.COLLECTION_ERROR)


@dataclass(frozen=True)
class Frame:
    """One traceback entry as pytest printed it."""

    path: str  # relative to the repository for files inside it, absolute otherwise
    line: int
    function: str = ""
    source: tuple[str, ...] = ()  # the code shown, the failing line prefixed with '>'
    error: tuple[str, ...] = ()  # the 'E ' lines attached to this entry, without the prefix
    cause: bool = False  # belongs to an earlier exception of a chain ("direct cause", "during handling")

    @property
    def in_repo(self) -> bool:
        p = self.path
        return not (p.startswith(("/", "<")) or "site-packages" in p or p.startswith(".."))

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass
class TestResult:
    __test__ = False  # not a pytest test class

    id: str  # pytest node id, e.g. tests/test_x.py::TestA::test_b[param]
    outcome: Outcome
    message: str = ""  # the exception / assertion message, with pytest's comparison detail
    traceback: str = ""  # the long representation as pytest printed it
    frames: tuple[Frame, ...] = ()
    stdout: str = ""
    stderr: str = ""
    log: str = ""
    phase: str = "call"  # "setup", "call", "teardown" or "collect"
    duration: float = 0.0

    @property
    def repo_frames(self) -> tuple[Frame, ...]:
        return tuple(f for f in self.frames if f.in_repo)


@dataclass
class TestRun:
    """One execution of the test command."""

    __test__ = False

    command: str
    status: RunStatus
    exit_code: int | None
    results: dict[str, TestResult] = field(default_factory=dict)  # in execution order
    output: str = ""  # what the command printed (stdout + stderr), possibly truncated by the sandbox
    duration: float = 0.0
    structured: bool = True  # per-test results exist; False for non-pytest commands (exit code only)
    detail: str = ""  # a one-line explanation of a non-COMPLETED status
    running: str | None = None  # the test that was running when the run timed out or crashed
    selection: tuple[str, ...] = ()  # the tests asked for; empty means the whole suite
    log_path: str | None = None  # where the full output was saved on the host

    def ids(self, *outcomes: Outcome) -> list[str]:
        return [i for i, r in self.results.items() if not outcomes or r.outcome in outcomes]

    @property
    def failing(self) -> list[str]:
        return [i for i, r in self.results.items() if r.outcome.bad]

    @property
    def passing(self) -> list[str]:
        return [i for i, r in self.results.items() if r.outcome.ok]

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for r in self.results.values():
            counts[r.outcome.value] = counts.get(r.outcome.value, 0) + 1
        return counts

    @property
    def ok(self) -> bool:
        """The run completed and nothing failed. Never true for a crash, timeout or empty run."""
        if self.status is not RunStatus.COMPLETED:
            return False
        if not self.structured:
            return self.exit_code == 0
        return bool(self.results) and not self.failing

    def summary(self) -> str:
        if not self.structured:
            verdict = "passed" if self.exit_code == 0 else "failed"
            text = f"`{self.command}` {verdict} (exit code {self.exit_code}); no per-test results"
        else:
            order = ["failed", "error", "passed", "skipped", "xfailed", "xpassed"]
            counts = self.counts()
            parts = [f"{counts[o]} {o}" for o in order if counts.get(o)]
            text = ", ".join(parts) or "no test results"
        if self.status is not RunStatus.COMPLETED:
            text = (
                f"{self.status.value.upper().replace('_', ' ')}: {self.detail or self.status.value}; {text}"
            )
        return text
