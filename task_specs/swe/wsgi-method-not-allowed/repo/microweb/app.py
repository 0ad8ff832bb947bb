"""The WSGI application object."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any, Callable

from microweb.request import Request
from microweb.response import Response, error_response, json_response
from microweb.routing import Router

log = logging.getLogger("microweb")


class HTTPError(Exception):
    """Raise from a handler to answer with an error status."""

    def __init__(self, status: int, message: str | None = None) -> None:
        super().__init__(message or str(status))
        self.status = status
        self.message = message


class App:
    def __init__(self) -> None:
        self.router = Router()

    def route(self, pattern: str, methods: Iterable[str] = ("GET",)) -> Callable:
        def decorate(handler: Callable) -> Callable:
            for method in methods:
                self.router.add(method, pattern, handler)
            return handler

        return decorate

    def get(self, pattern: str) -> Callable:
        return self.route(pattern, ["GET"])

    def post(self, pattern: str) -> Callable:
        return self.route(pattern, ["POST"])

    def handle(self, request: Request) -> Response:
        found = self.router.match(request.method, request.path)
        if found is None:
            return error_response(404)
        route, params = found
        request.params = params
        try:
            result = route.handler(request, **params)
        except HTTPError as exc:
            return error_response(exc.status, exc.message)
        except Exception:
            log.exception("unhandled error in %s %s", request.method, request.path)
            return error_response(500)
        if isinstance(result, Response):
            return result
        if isinstance(result, (dict, list)):
            return json_response(result)
        return Response("" if result is None else str(result))

    def __call__(self, environ: dict[str, Any], start_response: Callable) -> list[bytes]:
        response = self.handle(Request(environ))
        start_response(response.status_line, response.wsgi_headers())
        return [response.body]
