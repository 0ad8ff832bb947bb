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

Like real providers, it refuses malformed conversations with 400 (`malformed()` says why): a tool
call left unanswered, a tool answer without its call, tool turns in a request without tools, or
(without tools, the text protocol) roles that do not alternate.

`OpenAIServer(count=True)` reports real prompt token counts and simulates prefix caching the way
providers bill it: the longest prefix a request shares with any earlier request, if over 1,024
tokens, is "cached" (`usage.prompt_tokens_details.cached_tokens`); `server.billed` sums what a
provider would bill for input, with cached tokens at 10%.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from repofix.models.tokens import count_messages, count_text

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
    hold: threading.Event | None = None  # answer only once the test sets it (a request kept in flight)


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


def malformed(body: dict[str, Any]) -> str | None:
    """Why a provider would refuse this conversation, or None."""
    messages = body.get("messages") or []
    tools = bool(body.get("tools"))
    pending: set[str] = set()
    roles = []
    for index, message in enumerate(messages):
        role = message.get("role")
        if pending and role != "tool":
            return (
                f"messages[{index}]: an assistant message with 'tool_calls' must be followed by tool "
                f"messages responding to each 'tool_call_id'; missing: {sorted(pending)}"
            )
        if role == "tool":
            if not tools:
                return f"messages[{index}]: role 'tool' in a request without tools"
            if message.get("tool_call_id") not in pending:
                return (
                    f"messages[{index}]: messages with role 'tool' must be a response to a preceding "
                    "message with 'tool_calls'"
                )
            pending.discard(message["tool_call_id"])
            continue
        if role == "assistant" and message.get("tool_calls"):
            if not tools:
                return f"messages[{index}]: 'tool_calls' in a request without tools"
            pending = {call.get("id") for call in message["tool_calls"]}
        if role != "system":
            roles.append(role)
    if pending:
        return f"the last assistant message's tool calls are unanswered: {sorted(pending)}"
    if not tools and any(a == b for a, b in zip(roles, roles[1:], strict=False)):
        return "roles must alternate between 'user' and 'assistant'"
    if roles and roles[0] != "user":
        return "the first message after the system prompt must be from the user"
    return None


CACHE_MIN = 1024  # tokens: shorter shared prefixes are not cached (OpenAI, Anthropic)
CACHED_RATE = 0.1  # what a cached input token is billed, relative to a fresh one


class PromptCache:
    """Token counting and prefix-cache simulation over the requests a server saw."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.prompt_tokens: list[int] = []
        self.cached_tokens: list[int] = []

    def add(self, body: dict[str, Any]) -> tuple[int, int]:
        # The serialised request, tools first then messages in order: what a provider's cache keys on.
        text = json.dumps([body.get("tools") or [], body.get("messages") or []], sort_keys=True)
        tokens = count_messages(body.get("messages") or [], body.get("tools") or None)
        shared = max((_common_prefix(text, earlier) for earlier in self.seen), default=0)
        # The shared share of the serialised text, in the provider's prompt tokens.
        cached = round(tokens * count_text(text[:shared]) / count_text(text)) if shared else 0
        cached = cached if cached > CACHE_MIN else 0
        self.seen.append(text)
        self.prompt_tokens.append(tokens)
        self.cached_tokens.append(cached)
        return tokens, cached

    @property
    def billed(self) -> float:
        return sum(
            p - c + CACHED_RATE * c for p, c in zip(self.prompt_tokens, self.cached_tokens, strict=True)
        )


def _common_prefix(a: str, b: str) -> int:
    low, high = 0, min(len(a), len(b))
    while low < high:  # binary search on slices: C-speed comparisons
        middle = (low + high + 1) // 2
        low, high = (middle, high) if a[:middle] == b[:middle] else (low, middle - 1)
    return low


class OpenAIServer:
    def __init__(self, count: bool = False) -> None:
        self.responses: list[Response] = []
        self.requests: list[Request] = []
        self.cache = PromptCache() if count else None
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
        elif malformed(request.body):
            response = error(400, str(malformed(request.body)), type_="invalid_request_error")
        elif scripted is None:
            response = error(400, "openai_server: no scripted response left", type_="invalid_request_error")
        else:
            response = scripted
        if response.delay:
            time.sleep(response.delay)
        if response.hold is not None:
            response.hold.wait(600)
        payload = response.body if response.status >= 400 else self._completion(request, response, self.cache)
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
    def _completion(request: Request, response: Response, cache: PromptCache | None) -> dict[str, Any]:
        prompt, completion = response.usage or (
            max(1, len(json.dumps(request.messages)) // 4),
            max(1, len(json.dumps(response.message)) // 4),
        )
        cached = 0
        if cache is not None:
            prompt, cached = cache.add(request.body)
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
                "prompt_tokens_details": {"cached_tokens": cached},
            },
        }


@pytest.fixture
def openai_server():
    """A running OpenAIServer; stopped after the test."""
    with OpenAIServer() as server:
        yield server
