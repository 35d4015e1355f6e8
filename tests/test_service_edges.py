"""The service's edges over real HTTP: one error shape for every status, what a browser
page can and cannot make it do, the token's details, and health under load."""

from __future__ import annotations

import gc
import os
import sqlite3
import subprocess
import sys
import threading
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

import uvicorn  # noqa: E402
from test_service import TOKEN, Client, served  # noqa: E402

from convstate import ConversationMemory, InMemoryStore  # noqa: E402
from convstate.extract.local import free_port  # noqa: E402
from convstate.service import WINDOWS_PER_SESSION, create_app  # noqa: E402

HI = {"role": "user", "content": "Order SR-20240315-889 arrived broken."}


def _shaped(out: dict) -> dict:
    """The error of an answer, which must be the one shape and nothing else."""
    assert set(out) == {"error"} and set(out["error"]) == {"type", "field", "message"}, out
    assert out["error"]["type"] and out["error"]["message"], out
    return out["error"]


def test_every_status_answers_the_one_error_shape(store_target: str, tmp_path: Path) -> None:
    chat = f"/sessions/shape-{uuid.uuid4().hex[:12]}"
    deep = b'{"role": "user", "content": "x", "name": ' + b"[" * 1000 + b"]" * 1000 + b"}"
    with served(tmp_path, "--max-body", "5000", store=store_target) as (client, _):
        cases = [
            (("GET", "/nowhere"), 404, None),
            (("PUT", "/sessions"), 405, None),
            (("POST", f"{chat}/messages", None, b"x" * 6000), 413, "body"),
            (("POST", f"{chat}/messages", HI, None, {"Content-Type": "text/plain"}), 415,
             "content-type"),
            (("GET", f"{chat}/context?window=many"), 422, "window"),
            (("POST", f"{chat}/messages", None, deep), 400, "body"),
        ] + [((method, f"{chat}{tail}"), 404, "session_id")  # unknown on every route
             for method, tail in [("GET", "/context"), ("GET", "/state"),
                                  ("GET", "/block"), ("DELETE", "")]]
        for args, status, field in cases:
            got, out = client.call(*args)
            assert (got, _shaped(out)["field"]) == (status, field), (args[:2], out)
        assert chat.split("/")[-1] not in client.call("GET", "/sessions")[1]["sessions"]


class _Broken(InMemoryStore):
    """Fault injection: a store whose reads fail with what no code here expects."""

    def sessions(self) -> list[str]:
        raise RuntimeError("disk controller on fire: /secret/path")

    def turn_count(self, session_id: str) -> int:
        raise RuntimeError("disk controller on fire")


@contextmanager
def _in_process(store: InMemoryStore, **options: object) -> Iterator[str]:
    """``create_app`` itself under uvicorn on a free loopback port (no CLI around it)."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(store, **options), host="127.0.0.1",
                                           port=port, log_level="critical"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        while not server.started:
            thread.join(0.05)
            assert thread.is_alive(), "the server did not start"
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.should_exit = True
        thread.join(20)


def test_an_unexpected_failure_is_a_500_in_the_shape_and_not_ready() -> None:
    with _in_process(_Broken(), token=TOKEN) as base:
        client = Client(base)
        status, out = client.call("GET", "/sessions")
        assert status == 500 and "secret" not in _shaped(out)["message"]
        status, out = client.call("GET", "/ready")
        assert status == 503 and _shaped(out)["field"] == "store"
        assert client.call("GET", "/health")[0] == 200


def test_without_a_token_create_app_answers_loopback_hosts_only() -> None:
    with _in_process(InMemoryStore()) as base:
        client = Client(base, None)
        port = base.split(":")[2].split("/")[0]
        for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}", "localhost"):
            assert client.call("GET", "/sessions", headers={"Host": host})[0] == 200, host
        for host in (f"evil.example:{port}", "attacker.test", f"10.0.0.5:{port}"):
            status, out = client.call("GET", "/sessions", headers={"Host": host})
            assert (status, _shaped(out)["field"]) == (403, "host"), host
        # a client beyond loopback, as a proxy on this machine reports it
        status, out = client.call("GET", "/sessions", headers={"X-Forwarded-For": "203.0.113.9"})
        assert status == 403
        assert client.call("GET", "/ready")[0] == 200


def test_a_page_on_another_site_can_neither_post_nor_read(tmp_path: Path) -> None:
    with served(tmp_path, token=None) as (client, _):
        for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
            status, out = client.call("POST", "/sessions/s1/messages", HI,
                                      headers={"Content-Type": kind})
            assert (status, _shaped(out)["field"]) == (415, "content-type"), kind
        assert client.call("GET", "/sessions")[1] == {"sessions": []}
        assert client.call("POST", "/sessions/s1/messages", HI,
                           headers={"Content-Type": "application/json; charset=utf-8"})[0] == 200
        req = urllib.request.Request(client.base + "/sessions", method="OPTIONS", headers={
            "Origin": "https://evil.example", "Access-Control-Request-Method": "POST"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                allowed = r.headers.get("access-control-allow-origin")
        except urllib.error.HTTPError as err:
            allowed = err.headers.get("access-control-allow-origin")
        assert allowed is None  # no CORS unless configured


def test_configured_origins_get_cors(tmp_path: Path) -> None:
    with served(tmp_path, "--cors-origin", "https://app.example") as (client, _):
        req = urllib.request.Request(client.base + "/sessions", method="OPTIONS", headers={
            "Origin": "https://app.example", "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type,idempotency-key"})
        with urllib.request.urlopen(req, timeout=30) as r:
            assert r.headers["access-control-allow-origin"] == "https://app.example"


def test_the_token_any_utf8_any_scheme_case_and_the_docs_behind_it(tmp_path: Path) -> None:
    key = "clé-ключ-钥匙"
    with served(tmp_path, token=key) as (client, _):
        for scheme in ("Bearer", "bearer", "BEARER"):
            auth = {"Authorization": f"{scheme} {key}"}
            assert client.call("GET", "/sessions", headers=auth)[0] == 200, scheme
        for wrong in ("Bearer clé", f"Basic {key}", "Bearer", ""):
            status, out = client.call("GET", "/sessions", headers={"Authorization": wrong})
            assert (status, _shaped(out)["field"]) == (401, "authorization"), wrong
        for path in ("/docs", "/openapi.json"):
            assert _get(client.base.removesuffix("/v1") + path) == 401
            assert _get(client.base.removesuffix("/v1") + path, key) == 200
    with served(tmp_path, "--open-docs", token=key) as (client, _):
        assert _get(client.base.removesuffix("/v1") + "/openapi.json") == 200
        assert client.call("GET", "/sessions", headers={"Authorization": ""})[0] == 401


def _get(url: str, key: str | None = None) -> int:
    req = urllib.request.Request(url)
    if key is not None:
        req.add_header("Authorization", f"Bearer {key}".encode().decode("latin-1"))
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return int(r.status)
    except urllib.error.HTTPError as err:
        return err.code


def test_a_blank_token_is_refused_not_taken_for_one(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "convstate.cli", "serve", "--host", "0.0.0.0",
                          "--store", str(tmp_path / "x.db")], capture_output=True, text=True,
                         env=dict(os.environ, CONVSTATE_API_TOKEN=" \t "), timeout=60)
    assert out.returncode == 1 and "CONVSTATE_API_TOKEN is blank" in out.stderr
    with pytest.raises(Exception, match="blank"):
        create_app(InMemoryStore(), token="   ")


def test_health_answers_while_every_worker_waits_on_the_store(tmp_path: Path) -> None:
    with served(tmp_path) as (client, db):
        client.call("POST", "/sessions/busy/messages", HI)
        with closing(sqlite3.connect(db, timeout=30)) as other:
            other.execute("BEGIN EXCLUSIVE")  # every write now waits for this one
            writers = [threading.Thread(target=client.call, args=(
                "POST", f"/sessions/busy-{k}/messages", HI)) for k in range(60)]
            for t in writers:
                t.start()
            try:
                status, out = _health(client.base)
            finally:
                other.rollback()
            for t in writers:
                t.join(120)
        assert status == 200 and out["status"] == "ok"
        assert len(client.call("GET", "/sessions")[1]["sessions"]) == 61


def _health(base: str) -> tuple[int, dict]:
    """``/health`` while the writers hold every worker (a generous bound: they wait for
    the lock far longer, 30 s)."""
    import json

    with urllib.request.urlopen(base + "/health", timeout=15) as r:
        return int(r.status), json.load(r)


def test_many_windows_of_one_session_keep_a_few_memories(tmp_path: Path) -> None:
    talk = [{"role": "user" if i % 2 == 0 else "assistant",
             "content": f"Order SR-{i:06d}: the parcel {i} came broken, refund it."}
            for i in range(300)]
    with _in_process(InMemoryStore(), token=TOKEN) as base:
        client = Client(base)
        client.call("POST", "/sessions/long/messages", talk)
        client.call("POST", "/sessions/other/messages", HI)
        contexts = {}
        for size in range(400, 1600, 40):  # 30 distinct windows
            status, ctx = client.call("GET", f"/sessions/long/context?window={size}")
            assert status == 200 and ctx["tokens"] <= size
            contexts[size] = ctx["messages"]
        client.call("GET", "/sessions/other/context")
        gc.collect()
        alive = [o for o in gc.get_objects() if isinstance(o, ConversationMemory)
                 and o.session_id in ("long", "other")]  # (not another test's, lingering)
        assert sorted(m.session_id for m in alive) == ["long"] * WINDOWS_PER_SESSION + \
            ["other"]  # (its POST and its GET: the default window, one memory)
        # a window served again, from a fresh memory, still fits it and ends the same
        status, ctx = client.call("GET", "/sessions/long/context?window=400")
        assert status == 200 and ctx["tokens"] <= 400
        assert ctx["messages"][-1] == contexts[400][-1] == talk[-1]
