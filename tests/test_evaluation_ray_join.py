"""Joining a Ray cluster (repofix/evaluation/ray_join.py): a Ray Client server that did not start
for this driver is tried again; every other failure is said at once.

Ray's proxy failing to start a driver's server cannot be made to happen on demand (in CI it
happened under load, 3 times in 6 full runs), so `ray` here is a stand-in whose `init` raises
what Ray Client raised there, word for word, before it joins."""

from __future__ import annotations

import socket

import pytest

from repofix.evaluation.ray_join import JOIN_TRIES, RayUnavailable, join

CLIENT_SERVER_FAILED = ConnectionAbortedError(
    "Initialization failure from server:\nTraceback (most recent call last):\n"
    '  File ".../ray/util/client/server/proxier.py", line 772, in Datapath\n    raise RuntimeError(\n'
    "RuntimeError: Starting Ray client server failed. See ray_client_server_23000.err for detailed logs.\n"
)


class FailingThenJoining:
    def __init__(self, failures: list[BaseException]):
        self.failures, self.inits, self.shutdowns = list(failures), 0, 0

    def init(self, **options: object) -> None:
        self.inits += 1
        if self.failures:
            raise self.failures.pop(0)

    def shutdown(self) -> None:
        self.shutdowns += 1


@pytest.fixture
def listening():
    """An address that answers (join checks that first)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    yield f"127.0.0.1:{server.getsockname()[1]}"
    server.close()


@pytest.mark.parametrize(
    ("client", "failures", "inits", "joined"),
    [
        (True, [CLIENT_SERVER_FAILED], 2, True),  # tried again, and joined
        (True, [CLIENT_SERVER_FAILED] * JOIN_TRIES, JOIN_TRIES, False),  # at most JOIN_TRIES
        (False, [CLIENT_SERVER_FAILED], 1, False),  # not through Ray Client: no such server
        (True, [ConnectionError("no GCS at that address")], 1, False),  # no cluster: said at once
    ],
)
def test_a_ray_client_server_that_did_not_start_is_tried_again(
    listening: str, client: bool, failures: list, inits: int, joined: bool
) -> None:
    ray, notes = FailingThenJoining(failures), []
    address = f"ray://{listening}" if client else listening
    if joined:
        join(ray, address, notes.append)
    else:
        with pytest.raises(RayUnavailable, match=f"cannot join the Ray cluster at {address}: "):
            join(ray, address, notes.append)
    assert ray.inits == inits
    assert len(notes) == ray.shutdowns == (inits - 1)
    assert all("did not start for this driver; joining again" in n for n in notes)
