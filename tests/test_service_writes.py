"""List POSTs over real HTTP (`convstate serve` in a subprocess) on a SQLite file and on
PostgreSQL: one transaction per request, contiguous under concurrent clients, whole or
absent after a kill -9, and stored once however often a request is retried with its
``Idempotency-Key``."""

from __future__ import annotations

import threading
import time
import urllib.error
import uuid
from contextlib import closing
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from test_service import served  # noqa: E402

from convstate import ConfigError, InMemoryStore  # noqa: E402
from convstate.store import open_store  # noqa: E402


def _triple(call_id: str) -> list[dict[str, object]]:
    """A tool call and its two results: OpenAI refuses a result away from its call."""
    calls = [{"id": call_id, "type": "function",
              "function": {"name": "lookup", "arguments": "{}"}}]
    return [{"role": "assistant", "content": None, "tool_calls": calls},
            {"role": "tool", "tool_call_id": call_id, "content": f"{call_id}: first"},
            {"role": "tool", "tool_call_id": call_id, "content": f"{call_id}: second"}]


def _in_threads(work, n: int) -> None:
    threads = [threading.Thread(target=work, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)


def test_fifty_clients_posting_tool_calls_keep_every_result_after_its_call(
        store_target: str, tmp_path: Path) -> None:
    chat = f"triples-{uuid.uuid4().hex[:12]}"
    failed: list[object] = []
    with served(tmp_path, store=store_target) as (client, _):
        def post(k: int) -> None:
            for i in range(10):
                status, out = client.call("POST", f"/sessions/{chat}/messages",
                                          _triple(f"c{k}-{i}"))
                if status != 200 or len(out["turns"]) != 3:
                    failed.append(out)
        _in_threads(post, 50)
    assert not failed, failed[:3]
    with closing(open_store(store_target)) as store:
        turns = store.turns(chat)
    assert [t.index for t in turns] == list(range(1500))
    for first in range(0, 1500, 3):  # each request's three turns side by side, in order
        call, a, b = turns[first:first + 3]
        call_id = call.tool_calls[0]["id"] if call.tool_calls else None
        assert (a.tool_call_id, b.tool_call_id) == (call_id, call_id), first
        assert (a.content, b.content) == (f"{call_id}: first", f"{call_id}: second")


def _list(name: str, size: int = 200) -> list[dict[str, str]]:
    return [{"role": "user" if j % 2 == 0 else "assistant", "content": f"{name} #{j}"}
            for j in range(size)]


def test_a_kill_during_list_posts_leaves_each_list_whole_or_absent_and_a_retry_stores_it_once(
        store_target: str, tmp_path: Path) -> None:
    chat = f"killed-{uuid.uuid4().hex[:12]}"
    tried: list[str] = []
    acked: dict[str, list[int]] = {}
    enough = threading.Event()
    with served(tmp_path, store=store_target) as (client, _):
        def post(k: int) -> None:
            for i in range(40):
                name = f"L{k}-{i}"
                tried.append(name)
                try:
                    status, out = client.call("POST", f"/sessions/{chat}/messages",
                                              _list(name), headers={"Idempotency-Key": name})
                except (urllib.error.URLError, ConnectionError, OSError):
                    return  # the server is gone
                if status == 200:
                    acked[name] = out["turns"]
                if len(acked) >= 6:
                    enough.set()
        threads = [threading.Thread(target=post, args=(k,)) for k in range(6)]
        for t in threads:
            t.start()
        assert enough.wait(120), "no list was stored"
        assert client.proc is not None
        client.proc.kill()  # kill -9, requests in flight
        client.proc.wait(20)
        for t in threads:
            t.join(120)
    with closing(open_store(store_target)) as store:
        turns = store.turns(chat)
    stored = _lists(turns)
    for name, indexes in stored.items():  # never a part of a list
        assert len(indexes) == 200 and indexes == list(range(indexes[0], indexes[0] + 200)), name
    assert {name: stored[name] for name in acked} == acked  # what was answered is there
    # the client retries every request it sent, acknowledged or not: each stored once
    with served(tmp_path, store=store_target) as (client, _):
        for name in tried:
            status, out = client.call("POST", f"/sessions/{chat}/messages", _list(name),
                                      headers={"Idempotency-Key": name})
            assert status == 200 and len(out["turns"]) == 200, out
            if name in stored:
                assert out["turns"] == stored[name]
    with closing(open_store(store_target)) as store:
        turns = store.turns(chat)
    assert len(turns) == 200 * len(tried) and set(_lists(turns)) == set(tried)


def _lists(turns) -> dict[str, list[int]]:
    """Each list's indexes, by the name its messages carry."""
    out: dict[str, list[int]] = {}
    for t in turns:
        out.setdefault(t.content.split(" #")[0], []).append(t.index)
    return out


def test_an_idempotency_key_answers_a_retry_with_the_first_request_s_turns(
        store_target: str, tmp_path: Path) -> None:
    chat = f"/sessions/retry-{uuid.uuid4().hex[:12]}"
    pair = [{"role": "user", "content": "Refund order SR-1 please."},
            {"role": "assistant", "content": "Starting the refund."}]
    with served(tmp_path, store=store_target) as (client, _):
        key = {"Idempotency-Key": f"req-{uuid.uuid4().hex}"}
        assert client.call("POST", f"{chat}/messages", pair, headers=key) == \
            (200, {"session_id": chat.split("/")[-1], "turns": [0, 1]})
        client.call("POST", f"{chat}/messages", {"role": "user", "content": "Thanks."})
        for _ in range(3):  # the answer was lost: the client sends it again
            assert client.call("POST", f"{chat}/messages", pair, headers=key)[1]["turns"] \
                == [0, 1]
        status, out = client.call("POST", f"{chat}/messages", pair[:1], headers=key)
        assert status == 409 and out["error"]["field"] == "idempotency_key"
        status, out = client.call("POST", f"{chat}/messages", pair,
                                  headers={"Idempotency-Key": "x" * 256})
        assert status == 400 and out["error"]["field"] == "idempotency_key"
        status, ctx = client.call("GET", f"{chat}/context")
        assert [m["content"] for m in ctx["messages"]] == [
            "Refund order SR-1 please.", "Starting the refund.", "Thanks."]


def test_an_idempotency_key_expires_after_its_ttl_and_a_retry_then_stores_again(
        store_target: str, tmp_path: Path) -> None:
    chat = f"/sessions/expiry-{uuid.uuid4().hex[:12]}"
    pair = [{"role": "user", "content": "Refund order SR-2 please."},
            {"role": "assistant", "content": "Starting the refund."}]
    key = {"Idempotency-Key": f"req-{uuid.uuid4().hex}"}
    with served(tmp_path, "--idempotency-ttl", "2", store=store_target) as (client, _):
        assert client.call("POST", f"{chat}/messages", pair, headers=key)[1]["turns"] == [0, 1]
        assert client.call("POST", f"{chat}/messages", pair, headers=key)[1]["turns"] == [0, 1]
        time.sleep(2.2)  # past the key's retention: the same request is a new one
        assert client.call("POST", f"{chat}/messages", pair, headers=key)[1]["turns"] == [2, 3]
        assert client.call("POST", f"{chat}/messages", pair, headers=key)[1]["turns"] == [2, 3]
    with pytest.raises(ConfigError) as err:
        from convstate.service import create_app
        create_app(InMemoryStore(), idempotency_ttl=0)
    assert err.value.field == "idempotency_ttl"
