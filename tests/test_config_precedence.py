"""Where a setting comes from: defaults < your config file < the repository's config (only project
facts, unless trusted) < REPOFIX_* environment variables < flags; "none" removes an optional value."""

import contextlib
import dataclasses
import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from repofix import config
from repofix.agent.api import open_run_sandbox
from repofix.cli import main
from repofix.config import Settings, SettingsError, load_settings, with_flags
from repofix.models import make_model
from repofix.sandboxes import Limits

ROOT = Path(__file__).resolve().parent.parent / "repofix"


@pytest.fixture
def where(tmp_path, monkeypatch):
    """A clean environment, a user config file and a repository, both empty."""
    for name in list(os.environ):
        if name.startswith("REPOFIX_"):
            monkeypatch.delenv(name)
    user = tmp_path / "user.toml"
    user.write_text("")
    monkeypatch.setenv("REPOFIX_CONFIG", str(user))
    repo = tmp_path / "repo"
    repo.mkdir()
    return user, repo


LAYERS = ["user", "repo", "env", "flag"]


@pytest.mark.parametrize("present", [LAYERS[i:j] for i in range(4) for j in range(i + 1, 5)] + [[]])
def test_the_highest_layer_given_wins(where, monkeypatch, present):
    """test_timeout is a project fact: every layer may set it; each layer has its own value."""
    user, repo = where
    value = {"user": 11.0, "repo": 22.0, "env": 33.0, "flag": 44.0}
    if "user" in present:
        user.write_text(f"test_timeout = {value['user']}\n")
    if "repo" in present:
        (repo / ".repofix.toml").write_text(f"test-timeout = {value['repo']}\n")
    if "env" in present:
        monkeypatch.setenv("REPOFIX_TEST_TIMEOUT", str(value["env"]))
    flags = {"test_timeout": value["flag"]} if "flag" in present else {}
    expected = value[present[-1]] if present else Settings().test_timeout
    assert load_settings(repo, **flags).test_timeout == expected


@pytest.mark.parametrize("trusted", [False, True])
def test_the_repository_sets_other_settings_only_when_trusted(where, monkeypatch, trusted):
    user, repo = where
    user.write_text("max_steps = 12\nmodel = 'user/model'\n")
    (repo / "pyproject.toml").write_text("[tool.repofix]\nmax_steps = 50\nmodel = 'repo/model'\n")
    settings = load_settings(repo, trust_repo=trusted)
    assert (settings.max_steps, settings.model) == ((50, "repo/model") if trusted else (12, "user/model"))
    assert bool(settings.notices) is not trusted
    monkeypatch.setenv("REPOFIX_MAX_STEPS", "7")  # the environment beats even a trusted repository
    assert load_settings(repo, trust_repo=trusted).max_steps == 7
    assert load_settings(repo, trust_repo=trusted, max_steps=3).max_steps == 3


def test_none_removes_a_cap_at_every_layer(where, monkeypatch):
    user, repo = where
    assert load_settings(repo).max_cost == 2.0
    user.write_text("max_cost = 'none'\n")
    assert load_settings(repo).max_cost is None
    monkeypatch.setenv("REPOFIX_MAX_COST", "3")
    assert load_settings(repo).max_cost == 3.0
    assert load_settings(repo, max_cost=None).max_cost == 3.0  # None: the flag was not given
    assert load_settings(repo, max_cost="none").max_cost is None
    assert load_settings(repo, max_cost="NONE", model="none").model is None
    assert with_flags(Settings(max_cost=5.0), max_cost="none").max_cost is None  # resume / continue


def test_none_is_a_sandbox_backend_not_an_unset_value(where, monkeypatch):
    _, repo = where
    assert load_settings(repo, sandbox="none").sandbox == "none"
    assert with_flags(Settings(sandbox="bwrap"), sandbox="none").sandbox == "none"
    monkeypatch.setenv("REPOFIX_SANDBOX", "none")
    assert load_settings(repo).sandbox == "none"


def test_flags_are_coerced_like_every_other_source(where):
    _, repo = where
    settings = load_settings(repo, max_steps="7", max_cost="1.5", native_tools="no", setup="a;;b")
    assert (settings.max_steps, settings.max_cost, settings.native_tools, settings.setup) == (
        7,
        1.5,
        False,
        ("a", "b"),
    )


@pytest.mark.parametrize(
    "source, origin",
    [
        ("flag", "--max-cost"),
        ("env", "$REPOFIX_MAX_COST"),
        ("user", "user.toml"),
    ],
)
@pytest.mark.parametrize("bad", ["-1", "nan", "cheap"])
def test_a_bad_value_names_where_it_came_from(where, monkeypatch, source, origin, bad):
    user, repo = where
    flags = {}
    if source == "flag":
        flags["max_cost"] = bad
    elif source == "env":
        monkeypatch.setenv("REPOFIX_MAX_COST", bad)
    else:
        user.write_text(f"max_cost = '{bad}'\n")
    with pytest.raises(SettingsError, match=re.escape(origin) + r".*max_cost.*at least 0.*'none'"):
        load_settings(repo, **flags)


def test_a_step_limit_cannot_be_removed_or_zero(where):
    _, repo = where
    with pytest.raises(SettingsError, match="max_steps = 'none'"):
        load_settings(repo, max_steps="none")
    with pytest.raises(SettingsError, match="at least 1"):
        load_settings(repo, max_steps=0)


def test_an_unknown_flag_is_a_programming_error(where):
    with pytest.raises(TypeError, match="max_stepz"):
        load_settings(where[1], max_stepz=3)


@pytest.mark.parametrize("flag", ["-1", "lots"])
def test_the_cli_refuses_a_bad_cap_before_anything_starts(where, tmp_path, monkeypatch, flag):
    monkeypatch.setenv("REPOFIX_HOME", str(tmp_path / "home"))
    result = CliRunner().invoke(
        main, ["fix", "--repo", str(where[1]), "--max-cost", flag, "--sandbox", "none"]
    )
    assert result.exit_code == 2, result.output
    assert "--max-cost: max_cost = " in result.output and "Traceback" not in result.output
    assert not (tmp_path / "home").exists()


def test_repofix_variables_have_one_reader(where, monkeypatch, tmp_path):
    """home, scratch, image, git identity: read in config; an empty variable counts as unset."""
    monkeypatch.setenv("REPOFIX_HOME", str(tmp_path / "h"))
    monkeypatch.setenv("REPOFIX_SCRATCH", "")
    monkeypatch.setenv("REPOFIX_IMAGE", "mine:1")
    monkeypatch.setenv("REPOFIX_GIT_NAME", "Bot")
    assert config.home_dir() == tmp_path / "h"
    assert config.scratch_dir().name == "repofix-sandboxes"
    assert config.docker_image() == "mine:1"
    assert config.git_identity("n", "e@x") == ("Bot", "e@x")
    assert config.git_remote({"REPOFIX_GIT_REMOTE": "/srv/r.git"}) == "/srv/r.git"


def test_no_module_but_config_reads_a_repofix_variable():
    # The pytest plugin runs inside the sandbox, beside the variable testing/command.py sets for it;
    # so does the coverage run's sitecustomize for a test's child Pythons (the variables it sets).
    allowed = {
        *(ROOT / "config").glob("*.py"),
        ROOT / "testing" / "pytest_plugin.py",
        ROOT / "repair" / "insandbox" / "subtrace.py",
    }
    reader = re.compile(r"""(environ(\.get)?\s*[\[(]\s*|getenv\(\s*|envvar=)["']REPOFIX_""")
    found = [
        str(path.relative_to(ROOT))
        for path in ROOT.rglob("*.py")
        if path not in allowed and reader.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_sections_merge_key_by_key_across_layers(where, monkeypatch):
    user, repo = where
    user.write_text(
        "[limits]\nmemory_mb = 2048\npids = 100\n\n[model_call]\ntimeout = 30\ntemperature = 'none'\n"
    )
    (repo / ".repofix.toml").write_text("[limits]\nmemory_mb = 99999\n")  # untrusted: ignored, with a notice
    monkeypatch.setenv("REPOFIX_LIMITS_PIDS", "200")
    monkeypatch.setenv("REPOFIX_MODEL_CALL_MAX_TOKENS", "1000")
    settings = load_settings(repo, model_call={"max_retries": "1"})
    assert (settings.limits.memory_mb, settings.limits.pids, settings.limits.cpus) == (2048, 200, None)
    assert settings.limits.given() == {"memory_mb": 2048, "pids": 200}
    assert settings.model_call == config.ModelCall(
        timeout=30.0, max_retries=1, max_tokens=1000, temperature=None
    )
    assert "limits.memory_mb" in settings.notices[0]
    assert load_settings(repo, trust_repo=True).limits.memory_mb == 99999


@pytest.mark.parametrize(
    "text, message",
    [
        ("limits = 3\n", "limits is a section"),
        ("[limits]\nmemory = 3\n", "unknown setting 'limits.memory'"),
        ("[limits]\ncpus = 0\n", "limits.cpus = 0 is not a number of at least 0.01"),
        (
            "[model_call]\nmax_retries = -1\n",
            "model_call.max_retries = -1 is not a whole number of at least 0",
        ),
    ],
)
def test_a_bad_section_is_named(where, text, message):
    user, repo = where
    user.write_text(text)
    with pytest.raises(SettingsError, match=re.escape(message)):
        load_settings(repo)


def test_the_recorded_settings_come_back_whole(where):
    """resume reads the settings from the trajectory's JSON: sections come back as sections."""
    settings = load_settings(where[1], limits={"tmp_mb": 64}, model_call={"timeout": 9}, setup=("a;;b"))
    record = json.loads(json.dumps(dataclasses.asdict(settings)))
    assert config.settings_from_record(record) == settings
    assert config.settings_from_record({"max_steps": 4, "gone": 1}) == Settings(
        max_steps=4
    )  # an older record


def test_model_call_options_reach_the_model(where):
    call = load_settings(where[1], model_call={"timeout": "7", "max_tokens": 300}).model_call
    model = make_model("openai/gpt-4o", **dataclasses.asdict(call))
    assert (model.timeout, model.max_tokens, model.max_retries, model.temperature) == (7.0, 300, 4, 0.0)


def test_sandbox_limits_reach_the_sandbox(where, tmp_path):
    settings = load_settings(where[1], sandbox="none", command_timeout=42, limits={"memory_mb": "1234"})
    tree = tmp_path / "tree"
    tree.mkdir()
    with contextlib.closing(open_run_sandbox(settings, tree)) as box:
        assert (box.limits.memory_mb, box.limits.timeout, box.limits.pids) == (1234, 42.0, Limits().pids)
