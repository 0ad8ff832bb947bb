"""`repofix fix` / `implement` / `show` as a user meets them: exit codes (0 done, 1 not done,
2 usage or setup error), --json, --apply, plain-line progress on a pipe, --help."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from agent_helpers import CLAMP, DIRECT_FIX, act, clamp_repo, git, script
from click.testing import CliRunner
from conftest import require_backend

from repofix.cli import main

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "from repofix.cli import main; main()"]
FIXED = CLAMP.replace("x < hi", "x > hi")


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("REPOFIX_HOME", str(tmp_path / "home"))
    for name in ("REPOFIX_MODEL", "REPOFIX_SANDBOX", "REPOFIX_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "home"


def repofix(*args: str, home: Path, before: str = "") -> subprocess.CompletedProcess:
    """The real command in a child process: stderr is a pipe, not a terminal. `before`: Python the
    child runs first."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REPOFIX_")}
    env.update(REPOFIX_HOME=str(home), PYTHONPATH=str(ROOT))
    command = [sys.executable, "-c", f"{before}\n{CLI[-1]}"] if before else CLI
    return subprocess.run([*command, *args], env=env, capture_output=True, text=True, timeout=600, cwd=ROOT)


@pytest.mark.bwrap
def test_a_run_whose_model_is_not_litellms_never_imports_litellm(tmp_path, home):
    """Importing LiteLLM takes seconds (8 s on a busy 2-core machine): a scripted or built-in
    model's run counts its tokens without it (it imported LiteLLM to count the baseline's text)."""
    require_backend("bwrap")
    repo = clamp_repo(tmp_path / "repo")
    model = script(tmp_path / "s.yaml", [DIRECT_FIX])
    said = "import atexit, sys; atexit.register(lambda: print('litellm imported:', 'litellm' in sys.modules))"
    result = repofix(
        "fix", "--repo", str(repo), "--model", model, "--sandbox", "bwrap", home=home, before=said
    )
    assert result.returncode == 0, result.stderr
    assert "baseline: " in result.stderr  # its feedback was counted and condensed
    assert result.stdout.splitlines()[-1] == "litellm imported: False"


def test_help_lists_implement_and_fix():
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    for name in ("implement", "fix", "resume", "show"):
        assert any(line.split()[:1] == [name] for line in lines), result.output


@pytest.mark.parametrize(
    "case",
    [
        "missing repo",
        "unknown sandbox flag",
        "unknown sandbox env",
        "missing script",
        "implement without a model",
    ],
)
def test_usage_and_setup_errors_exit_2(tmp_path, home, monkeypatch, case):
    repo = clamp_repo(tmp_path / "repo")
    replies = script(tmp_path / "s.yaml", [DIRECT_FIX])
    args, expected = {
        "missing repo": (["fix", "--repo", str(tmp_path / "nowhere"), "--model", replies], "does not exist"),
        "unknown sandbox flag": (
            ["fix", "--repo", str(repo), "--model", replies, "--sandbox", "lxc"],
            "'lxc' is not one of",
        ),
        "unknown sandbox env": (["fix", "--repo", str(repo), "--model", replies], "unknown sandbox 'lxc'"),
        "missing script": (
            [
                "fix",
                "--repo",
                str(repo),
                "--model",
                f"scripted:{tmp_path / 'gone.yaml'}",
                "--sandbox",
                "bwrap",
            ],
            "cannot read the script",
        ),
        "implement without a model": (
            ["implement", "add wrap()", "--repo", str(repo), "--sandbox", "bwrap"],
            "`implement` needs a language model",
        ),
    }[case]
    if case == "unknown sandbox env":
        monkeypatch.setenv("REPOFIX_SANDBOX", "lxc")
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert expected in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("args", [["implement", "add wrap()"], ["fix", "the clamp is wrong above hi"]])
def test_no_model_for_a_task_the_builtin_engine_cannot_do_names_the_settings(tmp_path, home, args):
    """`implement`, or `fix` with a description, and no model: a message to act on, nothing started (the
    built-in engine ships with repofix and only makes failing tests pass)."""
    repo = clamp_repo(tmp_path / "repo")
    result = CliRunner().invoke(main, [*args, "--repo", str(repo), "--sandbox", "bwrap"])
    assert result.exit_code == 2, result.output
    assert "No model configured" in result.output
    assert (
        "REPOFIX_MODEL" in result.output and "OPENAI_API_KEY" in result.output and "--model" in result.output
    )
    assert not (home / "runs").exists() or not list((home / "runs").iterdir())  # nothing was started


@pytest.mark.bwrap
def test_fix_json_apply_show_and_plain_progress(tmp_path, home):
    require_backend("bwrap")
    repo = clamp_repo(tmp_path / "repo")
    model = script(tmp_path / "s.yaml", [act("view", path="pkg/mathx.py"), DIRECT_FIX])
    result = repofix(
        "fix", "--repo", str(repo), "--model", model, "--sandbox", "bwrap", "--json", "--apply", home=home
    )
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout)
    assert outcome["status"] == "done" and outcome["reason"] == "done" and outcome["run_id"]
    assert "+    if x > hi:" in outcome["patch"] and outcome["applied"] == ["pkg/mathx.py"]
    assert (repo / "pkg/mathx.py").read_text() == FIXED
    assert git(repo, "status", "--porcelain") == " M pkg/mathx.py\n"
    # not a terminal: plain lines, one per step, no cursor control
    assert "\r" not in result.stderr and "\033[" not in result.stderr
    lines = result.stderr.splitlines()
    assert f"run {outcome['run_id']}" in result.stderr and any(
        line.startswith("baseline: ") for line in lines
    )
    assert [line.split(" | ")[0] for line in lines if line.startswith("step ")] == ["step 1/30", "step 2/30"]

    shown = CliRunner().invoke(main, ["show", outcome["run_id"]])
    assert shown.exit_code == 0, shown.output
    assert "-- step 1: view" in shown.output and "-- step 2: edit" in shown.output
    assert "Edit applied: pkg/mathx.py" in shown.output and "status done" in shown.output

    undone = repofix("undo", "--repo", str(repo), home=home)  # says which run and which repository
    assert undone.returncode == 0, undone.stderr
    assert (
        undone.stdout.strip()
        == f"undid the apply of run {outcome['run_id']} in {repo.resolve()}: 1 file(s) restored"
    )
    assert git(repo, "status", "--porcelain") == ""


@pytest.mark.bwrap
def test_not_done_exits_1_and_is_not_applied(tmp_path, home):
    require_backend("bwrap")
    repo = clamp_repo(tmp_path / "repo")
    model = script(tmp_path / "s.yaml", [act("view", path="pkg/mathx.py")])
    result = repofix(
        "fix",
        "--repo",
        str(repo),
        "--model",
        model,
        "--sandbox",
        "bwrap",
        "--max-steps",
        "1",
        "--apply",
        home=home,
    )
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("NOT DONE (step_limit)")
    assert "not applied: the run is not done" in result.stdout
    assert git(repo, "status", "--porcelain") == ""


@pytest.mark.bwrap
def test_apply_refuses_to_overwrite_uncommitted_changes(tmp_path, home):
    require_backend("bwrap")
    repo = clamp_repo(tmp_path / "repo")
    mine = CLAMP + "# my uncommitted note\n"
    (repo / "pkg/mathx.py").write_text(mine)
    model = script(tmp_path / "s.yaml", [DIRECT_FIX])
    # --rev HEAD: the run starts from the commit, so the user's edit is theirs alone
    result = repofix(
        "fix",
        "--repo",
        str(repo),
        "--rev",
        "HEAD",
        "--model",
        model,
        "--sandbox",
        "bwrap",
        "--json",
        "--apply",
        home=home,
    )
    assert result.returncode == 1, result.stderr
    outcome = json.loads(result.stdout)
    assert outcome["status"] == "done" and outcome["applied"] == []
    assert "pkg/mathx.py" in outcome["apply_error"] and "uncommitted" not in outcome["patch"]
    assert (repo / "pkg/mathx.py").read_text() == mine
    assert git(repo, "show", f"{outcome['branch']}:pkg/mathx.py") == FIXED  # the result is still delivered


@pytest.mark.bwrap
def test_owner_name_source_from_the_mirror_of_the_user_config(tmp_path, home):
    """`mirror = "DIR"` in the user config arrives as a string; `--repo owner/name` is acquired from it
    (the string reached a Path division and the run ended in a TypeError traceback: mypy found it)."""
    require_backend("bwrap")
    repo = clamp_repo(tmp_path / "repo")
    mirror = tmp_path / "mirror"
    (mirror / "acme").mkdir(parents=True)
    git(tmp_path, "clone", "-q", "--mirror", str(repo), str(mirror / "acme" / "clamp.git"))
    config = tmp_path / "config.toml"
    config.write_text(f"mirror = {json.dumps(str(mirror))}\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("REPOFIX_")}
    env.update(REPOFIX_HOME=str(home), REPOFIX_CONFIG=str(config), PYTHONPATH=str(ROOT))
    model = script(tmp_path / "s.yaml", [DIRECT_FIX])
    result = subprocess.run(
        [*CLI, "fix", "--repo", "acme/clamp", "--model", model, "--sandbox", "bwrap", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    outcome = json.loads(result.stdout)
    assert outcome["status"] == "done" and "+    if x > hi:" in outcome["patch"]
