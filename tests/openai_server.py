"""An OpenAI-compatible chat-completions server on 127.0.0.1 for tests: real HTTP, scripted answers.

    server = OpenAIServer().start()          # or the `openai_server` pytest fixture
    server.add(text("hello", usage=(12, 3)))
    server.add(rate_limited(), tool_call("run_shell", {"command": "ls"}))
    model = LiteLLMModel("openai/test-model", api_base=server.url, api_key="sk-test")
    ...
    server.requests[0].body["messages"]      # what the client sent
    server.stop()

Each request to `/v1/chat/completions` (or `/chat/completions`) takes the next scripted
response; when the script is empty the server answers 400 "no scripted response left" (never
retried), so a test that asks too much fails loudly. Streaming is refused: repofix never streams.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

PATHS = ("/v1/chat/completions", "/chat/completions")


@dataclass
class Response:
    """One scripted answer: a completion (`message`) or an error (`status` >= 400 with `body`)."""

    status: int = 200
    message: dict[str, Any] | None = None
    usage: tuple[int, int] | None = None
    finish_reason: str = "stop"
    body: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    raw: str

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.body.get("messages", [])


def text(content: str, *, usage: tuple[int, int] | None = None, delay: float = 0.0) -> Response:
    return Response(message={"role": "assistant", "content": content}, usage=usage, delay=delay)


def tool_call(
    name: str,
    arguments: dict[str, Any] | str,
    *,
    call_id: str = "call_1",
    content: str | None = None,
    usage: tuple[int, int] | None = None,
) -> Response:
    """A reply with one native tool call; pass `arguments` as a string to send malformed JSON."""
    return tool_calls([(call_id, name, arguments)], content=content, usage=usage)


def tool_calls(
    calls: list[tuple[str, str, dict[str, Any] | str]],
    *,
    content: str | None = None,
    usage: tuple[int, int] | None = None,
) -> Response:
    message = {
        "role": "assistant",
        "content": content,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)},
            }
            for call_id, name, args in calls
        ],
    }
    return Response(message=message, usage=usage, finish_reason="tool_calls")


def error(
    status: int,
    message: str,
    *,
    type_: str,
    code: str | None = None,
    headers: dict[str, str] | None = None,
    delay: float = 0.0,
) -> Response:
    """An error in OpenAI's shape: {"error": {"message", "type", "param", "code"}}."""
    body = {"error": {"message": message, "type": type_, "param": None, "code": code}}
    return Response(status=status, body=body, headers=headers or {}, delay=delay)


def rate_limited(retry_after: float = 0) -> Response:
    return error(
        429,
        "Rate limit reached for requests",
        type_="requests",
        code="rate_limit_exceeded",
        headers={"retry-after": str(retry_after)},
    )


def server_error() -> Response:
    return error(500, "The server had an error while processing your request.", type_="server_error")


def auth_error() -> Response:
    return error(401, "Incorrect API key provided.", type_="invalid_request_error", code="invalid_api_key")


def context_length_exceeded() -> Response:
    return error(
        400,
        "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. "
        "Please reduce the length of the messages.",
        type_="invalid_request_error",
        code="context_length_exceeded",
    )


class OpenAIServer:
    def __init__(self) -> None:
        self.responses: list[Response] = []
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        assert self._httpd is not None, "start() the server first"
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """The api_base to give clients, e.g. http://127.0.0.1:PORT/v1."""
        return f"http://127.0.0.1:{self.port}/v1"

    def add(self, *responses: Response) -> OpenAIServer:
        with self._lock:
            self.responses.extend(responses)
        return self

    def start(self) -> OpenAIServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # keep pytest output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length).decode("utf-8", "replace")
                try:
                    body = json.loads(raw or "{}")
                except ValueError:
                    body = {}
                server._handle(self, Request(self.path, dict(self.headers.items()), body, raw))

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="openai-test-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _handle(self, handler: BaseHTTPRequestHandler, request: Request) -> None:
        with self._lock:
            self.requests.append(request)
            scripted = self.responses.pop(0) if self.responses else None
        if request.path.split("?")[0] not in PATHS:
            response = error(404, f"unknown path {request.path}", type_="invalid_request_error")
        elif request.body.get("stream"):
            response = error(400, "the test server does not stream", type_="invalid_request_error")
        elif scripted is None:
            response = error(400, "openai_server: no scripted response left", type_="invalid_request_error")
        else:
            response = scripted
        if response.delay:
            time.sleep(response.delay)
        payload = response.body if response.status >= 400 else self._completion(request, response)
        data = json.dumps(payload).encode("utf-8")
        try:
            handler.send_response(response.status)
            handler.send_header("content-type", "application/json")
            handler.send_header("content-length", str(len(data)))
            for name, value in response.headers.items():
                handler.send_header(name, value)
            handler.end_headers()
            handler.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client timed out and left; that is what a delay test wants

    @staticmethod
    def _completion(request: Request, response: Response) -> dict[str, Any]:
        prompt, completion = response.usage or (
            max(1, len(json.dumps(request.messages)) // 4),
            max(1, len(json.dumps(response.message)) // 4),
        )
        return {
            "id": f"chatcmpl-test-{int(time.time() * 1000)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.body.get("model", "test-model"),
            "choices": [{"index": 0, "message": response.message, "finish_reason": response.finish_reason}],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            },
        }


@pytest.fixture
def openai_server():
    """A running OpenAIServer; stopped after the test."""
    with OpenAIServer() as server:
        yield server
