import pytest

from kcache import ManualClock, TTLCache


def test_value_visible_before_ttl():
    clock = ManualClock()
    cache = TTLCache(ttl=10, clock=clock)
    cache.set("k", "v")
    clock.advance(9.5)
    assert cache.get("k") == "v"
    assert cache.remaining("k") == pytest.approx(0.5)


def test_value_gone_well_after_ttl():
    clock = ManualClock()
    cache = TTLCache(ttl=10, clock=clock)
    cache.set("k", "v")
    clock.advance(30)
    assert cache.get("k", "missing") == "missing"
    assert len(cache) == 0


def test_per_entry_ttl():
    clock = ManualClock()
    cache = TTLCache(ttl=10, clock=clock)
    cache.set("short", 1, ttl=1)
    cache.set("long", 2)
    clock.advance(2)
    assert "short" not in cache
    assert "long" in cache


def test_expire_counts_dropped_entries():
    clock = ManualClock()
    cache = TTLCache(ttl=5, clock=clock)
    for i in range(3):
        cache.set(i, i)
    cache.set("late", 0, ttl=100)
    clock.advance(6)
    assert cache.expire() == 3
    assert len(cache) == 1


def test_negative_ttl_rejected():
    with pytest.raises(ValueError):
        TTLCache(ttl=-1)
