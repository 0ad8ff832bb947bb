"""The guards at their thresholds, on real git commits: each case sits one step either side of a
limit (25 deleted files, half of all files, 80% of a file's lines, 20 lines, 1 MiB, the binary sniff)
or on a path rule, so a constant off by one or a flipped comparison in guards.py fails here."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from test_workspace_support import make_repo

from repofix.workspace.guards import GuardConfig, _link_escapes, _outside, check_change


def commit(
    repo: Path, write: dict[str, bytes | str | None] | None = None, links: dict[str, str] | None = None
) -> str:
    """Apply `write` (None deletes) and `links` to the work tree, commit, return the commit id."""
    for rel, content in (write or {}).items():
        path = repo / rel
        if content is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
    for rel, target in (links or {}).items():
        os.symlink(target, repo / rel)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "step", "--allow-empty"], cwd=repo, check=True)
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, check=True, capture_output=True, text=True
    ).stdout.strip()


def guards(
    tmp_path: Path,
    files: dict[str, str],
    change: dict[str, bytes | str | None],
    config: GuardConfig | None = None,
    links: dict[str, str] | None = None,
) -> list[tuple[str, str | None]]:
    repo = make_repo(tmp_path / "repo", files)
    old = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, check=True, capture_output=True, text=True
    ).stdout.strip()
    new = commit(repo, change, links)
    return [(h.guard, h.path) for h in check_change(repo, old, new, config or GuardConfig())]


@pytest.mark.parametrize(
    ("total", "deleted", "trips"),
    [
        (100, 25, False),  # at most 25 files a step...
        (100, 26, True),  # ...one more is a mass deletion
        (10, 5, True),  # half of all files, when at least 5 go
        (10, 6, True),  # more than half
        (12, 5, False),  # under half
        (6, 4, False),  # 4 of 6 is two thirds, but fewer than 5 files never count as a share
    ],
)
def test_mass_deletion_of_files_at_its_limits(tmp_path, total, deleted, trips) -> None:
    files = {f"d/f{i:03}.txt": f"{i}\n" for i in range(total)}
    hits = guards(tmp_path, files, {f"d/f{i:03}.txt": None for i in range(deleted)})
    assert (("mass-deletion", None) in hits) is trips, hits


def _lines(n: int) -> str:
    return "".join(f"line {i}\n" for i in range(n))


@pytest.mark.parametrize(
    ("length", "removed", "trips"),
    [
        (20, 16, True),  # 80% of a 20-line file
        (20, 15, False),
        (19, 19, False),  # shorter files may be rewritten whole
        (40, 32, True),
    ],
)
def test_mass_deletion_of_lines_at_its_limits(tmp_path, length, removed, trips) -> None:
    before = _lines(length)
    after = "".join(line for i, line in enumerate(before.splitlines(True)) if i >= removed)
    hits = guards(tmp_path, {"m.py": before}, {"m.py": after})
    assert (("mass-deletion", "m.py") in hits) is trips, hits


def test_removed_blank_lines_do_not_count_as_deleted_lines(tmp_path) -> None:
    before = "a = 1\n" * 4 + "\n" * 20
    assert guards(tmp_path, {"m.py": before}, {"m.py": "a = 1\n" * 4}) == []


def test_a_binary_file_rewritten_is_not_judged_by_lines(tmp_path) -> None:
    before = b"\0" + _lines(30).encode()
    assert guards(tmp_path, {"blob.dat": before.decode()}, {"blob.dat": b"\0tail\n"}) == []


@pytest.mark.parametrize(("size", "trips"), [(1024 * 1024, False), (1024 * 1024 + 1, True)])
def test_large_new_file_at_the_limit(tmp_path, size, trips) -> None:
    hits = guards(tmp_path, {"a.txt": "a\n"}, {"big.txt": b"x" * size})
    assert (("large-file", "big.txt") in hits) is trips, hits


def test_growing_an_existing_file_is_not_a_large_new_file(tmp_path) -> None:
    assert guards(tmp_path, {"big.txt": "x\n"}, {"big.txt": b"x" * (2 * 1024 * 1024)}) == []


@pytest.mark.parametrize(("where", "trips"), [(0, True), (7999, True), (8000, False)])
def test_binary_new_file_is_sniffed_in_its_first_8000_bytes(tmp_path, where, trips) -> None:
    content = bytearray(b"t" * 9000)
    content[where] = 0
    hits = guards(tmp_path, {"a.txt": "a\n"}, {"new.dat": bytes(content)})
    assert (("binary-file", "new.dat") in hits) is trips, hits


@pytest.mark.parametrize(
    ("path", "trips"),
    [
        (".github/workflows/ci.yml", True),
        (".gitlab-ci.yml", True),
        ("Jenkinsfile", True),
        (".ci/run", True),
        ("docs/Jenkinsfile", False),
        (".githubx/notes.md", False),
        ("my.gitlab-ci.yml", False),
    ],
)
def test_ci_configuration_paths(tmp_path, path, trips) -> None:
    hits = guards(tmp_path, {"a.txt": "a\n"}, {path: "run: true\n"})
    assert (("ci-config", path) in hits) is trips, hits


def test_an_empty_ci_path_in_the_settings_matches_nothing(tmp_path) -> None:
    config = GuardConfig(ci_paths=("", "Jenkinsfile"))
    assert guards(tmp_path, {"a.txt": "a\n"}, {"docs/x.md": "x\n"}, config) == []


@pytest.mark.parametrize(
    ("path", "target", "escapes"),
    [
        ("link", "/etc/passwd", True),
        ("link", "../secret", True),
        ("a/link", "../b.txt", False),
        ("a/b/link", "../../c.txt", False),
        ("a/b/link", "../../../c.txt", True),
        ("link", "sub/../../x", True),
        ("link", "sub/./x", False),
        ("link", "..x", False),
        ("a/up", "..", False),  # the repository root itself is inside
        ("a/here", ".", False),
    ],
)
def test_symlink_targets(path, target, escapes) -> None:
    assert _link_escapes(path, target.encode()) is escapes


def test_a_symlink_is_judged_as_a_link_not_as_a_new_file(tmp_path) -> None:
    config = GuardConfig(max_new_file_bytes=3)  # the link's target text is longer than 3 bytes
    assert guards(tmp_path, {"a.txt": "a\n"}, {}, config, links={"near": "a.txt"}) == []
    assert guards(tmp_path / "2", {"a.txt": "a\n"}, {}, config, links={"far": "../../x"}) == [
        ("symlink-outside", "far")
    ]


@pytest.mark.parametrize(
    ("path", "outside"),
    [
        ("/etc/passwd", True),
        ("../x", True),
        ("a/../b", True),
        ("a/..", True),
        ("a..b/c", False),
        ("..x/y", False),
        ("a/b...", False),
    ],
)
def test_paths_outside_the_root(path, outside) -> None:
    assert _outside(path) is outside


@pytest.mark.parametrize("guard", ["ci-config", "binary-file", "large-file", "mass-deletion"])
def test_a_disabled_guard_stays_quiet(tmp_path, guard) -> None:
    files = {f"d/f{i}.txt": "x\n" for i in range(30)}
    change: dict[str, bytes | str | None] = {
        ".github/x.yml": "x\n",
        "n.bin": b"\0" * 10,
        "big.txt": b"x" * (2 * 1024 * 1024),
        **{f"d/f{i}.txt": None for i in range(30)},
    }
    on = GuardConfig(enabled=frozenset({"ci-config", "binary-file", "large-file", "mass-deletion"}) - {guard})
    hits = {g for g, _ in guards(tmp_path, files, change, on)}
    assert guard not in hits and len(hits) == 3, hits


def test_what_the_guards_say_names_the_files_and_the_size(tmp_path) -> None:
    """The messages the model reads: the first five deleted files by name, the share, a new file's size."""
    files = {f"d/f{i:03}.txt": f"{i}\n" for i in range(14)}
    repo = make_repo(tmp_path / "repo", files)
    old = commit(repo)
    new = commit(repo, {**{f"d/f{i:03}.txt": None for i in range(7)}, "big.bin": b"x" * (3 * 2**19 + 1)})
    said = {(h.guard, h.path): h.reason for h in check_change(repo, old, new, GuardConfig())}
    assert said[("mass-deletion", None)] == (
        "deletes 7 files of 14: d/f000.txt, d/f001.txt, d/f002.txt, d/f003.txt, d/f004.txt"
    )
    assert said[("large-file", "big.bin")] == "is a new file of 1.5 MiB"
