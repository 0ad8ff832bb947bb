"""The composite action and the example workflows: statically safe (least privilege, no untrusted
text in shell scripts, no pull_request_target), and the action's own shell steps run for real against
the GitHub API stand-in, the bare remote and the agent with a scripted model."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import require_backend
from github_server import READ_TOKEN, WRITE_TOKEN, GitHubServer, World, git

ROOT = Path(__file__).resolve().parent.parent
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
WORKFLOWS = sorted((ROOT / "examples" / "github").glob("*.yml"))
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
WRITE_SCOPES = {"contents", "pull-requests", "issues", "actions", "checks", "statuses", "packages"}


def _on(workflow: dict) -> dict:
    return workflow.get("on") or workflow.get(True) or {}  # YAML 1.1 reads a bare `on` as True


def _steps(document: dict):
    yield from document.get("runs", {}).get("steps", [])
    for job in document.get("jobs", {}).values():
        yield from job.get("steps", [])


@pytest.mark.parametrize("path", [ROOT / "action.yml", *WORKFLOWS], ids=lambda p: p.name)
def test_no_expression_is_pasted_into_a_shell_script(path: Path):
    document = yaml.safe_load(path.read_text())
    for step in _steps(document):
        assert not EXPRESSION.search(step.get("run", "")), f"{path.name}: {step.get('run')}"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_example_workflows_use_least_privilege(path: Path):
    workflow = yaml.safe_load(path.read_text())
    assert "pull_request_target" not in _on(workflow)
    assert workflow["permissions"] == {}  # nothing by default; each job asks for what it needs
    for name, job in workflow["jobs"].items():
        permissions = job["permissions"]
        writes = {scope for scope, level in permissions.items() if level == "write"}
        assert writes <= {"contents", "pull-requests"}
        stages = [
            step.get("with", {}).get("stage") for step in job["steps"] if "repofix" in step.get("uses", "")
        ]
        if "run" in stages:  # the job that runs the PR's code (in the sandbox) can only read
            assert not writes, f"{path.name}:{name}"
        if "publish" in stages:  # the job that can write never checks out or runs anything else
            assert all("repofix" in step.get("uses", "") for step in job["steps"]), f"{path.name}:{name}"
        for step in job["steps"]:
            if step.get("uses", "").startswith("actions/checkout"):
                assert step["with"]["persist-credentials"] is False
                assert "ref" not in step["with"]  # never the PR head: the base branch only


# -- running the composite action's shell steps ------------------------------------------------------------


def _value(expression: str, context: dict) -> str:
    scope, _, rest = expression.partition(".")
    if scope == "inputs":
        return context["inputs"][rest]
    if scope == "github":
        return {"token": context["token"], "action_path": str(ROOT)}[rest]
    if scope == "steps":
        step, kind, name = rest.split(".")
        return context["steps"].get(step, {}).get(kind, {}).get(name, "")
    raise AssertionError(f"expression not understood by this test's runner: {expression}")


def _render(text: str, context: dict) -> str:
    return EXPRESSION.sub(lambda m: _value(m.group(1), context), str(text))


def _condition(text: str | None, context: dict) -> bool:
    for term in (text or "true").split("&&"):
        term = term.strip()
        if term in ("true", "always()"):
            continue
        left, operator, right = re.fullmatch(r"(\S+) (==|!=) '(.*)'", term).groups()
        if (_value(left, context) == right) != (operator == "=="):
            return False
    return True


def run_action(inputs: dict, env: dict, workspace: Path, token: str) -> list[subprocess.CompletedProcess]:
    """GitHub's composite-action semantics for the `run:` steps; `uses:` steps (setup-python, artifact
    upload/download) and the pip install are stand-ins here: the artifact folder is shared on disk."""
    context = {
        "inputs": {
            name: _render(spec.get("default", ""), {"token": token})
            for name, spec in ACTION["inputs"].items()
        },
        "token": token,
        "steps": {},
    }
    context["inputs"].update(inputs)
    done = []
    for step in ACTION["runs"]["steps"]:
        if "uses" in step or step["id"] == "install" or not _condition(step.get("if"), context):
            continue
        output = workspace.parent / f"output-{step['id']}"
        output.write_text("")
        step_env = {**env, "GITHUB_OUTPUT": str(output), "RUNNER_TEMP": str(workspace.parent / "runner-temp")}
        step_env.update({key: _render(value, context) for key, value in step.get("env", {}).items()})
        result = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", step["run"]],
            cwd=workspace,
            env=step_env,
            capture_output=True,
            text=True,
        )
        done.append(result)
        context["steps"][step["id"]] = {
            "outputs": dict(line.split("=", 1) for line in output.read_text().splitlines()),
            "outcome": "success" if result.returncode == 0 else "failure",
        }
        if result.returncode:
            break
    return done


def repofix_on_path(tmp_path: Path) -> str:
    shim = tmp_path / "bin" / "repofix"
    shim.parent.mkdir()
    shim.write_text(
        f"#!/bin/sh\nexec {sys.executable} -c 'import sys; from repofix.cli import main; "
        'sys.argv[0] = "repofix"; main()\' "$@"\n'
    )
    shim.chmod(0o755)
    return f"{shim.parent}:{os.environ['PATH']}"


def test_both_stages_in_one_job_answer_a_reader_with_a_refusal(tmp_path: Path):
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    with GitHubServer() as server:
        world = World(tmp_path, server)
        event = json.loads((ROOT / "tests" / "events" / "issue_comment_repofix.json").read_text())
        event["comment"]["user"]["login"] = "carol"
        env = {
            "PATH": repofix_on_path(tmp_path),
            "PYTHONPATH": str(ROOT),
            "HOME": str(tmp_path),
            **{k: v for k, v in world.env("issue_comment", event).items() if k != "GITHUB_TOKEN"},
        }
        steps = run_action({"stage": "both", "sandbox": "bwrap"}, env, workspace, WRITE_TOKEN)
        assert [r.returncode for r in steps] == [0, 0, 0], [r.stderr[-2000:] for r in steps]
        assert "refused" in steps[1].stdout and "replied" in steps[2].stdout
        [reply] = world.bot_comments()
        assert "@carol, repofix did not run" in reply["body"]
        assert world.branch() == world.head


@pytest.mark.bwrap
def test_the_action_fixes_a_pr_in_two_stages(tmp_path: Path):
    require_backend("bwrap")
    script = tmp_path / "script.yaml"
    script.write_text(
        yaml.safe_dump(
            [
                {
                    "tool": "edit",
                    "arguments": {
                        "text": "pkg/calc.py\n<<<<<<< SEARCH\n    return a - b\n=======\n"
                        "    return a + b\n>>>>>>> REPLACE\n"
                    },
                },
                {"tool": "submit", "arguments": {"summary": "Fixed."}},
            ]
        )
    )
    workspace = tmp_path / "workspace"  # the workflow's checkout of the base branch
    workspace.mkdir()
    with GitHubServer() as server:
        world = World(tmp_path, server)
        event = json.loads((ROOT / "tests" / "events" / "workflow_run_failure.json").read_text())
        event["workflow_run"]["head_sha"] = world.head
        base_env = {
            "PATH": repofix_on_path(tmp_path),
            "PYTHONPATH": str(ROOT),
            "HOME": str(tmp_path),
            **{k: v for k, v in world.env("workflow_run", event).items() if k != "GITHUB_TOKEN"},
        }
        ran = run_action(
            {"stage": "run", "model": f"scripted:{script}", "sandbox": "bwrap"},
            base_env,
            workspace,
            READ_TOKEN,
        )
        assert [r.returncode for r in ran] == [0, 0], [r.stderr[-2000:] for r in ran]
        assert "repofix ci: done" in ran[-1].stdout
        published = run_action({"stage": "publish"}, base_env, workspace, WRITE_TOKEN)
        assert [r.returncode for r in published] == [0, 0], [r.stderr[-2000:] for r in published]
        assert "repofix ci: pushed" in published[-1].stdout
        assert git(world.bare, "rev-parse", "feature^") == world.head
        [comment] = world.bot_comments()
        assert "tests pass" in comment["body"]
        assert (tmp_path / "runner-temp" / "repofix-artifact" / "trajectory" / "trajectory.json").is_file()
