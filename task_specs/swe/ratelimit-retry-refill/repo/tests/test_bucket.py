import pytest

from throttle import FakeClock, TokenBucket


def test_starts_full_and_drains():
    clock = FakeClock()
    bucket = TokenBucket(rate=1, capacity=3, clock=clock)
    assert [bucket.try_acquire() for _ in range(4)] == [True, True, True, False]


def test_refills_over_time_up_to_capacity():
    clock = FakeClock()
    bucket = TokenBucket(rate=2, capacity=4, clock=clock)
    for _ in range(4):
        bucket.try_acquire()
    clock.tick(1)
    assert bucket.try_acquire(2)
    clock.tick(100)
    assert bucket.tokens == 4


def test_wait_time():
    clock = FakeClock()
    bucket = TokenBucket(rate=0.5, capacity=1, clock=clock)
    assert bucket.wait_time() == 0
    bucket.try_acquire()
    assert bucket.wait_time() == pytest.approx(2.0)


def test_cannot_take_more_than_capacity():
    with pytest.raises(ValueError):
        TokenBucket(rate=1, capacity=2, clock=FakeClock()).try_acquire(3)
