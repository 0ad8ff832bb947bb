"""`ci publish` against the API stand-in and a bare remote: what gets pushed, suggested, replied or
rejected. Artifacts are written here directly (as `ci run` would), with real patches."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from github_server import FIX_PATCH, WRITE_TOKEN, GitHubServer, World, git

from repofix.ci import artifact
from repofix.ci.artifact import ArtifactError, Report
from repofix.ci.events import MARKER, Event
from repofix.ci.github import GitHub
from repofix.ci.publish import PublishSettings, patch_problems, path_problems, publish_stage

EVENTS = Path(__file__).parent / "events"


@pytest.fixture
def server():
    with GitHubServer() as running:
        yield running


@pytest.fixture
def world(tmp_path: Path, server) -> World:
    return World(tmp_path, server)


def make_artifact(world: World, patch: str = FIX_PATCH, **fields) -> Path:
    directory = world.root / f"artifact-{len(list(world.root.glob('artifact-*')))}"
    values = dict(
        status="done",
        repository=world.repository,
        pr_number=1,
        head_sha=world.pull["head"]["sha"],
        head_ref="feature",
        head_repository=world.repository,
        trigger="fix",
        mode="fix",
        actor="alice",
        tests_before="1 passed, 1 failed of 2",
        tests_after="2 passed, 0 failed of 2",
        files_changed=["pkg/calc.py"],
        cost=0.0123,
        run_id="20261122-run",
        run_url="https://github.example/acme/widgets/actions/runs/4242",
        summary="Fixed `add`.",
    )
    values.update(fields)
    artifact.write(directory, Report(**values), patch, "summary")
    return directory


def comment_event(world: World, body: str = "/repofix", login: str = "alice") -> Event:
    """The event the publishing workflow run was started by (GitHub writes it; publish re-reads it)."""
    data = json.loads((EVENTS / "issue_comment_repofix.json").read_text())
    data["comment"].update(body=body, user={"login": login, "type": "User"})
    return Event("issue_comment", world.repository, data)


def publish(world: World, directory: Path, event: Event | None = None, **settings):
    github = GitHub(world.repository, WRITE_TOKEN, world.server.url, sleep=lambda s: None)
    options = PublishSettings(
        directory,
        str(world.bare),
        world.repository,
        workdir=world.root,
        run_url="https://github.example/acme/widgets/actions/runs/4242",
        **settings,
    )
    return publish_stage(event or comment_event(world), github, options, [WRITE_TOKEN])


def test_same_repository_pr_gets_a_commit_and_one_sticky_comment(world: World):
    result = publish(world, make_artifact(world))
    assert result.action == "pushed"
    tip = world.branch()
    assert tip == result.commit and git(world.bare, "rev-parse", f"{tip}^") == world.head
    assert git(world.bare, "show", f"{tip}:pkg/calc.py") == "def add(a, b):\n    return a + b"
    assert (
        git(world.bare, "log", "-1", "--format=%an|%s", tip)
        == "github-actions[bot]|repofix: make the failing tests pass"
    )
    [comment] = world.bot_comments()
    assert comment["body"].startswith(MARKER)
    for text in (
        "tests pass",
        "`1 passed, 1 failed of 2` → `2 passed, 0 failed of 2`",
        "`pkg/calc.py`",
        "$0.0123",
        "actions/runs/4242",
        f"Pushed `{tip[:12]}` to `feature`",
    ):
        assert text in comment["body"]
    # The next result on the same PR updates that comment in place.
    world.server.add_comment(world.repository, 1, "alice", f"{MARKER} a human quoting the marker")
    world.pull["head"]["sha"] = tip
    again = publish(world, make_artifact(world, "", tests_before="2 passed", tests_after="2 passed"))
    assert again.action == "reported" and again.comment_id == comment["id"]
    assert len(world.bot_comments()) == 1 and "already pass" in world.bot_comments()[0]["body"]
    assert [r.method for r in world.server.writes()] == ["POST", "PATCH"]


def test_artifact_text_never_enters_the_commit_message(world: World):
    result = publish(
        world, make_artifact(world, tests_before="@everyone\n\nSigned-off-by: mallory", actor="mallory")
    )
    assert result.action == "pushed"
    message = git(world.bare, "log", "-1", "--format=%B", world.branch())
    assert message.startswith("repofix: make the failing tests pass\n\nTests: ? -> 2 passed, 0 failed of 2")
    assert "@everyone" not in message and "mallory" not in message


def test_stale_artifact_is_not_published(world: World):
    directory = make_artifact(world)
    moved = world.move_head()
    result = publish(world, directory)
    assert result.action == "rejected" and "moved" in result.message and "stale" in result.message
    assert world.branch() == moved
    [comment] = world.bot_comments()
    assert "Not published" in comment["body"]


def test_branch_moving_after_the_check_makes_the_push_fail(world: World):
    directory = make_artifact(world)
    api_head = world.pull["head"]["sha"]
    moved = world.move_head()
    world.pull["head"]["sha"] = api_head  # the API has not caught up yet
    git(world.bare, "update-ref", "refs/pull/1/head", api_head)
    result = publish(world, directory)
    assert result.action == "rejected" and "rejected" in result.message
    assert world.branch() == moved


@pytest.mark.parametrize("path", [".github/workflows/ci.yml", ".github/CODEOWNERS"])
def test_changes_to_dot_github_are_refused(world: World, path: str):
    patch = FIX_PATCH + (
        f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
        "@@ -0,0 +1 @@\n+on: push\n"
    )
    result = publish(world, make_artifact(world, patch))
    assert result.action == "rejected" and f"`{path}`" in result.message and world.branch() == world.head


def test_patch_text_checks():
    big = FIX_PATCH + "+" + "x" * 100 + "\n"
    assert patch_problems(big, 50, []) == [f"the patch is {len(big)} bytes, above the limit of 50"]
    secret = FIX_PATCH + "+password = 'correct-horse-battery'\n"
    assert patch_problems(secret, 10_000, ["correct-horse-battery"]) == [
        "the patch contains a secret value of this workflow"
    ]
    assert patch_problems(secret, 10_000, ["correct-horse-staple"]) == []
    shaped = FIX_PATCH + f"+token = 'ghp_{'a' * 36}'\n"
    assert patch_problems(shaped, 10_000, []) == ["the patch contains a string shaped like a credential"]
    assert patch_problems(FIX_PATCH, 10_000, [WRITE_TOKEN]) == []


@pytest.mark.parametrize(
    "path, problem",
    [
        (".github/workflows/ci.yml", "never changes `.github/`"),
        (".GitHub/workflows/ci.yml", "never changes `.github/`"),
        ("\uff0egithub/workflows/ci.yml", "never changes `.github/`"),  # a full-width dot, NFKC-folded
        (".git\u200bhub/workflows/ci.yml", "never changes `.github/`"),  # an invisible zero-width space
        ("../x.py", "outside the repository"),
        ("/etc/x.py", "outside the repository"),
        ("sub/.GIT/hooks/post-commit", "git's own folder"),
        ("pkg/calc.py", None),
        ("docs/github/notes.md", None),
        ("pkg/.github-notes.md", None),
    ],
)
def test_path_checks(path: str, problem: str | None):
    found = path_problems([path])
    assert (problem in found[0]) if problem else found == []


def test_patch_that_does_not_apply_is_refused(world: World):
    result = publish(world, make_artifact(world, FIX_PATCH.replace("a - b", "a * b")))
    assert result.action == "rejected" and "does not apply" in result.message and world.branch() == world.head


def test_tampered_or_foreign_artifacts_are_refused(world: World):
    directory = make_artifact(world)
    (directory / "patch.diff").write_text(FIX_PATCH + "+evil\n")
    with pytest.raises(ArtifactError, match="hash"):
        publish(world, directory)
    with pytest.raises(ArtifactError, match="not 'acme/widgets'"):
        publish(world, make_artifact(world, repository="other/repo"))
    (directory / "report.json").write_text('{"status": "done", "pr_number": "1; rm -rf /"}')
    with pytest.raises(ArtifactError, match="pr_number"):
        publish(world, directory)
    assert world.server.writes() == [] and world.branch() == world.head


def test_fork_pr_gets_a_suggestion_with_a_command_that_applies(tmp_path: Path, server):
    world = World(tmp_path, server, fork=True)
    refs_before = git(world.bare, "for-each-ref")
    result = publish(world, make_artifact(world, head_repository="mallory/widgets", fork=True))
    assert result.action == "suggested"
    assert git(world.bare, "for-each-ref") == refs_before  # nothing pushed anywhere
    [comment] = world.bot_comments()
    body = comment["body"]
    assert "comes from a fork" in body and "```diff" in body
    command = re.search(r"```sh\n(.*?)\n```", body, re.DOTALL).group(1)
    checkout = tmp_path / "contributor"
    git(tmp_path, "clone", "-q", "-b", "feature", str(world.bare), str(checkout))
    subprocess.run(["bash", "-c", command], cwd=checkout, check=True)
    assert (checkout / "pkg/calc.py").read_text() == "def add(a, b):\n    return a + b\n"


def test_refusal_is_decided_again_by_publish_whatever_the_artifact_says(world: World):
    """carol (read access) asked; a doctored artifact claims a finished run. Publish asks GitHub itself,
    answers carol, and pushes nothing."""
    result = publish(world, make_artifact(world, actor="alice"), comment_event(world, login="carol"))
    assert result.action == "replied" and world.branch() == world.head
    [reply] = world.bot_comments()
    assert (
        reply["body"].startswith("<!-- repofix:reply -->") and "@carol, repofix did not run" in reply["body"]
    )
    assert "`read` access" in reply["body"] and MARKER not in reply["body"]
    permission_checks = [r.path for r in world.server.requests if r.path.endswith("/permission")]
    assert permission_checks == ["/repos/acme/widgets/collaborators/carol/permission"]


def test_skips_and_quiet_refusals_write_nothing(world: World):
    assert (
        publish(world, make_artifact(world, "", status="skipped", pr_number=None, reason="push")).action
        == "nothing"
    )
    assert publish(world, make_artifact(world, "", status="refused", reply=False)).action == "nothing"
    assert world.server.writes() == []


def test_secrets_are_redacted_from_the_comment(world: World):
    publish(
        world,
        make_artifact(world, "", status="not_done", summary=f"I found {WRITE_TOKEN} and ghp_{'z' * 36}"),
    )
    body = world.bot_comments()[0]["body"]
    assert WRITE_TOKEN not in body and "ghp_" not in body and body.count("[REDACTED]") == 2


def test_large_fork_suggestions_keep_the_command_whole():
    from repofix.ci.comment import suggestion

    patch = FIX_PATCH + "".join(f"+line {n}\n" for n in range(2000))  # ~20 KB
    text = suggestion(patch, 7, budget=30_000)
    assert "<details>" not in text and text.count("+line 1999") == 1 and "git apply --index" in text
    assert "too large for a comment" in suggestion(patch, 7, budget=10_000)
    both = suggestion(FIX_PATCH, 7)
    assert both.count("+    return a + b") == 2 and "gh pr checkout 7" in both
    tricky = FIX_PATCH + "+REPOFIX_PATCH\n+````\n"
    fenced = suggestion(tricky, 7)
    assert "<<'REPOFIX_PATCH_" in fenced and "`````sh" in fenced
