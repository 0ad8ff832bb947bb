"""A minimal client that calls a WSGI app in-process."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from typing import Any, Callable


@dataclass
class TestResponse:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class Client:
    __test__ = False  # not a pytest test class

    def __init__(self, app: Callable) -> None:
        self.app = app

    def request(self, method: str, path: str, body: bytes = b"", query: str = "",
                headers: dict[str, str] | None = None) -> TestResponse:
        environ = {
            "REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": query,
            "CONTENT_LENGTH": str(len(body)), "wsgi.input": io.BytesIO(body),
        }
        for key, value in (headers or {}).items():
            environ["HTTP_" + key.upper().replace("-", "_")] = value
        captured = {}

        def start_response(status: str, header_list: list[tuple[str, str]]) -> None:
            captured["status"] = int(status.split()[0])
            captured["headers"] = dict(header_list)

        chunks = self.app(environ, start_response)
        return TestResponse(captured["status"], captured["headers"], b"".join(chunks))

    def get(self, path: str, **kw: Any) -> TestResponse:
        return self.request("GET", path, **kw)

    def post(self, path: str, data: Any = None, **kw: Any) -> TestResponse:
        return self.request("POST", path, body=json.dumps(data).encode(), **kw)
