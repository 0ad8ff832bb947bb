"""A candidate patch never writes inside the tree's .git: the host runs git on that tree after the
patch (restoring files, reading the diff), so a .git/config it wrote (a filter, a pager, an external
diff) would run what the model or a predictions file chose. git apply refuses such paths itself;
the GNU patch fallback is refused here."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from repofix.evaluation import patching
from repofix.evaluation.patching import PatchError, apply_patch


def git_tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    tree.mkdir()
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    (tree / "m.py").write_text("a = 1\n")
    return tree


def add_file(path: str, text: str, header: str = "diff --git") -> str:
    lines = "".join("+" + line for line in text.splitlines(True))
    first = f"diff --git a/{path} b/{path}\n" if header == "diff --git" else f"Index: {path}\n"
    return f"{first}--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{len(text.splitlines())} @@\n{lines}"


def change_config(tree: Path) -> str:
    old = (tree / ".git" / "config").read_text().splitlines(True)
    body = "".join(" " + line for line in old) + '+[core]\n+\tpager = "touch PWNED"\n'
    return f"--- a/.git/config\n+++ b/.git/config\n@@ -1,{len(old)} +1,{len(old) + 2} @@\n{body}"


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(change_config, id="edit .git/config"),
        pytest.param(
            lambda t: add_file(".git/hooks/post-checkout", "#!/bin/sh\ntouch PWNED\n"), id="new hook"
        ),
        pytest.param(lambda t: add_file(".git/info/attributes", "* filter=x\n", "Index"), id="Index header"),
        pytest.param(lambda t: add_file("sub/.GIT/config", "[core]\n"), id="nested, other case"),
    ],
)
def test_a_patch_writing_inside_git_is_refused_and_git_is_untouched(tmp_path, make):
    tree = git_tree(tmp_path)
    config = (tree / ".git" / "config").read_text()
    hooks = sorted(p.name for p in (tree / ".git" / "hooks").iterdir())
    with pytest.raises(PatchError, match=r"inside \.git"):
        apply_patch(tree, make(tree))
    assert (tree / ".git" / "config").read_text() == config
    assert sorted(p.name for p in (tree / ".git" / "hooks").iterdir()) == hooks
    assert not (tree / ".git" / "info" / "attributes").exists()
    assert not (tree / "sub").exists()


def test_an_ordinary_patch_still_applies_with_the_fallback(tmp_path):
    tree = git_tree(tmp_path)
    # A drifted context line: git apply refuses, GNU patch applies it with fuzz.
    (tree / "m.py").write_text("a = 1\nb = 2 # drifted\nc = 3\nd = 4\n")
    text = "--- a/m.py\n+++ b/m.py\n@@ -1,4 +1,4 @@\n a = 1\n b = 2\n-c = 3\n+c = 30\n d = 4\n"
    assert apply_patch(tree, text) == "patch --fuzz=5"
    assert (tree / "m.py").read_text() == "a = 1\nb = 2 # drifted\nc = 30\nd = 4\n"
    assert (tree / ".git" / "HEAD").is_file()


def test_a_git_dir_made_while_patch_runs_is_removed_and_refused(tmp_path):
    """The second line of defence: whatever file names patch read, a .git it made is not kept."""
    tree = git_tree(tmp_path)
    head = (tree / ".git" / "HEAD").read_text()
    with pytest.raises(PatchError, match=r"inside \.git"), patching._git_dir_aside(tree):
        assert not (tree / ".git").exists()
        (tree / ".git" / "hooks").mkdir(parents=True)
        (tree / ".git" / "hooks" / "post-checkout").write_text("#!/bin/sh\ntouch PWNED\n")
    assert (tree / ".git" / "HEAD").read_text() == head
    assert not (tree / ".git" / "hooks" / "post-checkout").exists()
