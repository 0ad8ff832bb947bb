"""Money at its edges: the cost cap's boundaries, what a call costs with cached and written prompt
tokens, and price files in both spellings with every way they can be wrong. Plain values, exact
sums (binary fractions, so == is exact), no model call needed."""

from __future__ import annotations

import pytest

from repofix.models import Budget, CostLimitExceeded
from repofix.models.base import ModelError
from repofix.models.litellm_model import import_litellm
from repofix.models.pricing import Price, find_price, load_price_file


@pytest.mark.parametrize(
    ("cap", "spent", "estimate", "allowed"),
    [
        (1.0, 0.5, 0.5, True),  # exactly reaching the cap is allowed...
        (1.0, 0.5, 0.5 + 2**-20, False),  # ...a hair over it is not
        (1.0, 1.0, 0.0, False),  # a spent budget refuses even a call of unknown (zero) price
        (1.0, 1.25, 0.0, False),
        (0.0, 0.0, 0.0, False),  # a cap of 0 allows nothing
        (None, 1e9, 1e9, True),  # no cap
    ],
)
def test_the_cost_cap_boundaries(cap, spent, estimate, allowed) -> None:
    budget = Budget(max_cost=cap, spent=spent)
    if allowed:
        budget.check(estimate)
    else:
        with pytest.raises(CostLimitExceeded, match=r"Raise --max-cost"):
            budget.check(estimate)
    assert budget.spent == spent  # checking spends nothing


def test_spending_adds_up_and_then_stops_the_next_call() -> None:
    budget = Budget(max_cost=1.0)
    for cost in (0.25, 0.5, 0.125):
        budget.check(cost)
        budget.add(cost)
    assert budget.spent == 0.875
    budget.check(0.125)
    with pytest.raises(CostLimitExceeded, match=r"spent \$0\.8750 of \$1\.0000.*up to \$0\.2500"):
        budget.check(0.25)


def test_a_budget_spent_to_the_cent_refuses_a_call_of_unknown_price() -> None:
    """Reached by adding (a float made at run time, not the cap's own object): equal is spent."""
    budget = Budget(max_cost=float("1.0"))
    for cost in (0.25, 0.25, 0.5):
        budget.add(cost)
    assert budget.spent == budget.max_cost and budget.spent is not budget.max_cost
    with pytest.raises(CostLimitExceeded, match=r"cost cap reached"):
        budget.check(0.0)


PRICE = Price(
    input_per_token=2**-10,
    output_per_token=2**-8,
    source="test",
    cache_read_per_token=2**-13,
    cache_write_per_token=2**-9,
)


@pytest.mark.parametrize(
    ("args", "want"),
    [
        ((1024, 0), 1.0),  # fresh input only
        ((0, 256), 1.0),  # output only
        ((1024, 256), 2.0),
        ((1024, 0, 1024), 0.125),  # every prompt token read from the cache
        ((1024, 0, 0, 512), 1.5),  # half written to the cache (at twice the input price), half fresh
        ((1024, 0, 512, 256), 0.5 + 0.0625 + 0.25),  # 256 fresh, 512 read, 256 written
        (
            (100, 0, 300),
            300 * 2**-13,
        ),  # more cached than counted (providers disagree): never negative fresh tokens
    ],
)
def test_a_calls_cost_with_cached_and_written_prompt_tokens(args, want) -> None:
    assert PRICE.cost(*args) == want


def test_without_cache_prices_cached_tokens_cost_what_input_costs() -> None:
    plain = Price(2**-10, 2**-8, "test")
    assert plain.cost(1024, 0, 512, 256) == plain.cost(1024, 0) == 1.0


@pytest.mark.parametrize(
    ("text", "suffix"),
    [
        (
            '{"m": {"input_cost_per_token": 0.5, "output_cost_per_token": 0.25,'
            ' "cache_read_input_token_cost": 0.125, "cache_creation_input_token_cost": 1.0, "max_input_tokens": 4096}}',
            "json",
        ),
        (
            "m:\n  input_per_million: 500000\n  output_per_million: 250000\n  cache_read_per_million: 125000\n"
            "  cache_write_per_million: 1000000\n  max_input_tokens: 4096\n",
            "YML",
        ),
    ],
)
def test_price_files_in_both_spellings_give_the_same_price(tmp_path, text, suffix) -> None:
    path = tmp_path / f"prices.{suffix}"
    path.write_text(text)
    assert load_price_file(path) == {"m": Price(0.5, 0.25, str(path), 0.125, 1.0, 4096)}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must map model names to prices"),
        ('{"m": {"input_cost_per_token": 1e-6}}', "bad or missing price"),
        ('{"m": {"output_per_million": 2}}', "bad or missing price"),
        ('{"m": {"input_per_million": "cheap", "output_per_million": 2}}', "bad or missing price"),
        ('{"m": {"price": 3}}', "give input_cost_per_token and output_cost_per_token"),
        ('{"m": 3}', "give input_cost_per_token"),
    ],
)
def test_a_bad_price_file_is_a_clear_error(tmp_path, text, message) -> None:
    path = tmp_path / "prices.json"
    path.write_text(text)
    with pytest.raises(ModelError, match=message):
        load_price_file(path)


def test_a_missing_price_file_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(ModelError, match="cannot read the price file"):
        load_price_file(tmp_path / "absent.json")


def test_a_users_price_beats_litellms_by_full_name_then_bare_name() -> None:
    mine, bare = Price(1.0, 2.0, "mine"), Price(3.0, 4.0, "bare")
    assert find_price("openai/gpt-4o", {"openai/gpt-4o": mine, "gpt-4o": bare}) is mine
    assert find_price("openai/gpt-4o", {"gpt-4o": bare}) is bare
    assert find_price("openai/my-local-model", {"other": mine}) is None


def test_litellms_price_and_cache_prices_are_used_when_the_user_gives_none() -> None:
    # Any model LiteLLM prices with distinct cache prices: its data changes with its version, so it
    # is read here, never pinned.
    name, bundled = next(
        (k, v)
        for k, v in sorted(import_litellm().model_cost.items())
        if "/" not in k
        and v.get("input_cost_per_token")
        and v.get("output_cost_per_token")
        and v.get("cache_read_input_token_cost")
        and v.get("cache_creation_input_token_cost")
        and len(
            {
                v["input_cost_per_token"],
                v["cache_read_input_token_cost"],
                v["cache_creation_input_token_cost"],
            }
        )
        == 3
    )
    price = find_price(f"someprovider/{name}")  # found by its bare name
    assert price is not None and price.source == "litellm"
    assert (price.input_per_token, price.output_per_token) == (
        bundled["input_cost_per_token"],
        bundled["output_cost_per_token"],
    )
    assert price.cache_read_per_token == bundled["cache_read_input_token_cost"]
    assert price.cache_write_per_token == bundled["cache_creation_input_token_cost"]


def test_a_price_map_entry_without_an_output_price_is_unknown(tmp_path) -> None:
    litellm = import_litellm()
    litellm.model_cost["repofix-test-half-priced"] = {"input_cost_per_token": 1e-6}
    try:
        assert find_price("repofix-test-half-priced") is None
    finally:
        del litellm.model_cost["repofix-test-half-priced"]
