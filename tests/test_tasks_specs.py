"""YAML task specs: loading, located error messages, patch files, the JSON Schema, materialize."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import pytest

from repofix.tasks import RemoteSource, SpecError, Task, TasksError, load_specs, load_tasks, materialize
from repofix.tasks.model import spec_json_schema
from tests.datasets import humanevalfix_rows

ROOT = Path(__file__).resolve().parents[1]
TEST_PATCH = """\
diff --git a/tests/test_m.py b/tests/test_m.py
new file mode 100644
--- /dev/null
+++ b/tests/test_m.py
@@ -0,0 +1,4 @@
+from pkg.m import double
+
+def test_double():
+    assert double(2) == 4
"""
GOLD_PATCH = """\
diff --git a/pkg/m.py b/pkg/m.py
--- a/pkg/m.py
+++ b/pkg/m.py
@@ -1,2 +1,2 @@
 def double(x):
-    return x + 2
+    return x * 2
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


@pytest.fixture
def spec_dir(tmp_path: Path) -> Path:
    """A spec folder in the bundled layout: task.yaml, repo/, tests.patch, gold.patch."""
    folder = tmp_path / "double-bug"
    write(folder / "repo" / "pkg" / "__init__.py", "")
    write(folder / "repo" / "pkg" / "m.py", "def double(x):\n    return x + 2\n")
    (folder / "tests.patch").write_text(TEST_PATCH)
    (folder / "gold.patch").write_text(GOLD_PATCH)
    write(
        folder / "task.yaml",
        """\
        id: double-bug
        repo:
          path: repo
        base_commit: null
        problem_statement: |
          double(2) returns 4 by luck; double(3) returns 5.
        environment:
          python: "3.11"
          setup: []
        test_cmd: "python -m pytest -q"
        FAIL_TO_PASS: ["tests/test_m.py::test_double"]
        PASS_TO_PASS: []
        test_patch: tests.patch
        patch: gold.patch
        time_limit: 900
        tags: [bug]
        """,
    )
    return folder


def test_spec_folder_loads_with_patches_resolved(spec_dir: Path):
    [task] = load_specs([spec_dir / "task.yaml"])
    assert task.id == "double-bug"
    assert Path(task.repo.path) == (spec_dir / "repo").resolve()
    assert task.test_patch == TEST_PATCH and task.patch == GOLD_PATCH
    assert task.environment.python == "3.11" and task.time_limit == 900 and task.tags == ["bug"]
    # A folder of spec folders finds */task.yaml.
    assert [t.id for t in load_tasks([spec_dir.parent])] == ["double-bug"]


def test_list_file_with_inline_files_and_inline_patch(tmp_path: Path):
    spec = {
        "id": "x/y__z-1",
        "repo": {"files": {"pkg/m.py": "def double(x):\n    return x + 2\n", "pkg/__init__.py": ""}},
        "problem_statement": "fix double",
        "FAIL_TO_PASS": ["tests/test_m.py::test_double"],
        "test_patch": TEST_PATCH,
        "patch": GOLD_PATCH,
    }
    other = {**spec, "id": "second", "repo": {"github": "octo/cat"}, "base_commit": "abc123"}
    path = tmp_path / "set.yaml"
    path.write_text(json.dumps([spec, other]))  # JSON is YAML
    first, second = load_specs([path])
    assert first.repo.files is not None and first.test_cmd == "python -m pytest -q"
    assert second.repo.kind == "github" and second.base_commit == "abc123"


BAD_SPECS = [
    ("FAIL_TO_PASS: tests/test_m.py::test_double", "task 'foo': FAIL_TO_PASS: expected a list of test ids"),
    ("FAIL_TO_PASS: [1]", "task 'foo': FAIL_TO_PASS[0]: expected a test id (a string)"),
    ("FAIL_TO_PAS: []", "task 'foo': FAIL_TO_PAS: unknown field (did you mean 'FAIL_TO_PASS'?)"),
    ("environment: {python: 3.10}", "task 'foo': environment.python: write the version in quotes"),
    ("environment: {setup: pip install .}", "task 'foo': environment.setup: expected a list"),
    ("time_limit: -5", "task 'foo': time_limit: input should be greater than 0"),
    ("test_patch: missing.patch", "task 'foo': test_patch: file 'missing.patch' not found next to the spec"),
    ("test_patch: 'hello world'", "task 'foo': test_patch: does not contain a unified diff"),
    ("patch: |\n  --- a/x\n  +++ b/x\n  @@ -1,3 +1,3 @@\n  -a\n", "task 'foo': patch: does not parse"),
    ("PASS_TO_PASS: ['tests/t.py::a']\nFAIL_TO_PASS: ['tests/t.py::a']", "task 'foo': PASS_TO_PASS: also in"),
    ("FAIL_TO_PASS: []", "task 'foo': FAIL_TO_PASS: must name at least one test"),
]


@pytest.mark.parametrize(("line", "expected"), BAD_SPECS, ids=[b[0].split(":")[0] for b in BAD_SPECS])
def test_invalid_field_is_named_with_file_and_task(tmp_path: Path, line: str, expected: str):
    lines = {"FAIL_TO_PASS": "FAIL_TO_PASS: ['tests/t.py::ok']"}
    key = line.split(":")[0]
    body = "id: foo\nrepo: {files: {'m.py': ''}}\nproblem_statement: fix it\n"
    if key != "FAIL_TO_PAS" and "FAIL_TO_PASS" not in line:
        body += lines["FAIL_TO_PASS"] + "\n"
    path = tmp_path / "x.yaml"
    path.write_text(body + line + "\n")
    with pytest.raises(SpecError) as caught:
        load_specs([path])
    assert any(str(issue).startswith(f"{path}: {expected}") for issue in caught.value.issues), str(
        caught.value
    )


def test_repository_source_is_exactly_one(tmp_path: Path):
    path = write(
        tmp_path / "t.yaml", "id: two\nrepo: {github: a/b, url: 'https://x/y.git'}\nproblem_statement: p\n"
    )
    with pytest.raises(SpecError, match=r"task 'two': repo: exactly one of path, url, github, files"):
        load_specs([path])
    write(path, "id: up\nrepo: {files: {'../evil.py': ''}}\nproblem_statement: p\nFAIL_TO_PASS: [t]\n")
    with pytest.raises(SpecError, match=r"repo.files: .*must be a relative path"):
        load_specs([path])


def test_every_problem_of_a_file_is_reported(tmp_path: Path):
    path = write(
        tmp_path / "many.yaml", "- id: a\n- 3\n- id: c\n  repo: {path: nowhere}\n  problem_statement: p\n"
    )
    with pytest.raises(SpecError) as caught:
        load_specs([path])
    text = str(caught.value)
    assert "task 'a': repo: required field is missing" in text
    assert "task 'a': problem_statement: required field is missing" in text
    assert "task '#2': expected a mapping, got int" in text
    assert "task 'c': repo.path: folder" in text and "does not exist" in text


def test_broken_yaml_and_duplicate_ids(tmp_path: Path, spec_dir: Path):
    broken = write(tmp_path / "broken.yaml", "id: [unclosed\n")
    with pytest.raises(SpecError, match=r"broken.yaml: not valid YAML \(line \d+\)"):
        load_specs([broken])
    copy = tmp_path / "copy.yaml"
    copy.write_text((spec_dir / "task.yaml").read_text().replace("path: repo", "path: double-bug/repo"))
    copy.write_text(
        copy.read_text()
        .replace("tests.patch", "double-bug/tests.patch")
        .replace("gold.patch", "double-bug/gold.patch")
    )
    with pytest.raises(SpecError, match=r"task 'double-bug': id: already used in"):
        load_specs([spec_dir / "task.yaml", copy])


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def git_repo(tmp_path: Path) -> tuple[Path, str]:
    repo = tmp_path / "gitrepo"
    write(repo / "pkg" / "m.py", "def double(x):\n    return x + 2\n")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    base = git(repo, "rev-parse", "HEAD")
    (repo / "pkg" / "m.py").write_text("changed later\n")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "later")
    return repo, base


def test_base_commit_must_exist_in_the_folder_itself(tmp_path: Path, git_repo: tuple[Path, str]):
    repo, base = git_repo
    spec = tmp_path / "t.yaml"
    text = "id: g\nrepo: {path: gitrepo}\nproblem_statement: p\nFAIL_TO_PASS: [t]\nbase_commit: '%s'\n"
    spec.write_text(text % base)
    [task] = load_specs([spec])
    spec.write_text(text % ("0" * 40))
    with pytest.raises(SpecError, match=r"task 'g': base_commit: '0{40}' is not a commit"):
        load_specs([spec])
    (tmp_path / "plain").mkdir()
    spec.write_text(text.replace("gitrepo", "plain") % base)
    with pytest.raises(
        SpecError, match=r"base_commit: is set, but .* not the top folder of a git repository"
    ):
        load_specs([spec])
    # materialize checks the base commit out, not the later state.
    out = materialize(task, tmp_path / "out")
    assert (out / "pkg" / "m.py").read_text() == "def double(x):\n    return x + 2\n"


def test_materialize_files_and_plain_folder(tmp_path: Path, spec_dir: Path):
    [task] = load_specs([spec_dir / "task.yaml"])
    (spec_dir / "repo" / "pkg" / "__pycache__").mkdir()
    out = materialize(task, tmp_path / "a")
    assert (out / "pkg" / "m.py").read_text() == "def double(x):\n    return x + 2\n"
    assert not (out / "pkg" / "__pycache__").exists()
    inline = Task(id="f", repo={"files": {"a/b.txt": "hi\n"}}, problem_statement="p")
    assert (materialize(inline, tmp_path / "b") / "a" / "b.txt").read_text() == "hi\n"
    with pytest.raises(TasksError, match="folder is not empty"):
        materialize(inline, tmp_path / "b")
    remote = Task(id="r", repo={"github": "octo/cat"}, problem_statement="p")
    with pytest.raises(RemoteSource, match="repofix.workspace"):
        materialize(remote, tmp_path / "c")
    assert not (tmp_path / "c").exists()


def test_committed_schema_is_generated_from_the_model():
    committed = json.loads((ROOT / "task_specs" / "schema.json").read_text())
    assert committed == spec_json_schema(), "regenerate: repofix tasks schema -o task_specs/schema.json"
    task = committed["$defs"]["Task"]
    assert set(task["required"]) == {"id", "repo", "problem_statement"}
    assert set(task["properties"]) == set(Task.model_fields)


def test_bundled_task_specs_are_valid():
    swe = [task.id for task in load_tasks([ROOT / "task_specs" / "swe"])]
    assert len(swe) == 15 and len(swe) == len(set(swe))


def test_bundled_humanevalfix_pointer_reads_the_shared_rows():
    humanevalfix_rows()  # the pointer reads ../shared/data in place: skip (locally) or fail (CI) without it
    tasks = load_tasks([ROOT / "task_specs"])
    ids = [task.id for task in tasks]
    assert sum(i.startswith("humanevalfix-") for i in ids) == 164
    assert len(ids) == len(set(ids)) == 164 + 15
