"""Delivery's git side, without a sandbox (seconds, so the mutation benchmark can run it per mutant): the
commit message, which checkpoint, when no branch is made, which of this run's branches a follow-up goes
on, a branch name that is taken or locked, and a fix inside an inlined submodule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_workspace_support import make_repo, sh

from repofix.workspace import FileEntry, Workspace
from repofix.workspace.deliver import _reserve_branch, deliver
from repofix.workspace.errors import GitError


def started(tmp_path: Path, *, dirty: bool = False) -> tuple[Path, Workspace]:
    repo = make_repo(tmp_path / "user", {"app.py": "print('hi')\n"})
    if dirty:
        (repo / "notes.txt").write_text("my notes\n")
    return repo, Workspace.create(repo, home=tmp_path / "home", label="greet")


def edit(ws: Workspace, text: str, step: int = 1) -> None:
    ws.store.commit_files({"app.py": FileEntry(0o100644, text.encode())}, step=step)


def message(repo: Path, rev: str) -> str:
    """The commit message exactly as stored (`git log --format=%B` would add a newline)."""
    return sh(repo, "git", "cat-file", "commit", rev).split("\n\n", 1)[1]


def test_the_message_is_the_tasks_first_line_cut_at_72_then_the_summary_then_the_trailer(tmp_path):
    repo, ws = started(tmp_path)
    edit(ws, "print('hello')\n")
    task = "  " + "x" * 71 + "yz\nmore detail on a second line\n"
    delivery = deliver(ws, task=task, summary="  Changed the greeting.  \n")
    assert message(repo, delivery.branch) == (
        "x" * 71 + "y\n\nChanged the greeting.\n\nRepofix-Run: " + ws.run_id + "\n"
    )


def test_a_blank_task_and_summary_give_a_plain_title_and_a_branch_named_change(tmp_path):
    repo, ws = started(tmp_path)
    edit(ws, "print('hello')\n")
    delivery = deliver(ws, task=" \n ")
    assert delivery.branch == "repofix/change"
    assert message(repo, delivery.branch) == f"repofix change\n\nRepofix-Run: {ws.run_id}\n"


def test_the_checkpoint_asked_for_is_delivered_not_the_latest(tmp_path):
    repo, ws = started(tmp_path)
    edit(ws, "print('one')\n", step=1)
    edit(ws, "print('two')\n", step=2)
    delivery = deliver(ws, 1, task="Greet")
    assert delivery.checkpoint == 1
    assert sh(repo, "git", "show", f"{delivery.branch}:app.py") == "print('one')\n"
    assert "print('one')" in Path(delivery.patch).read_text()
    latest = deliver(ws, task="Greet")
    assert latest.checkpoint == 2 and latest.branch == delivery.branch
    assert sh(repo, "git", "show", f"{latest.branch}:app.py") == "print('two')\n"


def test_no_branch_without_a_change_or_when_not_asked_and_the_report_keeps_extras(tmp_path):
    repo, ws = started(tmp_path)
    before = sh(repo, "git", "for-each-ref")
    nothing = deliver(ws, task="Greet")  # checkpoint 0: the starting files, nothing changed
    assert (nothing.branch, nothing.commit, nothing.files) == (None, None, [])
    assert Path(nothing.patch).read_text() == ""
    edit(ws, "print('hello')\n")
    patch_only = deliver(ws, task="Greet", make_branch=False, status="gave up", report_extra={"why": "asked"})
    assert (patch_only.branch, patch_only.commit, patch_only.files) == (None, None, ["app.py"])
    assert sh(repo, "git", "for-each-ref") == before
    report = json.loads(Path(patch_only.report).read_text())
    assert (report["why"], report["status"], report["files"]) == ("asked", "gave up", ["app.py"])
    assert ws.folder.read_state()["status"] == "gave up"


def test_a_follow_up_goes_on_the_branch_the_run_recorded_not_a_copy_of_it(tmp_path):
    repo, ws = started(tmp_path)
    edit(ws, "print('hello')\n")
    first = deliver(ws, task="Greet")
    # The user copies the branch (same tip, same trailer) under a name that sorts first.
    sh(repo, "git", "branch", "repofix/a-copy", first.branch)
    edit(ws, "print('hello again')\n", step=2)
    follow = deliver(ws, task="Greet")
    assert follow.branch == first.branch
    assert sh(repo, "git", "rev-parse", "repofix/a-copy").strip() == first.commit  # the copy untouched
    assert sh(repo, "git", "rev-parse", f"{follow.branch}^").strip() == first.commit


def test_a_branch_of_another_run_or_a_look_alike_trailer_is_not_this_runs(tmp_path):
    repo, ws = started(tmp_path)
    edit(ws, "print('hello')\n")
    head = sh(repo, "git", "rev-parse", "HEAD").strip()
    lookalike = sh(
        repo, "git", "commit-tree", f"{head}^{{tree}}", "-p", head, "-m", f"x\n\nRepofix-Run: {ws.run_id}-2"
    ).strip()
    sh(repo, "git", "update-ref", "refs/heads/repofix/greet", lookalike)
    delivery = deliver(ws, task="Greet")
    assert delivery.branch == "repofix/greet-2"
    assert sh(repo, "git", "rev-parse", "repofix/greet").strip() == lookalike


def test_a_locked_branch_name_moves_on_to_the_next_one(tmp_path):
    # Another process holds the ref's lock (it is creating that branch right now): take the next name.
    repo, ws = started(tmp_path)
    edit(ws, "print('hello')\n")
    lock = repo / ".git" / "refs" / "heads" / "repofix" / "greet.lock"
    lock.parent.mkdir(parents=True)
    lock.write_text("")
    delivery = deliver(ws, task="Greet")
    assert delivery.branch == "repofix/greet-2" and lock.exists()


def test_a_fix_inside_an_inlined_submodule_is_delivered_as_the_run_left_the_files(tmp_path):
    lib = make_repo(tmp_path / "lib", {"lib.py": "LIB = 1\n"})
    repo = make_repo(tmp_path / "user", {"app.py": "print('hi')\n"})
    sh(repo, "git", "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "vendor/lib")
    sh(repo, "git", "commit", "-qm", "add submodule")
    ws = Workspace.create(repo, home=tmp_path / "home", local_submodules=True)
    ws.store.commit_files({"vendor/lib/lib.py": FileEntry(0o100644, b"LIB = 2\n")}, step=1)
    delivery = deliver(ws, task="bump lib")
    assert delivery.files == ["vendor/lib/lib.py"] and delivery.snapshot is None
    assert sh(repo, "git", "show", f"{delivery.branch}:vendor/lib/lib.py") == "LIB = 2\n"
    assert (
        sh(repo, "git", "rev-parse", f"{delivery.branch}^").strip()
        == sh(repo, "git", "rev-parse", "HEAD").strip()
    )


def test_every_follow_up_lands_whichever_way_the_trees_ids_compare(tmp_path):
    # Each follow-up must make a new commit on top of the last: only an equal tree means "delivered already".
    repo, ws = started(tmp_path)
    tips = []
    for step in range(1, 9):
        edit(ws, f"print({step})\n", step=step)
        delivery = deliver(ws, task="Greet")
        assert sh(repo, "git", "show", f"{delivery.branch}:app.py") == f"print({step})\n"
        assert sh(repo, "git", "rev-list", "--count", f"HEAD..{delivery.branch}").strip() == str(step)
        tips.append(delivery.commit)
    assert len(set(tips)) == 8


def test_an_invalid_branch_name_fails_at_once_naming_it(tmp_path):
    repo, _ = started(tmp_path)
    head = sh(repo, "git", "rev-parse", "HEAD").strip()
    with pytest.raises(GitError, match=r"invalid ref format: refs/heads/repofix/a\.\.b$"):
        _reserve_branch(repo, "repofix/a..b", head)  # not after trying a..b-2 ... a..b-1000
    assert sh(repo, "git", "for-each-ref", "refs/heads/repofix/") == ""


def test_a_branch_named_repofix_sends_the_delivery_to_a_flat_name_and_its_follow_ups_after_it(tmp_path):
    # git keeps branches as files: `repofix` blocks `repofix/<anything>`. The delivery goes to
    # `repofix-<slug>`, a follow-up finds it there, and nothing else of the user's changes.
    repo, ws = started(tmp_path, dirty=True)
    edit(ws, "print('hello')\n")
    sh(repo, "git", "branch", "repofix")
    sh(repo, "git", "branch", "repofix-greet")  # taken names are skipped as usual
    user_repofix = sh(repo, "git", "rev-parse", "repofix").strip()
    first = deliver(ws, task="Greet")
    assert first.branch == "repofix-greet-2"
    edit(ws, "print('hello again')\n", step=2)
    follow = deliver(ws, task="Greet")
    assert follow.branch == first.branch
    assert sh(repo, "git", "rev-parse", f"{follow.branch}^").strip() == first.commit
    assert sh(repo, "git", "rev-parse", "repofix").strip() == user_repofix
    assert (repo / "notes.txt").read_text() == "my notes\n"


def test_a_name_blocked_for_every_suffix_stops_at_the_thousandth_naming_it(tmp_path):
    # Reserving under a blocked folder tries every candidate up to -1000 (a taken name is normal), then
    # gives git's error; nothing is created.
    repo, _ = started(tmp_path)
    head = sh(repo, "git", "rev-parse", "HEAD").strip()
    sh(repo, "git", "branch", "blocked")
    before = sh(repo, "git", "for-each-ref")
    with pytest.raises(GitError, match=r"'refs/heads/blocked/greet-1000'"):
        _reserve_branch(repo, "blocked/greet", head)
    assert sh(repo, "git", "for-each-ref") == before


def test_a_follow_up_moves_its_branch_even_with_a_tag_of_the_same_name(tmp_path):
    # The branch is moved from the exact commit this run left there (a concurrent change fails), never
    # from whatever its name resolves to: a tag `repofix/greet` would win that lookup.
    repo, ws = started(tmp_path)
    edit(ws, "print('hello')\n")
    first = deliver(ws, task="Greet")
    sh(repo, "git", "tag", first.branch, "HEAD")
    edit(ws, "print('hello again')\n", step=2)
    follow = deliver(ws, task="Greet")
    assert follow.branch == first.branch
    assert sh(repo, "git", "rev-parse", f"refs/heads/{follow.branch}^").strip() == first.commit


def test_taken_names_are_skipped_in_order(tmp_path):
    repo, ws = started(tmp_path)
    edit(ws, "print('hello')\n")
    for taken in ("repofix/greet", "repofix/greet-2"):
        sh(repo, "git", "branch", taken)
    assert deliver(ws, task="Greet").branch == "repofix/greet-3"


def test_a_run_on_inlined_submodules_keeps_them_submodules_whichever_way_the_tree_ids_compare(tmp_path):
    # The run's tree has the submodule's files inlined; the branch must keep the gitlink. Only an equal
    # tree means "the run started from exactly this tree": try HEADs until both orderings of the ids were met.
    lib = make_repo(tmp_path / "lib", {"lib.py": "LIB = 1\n"})
    repo = make_repo(tmp_path / "user", {"app.py": "print('hi')\n"})
    sh(repo, "git", "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "vendor/lib")
    sh(repo, "git", "commit", "-qm", "add submodule")
    seen = set()
    for i in range(30):
        (repo / "app.py").write_text(f"print({i})\n")
        sh(repo, "git", "commit", "-qam", f"version {i}")
        ws = Workspace.create(repo, home=tmp_path / "home", local_submodules=True)
        ws.store.commit_files({"app.py": FileEntry(0o100644, b"print('fixed')\n")}, step=1)
        delivery = deliver(ws, task=f"fix {i}")
        assert sh(repo, "git", "ls-tree", delivery.branch, "vendor/lib").startswith("160000 commit ")
        assert sh(repo, "git", "show", "--format=", "--name-only", delivery.branch).split() == ["app.py"]
        head = sh(repo, "git", "rev-parse", "HEAD^{tree}").strip()
        seen.add(head < sh(ws.folder.repo, "git", "rev-parse", f"{ws.source.base}^{{tree}}").strip())
        if seen == {True, False}:
            break
    assert seen == {True, False}
