"""One JUnit -> node id rule for the host and for the sandbox's `tests()` helper."""

import sys
from pathlib import Path

import pytest

from repofix.agent.execute import HELPERS


def test_sandbox_helper_names_nested_classes_like_the_host(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the helper runs in the sandbox's namespace from the preloaded text; run that text here, for real
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text(
        "class TestOuter:\n    class TestInner:\n        def test_x(self):\n            assert False\n"
        "def test_ok():\n    pass\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:/usr/bin:/bin")
    namespace: dict = {"__name__": "__main__"}
    exec(compile(HELPERS, "<helpers>", "exec"), namespace)
    assert namespace["tests"]("tests/test_a.py") == {
        "tests/test_a.py::TestOuter::TestInner::test_x": "failed",
        "tests/test_a.py::test_ok": "passed",
    }
