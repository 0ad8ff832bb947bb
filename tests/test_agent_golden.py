"""A golden trajectory: a fixed scripted fix on a fixed repository must record the same
trajectory every time (after dropping what legitimately varies: times, run ids, paths, commits,
costs). Regenerate on purpose with REPOFIX_UPDATE_GOLDEN=1 and review the diff."""

from __future__ import annotations

import difflib
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from agent_helpers import RIGHT_FIX, WRONG_FIX, act, clamp_repo, script
from conftest import require_backend

from repofix.agent import AgentRequest, run_agent
from repofix.config import Settings

GOLDEN = Path(__file__).parent / "golden" / "fix_clamp.json"
REPLIES = [
    act("view", "Look first.", path="pkg/mathx.py"),
    act("python", "Where are the returns?", code="print('\\n'.join(grep('return', 'pkg/*.py')))"),
    WRONG_FIX,
    RIGHT_FIX,
]
# Keys whose values change from run to run by nature.
VOLATILE = {"started", "updated", "duration", "run_id", "cost", "spent"}
HEX = re.compile(r"\b[0-9a-f]{40}\b")
INDEX_LINE = re.compile(r"^index [0-9a-f]{7,40}\.\.[0-9a-f]{7,40}", re.MULTILINE)


def normalize(value: Any, replacements: dict[str, str]) -> Any:
    """The trajectory without times, run ids, absolute paths, commit ids and costs."""
    if isinstance(value, dict):
        return {
            key: normalize(item, replacements) for key, item in sorted(value.items()) if key not in VOLATILE
        }
    if isinstance(value, list):
        return [normalize(item, replacements) for item in value]
    if isinstance(value, str):
        for old, new in replacements.items():  # longest first, so a folder wins over its parent
            value = value.replace(old, new)
        value = INDEX_LINE.sub("index <blob>..<blob>", value)
        return HEX.sub("<commit>", value)
    return value


def replacements_for(outcome, tmp_path: Path) -> dict[str, str]:
    pairs = {str(outcome.run_dir): "<run-dir>", str(tmp_path): "<tmp>", outcome.run_id: "<run>"}
    return dict(sorted(pairs.items(), key=lambda item: -len(item[0])))


@pytest.mark.bwrap
def test_golden_trajectory_of_a_scripted_fix(tmp_path, monkeypatch):
    require_backend("bwrap")
    # the settings record the interpreter chosen: the golden run is of the default one, not of a
    # venv active where the suite runs (CI's sandbox venv, a developer's)
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    repo = clamp_repo(tmp_path / "repo")
    request = AgentRequest(
        repo=repo,
        mode="fix",
        settings=Settings(
            model=script(tmp_path / "replies.yaml", REPLIES), sandbox="bwrap", home=str(tmp_path / "home")
        ),
    )
    outcome = run_agent(request)
    assert outcome.status == "done", outcome.message
    recorded = json.loads(Path(outcome.trajectory_file).read_text(encoding="utf-8"))
    text = (
        json.dumps(
            normalize(recorded, replacements_for(outcome, tmp_path)),
            indent=1,
            sort_keys=True,
            ensure_ascii=False,
        )
        + "\n"
    )
    assert str(tmp_path) not in text and outcome.run_id not in text
    if os.environ.get("REPOFIX_UPDATE_GOLDEN") == "1":
        # Regenerating compares nothing: say so instead of passing (the file would equal itself).
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(text, encoding="utf-8")
        pytest.skip(
            f"regenerated {GOLDEN.name}: review `git diff`, then run again without REPOFIX_UPDATE_GOLDEN"
        )
    expected = GOLDEN.read_text(encoding="utf-8")
    diff = "".join(
        difflib.unified_diff(expected.splitlines(True), text.splitlines(True), str(GOLDEN), "this run")
    )
    assert not diff, f"the trajectory changed (REPOFIX_UPDATE_GOLDEN=1 regenerates it if intended):\n{diff}"
