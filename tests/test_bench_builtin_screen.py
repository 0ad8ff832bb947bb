"""The screening of candidates for a held-aside set (evals/bench_builtin_screen.py): the list's rules,
each rejection rule on a tiny sdist written here (no network: the archive is in the cache before the
download step, which then finds it), the sandbox a downloaded suite runs in, and the qualifying
facts (clean runs, an unchanged tree, stable runs, authors named by earlier sets)."""

from __future__ import annotations

import io
import json
import sys
import tarfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "evals"))

import screen_check as check  # noqa: E402
import screen_list as lists  # noqa: E402
import screen_qualify as qualifying  # noqa: E402
from conftest import require_backend  # noqa: E402

SOURCE = """def clamp(x, low, high):
    if x < low and high > low:
        return low
    if x > high:
        return high
    return x


def tail(items):
    out = []
    out.append(items[1:])
    return len(items[1:]) + 1
"""
TESTS = """from tiny import clamp, tail


def test_clamp():
    assert clamp(5, 0, 3) == 3


def test_tail():
    assert tail([1, 2]) == 2
"""
PKG_INFO = (
    "Metadata-Version: 2.1\nName: tiny\nVersion: 1.0\nAuthor: Ada Quux\nAuthor-email: ada@example.org\n"
)


def sdist(cache: Path, files: dict[str, str], name: str = "tiny") -> str:
    """A tar.gz sdist of `files` in the cache's sdists folder, as pip would have left it; its spec."""
    (cache / "sdists").mkdir(parents=True, exist_ok=True)
    with tarfile.open(cache / "sdists" / f"{name}-1.0.tar.gz", "w:gz") as tar:
        for path, text in {"PKG-INFO": PKG_INFO, **files}.items():
            data = text.encode()
            info = tarfile.TarInfo(f"{name}-1.0/{path}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return f"{name}==1.0"


@pytest.fixture
def bwrap() -> None:
    require_backend("bwrap")


@pytest.mark.parametrize(
    ("month", "summary", "name", "kept"),
    [
        ("2019-04", "A tiny JSON parser", "tinyjson", True),
        ("2015-01", "Roman numerals converter", "romanz", True),
        ("2022-12", "validation of YAML schemas", "yamlcheck", True),
        ("2014-12", "A tiny JSON parser", "tinyjson", False),  # too old
        ("2023-01", "A tiny JSON parser", "tinyjson", False),  # too new
        ("2019-04", "Lots of fun things", "fun", False),  # no data topic
        ("2019-04", "JSON parser for the web", "webjson", False),
        ("2019-04", "A JSON API client", "jsonclient", False),
        ("2019-04", "Parse command-line options", "opts", False),
        ("2019-04", "Parse data with NumPy", "npparse", False),
        ("2019-04", "A JSON parser", "toolz", False),  # the first set's project
        ("2019-04", "A JSON parser", "Used_Name", False),  # named in the README, spelled otherwise
        ("2019-04", "Dictionary of strings", "strdict", True),
        ("2019-04", "Parse airline data", "airparse", True),  # "ai" only as a whole word
    ],
)
def test_the_list_keeps_data_topics_of_2015_to_2022_under_a_new_name(
    month: str, summary: str, name: str, kept: bool
) -> None:
    used = lists.tokens("Projects: used-name==1.0, more.") | {"toolz"}
    assert lists.keep(month, summary, name, used) is kept


def test_used_names_read_reports_and_headers_but_not_bugs(tmp_path: Path) -> None:
    (tmp_path / "docs" / "readme").mkdir(parents=True)
    (tmp_path / "evals" / "results").mkdir(parents=True)
    (tmp_path / "README.md").write_text("We use `alpha-one`.")
    (tmp_path / "docs" / "readme" / "b.md").write_text("and Beta_Two==2.0")
    (tmp_path / "evals" / "results" / "r.md").write_text("gamma.three, then")
    header = {"set": "heldout9", "projects": ["delta==1"], "note": "by epsilon"}
    bugs = [{"project": "zeta==1", "path": "omega.py", "line": 1, "kind": "k", "before": "b", "after": "a"}]
    bugs[0] |= {"start": 0, "end": 1, "failing": [], "known": []}
    (tmp_path / "evals" / "results" / "x.bugs.json").write_text(json.dumps({**header, "bugs": bugs}))
    used = lists.used_names(tmp_path)
    assert {"alpha-one", "beta-two", "gamma-three", "delta", "epsilon", "toolz"} <= used
    assert "omega-py" not in used and "omega" not in used


def test_the_order_is_the_seeded_shuffle_of_the_sorted_names() -> None:
    rows = [(n, "1.0", "2020-01", "a JSON parser") for n in ["c", "a", "b", "d", "e"]]
    first = lists.candidates(rows, set(), seed=7)
    assert first == lists.candidates(list(reversed(rows)), set(), seed=7)
    assert sorted(first) == ["a==1.0", "b==1.0", "c==1.0", "d==1.0", "e==1.0"]


@pytest.mark.parametrize(
    ("files", "reason"),
    [
        ({"tiny/fast.c": "int x;"}, "native files: tiny/fast.c"),
        ({"PKG-INFO": PKG_INFO + "Requires-Dist: attrs\n"}, "Requires-Dist: attrs"),
        (
            {"setup.py": "from setuptools import setup\nsetup(install_requires=['six'])\n"},
            "declared dependencies",
        ),
        ({"pyproject.toml": '[project]\nname = "tiny"\ndependencies = ["attrs"]\n'}, "declared dependencies"),
        ({"setup.cfg": "[options]\ninstall_requires =\n    attrs\n"}, "declared dependencies"),
    ],
)
def test_static_rules_reject_native_code_and_dependencies(tmp_path: Path, files: dict, reason: str) -> None:
    spec = sdist(tmp_path, {"tiny/__init__.py": SOURCE, "tests/test_tiny.py": TESTS, **files})
    with pytest.raises(check.Rejected, match=reason):
        check.check_static(check.fetch(spec, tmp_path))


@pytest.mark.parametrize(
    ("extra", "allowed"),
    [
        ("Requires-Dist: pytest; extra == 'test'\n", True),
        ("Requires-Dist: attrs (>=20)\n", False),
    ],
)
def test_a_requirement_under_an_extra_is_no_dependency(extra: str, allowed: bool) -> None:
    fields = check.Parser().parsestr(PKG_INFO + extra)
    assert (check.hard_requirements({k: [v] for k, v in fields.items()}) == []) is allowed


@pytest.mark.parametrize(
    ("test_text", "foreign"),
    [
        (TESTS, []),
        ("import json, pytest, tiny.sub\nfrom tests import helpers\n" + TESTS, []),
        ("import numpy as np\n" + TESTS, ["tests/test_tiny.py: numpy"]),
        ("def f():\n    from hypothesis import given\n" + TESTS, ["tests/test_tiny.py: hypothesis"]),
    ],
)
def test_imports_must_be_the_standard_library_pytest_or_the_project(
    tmp_path: Path, test_text: str, foreign: list[str]
) -> None:
    tree = tmp_path / "tree"
    for rel, text in {
        "tiny/__init__.py": SOURCE,
        "tiny/sub.py": "",
        "tests/helpers.py": "",
        "tests/test_tiny.py": test_text,
    }.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(text)
    (tree / "setup.py").write_text("import setuptools\n")  # the packaging's, not the project's
    assert check.foreign_imports(tree) == foreign


@pytest.mark.parametrize(
    ("words", "error"),
    [
        (
            "  error: subprocess-exited-with-error\n  │ ModuleNotFoundError: No module named 'numpy'\n"
            "error: metadata-generation-failed\nhint: See above for details.",
            "ModuleNotFoundError: No module named 'numpy'",
        ),
        (
            "error: subprocess-exited-with-error\nnote: This error\nhint: See above",
            "error: subprocess-exited-with-error",
        ),
        (
            "ERROR: No matching distribution found for x==1\n",
            "ERROR: No matching distribution found for x==1",
        ),
        ("pip downloaded no sdist for x==1 into /c", "pip downloaded no sdist for x==1 into /c"),
    ],
)
def test_a_download_failure_is_told_by_pips_last_error(words: str, error: str) -> None:
    assert check.pip_error(words) == error


def test_sites_are_counted_per_kind_in_sources_not_tests(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tiny.py").write_text(SOURCE)
    (tmp_path / "tests" / "test_tiny.py").write_text(SOURCE)
    kinds = check.site_counts(tmp_path)
    assert kinds == {
        "comparison": 3,
        "missing-clause": 2,
        "missing-slice": 2,
        "missing-statement": 1,
        "missing-wrapper": 1,
        "off-by-one": 1,
    }


@pytest.mark.parametrize(
    ("files", "verdict", "reason"),
    [
        ({}, "pass", None),
        ({"tests/test_tiny.py": TESTS.replace("== 3", "== 4")}, "reject", "suite: exit 1"),
        ({"tests/test_tiny.py": None}, "reject", "no test file"),
        (
            {"tests/test_tiny.py": "import requests\n" + TESTS},
            "reject",
            "imports: tests/test_tiny.py: requests",
        ),
        ({"tiny/__init__.py": "print 'py2'\n"}, "reject", "does not parse"),
        # a src/ layout that cannot be flattened (a .ipynb_checkpoints folder in both stopped a
        # whole screening run with an OSError traceback)
        (
            {"src/.ipynb_checkpoints/a.txt": "a", ".ipynb_checkpoints/b.txt": "b"},
            "reject",
            "layout: src/ and the top folder both hold .ipynb_checkpoints",
        ),
    ],
)
def test_screening_one_project(
    tmp_path: Path, bwrap: None, files: dict, verdict: str, reason: str | None
) -> None:
    layout = {"tiny/__init__.py": SOURCE, "tests/test_tiny.py": TESTS} | files
    spec = sdist(tmp_path, {k: v for k, v in layout.items() if v is not None})
    record = check.screen(spec, tmp_path)
    assert record["verdict"] == verdict and (reason or "") in record.get("reason", "")
    if verdict == "pass":
        assert record["tests"] == 2
        assert sum(record["sites"].values()) == 10
        assert record["author"] == {"Author": ["Ada Quux"], "Author-Email": ["ada@example.org"]}


# an sdist whose top is a file (repo-helper-pycharm 0.3.0's, which stopped a whole screening run)
# or two folders is rejected as unpacked wrong, by name
@pytest.mark.parametrize("tops", [{"tiny-1.0": "x"}, {"tiny-1.0/PKG-INFO": PKG_INFO, "other/PKG-INFO": ""}])
def test_an_sdist_without_one_top_folder_is_rejected(tmp_path: Path, tops: dict[str, str]) -> None:
    (tmp_path / "sdists").mkdir()
    with tarfile.open(tmp_path / "sdists" / "tiny-1.0.tar.gz", "w:gz") as tar:
        for path, text in tops.items():
            info = tarfile.TarInfo(path)
            info.size = len(text.encode())
            tar.addfile(info, io.BytesIO(text.encode()))
    record = check.screen("tiny==1.0", tmp_path)
    assert record["verdict"] == "reject"
    assert record["reason"].startswith("unpack: tiny-1.0.tar.gz holds no single top folder"), record
    assert not (tmp_path / "unpacked" / "tiny-1.0").exists()


SANDBOX_TESTS = """import os, socket
from pathlib import Path
import pytest


def test_no_network():
    with pytest.raises(OSError):
        socket.create_connection(("1.1.1.1", 53), timeout=2)


@pytest.mark.parametrize("outside", ["/etc/screen-escape", "/var/screen-escape", "/usr/screen-escape"])
def test_no_write_outside_the_tree(outside):
    with pytest.raises(OSError):
        Path(outside).write_text("x")


def test_work_and_root_are_hidden():
    assert not Path("/work/main").exists()
    assert not Path("/root/.config").exists()


def test_not_root():
    assert os.getuid() != 0
"""


def test_a_suite_runs_without_network_writing_only_its_tree(tmp_path: Path, bwrap: None) -> None:
    tree = tmp_path / "tree"
    (tree / "tests").mkdir(parents=True)
    (tree / "tests" / "test_sandbox.py").write_text(SANDBOX_TESTS)
    run = check.run_suite(tree)
    assert run.exit == 0, run.output
    assert len(run.outcomes) == 6 and run.clean


@pytest.mark.parametrize(
    ("test_text", "clean", "problem"),
    [
        (TESTS, 3, ""),
        (
            TESTS + "\ndef test_writes():\n    open('made.txt', 'w').write('x')\n",
            0,
            "the suite changed made.txt",
        ),
        (TESTS + "\nimport warnings\ndef test_warns():\n    warnings.warn('careful')\n", 0, "1 warnings"),
        (TESTS + "\nimport pytest\n@pytest.mark.skip\ndef test_skipped():\n    pass\n", 0, "skipped"),
        (TESTS + "\nimport pytest\n@pytest.mark.xfail\ndef test_x():\n    assert 0\n", 0, "xfailed"),
    ],
)
def test_clean_runs_from_three_folders(
    tmp_path: Path, bwrap: None, test_text: str, clean: int, problem: str
) -> None:
    spec = sdist(tmp_path, {"tiny/__init__.py": SOURCE, "tests/test_tiny.py": test_text})
    count, why, outcomes = qualifying.clean_runs(spec, tmp_path)
    assert count == clean and problem in why
    assert not clean or sorted(outcomes.values()) == ["passed", "passed"]


@pytest.mark.parametrize(("seeded", "stable"), [("", 4), ("2", 2)])
def test_stable_runs_under_four_hash_seeds(tmp_path: Path, bwrap: None, seeded: str, stable: int) -> None:
    hashed = f"\nimport os\ndef test_seed():\n    assert os.environ['PYTHONHASHSEED'] != {seeded!r}\n"
    spec = sdist(tmp_path, {"tiny/__init__.py": SOURCE, "tests/test_tiny.py": TESTS + hashed})
    expected = {"tests/test_tiny.py::" + t: "passed" for t in ("test_clamp", "test_tail", "test_seed")}
    count, why = qualifying.stable_runs(spec, tmp_path, expected, per_seed=1)
    assert count == stable and (not why) is (stable == 4)


@pytest.mark.parametrize(
    ("author", "matches"),
    [
        ({"Author": ["Ada Quux"]}, ["Ada Quux (heldout7)", "Quux (heldout7)"]),
        ({"Author-Email": ["Zed Other <quux@example.org>"]}, ["quux (heldout7)"]),
        ({"Home-Page": ["https://github.com/adaq/tiny"]}, ["adaq (heldout8)"]),
        ({"Author": ["Someone Else"]}, []),
    ],
)
def test_authors_named_in_earlier_notes_are_reported(author: dict, matches: list[str]) -> None:
    notes = {"heldout7": "by three authors: Ada Quux; Bo Li (bli)", "heldout8": "Cy (adaq)"}
    assert qualifying.author_matches(author, notes) == matches


def test_grep_reports_network_clock_and_chance(tmp_path: Path) -> None:
    source = "import random\n\n\ndef now():\n    return 1  # see https://example.org\n"
    spec = sdist(tmp_path, {"tiny/__init__.py": source, "setup.py": "import subprocess\n"})
    assert qualifying.grep_hits(spec, tmp_path) == [
        "tiny/__init__.py:1: import random",
        "tiny/__init__.py:5: return 1  # see https://example.org",
    ]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["screen", "--list", "/nonexistent/list.txt"], "--list /nonexistent/list.txt: no such file"),
        (["qualify", "--list", "/nonexistent/list.txt"], "--list /nonexistent/list.txt: no such file"),
        (["screen"], "screen needs --list"),
        (["list"], "list needs --out"),
    ],
    ids=["screen-missing-list", "qualify-missing-list", "no-list", "no-out"],
)
def test_bad_arguments_are_refused_by_name(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import bench_builtin_screen

    with pytest.raises(SystemExit) as stopped:
        bench_builtin_screen.main(argv)
    assert stopped.value.code == 2
    assert says in capsys.readouterr().err
