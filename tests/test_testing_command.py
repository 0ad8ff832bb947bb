"""Test-command detection, pytest recognition and JUnit name -> node id conversion (pure parts)."""

from __future__ import annotations

import pytest

from repofix.junitid import nodeid_from_junit
from repofix.testing.command import detect_command, is_pytest


@pytest.mark.parametrize(
    ("files", "command"),
    [
        ({"pyproject.toml": b"[tool.pytest.ini_options]\n"}, "python -m pytest"),
        ({"setup.cfg": b"[tool:pytest]\n"}, "python -m pytest"),
        ({"conftest.py": b""}, "python -m pytest"),
        ({"package.json": b'{"scripts": {"test": "jest"}}'}, "npm test"),
        ({"package.json": b'{"scripts": {}}', "Makefile": b"test:\n\tnpx jest\n"}, "make test"),
        ({"go.mod": b"module x\n"}, "go test ./..."),
        ({"Cargo.toml": b"[package]\n"}, "cargo test"),
        ({}, "python -m pytest"),
    ],
)
def test_detect_command(files, command) -> None:
    assert detect_command(files) == command


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("pytest", True),
        ("python -m pytest -x tests", True),
        ("python3.11 -m pytest", True),
        ("cd sub && pytest -q", True),
        ("/opt/venv/bin/pytest", True),
        ("py.test", True),
        ("make test", False),
        ("npm test", False),
        ("pytest tests | tee log", False),
        ("tox -e py311", False),
    ],
)
def test_is_pytest(command, expected) -> None:
    assert is_pytest(command) is expected


@pytest.mark.parametrize(
    ("classname", "name", "file", "node_id"),
    [
        (
            "tests.sub.test_a.TestA.TestInner",
            "test_p[a.b::c]",
            "tests/sub/test_a.py",
            "tests/sub/test_a.py::TestA::TestInner::test_p[a.b::c]",
        ),
        (
            "tests.sub.test_a.TestA.TestInner",
            "test_p[1]",
            None,
            "tests/sub/test_a.py::TestA::TestInner::test_p[1]",
        ),
        ("test_flat", "test_x", None, "test_flat.py::test_x"),
        ("", "tests.test_broken", "tests/test_broken.py", "tests/test_broken.py"),
        ("", "tests.test_broken", None, "tests/test_broken.py"),
    ],
)
def test_nodeid_from_junit(classname, name, file, node_id) -> None:
    assert nodeid_from_junit(classname, name, file) == node_id
