import pytest

from throttle import Policy, parse_policy


@pytest.mark.parametrize(
    "text,rate,capacity",
    [("10/s", 10, 10), ("120/m", 2, 120), ("5/10s", 0.5, 5), ("3600/h burst 20", 1, 20)],
    ids=["per-second", "per-minute", "span", "burst"],
)
def test_parse_policy(text, rate, capacity):
    assert parse_policy(text) == Policy(rate, capacity)


def test_bad_policy():
    with pytest.raises(ValueError):
        parse_policy("ten per second")
    with pytest.raises(ValueError):
        parse_policy("0/s")
