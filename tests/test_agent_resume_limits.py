"""What a resumed run inherits: the steps and money already used count against its limits, a limit that
was the stop reason must be raised first, and the model it gets knows what was spent and where its script
stood. `resume_agent` runs these before anything on disk changes (the end-to-end path, through a kill -9,
is `tests/test_agent_limits.py`)."""

from __future__ import annotations

import pytest
import yaml

from repofix.agent.api import AgentSetupError
from repofix.agent.resume import _check_limits, _model
from repofix.config import Settings
from repofix.models import CostLimitExceeded

USER = [{"role": "user", "content": "Go on."}]


def record(steps: int) -> dict:
    return {"run_id": "run-7", "steps": [{"step": n + 1} for n in range(steps)]}


@pytest.mark.parametrize(("steps", "max_steps"), [(0, 1), (4, 5), (29, 30)])
def test_a_run_with_steps_left_may_go_on(steps, max_steps):
    _check_limits(record(steps), Settings(max_steps=max_steps), 0.0)


@pytest.mark.parametrize(("steps", "max_steps"), [(5, 5), (6, 5), (1, 1)])
def test_a_run_that_used_its_steps_must_have_the_limit_raised(steps, max_steps):
    with pytest.raises(AgentSetupError) as refused:
        _check_limits(record(steps), Settings(max_steps=max_steps), 0.0)
    assert str(refused.value) == (
        f"run run-7 has used {steps} of its {max_steps} steps; raise the limit, e.g. --max-steps {steps + 10}"
    )


@pytest.mark.parametrize(("spent", "cap"), [(0.0, 0.05), (0.04, 0.05), (1.99, 2.0)])
def test_a_run_with_money_left_may_go_on(spent, cap):
    _check_limits(record(1), Settings(max_cost=cap), spent)


@pytest.mark.parametrize(
    ("spent", "cap", "suggested"),
    [(0.05, 0.05, "1.05"), (0.06, 0.05, "1.06"), (3.0, 2.0, "6.00"), (1.0, 1.0, "2.00")],
)
def test_a_run_that_spent_its_cap_must_have_the_cap_raised(spent, cap, suggested):
    with pytest.raises(AgentSetupError) as refused:
        _check_limits(record(1), Settings(max_cost=cap), spent)
    assert str(refused.value) == (
        f"run run-7 has spent ${spent:.4f} of its ${cap:.4f} cap; raise the cap, e.g. --max-cost {suggested}"
    )


def test_without_a_cap_any_spending_may_go_on():
    _check_limits(record(1), Settings(max_cost=None), 1_000.0)


def scripted(tmp_path, costs: list[float]) -> str:
    path = tmp_path / "script.yaml"
    path.write_text(yaml.safe_dump([{"content": f"reply {n}", "cost": c} for n, c in enumerate(costs)]))
    return f"scripted:{path}"


def test_the_resumed_model_carries_the_money_already_spent(tmp_path):
    data = {"model": scripted(tmp_path, [0.02, 0.02, 0.02])}
    model = _model(None, data, Settings(max_cost=0.05), 0.02, 1)
    assert model.budget.spent == 0.02 and model.budget.max_cost == 0.05
    assert model.query(USER).content == "reply 1"  # $0.04 fits, and reply 0 was used before the stop
    with pytest.raises(CostLimitExceeded):
        model.query(USER)  # $0.06 would pass the cap


def test_the_resumed_model_without_a_cap_never_refuses(tmp_path):
    model = _model(None, {"model": scripted(tmp_path, [5.0, 5.0])}, Settings(max_cost=None), 7.0, 0)
    assert model.budget.max_cost is None and model.budget.spent == 7.0
    assert [model.query(USER).content for _ in range(2)] == ["reply 0", "reply 1"]


def test_another_model_given_on_resume_starts_its_own_script_but_keeps_the_money(tmp_path):
    (tmp_path / "other").mkdir()
    other = scripted(tmp_path / "other", [0.01])
    data = {"model": scripted(tmp_path, [0.01, 0.01, 0.01])}
    model = _model(other, data, Settings(max_cost=1.0), 0.5, 2)
    assert model.position == 0 and model.budget.spent == 0.5
    assert model.query(USER).content == "reply 0"
