from kcache import LRUCache


def test_evicts_least_recently_used():
    cache = LRUCache(2)
    cache.set("a", 1)
    cache.set("b", 2)
    cache.get("a")
    cache.set("c", 3)
    assert list(cache) == ["a", "c"]


def test_peek_does_not_refresh():
    cache = LRUCache(2)
    cache.set("a", 1)
    cache.set("b", 2)
    assert cache.peek("a") == 1
    cache.set("c", 3)
    assert "a" not in cache


def test_on_evict_callback():
    evicted = []
    cache = LRUCache(1, on_evict=lambda k, v: evicted.append((k, v)))
    cache.set("a", 1)
    cache.set("b", 2)
    assert evicted == [("a", 1)]
