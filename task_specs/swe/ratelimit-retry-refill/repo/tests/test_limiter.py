from throttle import FakeClock, KeyedLimiter
from throttle.middleware import RateLimitMiddleware


def test_keys_are_independent():
    limiter = KeyedLimiter("2/s", clock=FakeClock())
    assert [limiter.check("a").allowed for _ in range(3)] == [True, True, False]
    assert limiter.check("b").allowed


def test_decision_fields():
    limiter = KeyedLimiter("2/s", clock=FakeClock())
    assert limiter.check("a").remaining == 1
    limiter.check("a")
    denied = limiter.check("a")
    assert (denied.allowed, denied.remaining) == (False, 0)
    assert denied.retry_after > 0


def test_idle_keys_are_forgotten():
    limiter = KeyedLimiter("1/s", max_keys=2, clock=FakeClock())
    for key in "abc":
        limiter.check(key)
    assert len(limiter) == 2


def _app(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"ok"]


def test_middleware_answers_429():
    mw = RateLimitMiddleware(_app, KeyedLimiter("1/m", clock=FakeClock()))
    seen = []
    environ = {"REMOTE_ADDR": "10.0.0.1"}
    assert mw(environ, lambda s, h: seen.append((s, dict(h)))) == [b"ok"]
    assert mw(environ, lambda s, h: seen.append((s, dict(h)))) == [b"rate limit exceeded\n"]
    assert seen[0][1]["X-RateLimit-Remaining"] == "0"
    assert seen[1][0].startswith("429")
    assert seen[1][1]["Retry-After"] == "60"
