"""Change tracking in the session runner (inotify, with a full walk as fallback) always reports exactly
what a full comparison of before/after snapshots reports."""

from __future__ import annotations

import os
import random
import shutil
import sys
from pathlib import Path

import pytest
from conftest import backend_params

from repofix.sandboxes import SandboxError
from repofix.sandboxes.bundle import runner_dir

sys.path.insert(0, str(runner_dir()))
import changes  # noqa: E402  (the in-sandbox module, imported directly to test it on the host)

CACHES = {".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"}  # never reported


def snapshot(root: Path) -> dict[str, tuple[list, bytes, tuple]]:
    """The oracle, written apart from the module under test: every file and symlink outside the cache
    directories -> ([git mode, is a link], its content or link target, its identity on disk)."""
    out = {}
    for folder, subdirs, names in os.walk(root):
        links = [d for d in subdirs if os.path.islink(os.path.join(folder, d))]
        subdirs[:] = [d for d in subdirs if d not in CACHES and d not in links]
        for name in names + links:
            path = Path(folder, name)
            info = path.lstat()
            if path.is_symlink():
                kind, data = [0o120000, True], os.readlink(path).encode()
            else:
                kind, data = [0o100755 if info.st_mode & 0o111 else 0o100644, False], path.read_bytes()
            identity = (info.st_ino, info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_mode)
            out[path.relative_to(root).as_posix()] = (kind, data, identity)
    return out


def check_report(reported: dict, before: dict, after: dict) -> None:
    """Every file whose content or mode changed (or that is new) is reported with its mode, every
    removed one as deleted; beyond those, only files rewritten or touched on disk may be reported."""
    must = {
        p: kind for p, (kind, data, _) in after.items() if p not in before or before[p][:2] != (kind, data)
    }
    touched = {p for p, (_, _, identity) in after.items() if p in before and before[p][2] != identity}
    assert {p: reported["modified"].get(p) for p in must} == must
    assert set(reported["modified"]) <= set(must) | touched
    assert all(reported["modified"][p] == after[p][0] for p in reported["modified"])
    assert reported["deleted"] == sorted(p for p in before if p not in after)


def write(root: Path, rel: str, text: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text)


OPERATIONS = {
    "edit": lambda r, rng: write(r, rng.choice(files(r)), f"changed {rng.random()}\n") if files(r) else None,
    "create": lambda r, rng: write(r, f"d{rng.randrange(4)}/n{rng.randrange(1000)}.py", "new\n"),
    "deep_dir": lambda r, rng: write(r, f"deep{rng.randrange(100)}/a/b/c.txt", "deep\n"),
    "delete": lambda r, rng: os.unlink(r / rng.choice(files(r))) if files(r) else None,
    "rmtree": lambda r, rng: shutil.rmtree(r / rng.choice(dirs(r))) if dirs(r) else None,
    "rename_dir": lambda r, rng: (
        os.rename(r / rng.choice(dirs(r)), r / f"moved{rng.randrange(1000)}") if dirs(r) else None
    ),
    "rename_over": lambda r, rng: replace_file(r, rng),
    "chmod": lambda r, rng: os.chmod(r / rng.choice(files(r)), 0o755) if files(r) else None,
    "symlink": lambda r, rng: (
        os.symlink("target", r / f"link{rng.randrange(1000)}") if not (r / "link").exists() else None
    ),
    "skipped": lambda r, rng: write(r, "__pycache__/x.pyc", "bytes"),
    "chmod_dir": lambda r, rng: os.chmod(r / rng.choice(dirs(r)), 0o700) if dirs(r) else None,
    "chmod_root": lambda r, rng: os.chmod(r, 0o700),
}


def files(root: Path) -> list[str]:
    return sorted(p for p, (kind, _, _) in snapshot(root).items() if not kind[1])


def dirs(root: Path) -> list[str]:
    return sorted({p.split("/")[0] for p in snapshot(root) if "/" in p})


def replace_file(root: Path, rng: random.Random) -> None:
    present = files(root)
    if present:  # how editors save: write a temporary file, rename it over the original
        write(root, "tmp.swp", "saved\n")
        os.replace(root / "tmp.swp", root / rng.choice(present))


@pytest.mark.parametrize("seed", range(12))
def test_tracker_matches_a_full_comparison(tmp_path, seed):
    rng = random.Random(seed)
    root = tmp_path / "ws"
    for index in range(30):
        write(root, f"d{index % 4}/f{index}.py", f"x = {index}\n")
    tracker = changes.Tracker(str(root))
    uses_inotify = tracker.watcher is not None
    before = snapshot(root)
    for _ in range(8):
        for _ in range(rng.randrange(1, 6)):
            OPERATIONS[rng.choice(sorted(OPERATIONS))](root, rng)
        after = snapshot(root)
        check_report(tracker.changes(), before, after)
        before = after
    assert uses_inotify  # Linux always has it; the fallback is tested below


def test_unread_changes_are_kept_when_not_reset(tmp_path):
    root = tmp_path / "ws"
    write(root, "a.py", "1\n")
    tracker = changes.Tracker(str(root))
    write(root, "a.py", "2\n")
    assert tracker.changes(reset=False)["modified"] == {"a.py": [0o100644, False]}
    write(root, "b.py", "3\n")
    assert set(tracker.changes()["modified"]) == {"a.py", "b.py"}
    assert tracker.changes() == {"modified": {}, "deleted": []}


@pytest.mark.parametrize("failure", ["no-inotify", "overflow"])
def test_walks_the_tree_when_inotify_cannot_tell(tmp_path, failure, monkeypatch):
    root = tmp_path / "ws"
    write(root, "a.py", "1\n")
    if failure == "no-inotify":
        monkeypatch.setattr(changes.watch, "Watcher", _no_inotify)
    tracker = changes.Tracker(str(root))
    if failure == "overflow":
        monkeypatch.setattr(tracker.watcher, "touched", lambda: None)
    write(root, "a.py", "2\n")
    os.mkdir(root / "new")
    write(root, "new/b.py", "b\n")
    assert tracker.changes() == {
        "modified": {"a.py": [0o100644, False], "new/b.py": [0o100644, False]},
        "deleted": [],
    }


def _no_inotify(root, skip):
    raise OSError(38, "inotify not available")


@pytest.mark.parametrize("backend", backend_params(("docker", "bwrap")))
def test_changes_through_a_sandbox_match_a_full_copy(make_sandbox, backend, tmp_path):
    box = make_sandbox(backend)
    script = (
        "mkdir -p a/b && echo 1 > a/b/new.txt && mv pkg moved && chmod +x moved/calc.py && "
        "ln -s moved/calc.py link && rm tests/test_calc.py && echo x > tests/other.py"
    )
    assert box.run(script).ok
    reported = box.changes()
    assert reported.modified == {
        "a/b/new.txt": (0o100644, False),
        "moved/__init__.py": (0o100644, False),
        "moved/calc.py": (0o100755, False),
        "link": (0o120000, True),
        "tests/other.py": (0o100644, False),
    }
    assert reported.deleted == ["pkg/__init__.py", "pkg/calc.py", "tests/test_calc.py"]
    assert not box.changes()


@pytest.mark.parametrize("backend", backend_params(("docker", "bwrap")))
def test_a_write_that_fills_the_disk_leaves_no_temporary_behind(make_sandbox, backend):
    box = make_sandbox(backend)  # its workspace is a 64 MB tmpfs (TEST_LIMITS)
    box.changes()
    with pytest.raises(SandboxError, match="No space left"):
        box.write_files({"pkg/big.bin": b"x" * (80 * 1024 * 1024)})
    listed = box.run("ls -A pkg")
    assert listed.ok and ".repofix-tmp" not in listed.stdout, listed.stdout
    assert not any(".repofix-tmp" in path for path in box.changes().modified)
