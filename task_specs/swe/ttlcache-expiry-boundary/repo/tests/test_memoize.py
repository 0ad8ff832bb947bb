from kcache import LRUCache, ManualClock, TTLCache, memoize


def test_memoize_counts_hits():
    calls = []

    @memoize(LRUCache(8))
    def square(x):
        calls.append(x)
        return x * x

    assert [square(3), square(3), square(4)] == [9, 9, 16]
    assert calls == [3, 4]
    info = square.cache_info()
    assert (info.hits, info.misses) == (1, 2)


def test_memoize_with_ttl_recomputes_after_expiry():
    clock = ManualClock()
    calls = []

    @memoize(TTLCache(ttl=60, clock=clock))
    def load(name):
        calls.append(name)
        return name.upper()

    load("a")
    clock.advance(61)
    load("a")
    assert calls == ["a", "a"]
