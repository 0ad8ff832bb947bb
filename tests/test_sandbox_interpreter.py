"""The bubblewrap sandbox runs the PROJECT's Python: `--python`, else $VIRTUAL_ENV, else the repository's
`.venv`, else python3; wherever repofix itself is installed.

repofix is installed here in a virtual environment of its own under /tmp (the case that failed with
"execvp .../bin/python3: No such file or directory"). To keep it fast and offline that venv is made with
`--system-site-packages` (repofix's dependencies come from the Python running the tests) and repofix is
added as an editable install would add it (a .pth naming this checkout, and the `repofix` console script):
what matters is that its interpreter lives under /tmp and does not have the project's package. The
project's tests import `helperlib`, a tiny package installed with pip from a local wheel only into the
project's own venv."""

from __future__ import annotations

import base64
import glob
import hashlib
import os
import re
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from agent_helpers import DIRECT_FIX, act, clamp_repo, script
from conftest import require_backend

from repofix.config import load_settings
from repofix.sandboxes import SandboxError, interpreter, open_sandbox
from repofix.sandboxes.interpreter import InterpreterError

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.bwrap


@pytest.fixture(autouse=True)
def no_active_venv(monkeypatch):
    """Each test names the venv it means; the one active where the suite runs (a developer's, CI's
    sandbox venv) is not a case here and would take the place of the repository's .venv or python3."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)


HELPER_TEST = """import helperlib


def test_helper():
    assert helperlib.double(21) == 42
"""


def make_wheel(folder: Path) -> Path:
    """helperlib 0.1 as a wheel, written by hand: pip installs it without any build backend or network."""
    files = {
        "helperlib/__init__.py": b"def double(x):\n    return 2 * x\n",
        "helperlib-0.1.dist-info/METADATA": b"Metadata-Version: 2.1\nName: helperlib\nVersion: 0.1\n",
        "helperlib-0.1.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n",
    }
    record = ""
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record += f"{name},sha256={digest},{len(data)}\n"
    files["helperlib-0.1.dist-info/RECORD"] = (record + "helperlib-0.1.dist-info/RECORD,,\n").encode()
    wheel = folder / "helperlib-0.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return wheel


def make_venv(where: Path, *packages: Path) -> Path:
    """A venv on the tests' own Python (pytest and pip come from its site-packages), plus `packages`."""
    subprocess.run(
        [sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(where)], check=True
    )
    python = where / "bin" / "python"
    if packages:
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "--no-index", "--no-deps", *map(str, packages)],
            check=True,
            capture_output=True,
        )
    return python


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return make_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="module")
def repofix_in_tmp(tmp_path_factory) -> Path:
    """repofix installed in a venv under /tmp: its `repofix` command."""
    require_backend("bwrap")
    venv = tmp_path_factory.mktemp("repofix-venv")
    assert str(venv).startswith("/tmp/")
    python = make_venv(venv)
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(site, "repofix-checkout.pth").write_text(f"{ROOT}\n")
    command = venv / "bin" / "repofix"
    command.write_text(f"#!{python}\nimport sys\nfrom repofix.cli import main\nsys.exit(main())\n")
    command.chmod(0o755)
    assert subprocess.run([str(python), "-c", "import helperlib"], capture_output=True).returncode != 0
    return command


PYTEST_PARTS = ("pytest", "_pytest", "py", "pluggy", "iniconfig")


@pytest.fixture(scope="module")
def repofix_pipx_style(tmp_path_factory) -> Path:
    """repofix in an isolated venv, as pipx installs it: its own dependencies but NOT pytest (nor the
    project's packages). Its site-packages is built from the tests' own, every distribution linked in
    except pytest and its parts, so no download is needed."""
    require_backend("bwrap")
    venv = tmp_path_factory.mktemp("pipx-venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    linked = venv / "linked-site"
    linked.mkdir()
    for source in map(Path, sysconfig_site_dirs()):
        for entry in source.iterdir():
            stem = re.split(r"[-.]", entry.name, maxsplit=1)[0].lower()
            if (
                stem not in PYTEST_PARTS
                and not entry.name.endswith(".pth")
                and not (linked / entry.name).exists()
            ):
                (linked / entry.name).symlink_to(entry)
    (site / "repofix-deps.pth").write_text(f"{linked}\n{ROOT}\n")
    command = venv / "bin" / "repofix"
    command.write_text(f"#!{python}\nimport sys\nfrom repofix.cli import main\nsys.exit(main())\n")
    command.chmod(0o755)
    assert subprocess.run([str(python), "-c", "import pytest"], capture_output=True).returncode != 0
    assert (
        subprocess.run([str(python), "-c", "import repofix.cli, click"], capture_output=True).returncode == 0
    )
    return command


def sysconfig_site_dirs() -> list[str]:
    return [d for d in site.getsitepackages() if Path(d).is_dir()]


def project(root: Path, bug: bool = False) -> Path:
    """The clamp project (with its bug, or fixed) plus a test that needs helperlib."""
    repo = clamp_repo(root)
    if not bug:
        mathx = repo / "pkg" / "mathx.py"
        mathx.write_text(mathx.read_text().replace("if x < hi:", "if x > hi:"))
    (repo / "tests" / "test_helper.py").write_text(HELPER_TEST)
    (repo / ".gitignore").write_text(".venv/\n")
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.email=d@e.x", "-c", "user.name=D", "commit", "-qm", "helper"],
        check=True,
    )
    return repo


def repofix(command: Path, *args: str, cwd: Path, **extra: str) -> subprocess.CompletedProcess:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("REPOFIX_") and k not in ("VIRTUAL_ENV", "PYTHONPATH")
    }
    env.update(REPOFIX_HOME=str(cwd.parent / "home"), LITELLM_LOCAL_MODEL_COST_MAP="True")
    env.update(extra)
    return subprocess.run(
        [str(command), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


def test_tests_run_in_the_projects_venv_though_repofix_lives_in_a_venv_under_tmp(
    tmp_path, wheel, repofix_in_tmp
):
    repo = project(tmp_path / "proj")
    make_venv(repo / ".venv", wheel)
    result = repofix(repofix_in_tmp, "test", "--sandbox", "bwrap", cwd=repo)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Baseline: 4 passed" in result.stdout
    assert "Traceback" not in result.stderr


def test_repofix_installed_pipx_style_without_pytest_runs_the_projects_tests_in_its_venv(
    tmp_path, wheel, repofix_pipx_style
):
    """repofix's own environment has neither pytest nor helperlib; the project's .venv has both."""
    repo = project(tmp_path / "proj")
    make_venv(repo / ".venv", wheel)
    result = repofix(repofix_pipx_style, "test", "--sandbox", "bwrap", cwd=repo)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Baseline: 4 passed" in result.stdout
    doctor = repofix(repofix_pipx_style, "sandbox", "doctor", cwd=repo)
    assert str(repo / ".venv") in doctor.stdout, doctor.stdout + doctor.stderr
    assert "NOT importable" not in doctor.stdout


def test_python_option_or_the_active_venv_chooses_an_environment_outside_the_repository(
    tmp_path, wheel, repofix_in_tmp
):
    repo = project(tmp_path / "proj")
    python = make_venv(tmp_path / "envs" / "proj", wheel)
    without = repofix(repofix_in_tmp, "test", "--sandbox", "bwrap", cwd=repo)
    assert without.returncode == 1  # the system's Python has no helperlib: the test file cannot import
    assert "helperlib" in without.stdout
    chosen = repofix(repofix_in_tmp, "test", "--sandbox", "bwrap", "--python", str(python), cwd=repo)
    assert chosen.returncode == 0, chosen.stdout + chosen.stderr
    active = repofix(
        repofix_in_tmp, "test", "--sandbox", "bwrap", cwd=repo, VIRTUAL_ENV=str(python.parents[1])
    )
    assert active.returncode == 0, active.stdout + active.stderr


def test_a_fix_run_uses_the_projects_venv_in_its_sandbox_and_in_the_verification(
    tmp_path, wheel, repofix_in_tmp
):
    repo = project(tmp_path / "proj", bug=True)
    make_venv(repo / ".venv", wheel)
    model = script(tmp_path / "script.yaml", [DIRECT_FIX])
    result = repofix(repofix_in_tmp, "fix", "--sandbox", "bwrap", "--model", model, cwd=repo)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "DONE" in result.stdout + result.stderr


def test_a_resumed_run_keeps_the_interpreter_its_start_chose(tmp_path, wheel, repofix_in_tmp):
    """Resumed from another folder (no .venv there), the run still tests in the checkout's .venv."""
    repo = project(tmp_path / "proj", bug=True)
    make_venv(repo / ".venv", wheel)
    home = str(tmp_path / "home")
    look = script(tmp_path / "look.yaml", [act("view", path="pkg/mathx.py")])
    first = repofix(
        repofix_in_tmp,
        "fix",
        "--sandbox",
        "bwrap",
        "--model",
        look,
        "--max-steps",
        "1",
        cwd=repo,
        REPOFIX_HOME=home,
    )
    assert first.returncode == 1, first.stdout + first.stderr
    run_id = next(Path(home).glob("runs/*")).name
    fix = script(tmp_path / "fix.yaml", [DIRECT_FIX])
    resumed = repofix(
        repofix_in_tmp, "resume", run_id, "--model", fix, "--max-steps", "3", cwd=tmp_path, REPOFIX_HOME=home
    )
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr


def test_docker_refuses_the_python_option(tmp_path, repofix_in_tmp):
    repo = project(tmp_path / "proj")
    result = repofix(repofix_in_tmp, "test", "--sandbox", "docker", "--python", sys.executable, cwd=repo)
    assert result.returncode == 2
    assert "--python chooses the bwrap sandbox's interpreter" in result.stderr


def test_doctor_names_the_interpreter_and_whether_pytest_imports(tmp_path, wheel, repofix_in_tmp):
    repo = project(tmp_path / "proj")
    python = make_venv(repo / ".venv", wheel)
    result = repofix(repofix_in_tmp, "sandbox", "doctor", cwd=repo)
    assert f"python  {python} (Python 3." in result.stdout and "the repository's .venv" in result.stdout
    assert "importable in the sandbox" in result.stdout and "NOT importable" not in result.stdout
    bare = tmp_path / "bare"  # a venv that does not see pytest
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    result = repofix(repofix_in_tmp, "sandbox", "doctor", "--python", str(bare / "bin/python"), cwd=repo)
    assert f"python  {bare / 'bin/python'}" in result.stdout
    assert (
        "pytest NOT importable in the sandbox (ModuleNotFoundError: No module named 'pytest')"
        in result.stdout
    )


def _link(repo: Path, target: str) -> None:
    (repo / ".venv" / "bin").mkdir(parents=True)
    (repo / ".venv" / "bin" / "python").symlink_to(target)


def _script_venv(repo: Path) -> None:
    (repo / ".venv" / "bin").mkdir(parents=True)
    shim = repo / ".venv" / "bin" / "python"
    shim.write_text('#!/bin/sh\nexec /usr/bin/python3 "$@"\n')
    shim.chmod(0o755)


BAD_VENVS = {
    "not an interpreter": (lambda repo: _link(repo, "/etc/passwd"), "is not an executable program"),
    "missing": (lambda repo: _link(repo, "/nonexistent/python3"), "which does not exist"),
    "a script": (_script_venv, "is not an executable program"),
    "venv leads out": (
        lambda repo: (repo / ".venv").symlink_to(Path(sys.base_prefix)),
        "leads out of the repository",
    ),
    "cfg names a home folder": (
        lambda repo: (
            _link(repo, os.path.realpath(sys.executable)),
            (repo / ".venv" / "pyvenv.cfg").write_text("home = /root/bin\n"),
        ),
        "holds no Python 3 standard library",
    ),
    "cfg is a link to a host file": (
        lambda repo: (
            _link(repo, os.path.realpath(sys.executable)),
            (repo / ".venv" / "pyvenv.cfg").symlink_to("/etc/hostname"),
        ),
        "pyvenv.cfg names no `home`",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_VENVS))
def test_a_bad_project_venv_is_a_clear_error_and_exit_2(tmp_path, repofix_in_tmp, case):
    repo = project(tmp_path / "proj")
    make, message = BAD_VENVS[case]
    make(repo)
    for args in (("test", "--sandbox", "bwrap"), ("fix", "--sandbox", "bwrap", "--model", "builtin")):
        result = repofix(repofix_in_tmp, *args, cwd=repo)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert message in result.stderr and "Traceback" not in result.stderr
        assert str(repo / ".venv" / "bin" / "python") in result.stderr
    doctor = repofix(repofix_in_tmp, "sandbox", "doctor", cwd=repo)
    assert f"python  unusable     python interpreter {repo / '.venv' / 'bin' / 'python'}" in doctor.stdout
    assert message in doctor.stdout and "Traceback" not in doctor.stderr


def test_the_base_installation_of_a_repository_venv_is_checked_not_trusted(tmp_path):
    """pyvenv.cfg is the repository's: its `home` must lead to a Python installation, never to a
    folder that holds the user's files (a standard library planted beside it does not help)."""
    repo = tmp_path / "repo"
    _link(repo, os.path.realpath(sys.executable))
    (repo / ".venv" / "pyvenv.cfg").write_text(f"home = {Path.home()}/bin\n")
    with pytest.raises(InterpreterError) as raised:
        interpreter.choose(None, repo)
    assert "holds no Python 3 standard library" in str(raised.value)


def test_an_ordinary_repository_venv_binds_only_the_venv_and_its_base(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    python = make_venv(repo / ".venv")
    chosen = interpreter.choose(None, repo)
    assert chosen.executable == str(python) and chosen.venv == str(repo / ".venv")
    base = os.path.realpath(sys.base_prefix)
    expected = {(os.path.realpath(repo / ".venv"), str(repo / ".venv"))}
    expected |= set() if interpreter._system(base) else {(base, base)}
    assert set(chosen.binds) == expected
    assert chosen.env()["PATH"].startswith(f"{repo / '.venv' / 'bin'}:")


PYENV_PYTHONS = sorted(glob.glob(str(Path.home() / ".pyenv/versions/3.*/bin/python3.*[0-9]")))


@pytest.mark.skipif(not PYENV_PYTHONS, reason="no pyenv Pythons to try the session runner on")
@pytest.mark.parametrize("python", PYENV_PYTHONS, ids=lambda path: Path(path).name)
def test_the_session_runner_starts_on_every_python_3_at_hand(python):
    """The runner is sent over stdin and runs on the chosen interpreter, whatever its version (its bytecode
    is for repofix's own Python; another version compiles the bundled sources)."""
    require_backend("bwrap")
    with open_sandbox(None, backend="bwrap", python=python) as box:
        result = box.run(["python", "-c", "import sys; print(sys.version_info[:2])"])
        state = box.python("x = 41")
        box.client.proc.stdin.write(
            b'{"op": "run"}\n'
        )  # a malformed request: answered, the runner keeps serving
        box.client.proc.stdin.flush()
        with pytest.raises(SandboxError, match="bad request: op 'run' lacks the field"):
            box.client.reply(wait=30)
        again = box.python("print(x + 1)")
    version = re.search(r"python(3\.\d+)$", python).group(1)
    assert result.stdout.strip() == str(tuple(int(part) for part in version.split(".")))
    assert state.ok and again.stdout.strip() == "42"


def test_python_2_is_refused_with_its_reason():
    old = sorted(glob.glob(str(Path.home() / ".pyenv/versions/2.*/bin/python2.*[0-9]")))
    if not old:
        pytest.skip("no Python 2 at hand")
    with pytest.raises(InterpreterError, match="holds no Python 3 standard library"):
        interpreter.choose(old[0])


def test_python_names_the_chosen_interpreter_outside_a_venv():
    """Debian's /usr/bin has python3 but no `python`, which test commands call: the sandbox has both."""
    require_backend("bwrap")
    if not os.path.exists("/usr/bin/python3") or os.path.lexists("/usr/bin/python"):
        pytest.skip("needs a /usr/bin/python3 without /usr/bin/python beside it (Debian's layout)")
    chosen = os.path.realpath("/usr/bin/python3")
    with open_sandbox(None, backend="bwrap", python=chosen) as box:
        result = box.run(
            "python -c 'import sys; print(sys.executable)'; python3 -c 'import sys; print(sys.prefix)'"
        )
    assert result.ok, result.output
    assert result.stdout.split() == [f"{interpreter.NAMES_DIR}/python", "/usr"]


def test_the_python_setting_is_the_users_and_a_repository_sets_it_only_when_trusted(tmp_path, monkeypatch):
    """The interpreter decides which host folders the sandbox sees: a repository's config cannot choose it."""
    monkeypatch.delenv("REPOFIX_PYTHON", raising=False)
    monkeypatch.setenv("REPOFIX_CONFIG", str(tmp_path / "none.toml"))
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".repofix.toml").write_text('python = "/opt/elsewhere/bin/python3"\n')
    untrusted = load_settings(repo)
    assert untrusted.python is None and "python" in " ".join(untrusted.notices)
    assert load_settings(repo, trust_repo=True).python == "/opt/elsewhere/bin/python3"
    monkeypatch.setenv("REPOFIX_PYTHON", "/usr/bin/python3")
    assert load_settings(repo).python == "/usr/bin/python3"


def test_an_environment_named_through_a_folder_the_sandbox_owns_is_refused(tmp_path, monkeypatch):
    """Bound at a path under /proc (or /workspace, /home/sandbox, /etc, /dev) it would be hidden or hide
    the sandbox's own folder: refused with the reason, not a runner that cannot start."""
    make_venv(tmp_path / "env")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InterpreterError, match="is where the sandbox has its own /workspace"):
        interpreter.choose("/proc/self/cwd/env/bin/python")
