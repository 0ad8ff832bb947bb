"""The hand-over between `ci run` (read-only) and `ci publish` (write): a folder with the patch, a
report (JSON) and a summary (Markdown), recording the PR head the patch was made for.

    <dir>/report.json  <dir>/patch.diff  <dir>/summary.md  <dir>/trajectory/ (the run's record)

`ci publish` treats the folder as untrusted input: every field is type-checked and the patch's hash
must match the report's."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from repofix.atomic import write_atomic

FORMAT = 1
STATUSES = ("done", "not_done", "error", "refused", "skipped")


class ArtifactError(ValueError):
    """The artifact folder is missing, malformed or tampered with."""


@dataclass
class Report:
    status: str  # one of STATUSES
    reason: str = ""  # one line: why skipped/refused/error
    reply: bool = False  # post the refusal as a reply comment
    repository: str = ""
    pr_number: int | None = None
    head_sha: str = ""  # the PR head the patch was made for
    head_ref: str = ""
    head_repository: str = ""
    fork: bool = False
    trigger: str = ""
    mode: str = ""
    actor: str = ""
    tests_before: str = ""
    tests_after: str = ""
    files_changed: list[str] = field(default_factory=list)
    cost: float = 0.0
    run_id: str = ""
    run_url: str = ""
    summary: str = ""
    patch_sha256: str = ""
    format: int = FORMAT


def write(directory: Path, report: Report, patch: str, summary_md: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    data = patch.encode("utf-8")
    report.patch_sha256 = hashlib.sha256(data).hexdigest()
    write_atomic(directory / "patch.diff", data)
    write_atomic(directory / "summary.md", summary_md.encode("utf-8"))
    # The report goes last: its presence means the folder is complete.
    write_atomic(directory / "report.json", json.dumps(asdict(report), indent=2).encode("utf-8"))


def _check(name: str, value: Any, expected: Any) -> None:
    kinds = {
        "str": (str,),
        "bool": (bool,),
        "int": (int,),
        "float": (int, float),
        "int | None": (int, type(None)),
        "list[str]": (list,),
    }[expected]
    if not isinstance(value, kinds) or (kinds == (int,) and isinstance(value, bool)):
        raise ArtifactError(f"report.json: `{name}` must be {expected}, got {type(value).__name__}")
    if isinstance(value, list) and not all(isinstance(item, str) for item in value):
        raise ArtifactError(f"report.json: `{name}` must be a list of strings")


def read(directory: Path) -> tuple[Report, str]:
    """The report and the patch, validated."""
    report_file = directory / "report.json"
    try:
        raw = json.loads(report_file.read_text("utf-8"))
    except OSError as error:
        raise ArtifactError(f"no artifact report at {report_file}: {error}") from error
    except ValueError as error:
        raise ArtifactError(f"{report_file} is not JSON: {error}") from error
    if not isinstance(raw, dict):
        raise ArtifactError(f"{report_file} must hold a JSON object")
    known = {f.name: f.type for f in fields(Report)}
    unknown = set(raw) - set(known)
    if unknown:
        raise ArtifactError(f"report.json has unknown fields {sorted(unknown)}")
    for name, value in raw.items():
        _check(name, value, known[name])
    report = Report(**raw)
    if report.format != FORMAT:
        raise ArtifactError(f"artifact format {report.format} is not supported (expected {FORMAT})")
    if report.status not in STATUSES:
        raise ArtifactError(f"report.json: unknown status {report.status!r}")
    try:
        data = (directory / "patch.diff").read_bytes()
    except OSError as error:
        raise ArtifactError(f"the artifact has no patch.diff: {error}") from error
    if hashlib.sha256(data).hexdigest() != report.patch_sha256:
        raise ArtifactError("patch.diff does not match the hash recorded in report.json")
    try:
        return report, data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ArtifactError(f"patch.diff is not UTF-8 text: {error}") from error
