"""A server speaking Anthropic's Messages API (`POST /v1/messages`) on 127.0.0.1 for tests: real
HTTP, scripted answers, every request body kept, so a test sees exactly what LiteLLM sends to
Anthropic (system blocks, `cache_control` breakpoints, tool_use / tool_result pairing).

    with AnthropicServer() as server:
        server.add(message("hello", usage=Usage(1500, 10, cache_read=1200)))
        model = LiteLLMModel("anthropic/claude-sonnet-4-5", api_base=server.url, api_key="sk-ant-test")
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Usage:
    input_tokens: int = 10  # Anthropic's input_tokens: the uncached part only
    output_tokens: int = 5
    cache_read: int = 0
    cache_write: int = 0


@dataclass
class Reply:
    content: list[dict[str, Any]]
    usage: Usage = field(default_factory=Usage)
    stop_reason: str = "end_turn"
    status: int = 200
    error: dict[str, Any] | None = None


def message(text: str, usage: Usage | None = None) -> Reply:
    return Reply([{"type": "text", "text": text}], usage or Usage())


def tool_use(
    name: str, arguments: dict[str, Any], call_id: str = "toolu_1", usage: Usage | None = None
) -> Reply:
    return Reply(
        [{"type": "tool_use", "id": call_id, "name": name, "input": arguments}],
        usage or Usage(),
        stop_reason="tool_use",
    )


def too_long() -> Reply:
    return Reply(
        [],
        status=400,
        error={
            "type": "invalid_request_error",
            "message": "prompt is too long: 210000 tokens > 200000 maximum",
        },
    )


class AnthropicServer:
    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.bodies: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._httpd is not None, "start the server first"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def add(self, *replies: Reply) -> AnthropicServer:
        with self._lock:
            self.replies.extend(replies)
        return self

    def __enter__(self) -> AnthropicServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                body = json.loads(raw or b"{}")
                with server._lock:
                    server.bodies.append(body)
                    reply = server.replies.pop(0) if server.replies else None
                if not self.path.rstrip("/").endswith("/messages"):
                    status, data = (
                        404,
                        {"type": "error", "error": {"type": "not_found_error", "message": self.path}},
                    )
                elif reply is None:
                    status, data = (
                        400,
                        {
                            "type": "error",
                            "error": {"type": "invalid_request_error", "message": "no scripted reply left"},
                        },
                    )
                elif reply.error:
                    status, data = reply.status, {"type": "error", "error": reply.error}
                else:
                    status, data = (
                        200,
                        {
                            "id": f"msg_{len(server.bodies)}",
                            "type": "message",
                            "role": "assistant",
                            "model": body.get("model", "claude"),
                            "content": reply.content,
                            "stop_reason": reply.stop_reason,
                            "stop_sequence": None,
                            "usage": {
                                "input_tokens": reply.usage.input_tokens,
                                "output_tokens": reply.usage.output_tokens,
                                "cache_read_input_tokens": reply.usage.cache_read,
                                "cache_creation_input_tokens": reply.usage.cache_write,
                            },
                        },
                    )
                payload = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
