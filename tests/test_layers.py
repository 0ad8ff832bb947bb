"""The package's layers (pyproject.toml [tool.importlinter], drawn in CONTRIBUTING.md) and a cheap `--help`."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Libraries `repofix --help` must not load: each costs tens of milliseconds to seconds to import
# (python -X importtime: litellm ~3 s, matplotlib.pyplot ~0.5 s, docker ~75 ms with requests,
# pydantic.main ~45 ms with pydantic_core, GitPython ~45 ms, ray, yaml).
HEAVY = [
    "litellm",
    "openai",
    "tiktoken",
    "docker",
    "requests",
    "git",
    "ray",
    "matplotlib",
    "yaml",
    "pydantic",
    "pydantic_core",
    "unidiff",
]

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
    done = subprocess.run(
        [sys.executable, "-c", LOADED % json.dumps(args)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return {when: set(names) for when, names in json.loads(done.stdout.splitlines()[-1]).items()}


def heavy(modules: set[str]) -> list[str]:
    return sorted(name for name in modules if name.split(".")[0] in HEAVY)


def test_cli_help_imports_no_heavy_library_and_no_room():
    loaded = loaded_modules(["--help"])
    assert "repofix.cli" in loaded["import"] and "repofix.agent" not in loaded["help"]
    for when in ("import", "help"):
        assert heavy(loaded[when]) == [], when
        assert sorted(m for m in loaded[when] if m.startswith("repofix.") and m != "repofix.cli") == [
            "repofix.exitcodes"
        ], when


def test_the_probe_sees_a_heavy_import():
    """The check above can fail: a command that loads a heavy library shows up in the same probe."""
    loaded = loaded_modules(["tasks", "schema"])
    assert "pydantic" in heavy(loaded["help"])


def test_layer_contracts_hold():
    """`lint-imports` (import-linter, from the test extra) checks the layers in pyproject.toml."""
    command = "from importlinter.cli import lint_imports_command; lint_imports_command()"
    done = subprocess.run(
        [sys.executable, "-c", command, "--no-cache"], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


def function_level_imports(source: str) -> list[str]:
    """`from repofix... import` / `import repofix...` statements inside a function (a TYPE_CHECKING block
    is not one: it never runs)."""
    found = []
    for function in ast.walk(ast.parse(source)):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(function):
                names = (
                    [node.module or ""]
                    if isinstance(node, ast.ImportFrom)
                    else [alias.name for alias in node.names]
                    if isinstance(node, ast.Import)
                    else []
                )
                if any(name == "repofix" or name.startswith("repofix.") for name in names):
                    found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def test_function_level_import_is_found():
    source = "import os\nfrom repofix import cli\n\ndef f():\n    from repofix.tasks import Task\n    import json\n"
    assert function_level_imports(source) == ["line 5: from repofix.tasks import Task"]


def test_repofix_modules_are_imported_at_module_top():
    """The import graph stays visible (and lint-imports sees it as Python runs it). Lazy imports are for
    heavy third-party libraries only: litellm, docker, yaml, matplotlib, ray (see CONTRIBUTING.md)."""
    offenders = {}
    for path in sorted((ROOT / "repofix").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        found = function_level_imports(path.read_text(encoding="utf-8"))
        if found:
            offenders[name] = found
    assert offenders == {}


def test_contributing_names_files_that_exist_and_the_readme_links_it():
    """The room guide must not rot: every file it names exists (a path under repofix/ may omit it)."""
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    named = {name for name in re.findall(r"`([\w./-]+\.(?:py|md|toml))`", text) if "<" not in name}
    assert len(named) > 20
    missing = sorted(
        name for name in named if not (ROOT / name).exists() and not (ROOT / "repofix" / name).exists()
    )
    assert missing == []
    for name in re.findall(r"`([A-Z_]{4,})`", text):  # the tables a change adds a line to
        assert re.search(
            rf"^{name}\b.*=", "\n".join(p.read_text() for p in (ROOT / "repofix").rglob("*.py")), re.MULTILINE
        ), name
    assert "(CONTRIBUTING.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_git_runs_only_through_the_hardened_argv():
    """Every host-side git command line comes from `gitsafe.argv` (CONTRIBUTING.md, "One way"): a raw
    `["git", ...]` elsewhere would skip the hardening. Git inside a sandbox or an environment image is not
    the host's: `agent/execute.py` (the agent's sandbox) and `evaluation/build_outputs.py` (a script run
    in the image, listing /testbed's untracked files)."""
    raw = re.compile(r"""\[\s*["']git["']\s*,""")
    found = sorted(
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "repofix").rglob("*.py")
        if raw.search(path.read_text(encoding="utf-8"))
    )
    assert found == ["repofix/agent/execute.py", "repofix/evaluation/build_outputs.py", "repofix/gitsafe.py"]
