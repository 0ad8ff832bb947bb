"""repofix's own test runs ignore what the model's shell session exported (PYTEST_ADDOPTS,
PYTHONPATH, a fake `python` first on PATH) and where it cd'd, on every isolating backend."""

from __future__ import annotations

import pytest
from conftest import backend_params

from repofix.testing import Outcome, RunStatus, run_tests

BACKENDS = backend_params(("docker", "bwrap"))
FORGE = """
mkdir -p /tmp/forge/bin
cat > /tmp/forge/flip.py <<'PY'
import pytest
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().outcome = "passed"
PY
printf '#!/bin/sh\\necho "1 passed"; exit 0\\n' > /tmp/forge/bin/python
cp /tmp/forge/bin/python /tmp/forge/bin/python3
chmod +x /tmp/forge/bin/*
export PYTHONPATH=/tmp/forge PYTEST_ADDOPTS='-p flip' PATH=/tmp/forge/bin:$PATH
cd /tmp
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_clean_runs_ignore_the_sessions_exports_and_cwd(make_sandbox, backend):
    box = make_sandbox(backend)
    box.write_files({"tests/test_calc.py": b"def test_add():\n    assert 1 + 1 == 3\n"})
    assert box.run(FORGE).ok
    forged = box.run("python -m pytest -q /workspace/tests")
    assert forged.ok and "1 passed" in forged.stdout  # the session itself is fooled

    clean = box.run("echo $PWD; echo ${PYTEST_ADDOPTS:-none}; command -v python", clean=True)
    cwd, addopts, python = clean.stdout.split()
    assert cwd == box.workdir and addopts == "none" and not python.startswith("/tmp/forge")
    assert box.run(["sh", "-c", 'echo "${PYTHONPATH:-none}"'], clean=True).stdout.strip() == "none"
    assert box.run("echo $PWD; echo $PYTHONPATH").stdout.split() == ["/tmp", "/tmp/forge"]  # untouched

    run = run_tests(box, "python -m pytest")
    assert run.status is RunStatus.COMPLETED
    assert run.results["tests/test_calc.py::test_add"].outcome is Outcome.FAILED
