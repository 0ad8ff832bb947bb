"""The incoming request, read from a WSGI environ."""

from __future__ import annotations

import json
from functools import cached_property
from typing import Any
from urllib.parse import parse_qs


class Request:
    def __init__(self, environ: dict[str, Any]) -> None:
        self.environ = environ
        self.method = environ.get("REQUEST_METHOD", "GET").upper()
        self.path = environ.get("PATH_INFO", "") or "/"
        self.params: dict[str, Any] = {}  # filled in from the route pattern

    @cached_property
    def query(self) -> dict[str, str]:
        """Query string parameters; the last value wins for repeated keys."""
        parsed = parse_qs(self.environ.get("QUERY_STRING", ""), keep_blank_values=True)
        return {key: values[-1] for key, values in parsed.items()}

    @cached_property
    def headers(self) -> dict[str, str]:
        out = {}
        for key, value in self.environ.items():
            if key.startswith("HTTP_"):
                out[key[5:].replace("_", "-").title()] = value
            elif key in ("CONTENT_TYPE", "CONTENT_LENGTH") and value:
                out[key.replace("_", "-").title()] = value
        return out

    @cached_property
    def body(self) -> bytes:
        try:
            length = int(self.environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        stream = self.environ.get("wsgi.input")
        return stream.read(length) if stream is not None and length > 0 else b""

    def json(self) -> Any:
        return json.loads(self.body or b"null")
