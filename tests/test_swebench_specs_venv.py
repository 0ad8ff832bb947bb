"""With only the `[swebench]` extra installed (no REPOFIX_SWEBENCH_SPECS_PYTHON), repofix makes the
interpreter that reads SWE-bench's specs itself, on first need: a venv with swebench==4.1.0 in the
user's cache folder, made once (also when two evaluations start together), reused after, rebuilt when
broken, and when it cannot be made the run stops before any task, saying why, leaving nothing."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from repofix.cli import main
from repofix.evaluation import swebench_specs
from repofix.evaluation.swebench_env import derive, needs_specs
from repofix.evaluation.swebench_venv import SPECS_PYTHON, VENV_SETTING, VERSION, VenvFailed, ensure
from repofix.tasks.swebench import task_to_row
from tests.conftest import require_pypi
from tests.test_evaluation_swebench_specs import make_clone, row

ROOT = Path(__file__).resolve().parents[1]
NAME = f"swebench-specs-{VERSION}"


@pytest.fixture
def cache(monkeypatch, tmp_path) -> Iterator[Path]:
    """A fresh user cache folder, no specs interpreter named, nothing remembered by this process."""
    user_pip_cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pip"
    monkeypatch.setenv("PIP_CACHE_DIR", os.environ.get("PIP_CACHE_DIR") or str(user_pip_cache))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv(SPECS_PYTHON, raising=False)
    monkeypatch.delenv(VENV_SETTING, raising=False)
    for name in ("_readers", "_cache", "_unavailable"):
        monkeypatch.setattr(swebench_specs, name, {})
    monkeypatch.setattr(swebench_specs, "_made_failure", [])
    yield tmp_path / "cache" / "repofix"
    swebench_specs.close_readers()  # this test's readers, before monkeypatch puts the module's back


def _ensure_in_a_process(env: dict[str, str]) -> subprocess.Popen:
    code = "from repofix.evaluation.swebench_venv import ensure\nprint('python:', ensure(print), flush=True)"
    return subprocess.Popen(
        [sys.executable, "-c", code],
        env={**env, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


@pytest.mark.network
@pytest.mark.timeout(1200)  # above the 900 s each making may take: its own timeout says so first
def test_made_once_on_first_need_by_two_evaluations_then_reused(cache, tmp_path):
    require_pypi()
    # What a broken earlier attempt left: a venv at the place without the ready mark (its Python
    # gone), and a build folder of a killed making.
    (cache / NAME / "bin").mkdir(parents=True)
    (cache / NAME / "pyvenv.cfg").write_text("home = /nowhere\n")
    (cache / NAME / "bin" / "python").symlink_to("/nowhere/python3")
    (cache / f".{NAME}.build-killed" / "lib").mkdir(parents=True)
    two = [_ensure_in_a_process(dict(os.environ)) for _ in range(2)]
    try:
        outputs = [process.communicate(timeout=900)[0] for process in two]
    finally:  # a timeout: neither is left running
        for process in two:
            if process.poll() is None:
                process.kill()
                process.communicate()
    assert [process.returncode for process in two] == [0, 0], outputs
    python = cache / NAME / "bin" / "python"
    assert all(f"python: {python}\n" in output for output in outputs), outputs
    said = "".join(outputs)
    assert said.count(f"making a venv with swebench=={VERSION} in {cache / NAME}") == 1, said  # made once
    assert "swebench specs: pip: installing" in said and "swebench specs: ready in" in said
    assert sorted(p.name for p in cache.iterdir()) == [f".{NAME}.lock", NAME]  # no leftovers
    assert (cache / NAME / "repofix-ready").is_file()
    # Reused, without a word: here the specs of a row are read through it.
    lines: list[str] = []
    assert ensure(lines.append) == python and lines == []
    clone = make_clone(tmp_path / "calc")
    derived = derive(row(clone, "pallets/flask", "2.3"), clone[0])
    assert derived.source == f"swebench {VERSION} specs for pallets/flask 2.3"
    assert swebench_specs._readers.keys() == {str(python)}


@pytest.fixture
def refusing_index():
    """An index URL whose server hangs up on every connection."""
    server = socket.create_server(("127.0.0.1", 0))

    def hang_up() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            connection.close()

    threading.Thread(target=hang_up, daemon=True).start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/simple"
    server.close()


def test_a_pip_that_fails_stops_the_run_before_any_task_and_leaves_nothing(
    cache, monkeypatch, tmp_path, refusing_index
):
    for name in ("PIP_FIND_LINKS", "PIP_EXTRA_INDEX_URL", "PIP_NO_INDEX"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)  # only the refusing index
    monkeypatch.setenv("PIP_INDEX_URL", refusing_index)
    monkeypatch.setenv("PIP_RETRIES", "0")
    clone = make_clone(tmp_path / "calc")
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps(task_to_row(row(clone, "pallets/flask", "2.3"))) + "\n")
    out = tmp_path / "out"
    args = [
        "eval",
        "run",
        str(rows),
        "--gold",
        "--sandbox",
        "none",
        "--mirror",
        str(tmp_path),
        "--out",
        str(out),
    ]
    done = CliRunner().invoke(main, args)
    assert done.exit_code != 0
    assert "Traceback" not in done.output
    assert (
        f"cannot make the SWE-bench specs interpreter in {cache / NAME}: pip install swebench=={VERSION} failed"
        in (done.output)
    )
    assert f"to make it by hand: python -m venv V && V/bin/pip install swebench=={VERSION}" in done.output
    assert f"set {SPECS_PYTHON}=V/bin/python" in done.output
    assert not out.exists()  # no task ran, no run folder
    assert [p.name for p in cache.iterdir()] == [f".{NAME}.lock"]  # nothing half-made
    # The named interpreter wins: nothing is made, the named one is asked.
    monkeypatch.setenv(SPECS_PYTHON, str(tmp_path / "no-such-python"))
    derived = derive(row(clone, "pallets/flask", "2.3"), clone[0])
    assert f"cannot run {tmp_path / 'no-such-python'}" in derived.notes[0]
    assert [p.name for p in cache.iterdir()] == [f".{NAME}.lock"]


def test_a_folder_that_is_not_a_venv_repofix_made_is_left_alone(cache, monkeypatch, tmp_path):
    mine = tmp_path / "mine"
    (mine / "notes.txt").parent.mkdir()
    (mine / "notes.txt").write_text("keep")
    monkeypatch.setenv(VENV_SETTING, str(mine))
    with pytest.raises(
        VenvFailed, match=f"{mine} exists and is not a venv repofix made: remove it or name another"
    ):
        ensure()
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]


def test_in_the_official_images_only_a_missing_test_command_needs_the_specs(tmp_path):
    """`--images swebench`: the image holds the environment, so a row with an eval_script needs no
    specs interpreter (nothing is made, offline works); one without needs the spec's test command."""
    clone = make_clone(tmp_path / "calc")
    plain = row(clone, "pallets/flask", "2.3")
    scripted = row(clone, "pallets/flask", "2.3", eval_script=": '>>>>> Start Test Output'\npytest\n")
    assert [needs_specs(t, official_image=True) for t in (plain, scripted)] == [True, False]
    assert [needs_specs(t) for t in (plain, scripted)] == [True, True]  # built images: python, setup
