"""What the verification run tests: the checkpoint's changes over the starting tree, with the test
infrastructure (test files, conftest.py, pytest config sections, sitecustomize, .pth) as in the
reference: the baseline, or the checkpoint where the red tests were accepted. Real git, no sandbox."""

from __future__ import annotations

from agent_helpers import clamp_repo

from repofix.agent.verify import verification_tree
from repofix.workspace import Workspace
from repofix.workspace.store import FileEntry

PYPROJECT = '[project]\nname = "pkg"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n'


def entry(text: str) -> FileEntry:
    return FileEntry(0o100644, text.encode())


def test_model_changes_to_test_infrastructure_are_not_counted(tmp_path):
    repo = clamp_repo(tmp_path / "repo")
    (repo / "pyproject.toml").write_text(PYPROJECT)
    ws = Workspace.create(repo, home=tmp_path / "home", rev=None)
    original_tests = (repo / "tests/test_mathx.py").read_text()
    ws.store.commit_files(
        {
            "pkg/mathx.py": entry("def clamp(x, lo, hi):\n    return x\n"),
            "tests/test_mathx.py": entry("def test_low():\n    assert True\n"),
            "tests/test_extra.py": entry("def test_new():\n    assert True\n"),
            "conftest.py": entry("# flips outcomes\n"),
            "sitecustomize.py": entry("import os\n"),
            "evil.pth": entry("import os\n"),
            "pyproject.toml": entry(
                PYPROJECT.replace('name = "pkg"', 'name = "pkg2"').replace('"-q"', '"-p flip"')
            ),
        }
    )
    tree = verification_tree(ws, 1)
    assert tree.not_counted == [
        "conftest.py",
        "evil.pth",
        "pyproject.toml",
        "sitecustomize.py",
        "tests/test_extra.py",
        "tests/test_mathx.py",
    ]
    assert tree.files["pkg/mathx.py"].data.startswith(b"def clamp")  # the fix is what gets tested
    assert "tests/test_extra.py" not in tree.files  # a new test of the model's: not judged, not run
    assert "tests/test_mathx.py" not in tree.files  # the starting tree's version stays
    assert original_tests == (repo / "tests/test_mathx.py").read_text()
    assert {p for p in ("conftest.py", "sitecustomize.py", "evil.pth") if p in tree.files} == set()
    assert tree.files["pyproject.toml"].data == PYPROJECT.replace('name = "pkg"', 'name = "pkg2"').encode()


def test_accepted_red_tests_are_the_reference_for_implement(tmp_path):
    repo = clamp_repo(tmp_path / "repo")
    ws = Workspace.create(repo, home=tmp_path / "home", rev=None)
    red = "from pkg.mathx import wrap\n\ndef test_wrap():\n    assert wrap(12, 0, 10) == 2\n"
    ws.store.commit_files({"tests/test_wrap.py": entry(red)})  # 1: accepted red tests
    ws.store.commit_files(
        {
            "pkg/mathx.py": entry("def wrap(x, lo, hi):\n    return 2\n"),
            "tests/test_wrap.py": entry("def test_wrap():\n    assert True\n"),
        }
    )  # 2: weakened
    tree = verification_tree(ws, 2, reference=1)
    assert tree.files["tests/test_wrap.py"].data == red.encode()
    assert tree.not_counted == ["tests/test_wrap.py"]
    ws.store.commit_files({"tests/test_wrap.py": None})  # 3: deleted
    assert verification_tree(ws, 3, reference=1).files["tests/test_wrap.py"].data == red.encode()


def test_what_pytest_loads_before_any_test_is_the_users(tmp_path):
    """Files pytest itself reads or imports before a test runs: a new module shadowing pytest or
    the standard library at the top level, plugin metadata, pytest.toml, bytecode. A module of the
    same kind that the user's tree already has is the project's own, and the model's edit counts."""
    repo = clamp_repo(tmp_path / "repo")
    (repo / "calendar.py").write_text("WEEK = 7\n")  # the project's own, shadowing the stdlib
    (repo / "pkg" / "__init__.py").write_text("")
    ws = Workspace.create(repo, home=tmp_path / "home", rev=None)
    ws.store.commit_files(
        {
            "pkg/mathx.py": entry("def clamp(x, lo, hi):\n    return x\n"),
            "pytest.py": entry("import sys\n"),
            "inspect.py": entry("import sys\n"),
            "pkg/inspect.py": entry("X = 1\n"),  # pkg.inspect: shadows nothing
            "helpers.py": entry("X = 1\n"),
            "calendar.py": entry("WEEK = 8\n"),
            "pytest.toml": entry('[pytest]\naddopts = ["-p", "flip"]\n'),
            "flip-1.0.dist-info/entry_points.txt": entry("[pytest11]\nflip = flip\n"),
            "pkg/__pycache__/mathx.cpython-311.pyc": entry("forged"),
        }
    )
    tree = verification_tree(ws, 1)
    assert tree.not_counted == [
        "flip-1.0.dist-info/entry_points.txt",
        "inspect.py",
        "pkg/__pycache__/mathx.cpython-311.pyc",
        "pytest.py",
        "pytest.toml",
    ]
    assert sorted(tree.files) == ["calendar.py", "helpers.py", "pkg/inspect.py", "pkg/mathx.py"]
