"""Delivery of a run that started from uncommitted work, through the CLI with a scripted model on a small
multi-module project: the branch holds the user's work as a labelled snapshot commit, then the fix commit
with exactly the files the `files:` line names (also when the fix undoes an uncommitted change, so the two
cancel out against HEAD); `--apply` writes the fix over the user's working tree, their work kept."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from agent_helpers import act, git, make_repo, script, search_replace
from conftest import require_backend
from test_lifecycle_resume import env_for, repofix

pytestmark = pytest.mark.bwrap

PRICING = """from pkg.util import round_cents


def subtotal(items):
    return sum(price * qty for price, qty in items)


def total(items, tax_rate):
    return round_cents(subtotal(items) * (1 + tax_rate))
"""
UTIL = """def round_cents(value):
    return round(value + 1e-9, 2)
"""
CLI = """import sys

from pkg.pricing import total


def main(argv=None):
    args = [float(a) for a in (argv or sys.argv[1:])]
    print(total([(args[0], int(args[1]))], args[2]))
"""
TESTS = {
    "tests/test_pricing.py": "from pkg.pricing import subtotal, total\n\n\ndef test_subtotal():\n"
    "    assert subtotal([(2.5, 4), (1.0, 3)]) == 13.0\n\n\ndef test_total():\n"
    "    assert total([(10.0, 3)], 0.1) == 33.0\n",
    "tests/test_util.py": "from pkg.util import round_cents\n\n\ndef test_round_cents():\n"
    "    assert round_cents(1.005) == 1.01\n",
}
BUG = PRICING.replace("price * qty", "price + qty")
DISCOUNT = "\n\ndef discount(amount, percent):\n    return round_cents(amount * (1 - percent / 100))\n"
FIX = act(
    "edit",
    "Multiply, don't add.",
    text=search_replace(
        "pkg/pricing.py",
        "    return sum(price + qty for price, qty in items)",
        "    return sum(price * qty for price, qty in items)",
    ),
)
SUBMIT = act("submit", "Done.", summary="subtotal multiplies price by quantity")

# case: (pricing.py at HEAD, the uncommitted edits, the files the snapshot commit changes on HEAD)
CASES = {
    # the user's uncommitted edit brought the bug in; the fix undoes it: against HEAD they cancel out
    "cancels_out": (
        PRICING,
        {"pkg/pricing.py": BUG, "notes/todo.md": "- ship it\n"},
        ["notes/todo.md", "pkg/pricing.py"],
    ),
    # the bug is committed; the user's uncommitted work is elsewhere
    "unrelated": (
        BUG,
        {"pkg/util.py": UTIL + "\n\ndef percent(x):\n    return x / 100\n", "notes/todo.md": "- ship it\n"},
        ["notes/todo.md", "pkg/util.py"],
    ),
    # the bug is committed; the user's uncommitted work is in the same file, away from the bug
    "same_file": (BUG, {"pkg/pricing.py": BUG + DISCOUNT}, ["pkg/pricing.py"]),
    "clean": (BUG, {}, []),
}


def project(root: Path, case: str) -> tuple[Path, str]:
    head_pricing, edits, _ = CASES[case]
    repo = make_repo(
        root,
        {
            "pkg/__init__.py": "",
            "pkg/pricing.py": head_pricing,
            "pkg/util.py": UTIL,
            "pkg/cli.py": CLI,
            **TESTS,
            "README.md": "# shop\n",
        },
    )
    for path, text in edits.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    return repo, git(repo, "rev-parse", "HEAD").strip()


def changed(repo: Path, commit: str) -> list[str]:
    """The files `commit` changes against its parent, as `git show --stat` lists them."""
    return sorted(git(repo, "show", "--format=", "--name-only", commit).split())


def run_fix(tmp_path: Path, repo: Path, *extra: str):
    model = script(tmp_path / "replies.yaml", [FIX, SUBMIT])
    return repofix(
        env_for(tmp_path / "home"), "fix", "--repo", str(repo), "-m", model, "--sandbox", "bwrap", *extra
    )


@pytest.mark.parametrize("case", list(CASES))
def test_branch_holds_the_snapshot_then_exactly_the_fix(tmp_path, case):
    require_backend("bwrap")
    repo, head = project(tmp_path / "shop", case)
    status_before = git(repo, "status", "--porcelain", "--untracked-files=all")
    result = run_fix(tmp_path, repo)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert re.search(r"^  files: +pkg/pricing\.py$", out, re.MULTILINE), out
    (branch,) = git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/repofix/").split()
    assert f"  branch:     {branch}  " in out
    # the fix commit: one line changed in the one file the summary names
    assert changed(repo, branch) == ["pkg/pricing.py"]
    fix_diff = git(repo, "show", "--format=", branch)
    assert [
        line for line in fix_diff.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")
    ] == [
        "-    return sum(price + qty for price, qty in items)",
        "+    return sum(price * qty for price, qty in items)",
    ]
    assert git(repo, "show", f"{branch}:pkg/pricing.py") == PRICING + (
        DISCOUNT if case == "same_file" else ""
    )
    snapshot_files = CASES[case][2]
    if snapshot_files:  # below the fix: the user's work, labelled, on their HEAD
        snapshot = git(repo, "rev-parse", f"{branch}^").strip()
        assert git(repo, "rev-parse", f"{snapshot}^").strip() == head
        assert changed(repo, snapshot) == snapshot_files
        run_id = json.loads((tmp_path / "home" / "runs" / only(tmp_path) / "report.json").read_text())[
            "run_id"
        ]
        assert (
            git(repo, "log", "-1", "--format=%s", snapshot).strip()
            == f"repofix: snapshot of uncommitted work at start of run {run_id}"
        )
        assert (
            f"  commits:    2 on your HEAD: {snapshot[:12]} your uncommitted work at the start (snapshot), "
            f"{git(repo, 'rev-parse', branch).strip()[:12]} the fix\n" in out
        )
        report = json.loads((tmp_path / "home" / "runs" / run_id / "report.json").read_text())
        assert (
            report["snapshot"] == snapshot
            and report["includes_uncommitted"]
            and report["files"] == ["pkg/pricing.py"]
        )
        shown = repofix(env_for(tmp_path / "home"), "show", run_id)
        assert (
            f"2 on your HEAD: {snapshot[:12]}" in shown.stdout
            and "files:      pkg/pricing.py" in shown.stdout
        )
    else:
        assert git(repo, "rev-parse", f"{branch}^").strip() == head and "commits:" not in out
    if case == "cancels_out":  # honest: against HEAD the branch only adds the notes, and says why
        assert git(repo, "diff", "--name-only", head, branch).split() == ["notes/todo.md"]
    # the user's branch, index and working tree as they were
    assert git(repo, "rev-parse", "HEAD").strip() == head
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == status_before


def only(tmp_path: Path) -> str:
    (run_dir,) = (tmp_path / "home" / "runs").iterdir()
    return run_dir.name


@pytest.mark.parametrize("case", ["cancels_out", "unrelated", "same_file"])
def test_apply_puts_the_fix_over_the_uncommitted_work(tmp_path, case):
    require_backend("bwrap")
    repo, head = project(tmp_path / "shop", case)
    edits = CASES[case][1]
    result = run_fix(tmp_path, repo, "--apply")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "applied to your working tree: pkg/pricing.py" in result.stdout
    assert (repo / "pkg/pricing.py").read_text() == PRICING + (DISCOUNT if case == "same_file" else "")
    for path, text in edits.items():  # the rest of the user's work untouched
        if path != "pkg/pricing.py":
            assert (repo / path).read_text() == text
    status = git(repo, "status", "--porcelain", "--untracked-files=all").splitlines()
    expected = {
        "cancels_out": ["?? notes/todo.md"],
        "unrelated": [" M pkg/pricing.py", " M pkg/util.py", "?? notes/todo.md"],
        "same_file": [" M pkg/pricing.py"],
    }[case]
    assert sorted(status) == expected and git(repo, "rev-parse", "HEAD").strip() == head
