"""Joining a Ray cluster as a driver: Ray imported only when asked for, an address that does not
answer named at once, and a Ray Client server that did not start for this driver tried again.

Through Ray Client (`ray://HOST:PORT`) the cluster's proxy starts a server process for each driver
that connects; on a loaded head that process sometimes ends before it serves ("Starting Ray client
server failed", seen in CI's Ray test), while the next driver's starts. Every other failure means
there is no cluster to join, and is said at once."""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Callable
from typing import Any

JOIN_TRIES = 3  # Ray Client joins, when the server for this driver did not start
JOIN_PAUSE = 2.0  # seconds between them


class RayUnavailable(Exception):
    """Ray is not installed, or no cluster answers at the address."""


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RayUnavailable(
            "--executor ray needs Ray, which is not installed: "
            "pip install 'repofix[ray]' (or run with --executor local)"
        ) from None
    return ray


def _check_reachable(address: str) -> None:
    """Ray retries an address that does not answer for minutes: say so at once instead."""
    if address == "auto":
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise RayUnavailable(f"--address {address!r}: expected auto, HOST:PORT or ray://HOST:PORT")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=10).close()
    except OSError as error:
        raise RayUnavailable(f"no Ray cluster answers at {address}: {error}") from None


def client_server_failed(address: str, error: BaseException) -> bool:
    """Whether a join failed because the cluster's Ray Client server for this driver did not start."""
    return (
        address.startswith("ray://")
        and isinstance(error, ConnectionAbortedError)
        and "Initialization failure from server" in str(error)
    )


def join(ray: Any, address: str, note: Callable[[str], None]) -> None:
    """`ray.init` at `address`, or RayUnavailable with the reason."""
    _check_reachable(address)
    for attempt in range(1, JOIN_TRIES + 1):
        try:
            ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False)
            return
        except Exception as error:  # ConnectionError, ValueError, a gRPC error: "no cluster there"
            reason = f"{type(error).__name__}: {str(error).strip()[:300]}"
            if attempt == JOIN_TRIES or not client_server_failed(address, error):
                raise RayUnavailable(f"cannot join the Ray cluster at {address}: {reason}") from None
        ray.shutdown()  # what the failed join set up
        note(
            f"the Ray Client server at {address} did not start for this driver; "
            f"joining again ({attempt + 1}/{JOIN_TRIES})"
        )
        time.sleep(JOIN_PAUSE)
