"""Every observation within its token budget (real tokens), with the full output saved in a file
inside the sandbox, outside the repository, that the model can read back with `view` or grep.
Runs on the Docker and bwrap backends (the fixture carries their markers)."""

from __future__ import annotations

import pytest
from conftest import backend_params, require_backend

from repofix.agent import execute
from repofix.agent.actions import Action
from repofix.agent.history import record_line
from repofix.agent.observe import LOG_PATH, Observer
from repofix.models.tokens import count_text
from repofix.sandboxes import Limits, open_sandbox

LIMITS = Limits(
    memory_mb=512, pids=128, workspace_mb=64, tmp_mb=160, home_mb=64, output_bytes=64 * 1024, timeout=120
)
FLOOD = (
    "python3 -c \"import sys\nfor i in range(400000): sys.stdout.write('line %06d ' % i + 'x' * 89 + '\\n')\""
)


@pytest.fixture(scope="module", params=backend_params(("docker", "bwrap")))
def box(request, tmp_path_factory):
    require_backend(request.param)
    root = tmp_path_factory.mktemp("repo")
    (root / "big.txt").write_text("\n".join("word " * 2000 for _ in range(50)), encoding="utf-8")
    (root / "small.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    with open_sandbox(root, backend=request.param, limits=LIMITS) as sandbox:
        execute.preload_helpers(sandbox)
        yield sandbox


def saved(box, observation: str) -> str:
    paths = LOG_PATH.findall(observation)
    assert paths, observation
    assert not paths[-1].startswith(box.workdir)  # outside the repository: never checkpointed
    return paths[-1]


def test_a_40_mb_flood_is_one_bounded_observation_and_kept_whole_in_the_sandbox(box):
    observer = Observer(box, budget=2000)
    text = execute.shell(box, Action("shell", {"command": FLOOD + "; exit 3"}), 120, observer, step=7)
    assert count_text(text) <= 2500
    assert "line 000000" in text and "line 399999" in text  # head and tail
    assert "[exit code 3]" in text
    log = saved(box, text)
    assert "step-007-shell" in log and "40.8 MB" in text and "400000 lines" in text
    size = box.run(["wc", "-c", log]).stdout.split()[0]
    assert int(size) == 400000 * 102  # every byte, not the capped pipe's head and tail
    middle = execute.view(box, Action("view", {"path": log, "start": 200001, "end": 200003}), observer)
    assert "line 200000 " in middle and "line 200002 " in middle and "200001" in middle
    assert "exit code 3" in record_line(7, "shell", {"command": FLOOD}, text, 2, "3 passed")
    assert log in record_line(7, "shell", {"command": FLOOD}, text, 2, "3 passed")


def test_the_shell_session_survives_the_redirection(box):
    observer = Observer(box, budget=500)
    run = lambda command: execute.shell(box, Action("shell", {"command": command}), 60, observer)  # noqa: E731
    assert run("mkdir -p sub && cd sub && export FLAVOUR=lime") == "(no output)"
    assert run("pwd; echo $FLAVOUR").splitlines() == [f"{box.workdir}/sub", "lime"]
    assert run("cd ..; echo done \\") == "done"  # a trailing continuation still ends
    assert "syntax error" in run("if then fi")
    assert run("echo to-stderr >&2") == "to-stderr"  # both streams, in order, in one log


@pytest.mark.parametrize("budget", [200, 800, 2000])
def test_every_action_respects_its_budget(box, budget):
    observer = Observer(box, budget=budget)
    outputs = {
        "shell": execute.shell(box, Action("shell", {"command": "seq 1 200000"}), 60, observer, 1),
        "python": execute.python(
            box, Action("python", {"code": "print('y' * 300000)\n1/0"}), 60, observer, 2
        ),
        "view": execute.view(box, Action("view", {"path": "big.txt"}), observer),
        "edit-like": observer.bound("z " * 50000, 3, "edit"),
    }
    for name, text in outputs.items():
        assert count_text(text) <= budget + 60, (name, count_text(text))  # + the status lines
    assert "ZeroDivisionError" in outputs["python"]
    content = box.run(["cat", saved(box, outputs["python"])]).stdout
    assert "y" * 1000 in content and "ZeroDivisionError" in content
    assert "not shown: view with start=" in outputs["view"]


def test_small_outputs_are_shown_whole_without_a_file(box):
    observer = Observer(box, budget=2000)
    assert (
        execute.shell(box, Action("shell", {"command": "echo hello; false"}), 60, observer)
        == "hello\n[exit code 1]"
    )
    view = execute.view(box, Action("view", {"path": "small.py"}), observer)
    assert view == "small.py (lines 1-2 of 2)\n    1  def f():\n    2      return 1"
