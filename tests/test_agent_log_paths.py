"""Full logs the model can read: when test feedback is cut to fit its budget, the "Full log:" it names is a
file inside the model's own sandbox (outside the repository), which a scripted model then opens with
`shell` and `view` and finds whole. Covered: the baseline in the first prompt, and the report of a failed
independent verification (which ran in another sandbox); the host's copies stay in the run folder."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from agent_helpers import act, make_repo, script
from conftest import backend_params, require_backend
from hostile_cases import FLIP, SUBMIT, new_file
from test_lifecycle_resume import env_for

ROOT = Path(__file__).resolve().parents[1]
LOGS = "/tmp/repofix-logs"
BASELINE_LOG = f"{LOGS}/step-000-baseline.log"
# A failing test that prints 300 numbered lines, then an end marker: far more than the feedback budget.
NOISY = """from pkg.report import render


def test_render():
    for i in range(300):
        print(f"row-{i:03d} " + "x" * 40)
    print("END-OF-NOISE")
    assert render([1, 2]) == "1, 2"


def test_empty():
    assert render([]) == ""
"""
FULL_LOG = re.compile(r"Full log: ([^\s\]]+)")


def run_fix(tmp_path: Path, backend: str, replies: list) -> dict:
    require_backend(backend)
    repo = make_repo(
        tmp_path / "repo",
        {
            "pkg/__init__.py": "",
            "pkg/report.py": "def render(items):\n    return '; '.join(str(i) for i in items)\n",
            "pkg/cli.py": "from pkg.report import render\n",
            "tests/test_report.py": NOISY,
        },
    )
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "from repofix.cli import main; main()",
            "fix",
            "--repo",
            str(repo),
            "-m",
            script(tmp_path / "s.yaml", replies),
            "--sandbox",
            backend,
            "--json",
            "--max-steps",
            str(len(replies)),
        ],
        capture_output=True,
        env=env_for(tmp_path / "home", REPOFIX_FEEDBACK_TOKENS="300"),  # so reports are cut
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert result.stdout.startswith("{"), result.stderr
    return json.loads(Path(json.loads(result.stdout)["trajectory_file"]).read_text())


@pytest.mark.parametrize("backend", backend_params(("docker", "bwrap")))
def test_the_baseline_log_named_in_the_first_prompt_opens_in_the_sandbox(tmp_path, backend):
    replies = [
        act(
            "shell",
            "Read the whole log.",
            command=f"grep -c '^row-' {BASELINE_LOG}; grep -x END-OF-NOISE {BASELINE_LOG}",
        ),
        act("view", "Its first lines.", path=BASELINE_LOG, start=1, end=3),
    ]
    record = run_fix(tmp_path, backend, replies)
    first_prompt = record["messages"][1]["content"]
    assert FULL_LOG.findall(first_prompt) == [BASELINE_LOG]  # cut to fit, and named where the model can look
    assert "row-299" not in first_prompt
    grep, view = (step["observation"] for step in record["steps"])
    assert grep.splitlines()[:2] == ["300", "END-OF-NOISE"]  # whole, all 300 lines
    assert view.startswith(f"{BASELINE_LOG} (lines 1-3 of ") and "$ " in view.splitlines()[1]


@pytest.mark.parametrize("backend", backend_params(("docker", "bwrap")))
def test_a_failed_verification_names_a_log_the_model_can_open(tmp_path, backend):
    """A conftest.py that marks every test passed: the model's sandbox agrees, the independent verification
    (the user's test configuration, another sandbox) does not; its report's full log is copied in."""
    replies = [
        act("edit", "Add a conftest.", text=new_file("conftest.py", FLIP)),
        SUBMIT,
        act(
            "shell",
            "Read the verification's log.",
            command=f"grep -hx END-OF-NOISE {LOGS}/*-verification.log",
        ),
    ]
    record = run_fix(tmp_path, backend, replies)
    edit, submit, grep = (step["observation"] for step in record["steps"])
    assert "not in repofix's independent verification" in submit
    named = FULL_LOG.findall(submit)
    assert len(named) == 1 and re.fullmatch(re.escape(LOGS) + r"/step-\d{3}-verification\.log", named[0]), (
        submit
    )
    assert grep.splitlines()[0] == "END-OF-NOISE"
    [verification] = record["verifications"]  # the host keeps its own copy, in the run folder
    assert (
        not verification["done"]
        and Path(verification["log"]).is_file()
        and str(tmp_path) in verification["log"]
    )
