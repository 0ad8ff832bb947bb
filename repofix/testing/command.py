"""Which test command to run, and how to wrap it so pytest leaves a machine-readable report."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping, Sequence

DEFAULT_COMMAND = "python -m pytest"
PLUGIN_MODULE = "repofix_pytest_plugin"
COLUMNS = 120

# `pytest`, `py.test`, `python -m pytest`, `python3.11 -m pytest` as the last command of a line.
_PYTEST = re.compile(r"(?:^|[;&|(]\s*|\s)(?:\S*/)?(?:python[\d.]*\s+-m\s+pytest|py\.?test)(?:\s[^;&|]*)?$")


def is_pytest(command: str) -> bool:
    """Whether extra arguments (selected test ids) can be appended to `command`."""
    return bool(_PYTEST.search(command.strip()))


def detect_command(files: Mapping[str, bytes | None]) -> str:
    """Pick the test command from the repository's files (contents by relative path, None if
    missing). Python projects get pytest, which respects their own configuration; others get
    their ecosystem's usual command, judged by exit code."""

    def text(name: str) -> str:
        return (files.get(name) or b"").decode("utf-8", "replace")

    if any(files.get(n) is not None for n in ("pytest.ini", "conftest.py", "setup.py", "tox.ini")):
        return DEFAULT_COMMAND
    if "[tool.pytest" in text("pyproject.toml") or "[tool:pytest]" in text("setup.cfg"):
        return DEFAULT_COMMAND
    if files.get("package.json") is not None:
        try:
            if json.loads(text("package.json")).get("scripts", {}).get("test"):
                return "npm test"
        except (ValueError, AttributeError):
            pass
    if files.get("go.mod") is not None:
        return "go test ./..."
    if files.get("Cargo.toml") is not None:
        return "cargo test"
    if re.search(r"^test:", text("Makefile"), re.MULTILINE):
        return "make test"
    return DEFAULT_COMMAND


DETECTION_FILES = (
    "pytest.ini",
    "conftest.py",
    "setup.py",
    "tox.ini",
    "pyproject.toml",
    "setup.cfg",
    "package.json",
    "go.mod",
    "Cargo.toml",
    "Makefile",
)


def wrap(
    command: str, *, workdir: str, report_dir: str, selection: Sequence[str] = (), plugin: bool = True
) -> str:
    """The shell line that runs `command` with pytest reporting into `report_dir` (outside the
    repository). PYTEST_ADDOPTS reaches pytest however the project starts it (`make test`,
    `cd sub && pytest`, a wrapper script); other runners ignore it. Exports stay in a subshell.
    `plugin=False` is the fallback for commands that replace PYTHONPATH (the plugin cannot load)."""
    addopts = " ".join(
        [
            *([f"-p {PLUGIN_MODULE}"] if plugin else []),
            "-p no:cacheprovider",  # no .pytest_cache in the repository
            f"--junitxml={report_dir}/report.xml",
            "-o junit_family=xunit1",  # file and line attributes
            "-o junit_logging=all",  # captured stdout/stderr/log of failing tests
            "-o junit_log_passing_tests=false",
            "--continue-on-collection-errors",  # one broken module must not hide every other result
        ]
    )
    quoted_dir = shlex.quote(report_dir)
    line = command + "".join(" " + shlex.quote(t) for t in selection) if selection else command
    return (
        "( "
        f"export COLUMNS={COLUMNS} PYTHONDONTWRITEBYTECODE=1 REPOFIX_PROGRESS_FILE={quoted_dir}/progress.jsonl; "
        f'export PYTHONPATH={quoted_dir}"${{PYTHONPATH:+:$PYTHONPATH}}"; '
        f'export PYTEST_ADDOPTS="${{PYTEST_ADDOPTS:+$PYTEST_ADDOPTS }}{addopts}"; '
        f"cd {shlex.quote(workdir)} && {line} )"
    )


def plugin_failed(output: str) -> bool:
    """pytest could not import our plugin (the command overrode PYTHONPATH): retry without it."""
    return f'Error importing plugin "{PLUGIN_MODULE}"' in output
