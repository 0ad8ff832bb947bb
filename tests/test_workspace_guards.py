"""Each guard fires on its case and stays quiet on ordinary edits; a guarded change is rolled back."""

from __future__ import annotations

import pytest
from conftest import backend_params
from test_workspace_support import make_repo

from repofix.workspace import Workspace
from repofix.workspace.guards import GuardConfig, check_change, enforce

TEST_FILE = """import pytest
from pkg.calc import add, sub


def test_add():
    assert add(1, 2) == 3
    assert add(0, 0) == 0


class TestSub:
    def test_sub(self):
        assert sub(3, 2) == 1
"""

PROJECT = {
    "pkg/__init__.py": "",
    "pkg/calc.py": "".join(f"# line {i}\n" for i in range(30))
    + "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n"
    "    return a - b\n",
    "tests/test_calc.py": TEST_FILE,
    ".github/workflows/ci.yml": "on: push\n",
    "docs/guide.md": "guide\n",
    **{f"data/f{i}.txt": f"{i}\n" for i in range(30)},
}

CASES = {
    "mass-deletion-files": ("rm -rf data", "mass-deletion"),
    "mass-deletion-lines": ("head -n 3 pkg/calc.py > x && mv x pkg/calc.py", "mass-deletion"),
    "removed-test": (
        "python3 - <<'EOF'\nimport re\np='tests/test_calc.py'\ns=open(p).read()\n"
        "s=s.replace('def test_add():', 'def helper():')\nopen(p,'w').write(s)\nEOF",
        "tests",
    ),
    "removed-assert": ("sed -i '/assert add(0, 0)/d' tests/test_calc.py", "tests"),
    "added-skip": (
        "sed -i 's/^def test_add/@pytest.mark.skip(reason=\"flaky\")\\ndef test_add/' tests/test_calc.py",
        "tests",
    ),
    "skip-in-class": (
        "sed -i 's/        assert sub(3, 2) == 1/        pytest.skip(\"no\")/' tests/test_calc.py",
        "tests",
    ),
    "deleted-test-file": ("rm tests/test_calc.py", "tests"),
    "ci-config": ("echo '  - run: true' >> .github/workflows/ci.yml", "ci-config"),
    "large-file": ("head -c 2000000 /dev/urandom | base64 > big.txt", "large-file"),
    "binary-file": ("printf 'x\\000y' > blob.bin", "binary-file"),
    "symlink-outside": ("ln -s /etc/passwd pkg/passwd", "symlink-outside"),
    "symlink-dotdot": ("ln -s ../../secret docs/secret", "symlink-outside"),
}

ORDINARY = [
    "sed -i 's/return a + b/return b + a/' pkg/calc.py",
    "printf 'def test_more():\\n    assert True\\n' >> tests/test_calc.py",
    "echo more >> docs/guide.md && rm data/f1.txt data/f2.txt",
    "mkdir -p pkg/sub && echo 'y = 1' > pkg/sub/mod.py && ln -s ../calc.py pkg/sub/calc_link.py",
    "sed -i 's/assert add(1, 2) == 3/assert add(1, 2) == 3, \"sum\"/' tests/test_calc.py",
]


@pytest.fixture
def project(tmp_path, make_sandbox):
    repo = make_repo(tmp_path / "user", PROJECT)
    ws = Workspace.create(repo, home=tmp_path / "home")
    box = make_sandbox("none", source=ws.export(tmp_path / "export"))
    box.changes()
    return ws, box


@pytest.mark.parametrize("case", sorted(CASES))
def test_guard_fires_and_rolls_back(project, case):
    ws, box = project
    command, guard = CASES[case]
    assert box.run(command, timeout=20).ok
    result = ws.sync(box, step=1)
    outcome = enforce(ws, box, result, GuardConfig(), step=1)
    assert guard in {h.guard for h in outcome.hits}, outcome.hits
    assert outcome.rolled_back is not None
    assert ws.current().tree == ws.store.get(0).tree
    assert "rolled back" in outcome.note and guard in outcome.note
    assert ws.sync(box).checkpoint is None  # the sandbox holds the restored files


@pytest.mark.parametrize("command", ORDINARY)
def test_ordinary_edits_pass(project, command):
    ws, box = project
    assert box.run(command, timeout=20).ok
    result = ws.sync(box, step=1)
    outcome = enforce(ws, box, result, step=1)
    assert outcome.hits == [] and outcome.rolled_back is None


def test_allowed_guard_is_reported_not_rolled_back(project):
    ws, box = project
    box.run("echo '  - run: true' >> .github/workflows/ci.yml", timeout=10)
    result = ws.sync(box, step=1)
    outcome = enforce(ws, box, result, GuardConfig(allow=frozenset({"ci-config"})))
    assert [h.guard for h in outcome.hits] == ["ci-config"] and outcome.rolled_back is None
    assert ws.current().n == result.checkpoint.n


def test_protected_tests_limit_the_test_guard(project):
    ws, box = project
    box.run("sed -i 's/assert sub(3, 2) == 1/sub(3, 2)/' tests/test_calc.py", timeout=10)
    result = ws.sync(box, step=1)
    only_add = GuardConfig(protected_tests=frozenset({"tests/test_calc.py::test_add"}))
    assert check_change(ws.folder.repo, ws.store.get(0).commit, result.checkpoint.commit, only_add) == []
    sub_only = GuardConfig(protected_tests=frozenset({"tests/test_calc.py::TestSub::test_sub"}))
    hits = check_change(ws.folder.repo, ws.store.get(0).commit, result.checkpoint.commit, sub_only)
    assert [h.reason for h in hits] == ["removes 1 assertion(s) from TestSub::test_sub"]


@pytest.mark.parametrize("backend", backend_params(("bwrap",)))
def test_rollback_in_an_isolating_sandbox(tmp_path, make_sandbox, backend):
    repo = make_repo(tmp_path / "user", PROJECT)
    ws = Workspace.create(repo, home=tmp_path / "home")
    box = make_sandbox(backend, source=ws.export(tmp_path / "export"))
    box.changes()
    box.run("rm -rf data tests", timeout=10)
    outcome = enforce(ws, box, ws.sync(box, step=1))
    assert {"mass-deletion", "tests"} <= {h.guard for h in outcome.hits}
    assert box.read_files(["tests/test_calc.py"])["tests/test_calc.py"] == TEST_FILE.encode()


def test_nested_classes_and_parametrized_ids():
    from repofix.workspace.testguard import weakened

    before = (
        b"import pytest\nclass TestA:\n    class TestB:\n        @pytest.mark.parametrize('x', [1, 2])\n"
        b"        def test_b(self, x):\n            assert x > 0\n"
    )
    after = before.replace(b"assert x > 0", b"x")
    protected = frozenset({"t/test_x.py::TestA::TestB::test_b[1]"})
    assert weakened("t/test_x.py", before, after, protected) == [
        "removes 1 assertion(s) from TestA::TestB::test_b"
    ]
    assert weakened("t/test_x.py", before, after, frozenset({"t/test_x.py::test_other"})) == []
