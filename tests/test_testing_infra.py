"""Which files are test infrastructure, and putting pytest's own sections of shared config files back
to the user's version while the rest of the file stays as the model left it."""

from __future__ import annotations

import pytest

from repofix.testing.infra import is_infra_file, is_protected, pytest_settings, shadows_runner, splice

PYPROJECT = b"""[project]
name = "pkg"
version = "1.0"

[tool.pytest.ini_options]
addopts = "-q"

[tool.ruff]
line-length = 100
"""


@pytest.mark.parametrize(
    ("path", "infra"),
    [
        ("conftest.py", True),
        ("tests/conftest.py", True),
        ("pytest.ini", True),
        ("sitecustomize.py", True),
        ("src/usercustomize.py", True),
        ("evil.pth", True),
        ("pytest.toml", True),  # pytest 9
        ("sub/.pytest.toml", True),
        ("flip-1.0.dist-info/entry_points.txt", True),  # declares plugins pytest loads by itself
        ("src/pkg.egg-info/entry_points.txt", True),
        ("inspect.pyc", True),  # bytecode: a hash-based .pyc runs without a look at its source
        ("pkg/__pycache__/mod.cpython-311.pyc", True),
        ("pkg/mod.py", False),
        ("tests/test_a.py", False),
        ("pkg/dist-info.py", False),
        ("pytest.toml.md", False),
    ],
)
def test_infra_files(path, infra):
    assert is_infra_file(path) is infra


@pytest.mark.parametrize(
    ("path", "shadows"),
    [
        ("pytest.py", True),
        ("pytest/__init__.py", True),
        ("_pytest/__init__.py", True),
        ("pluggy/__init__.py", True),
        ("pytest_cov.py", True),  # an installed plugin's module
        ("inspect.py", True),  # the standard library: pytest imports it
        ("json/__init__.py", True),
        ("tests/inspect.py", True),  # tests/ holds no __init__.py: pytest puts it on sys.path
        ("inspect.cpython-311-x86_64-linux-gnu.so", True),
        ("pkg/inspect.py", False),  # pkg.inspect, inside a package
        ("pkg/json/__init__.py", False),
        ("pluggy/hooks.py", False),  # a folder without __init__.py shadows nothing
        ("mathx.py", False),
        ("pkg/__init__.py", False),
        ("README.md", False),
    ],
)
def test_modules_that_shadow_the_test_runner(path, shadows):
    assert shadows_runner(path, {"pkg", "pkg/json"}) is shadows


@pytest.mark.parametrize(
    ("path", "protected"),
    [
        ("tests/test_a.py", True),
        ("pkg/test_b.py", True),
        ("tests/helpers.py", True),
        ("conftest.py", True),
        ("pkg/mod.py", False),
        ("pyproject.toml", False),
    ],
)
def test_protected_files(path, protected):
    assert is_protected(path) is protected


def test_pyproject_keeps_the_models_project_changes_but_the_users_pytest_section():
    forged = PYPROJECT.replace(b'version = "1.0"', b'version = "1.1"').replace(
        b'addopts = "-q"', b'addopts = "-q -p flip"'
    )
    result = splice("pyproject.toml", forged, PYPROJECT)
    assert b'version = "1.1"' in result and b"-p flip" not in result and b'addopts = "-q"' in result
    assert pytest_settings("pyproject.toml", result) == {"ini_options": {"addopts": "-q"}}


def test_a_pytest_section_the_model_added_is_removed():
    original = b"[metadata]\nname = pkg\n"
    forged = original + b"\n[tool:pytest]\naddopts = -p flip\n"
    result = splice("setup.cfg", forged, original)
    assert (
        result.startswith(original)
        and b"pytest" not in result
        and pytest_settings("setup.cfg", result) is None
    )


def test_a_pytest_setting_splicing_cannot_separate_falls_back_to_the_users_file():
    original = b"[tool]\nname = 1\n"
    forged = b'[tool]\nname = 1\npytest.ini_options.addopts = "-p flip"\n'
    assert splice("pyproject.toml", forged, original) == original
