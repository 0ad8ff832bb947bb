"""Publish's own checks at their edges: the patch's size limit in bytes, the shortest secret it looks
for, every path problem reported, and an artifact for another pull request or commit refused."""

from __future__ import annotations

import pytest
from github_server import FIX_PATCH

from repofix.ci.artifact import ArtifactError, Report
from repofix.ci.publish import _check_head, _verified, patch_problems, path_problems


def sized(n: int, fill: str = "x") -> str:
    return fill * n


@pytest.mark.parametrize(
    ("patch", "limit", "problem"),
    [
        (sized(50), 50, None),  # exactly the limit is allowed
        (sized(51), 50, "the patch is 51 bytes, above the limit of 50"),
        (sized(25, "é"), 50, None),  # 50 bytes in UTF-8
        (sized(26, "é"), 50, "the patch is 52 bytes, above the limit of 50"),  # 26 characters, 52 bytes
    ],
)
def test_the_size_limit_counts_utf8_bytes(patch, limit, problem):
    assert patch_problems(patch, limit, []) == ([problem] if problem else [])


@pytest.mark.parametrize(
    ("secret", "found"),
    [("s3cr3t!Z", True), ("s3cr3t!", False)],  # 8 characters: a secret; 7: too short to look for
)
def test_the_shortest_secret_looked_for_has_eight_characters(secret, found):
    patch = FIX_PATCH + f"+# {secret}\n"
    expected = ["the patch contains a secret value of this workflow"] if found else []
    assert patch_problems(patch, 10_000, ["not-in-the-patch", secret]) == expected


def test_every_problem_of_a_patch_is_reported_in_order():
    patch = FIX_PATCH + "+# correct-horse-battery\n"
    assert patch_problems(patch, 10, ["correct-horse-battery"]) == [
        f"the patch is {len(patch.encode())} bytes, above the limit of 10",
        "the patch contains a secret value of this workflow",
    ]


def test_every_bad_path_is_reported_in_order():
    paths = ["pkg/ok.py", ".github/x.yml", "a/../../b.py", "sub/.git/config", ".git", "", "docs/.github/x.md"]
    found = path_problems(paths)
    assert len(found) == 4
    assert "`.github/x.yml`" in found[0] and "never changes `.github/`" in found[0]
    assert "outside the repository" in found[1] and "`a/../../b.py`" in found[1]
    assert "git's own folder" in found[2] and "`sub/.git/config`" in found[2]
    assert "git's own folder" in found[3] and "`.git`" in found[3]


def report(**fields) -> Report:
    values = dict(status="done", repository="acme/widgets", pr_number=7, head_sha="a" * 40)
    values.update(fields)
    return Report(**values)


def pull(state: str = "open", sha: str = "a" * 40, number: int = 7) -> dict:
    return {"number": number, "state": state, "head": {"sha": sha}}


def test_an_open_pull_request_at_the_artifacts_commit_is_current():
    assert _check_head(pull(), report()) is None
    # An equal sha that is another string object (as read from the API's JSON): compared by value.
    assert _check_head(pull(sha="".join(["a"] * 40)), report()) is None


@pytest.mark.parametrize(
    ("state", "sha", "expected"), [("closed", "a" * 40, "is `closed`"), ("open", "b" * 40, "moved")]
)
def test_a_closed_or_moved_pull_request_is_stale(state, sha, expected):
    problem = _check_head(pull(state, sha), report())
    assert problem is not None and expected in problem
    if expected == "moved":
        assert f"`{'a' * 12}` to `{'b' * 12}`" in problem


def test_an_artifact_for_this_pull_request_and_commit_is_accepted():
    _verified(report(), pull(), "a" * 40)
    _verified(report(), pull(), None)  # a comment event names no commit: the head check decides


@pytest.mark.parametrize(
    ("fields", "number", "trigger_head", "message"),
    [
        ({"pr_number": 8}, 7, None, "the artifact is for pull request #8, but this workflow run is about #7"),
        ({"pr_number": 6}, 7, None, "the artifact is for pull request #6, but this workflow run is about #7"),
        ({}, 7, "c" * 40, f"the artifact is for commit '{'a' * 12}', but the tests of {'c' * 12} failed"),
    ],
)
def test_an_artifact_for_another_pull_request_or_commit_is_refused(fields, number, trigger_head, message):
    with pytest.raises(ArtifactError) as refused:
        _verified(report(**fields), pull(number=number), trigger_head)
    assert str(refused.value).startswith(message)


def test_a_pull_request_without_a_state_is_not_taken_as_open():
    problem = _check_head({"number": 7, "head": {"sha": "a" * 40}}, report())
    assert problem == "pull request #7 is `None`"


def test_the_artifacts_commit_is_compared_by_value():
    """The two commit names come from two JSON documents: equal text, never the same object."""
    same = "".join(["a"] * 40)
    assert same == "a" * 40 and same is not report().head_sha
    _verified(report(), pull(), same)
