"""Responses and their WSGI form."""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import Any


class Response:
    def __init__(self, body: bytes | str = b"", status: int = 200, headers: dict[str, str] | None = None,
                 content_type: str = "text/plain; charset=utf-8") -> None:
        self.body = body.encode("utf-8") if isinstance(body, str) else body
        self.status = status
        self.headers = {"Content-Type": content_type, **(headers or {})}

    @property
    def status_line(self) -> str:
        try:
            phrase = HTTPStatus(self.status).phrase
        except ValueError:
            phrase = "Unknown"
        return f"{self.status} {phrase}"

    def wsgi_headers(self) -> list[tuple[str, str]]:
        headers = dict(self.headers)
        headers["Content-Length"] = str(len(self.body))
        return list(headers.items())


def json_response(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(json.dumps(data), status, headers, content_type="application/json")


def error_response(status: int, message: str | None = None, headers: dict[str, str] | None = None) -> Response:
    text = message or HTTPStatus(status).phrase
    return json_response({"error": text}, status, headers)
