"""The package's layers (pyproject.toml [tool.importlinter], drawn in CONTRIBUTING.md) and a cheap `--help`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Libraries `repofix --help` must not load: each costs tens of milliseconds to seconds to import
# (python -X importtime: litellm ~3 s, matplotlib.pyplot ~0.5 s, docker ~75 ms with requests,
# pydantic.main ~45 ms with pydantic_core, GitPython ~45 ms, ray, yaml).
HEAVY = ["litellm", "openai", "tiktoken", "docker", "requests", "git", "ray", "matplotlib", "yaml",
         "pydantic", "pydantic_core", "unidiff"]

LOADED = """
import json, sys
import repofix.cli
loaded = {"import": sorted(sys.modules)}
try:
    repofix.cli.main(%s, standalone_mode=False)
except SystemExit:
    pass
loaded["help"] = sorted(sys.modules)
print(json.dumps(loaded))
"""


def loaded_modules(args: list[str]) -> dict[str, set[str]]:
    done = subprocess.run([sys.executable, "-c", LOADED % json.dumps(args)], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    return {when: set(names) for when, names in json.loads(done.stdout.splitlines()[-1]).items()}


def heavy(modules: set[str]) -> list[str]:
    return sorted(name for name in modules if name.split(".")[0] in HEAVY)


def test_cli_help_imports_no_heavy_library_and_no_room():
    loaded = loaded_modules(["--help"])
    assert "repofix.cli" in loaded["import"] and "repofix.agent" not in loaded["help"]
    for when in ("import", "help"):
        assert heavy(loaded[when]) == [], when
        assert sorted(m for m in loaded[when] if m.startswith("repofix.") and m != "repofix.cli") \
            == ["repofix.exitcodes"], when


def test_the_probe_sees_a_heavy_import():
    """The check above can fail: a command that loads a heavy library shows up in the same probe."""
    loaded = loaded_modules(["tasks", "schema"])
    assert "pydantic" in heavy(loaded["help"])


def test_layer_contracts_hold():
    """`lint-imports` (import-linter, from the test extra) checks the layers in pyproject.toml."""
    command = "from importlinter.cli import lint_imports_command; lint_imports_command()"
    done = subprocess.run([sys.executable, "-c", command, "--no-cache"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout
