"""What grading one task produces: a status, the SWE-bench report fields, and bookkeeping.

Statuses separate the model's failures (`unresolved`) from the harness's (`env_failed`,
`patch_failed`, `timeout`, `error`): an infrastructure error says nothing about the candidate
patch, so reports count it apart and `--retry-errors` can run it again.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any


class Status(str, Enum):
    RESOLVED = "resolved"
    UNRESOLVED = "unresolved"  # the tests ran; the done rule said no
    PATCH_FAILED = "patch_failed"  # the candidate patch does not apply to the base commit
    ENV_FAILED = "env_failed"  # the environment (image build / setup commands) failed
    TIMEOUT = "timeout"  # the test run was killed by its timeout
    ERROR = "error"  # anything else outside the candidate's control (sandbox, test patch, agent crash)

    @property
    def infra(self) -> bool:
        return self not in (Status.RESOLVED, Status.UNRESOLVED)


@dataclass(frozen=True)
class Candidate:
    """A patch to grade, and what producing it cost (zero for gold, empty and predictions)."""

    patch: str
    model_name: str
    cost: float = 0.0
    tokens: int = 0
    seconds: float = 0.0  # time spent producing the patch (the agent's run)
    error: str = ""  # the producer failed: graded as Status.ERROR without running tests


@dataclass
class TestsStatus:
    """SWE-bench's `tests_status`: success / failure lists per category."""

    __test__ = False

    FAIL_TO_PASS: dict[str, list[str]] = field(default_factory=lambda: {"success": [], "failure": []})
    PASS_TO_PASS: dict[str, list[str]] = field(default_factory=lambda: {"success": [], "failure": []})
    FAIL_TO_FAIL: dict[str, list[str]] = field(default_factory=lambda: {"success": [], "failure": []})
    PASS_TO_FAIL: dict[str, list[str]] = field(default_factory=lambda: {"success": [], "failure": []})


@dataclass
class TaskResult:
    task_id: str
    status: Status
    model_name: str
    detail: str = ""  # one line: why this status
    patch: str = ""
    patch_is_None: bool = True
    patch_exists: bool = False
    patch_successfully_applied: bool = False
    tests_status: TestsStatus = field(default_factory=TestsStatus)
    environment: str = ""  # image or backend the tests ran in
    test_seconds: float = 0.0  # the test command alone
    grade_seconds: float = 0.0  # grading from start to finish (prepare, sandbox, tests)
    cost: float = 0.0
    tokens: int = 0
    agent_seconds: float = 0.0
    attempt: int = 0  # set by the store
    log_path: str = ""
    build_seconds: float = 0.0  # building (or waiting for) the environment image; not in grade_seconds
    grader: str = ""  # SWE-bench tasks: whose log parser and rules gave the verdict ("" = JUnit)
    disagreements: list[str] = field(default_factory=list)  # SWE-bench tasks: log vs JUnit, per test
    listed: list[int] = field(
        default_factory=list
    )  # how many FAIL_TO_PASS and PASS_TO_PASS tests the task lists

    @property
    def resolved(self) -> bool:
        return self.status is Status.RESOLVED

    def swebench_report(self) -> dict[str, Any]:
        """This task's entry in SWE-bench's per-instance `report.json`."""
        return {
            self.task_id: {
                "patch_is_None": self.patch_is_None,
                "patch_exists": self.patch_exists,
                "patch_successfully_applied": self.patch_successfully_applied,
                "resolved": self.resolved,
                "tests_status": asdict(self.tests_status),
            }
        }

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["status"] = self.status.value
        data["resolved"] = self.resolved
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TaskResult:
        data = dict(data)
        data.pop("resolved", None)
        data["status"] = Status(data["status"])
        data["tests_status"] = TestsStatus(**data.get("tests_status", {}))
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in known})
