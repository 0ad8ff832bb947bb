"""The REST client and the permission check against the local GitHub stand-in."""

from __future__ import annotations

import pytest
from github_server import GitHubServer

from repofix.ci.events import Trigger
from repofix.ci.github import GitHub, GitHubError
from repofix.ci.permissions import check

READ, WRITE = "ghs_readtoken0123456789abcdefghij", "ghs_writetoken0123456789abcdefghi"


@pytest.fixture
def server():
    with GitHubServer(page_size=2) as running:
        running.repo("acme/widgets").permissions.update(
            alice="admin", bob="write", mia="maintain", carol="read", tim="triage"
        )
        running.add_pull("acme/widgets", 1, head_sha="a" * 40, head_ref="feature")
        yield running


def client(server, token=WRITE, **kwargs) -> GitHub:
    return GitHub("acme/widgets", token, server.url, sleep=lambda seconds: None, **kwargs)


def test_api_url_comes_from_the_environment(server, monkeypatch):
    monkeypatch.setenv("GITHUB_API_URL", server.url + "/")
    assert GitHub("acme/widgets", READ).pull(1)["head"]["sha"] == "a" * 40
    request = server.requests[-1]
    assert request.path == "/repos/acme/widgets/pulls/1"
    assert request.headers["authorization"] == f"Bearer {READ}"
    assert request.headers["x-github-api-version"] == "2022-11-28"


def test_secondary_rate_limits_are_retried(server):
    waits = []
    github = GitHub("acme/widgets", READ, server.url, sleep=waits.append)
    server.rate_limited = 2
    assert github.pull(1)["number"] == 1
    assert waits == [1.0, 1.0]  # Retry-After is honoured
    server.rate_limited = 10
    with pytest.raises(GitHubError, match="secondary rate limit") as caught:
        github.pull(1)
    assert caught.value.status == 403


def test_an_exhausted_quota_fails_instead_of_waiting_an_hour(server, monkeypatch):
    import time

    waits = []
    github = GitHub("acme/widgets", READ, server.url, sleep=waits.append)
    monkeypatch.setattr(
        server,
        "route",
        lambda *args: (
            403,
            {"message": "API rate limit exceeded"},
            {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(time.time()) + 3600)},
        ),
    )
    with pytest.raises(GitHubError, match="rate limit exceeded"):
        github.pull(1)
    assert waits == []


def test_errors_name_the_call_but_never_the_token(server):
    with pytest.raises(GitHubError) as caught:
        client(server, READ).create_comment(1, "hello")
    assert "HTTP 403" in str(caught.value) and "Resource not accessible" in str(caught.value)
    assert READ not in str(caught.value)


def test_comments_are_paginated_created_and_updated(server):
    github = client(server)
    for number in range(5):
        server.add_comment("acme/widgets", 1, "alice", f"comment {number}")
    created = github.create_comment(1, "from the bot")
    github.update_comment(created["id"], "edited")
    bodies = [c["body"] for c in github.comments(1)]
    assert bodies == [f"comment {n}" for n in range(5)] + ["edited"]
    assert sum(1 for r in server.requests if r.method == "GET" and r.path.endswith("/comments")) == 3


@pytest.mark.parametrize(
    "login, allowed",
    [("alice", True), ("bob", True), ("mia", True), ("carol", False), ("tim", False), ("stranger", False)],
)
def test_write_access_is_asked_of_the_permission_api(server, login, allowed):
    verdict = check(Trigger("comment", login, "User", 1, "x"), client(server, READ), "github-actions[bot]")
    assert verdict.allowed is allowed
    if not allowed:
        assert verdict.reply and f"@{login}" in verdict.reason and "write access" in verdict.reason
    assert server.requests[-1].path == f"/repos/acme/widgets/collaborators/{login}/permission"


@pytest.mark.parametrize(
    "login, kind",
    [("github-actions[bot]", "Bot"), ("renovate[bot]", "User"), ("repofix-bot", "User"), ("someapp", "Bot")],
)
def test_bots_and_the_bot_itself_never_trigger(server, login, kind):
    verdict = check(Trigger("comment", login, kind, 1, "x"), client(server, READ), "repofix-bot")
    assert not verdict.allowed and not verdict.reply and "bot" in verdict.reason
    assert server.requests == []  # decided without asking GitHub


def test_allow_list_narrows_who_may_trigger(server):
    github = client(server, READ)
    assert check(Trigger("comment", "Alice", "User", 1), github, "b", allow=["alice"]).allowed
    verdict = check(Trigger("comment", "bob", "User", 1), github, "b", allow=["alice"])
    assert not verdict.allowed and "allow list" in verdict.reason and verdict.reply
    assert not check(Trigger("comment", "carol", "User", 1), github, "b", allow=["carol"]).allowed


def test_failing_test_triggers_are_refused_quietly(server):
    verdict = check(Trigger("fix", "carol", "User", 1), client(server, READ), "github-actions[bot]")
    assert not verdict.allowed and not verdict.reply


def test_fork_workflow_runs_find_their_pull_request_by_head(server):
    from repofix.ci.runstage import find_pull

    server.add_pull("acme/widgets", 7, head_sha="b" * 40, head_ref="feature", head_repo="mallory/widgets")
    github = client(server, READ)
    found = find_pull(
        Trigger(
            "fix", "mallory", "User", None, head_owner="mallory", head_branch="feature", head_sha="b" * 40
        ),
        github,
    )
    assert found["number"] == 7
    assert server.requests[-1].query["head"] == ["mallory:feature"]
    assert (
        find_pull(
            Trigger("fix", "m", "User", None, head_owner="mallory", head_branch="feature", head_sha="c" * 40),
            github,
        )
        is None
    )
