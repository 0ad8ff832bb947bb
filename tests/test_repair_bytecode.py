"""A candidate's tests see the interpreter as the baseline run did. The worker compiles the
workspace into a folder of its own (sys.pycache_prefix) to import it faster in each child; a program
that compiles files itself (installer's `compileall`) must not find its files there, or a test that
looks for them beside the source rejects every candidate, the right one too (heldout14's installer)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import backend_params
from tests.test_repair_engine import repaired_clamp

COMPILES = (
    "import py_compile\nimport tempfile\nfrom pathlib import Path\n\n\n"
    "def compiled_beside(folder):\n"
    "    (folder / 'm.py').write_text('x = 1\\n')\n"
    "    py_compile.compile(str(folder / 'm.py'), doraise=True)\n"
    "    return (folder / '__pycache__').is_dir()\n"
)
# where the program compiles: in a passing test; in the failing tests, plain functions (run
# directly and hot) or with a fixture (run by pytest). test_mid fails too: with test_high alone,
# `return x` -> `return hi` on another line passes as well, and one failing test cannot place the
# bug (the patch would be claimed with that doubt)
MID = "\n\n\ndef test_mid():\n    assert clamp(5, 0, 10) == 5\n"
WHERE = {
    "a passing test": (
        "from pkg.clamp import clamp\n\n\ndef test_low():\n    assert clamp(-5, 0, 10) == 0\n\n\n"
        "def test_compiles(tmp_path):\n    assert compiled_beside(tmp_path)\n\n\n"
        "def test_high():\n    assert clamp(50, 0, 10) == 10\n" + MID
    ),
    "the failing tests, run directly": (
        "from pkg.clamp import clamp\n\n\ndef test_low():\n    assert clamp(-5, 0, 10) == 0\n\n\n"
        "def test_high():\n    assert compiled_beside(Path(tempfile.mkdtemp()))\n"
        "    assert clamp(50, 0, 10) == 10\n" + MID
    ),
    "the failing tests, run by pytest": (
        "from pkg.clamp import clamp\n\n\ndef test_low():\n    assert clamp(-5, 0, 10) == 0\n\n\n"
        "def test_high(tmp_path):\n    assert compiled_beside(tmp_path)\n"
        "    assert clamp(50, 0, 10) == 10\n" + MID
    ),
}


@pytest.mark.parametrize("where", sorted(WHERE))
@pytest.mark.parametrize("backend", backend_params(("bwrap", "none")))
def test_a_program_that_compiles_files_finds_them_where_the_baseline_did(
    backend: str, where: str, make_sandbox, tmp_path: Path
) -> None:
    result = repaired_clamp(make_sandbox, backend, tmp_path, COMPILES + "\n\n" + WHERE[where])
    assert result.failing_tests == ["tests/test_clamp.py::test_high", "tests/test_clamp.py::test_mid"]
