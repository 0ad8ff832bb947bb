"""WSGI middleware answering 429 Too Many Requests when a client exceeds its rate."""

from __future__ import annotations

import math
from typing import Any, Callable

from throttle.limiter import KeyedLimiter


def client_ip(environ: dict[str, Any]) -> str:
    return environ.get("REMOTE_ADDR", "unknown")


class RateLimitMiddleware:
    def __init__(self, app: Callable, limiter: KeyedLimiter,
                 key: Callable[[dict[str, Any]], str] = client_ip) -> None:
        self.app = app
        self.limiter = limiter
        self.key = key

    def __call__(self, environ: dict[str, Any], start_response: Callable) -> Any:
        decision = self.limiter.check(self.key(environ))
        if not decision.allowed:
            retry = max(1, math.ceil(decision.retry_after))
            body = b"rate limit exceeded\n"
            start_response("429 Too Many Requests", [
                ("Content-Type", "text/plain"), ("Content-Length", str(len(body))),
                ("Retry-After", str(retry)),
            ])
            return [body]

        def start_with_headers(status: str, headers: list, exc_info: Any = None) -> Any:
            headers = [*headers, ("X-RateLimit-Remaining", str(decision.remaining))]
            return start_response(status, headers, exc_info) if exc_info else start_response(status, headers)

        return self.app(environ, start_with_headers)
