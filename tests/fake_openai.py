"""A scripted OpenAI-compatible server on 127.0.0.1, for fault injection only.

Each request takes the next behaviour from ``script`` (the last one repeats) and every
request body is kept, so a test can see what the extractor sent.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

GOOD_DELTA = {"goals": [], "anchors": []}


def completion(arguments: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "scripted",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": None, "tool_calls": [{
                "id": "call_1", "type": "function",
                "function": {"name": "StateDelta", "arguments": arguments}}]}}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120,
                  "prompt_tokens_details": {"cached_tokens": 64}},
    }


class FakeOpenAI:
    """Behaviours: 'ok', 'gated' (waits for ``gate``), 'timeout', '500', '429', '429-long',
    'truncated', 'invalid', 'invent', or a dict (sent as the tool call's arguments)."""

    def __init__(self, *script: str | dict[str, Any], delay: float = 3.0):
        self.script = list(script) or ["ok"]
        self.delay = delay
        self.gate = threading.Event()
        self.bodies: list[dict[str, Any]] = []
        self.raw: list[bytes] = []  # each request's body as it arrived
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                body = json.loads(raw)
                with fake._lock:
                    fake.bodies.append(body)
                    fake.raw.append(raw)
                    fake.headers.append({k.lower(): v for k, v in self.headers.items()})
                    step = fake.script.pop(0) if len(fake.script) > 1 else fake.script[0]
                fake.respond(self, step)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def respond(self, h: BaseHTTPRequestHandler, step: str | dict[str, Any]) -> None:
        if step == "gated":  # answers once the test opens the gate
            self.gate.wait(30)
            return self.send(h, 200, completion(json.dumps(GOOD_DELTA)))
        if step == "timeout":
            time.sleep(self.delay)
            return self.send(h, 200, completion(json.dumps(GOOD_DELTA)))
        if step == "500":
            return self.send(h, 500, {"error": {"message": "boom", "type": "server_error"}})
        if step == "429":
            return self.send(h, 429, {"error": {"message": "slow down", "type": "rate_limit"}},
                             {"retry-after-ms": "10"})
        if step == "429-long":  # asks for two minutes
            return self.send(h, 429, {"error": {"message": "slow down", "type": "rate_limit"}},
                             {"retry-after": "120"})
        arguments = {
            "ok": json.dumps(GOOD_DELTA),
            "truncated": '{"anchors": [{"kind": "order_id", "key": "ord',
            "invalid": json.dumps({"anchors": [{"kind": "spaceship", "key": 5}]}),
            "invent": json.dumps({"anchors": [{"kind": "order_id", "key": "order_id",
                                               "value": "DD99999999", "turns": [0]}]}),
        }.get(step) if isinstance(step, str) else json.dumps(step)
        self.send(h, 200, completion(arguments))

    @staticmethod
    def send(h: BaseHTTPRequestHandler, status: int, doc: dict[str, Any],
             headers: dict[str, str] | None = None) -> None:
        data = json.dumps(doc).encode()
        try:
            h.send_response(status)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                h.send_header(k, v)
            h.end_headers()
            h.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout): nothing to answer

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
