"""`convstate serve`: the HTTP API, tested over real HTTP against the command itself
(uvicorn in a subprocess, a real SQLite file)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import pytest
from conftest import Said, conversation

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from convstate import ConversationMemory, InMemoryStore  # noqa: E402
from convstate.extract.local import free_port, wait_ready  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "t0ken-for-tests"


class Client:
    def __init__(self, base: str, token: str | None = TOKEN):
        self.base, self.token = base, token

    def call(self, method: str, path: str, body: object = None,
             raw: bytes | None = None) -> tuple[int, dict]:
        data = raw if raw is not None else (
            json.dumps(body).encode() if body is not None else None)
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        if self.token:
            req.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, json.load(r)
        except urllib.error.HTTPError as err:
            return err.code, json.load(err)


def serve(tmp_path: Path, *extra: str, token: str | None = TOKEN, store: str | None = None
          ) -> Iterator[tuple[Client, Path]]:
    """The service on a free port, over a SQLite file in ``tmp_path`` (or ``store``)."""
    port, db = free_port(), tmp_path / "service.db"
    env = dict(os.environ, CONVSTATE_API_TOKEN=token or "")
    proc = subprocess.Popen([sys.executable, "-m", "convstate.cli", "serve", "--store",
                             store or str(db),
                             "--port", str(port), *extra], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        wait_ready_health(base, proc)
        yield Client(base, token), db
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def wait_ready_health(base: str, proc: subprocess.Popen) -> None:
    try:
        wait_ready(base, 30, proc, path="/health")
    except Exception:
        raise AssertionError(proc.stderr.read().decode() if proc.poll() is not None
                             else "no answer") from None


@pytest.fixture
def api(tmp_path: Path) -> Iterator[tuple[Client, Path]]:
    yield from serve(tmp_path)


@pytest.fixture
def foreground(tmp_path: Path) -> Iterator[tuple[Client, Path]]:
    yield from serve(tmp_path, "--foreground", "--window", "1200")


def test_200_turns_fit_the_window_and_fold_as_a_memory_does(foreground) -> None:
    client, _ = foreground
    turns = conversation(200)
    mem = ConversationMemory("same", store=InMemoryStore(), context_window=1200)
    for m in turns:
        assert client.call("POST", "/sessions/chat-1/messages", m)[0] == 200
        status, ctx = client.call("GET", "/sessions/chat-1/context")
        assert status == 200 and ctx["tokens"] <= mem.policy.budget
        mem.add_message(m)
        assert ctx["messages"] == mem.context()
    status, state = client.call("GET", "/sessions/chat-1/state")
    assert status == 200 and state["version"] >= 5
    assert state == mem.state.model_dump(mode="json")
    status, block = client.call("GET", "/sessions/chat-1/block?format=markdown")
    assert status == 200 and block["block"].startswith(">")


def test_concurrent_clients_on_one_session_lose_nothing(api) -> None:
    client, _ = api
    errors: list[object] = []

    def talk(k: int) -> None:
        for i in range(20):
            msg = {"role": "user", "content": f"客户{k}的第{i}条：订单 DD{k:02d}{i:06d} 要退款"}
            status, out = client.call("POST", "/sessions/shared/messages?window=600", msg)
            status2, ctx = client.call("GET", "/sessions/shared/context?window=600")
            if status != 200 or status2 != 200 or ctx["tokens"] > 600:
                errors.append((status, out, status2))

    threads = [threading.Thread(target=talk, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]
    mem = ConversationMemory("shared", store=str(api[1]))
    mem.wait()
    turns = mem.history()
    assert [t.index for t in turns] == list(range(80))
    assert len({t.content for t in turns}) == 80  # every turn stored once
    folded = mem.state.folded_through
    values = [a.value for a in mem.state.anchors]
    assert len(values) == len(set(values))  # every folded turn folded once
    for t in turns[:folded + 1]:
        order = t.content.split("订单 ")[1].split(" ")[0]
        assert order in values, order


def test_errors_are_json_and_name_the_field(api, tmp_path: Path) -> None:
    client, _ = api
    assert Client(client.base, None).call("GET", "/sessions")[0] == 401
    assert Client(client.base, "wrong").call("GET", "/sessions")[0] == 401
    assert client.call("GET", "/health")[0] == 200
    cases = [
        (("POST", "/sessions/s1/messages", {"role": "boss", "content": "x"}), 400, "role"),
        (("POST", "/sessions/s1/messages", None, b"{not json"), 400, "body"),
        (("POST", "/sessions/s1/messages", None, b"[" * 100_000 + b"]" * 100_000), 400, "body"),
        (("POST", "/sessions/s1/messages", None, b'{"role": "user", "content": "x", "n": '
          + b"9" * 5_000 + b"}"), 400, "body"),
        (("POST", "/sessions/s1/messages", {"role": "user", "content": [
            {"type": "input_data", "data": json.loads("[" * 40 + "]" * 40)}]}), 400,
         "content[0]"),
        (("POST", "/sessions/s1/messages", []), 400, "body"),
        (("POST", "/sessions/s1/messages", None, b"x" * 1_000_001), 413, "body"),
        (("GET", "/sessions/bad%20id/context"), 400, "session_id"),
        (("GET", "/sessions/s1/context?window=10"), 400, "window"),
        (("GET", "/sessions/nobody/state"), 404, "session_id"),
    ]
    for args, status, field in cases:
        got, body = client.call(*args)
        assert (got, body["error"]["field"]) == (status, field), (args[:2], body)
        assert body["error"]["message"] and body["error"]["type"]
    client.call("POST", "/sessions/s1/messages", {"role": "user", "content": "hi"})
    assert client.call("GET", "/sessions/s1/block?format=yaml")[1]["error"]["field"] == \
        "format"
    # a bad message in a list writes none of them
    client.call("POST", "/sessions/s1/messages", [{"role": "user", "content": "ok"},
                                                   {"role": "nope", "content": "x"}])
    assert client.call("GET", "/sessions")[1] == {"sessions": ["s1"]}
    assert len(client.call("GET", "/sessions/s1/context")[1]["messages"]) == 1


def test_erase_leaves_nothing_in_the_file(api) -> None:
    client, db = api
    secret = "13912345678"
    for i in range(30):
        client.call("POST", "/sessions/gone/messages",
                    {"role": "user", "content": f"我的电话 {secret}，第{i}次说，订单 DD{i:08d}"})
        client.call("GET", "/sessions/gone/context?window=400")
    client.call("POST", "/sessions/kept/messages", {"role": "user", "content": "留下"})
    status, out = client.call("DELETE", "/sessions/gone")
    assert status == 200 and out["erased_turns"] == 30
    assert client.call("GET", "/sessions")[1] == {"sessions": ["kept"]}
    assert client.call("GET", "/sessions/gone/state")[0] == 404
    raw = b"".join(p.read_bytes() for p in db.parent.glob("service.db*"))
    assert secret.encode() not in raw and "留下".encode() in raw


def test_it_will_not_listen_beyond_loopback_without_a_token(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "convstate.cli", "serve", "--host", "0.0.0.0",
                          "--store", str(tmp_path / "x.db")], capture_output=True, text=True,
                         env=dict(os.environ, CONVSTATE_API_TOKEN=""), timeout=60)
    assert out.returncode == 1 and "CONVSTATE_API_TOKEN" in out.stderr


def test_the_committed_openapi_schema_matches_the_service(tmp_path: Path) -> None:
    from convstate.service import create_app

    committed = json.loads((ROOT / "schemas" / "openapi.json").read_text("utf-8"))
    assert committed == json.loads(json.dumps(create_app(InMemoryStore()).openapi())), \
        "schemas/openapi.json drifted: run `convstate serve --openapi schemas/openapi.json`"


def test_the_curl_example_runs(api) -> None:
    client, _ = api
    out = subprocess.run(["sh", str(ROOT / "examples" / "http_client.sh")], capture_output=True,
                         text=True, timeout=60,
                         env=dict(os.environ, BASE=client.base, TOKEN=TOKEN))
    assert out.returncode == 0, out.stderr
    assert "SR-20240315-889" in out.stdout and '"turns":[1]' in out.stdout


def test_a_returning_user_over_http_and_their_erasure(api) -> None:
    client, db = api
    client.call("POST", "/sessions/c1/messages?window=400", {"role": "user", "content": "Hi"})
    client.call("GET", "/sessions/c1/context?window=400")  # cached before it is a user's
    client.call("POST", "/sessions/c1/messages?user_id=u-7&window=400",
                [{"role": "user", "content": "My phone is 13912345678. No exchange, ever."},
                 {"role": "assistant", "content": "Noted."}] * 20)
    for _ in range(100):  # the fold (and its promotion) runs in the server's background
        client.call("GET", "/sessions/c1/context?user_id=u-7&window=400")
        status, profile = client.call("GET", "/users/u-7/profile")
        if status == 200:
            break
        time.sleep(0.1)
    assert status == 200 and "13912345678" in str(profile["items"])
    client.call("POST", "/sessions/c2/messages?user_id=u-7", {"role": "user", "content": "Hi"})
    ctx = client.call("GET", "/sessions/c2/context?user_id=u-7")[1]["messages"]
    assert "13912345678" in ctx[0]["content"]  # the second session starts knowing it
    status, body = client.call("POST", "/sessions/c1/messages?user_id=u-8",
                               {"role": "user", "content": "x"})
    assert (status, body["error"]["field"]) == (400, "user_id")  # another user's session
    status, out = client.call("DELETE", "/users/u-7")
    assert status == 200 and out["sessions"] == 2
    assert client.call("GET", "/users/u-7/profile")[0] == 404
    assert client.call("GET", "/sessions")[1] == {"sessions": []}


# -- erasure: the service's cached memories, and DELETE racing with traffic ---------------

served = contextmanager(serve)


@pytest.mark.parametrize("how", ["convstate forget", "another process erases"])
def test_the_services_cached_memory_notices_an_erasure_made_elsewhere(
        store_target: str, tmp_path: Path, how: str) -> None:
    with served(tmp_path, "--foreground", store=store_target) as (client, _):
        cached_memory_after_erasure(client, store_target, how, Said())


def cached_memory_after_erasure(client: Client, store_target: str, how: str, said: Said
                                ) -> None:
    from convstate.store import open_store

    user, session, phone, order = said.user, said.session, said.phone, said.order
    chat = f"/sessions/{session}"
    said = {"role": "user", "content": f"My phone is {phone}. Order {order} came broken."}
    for i in range(12):  # a 400-token window: folds, and the profile takes the values
        client.call("POST", f"{chat}/messages?user_id={user}&window=400",
                    [said, {"role": "assistant", "content": f"Sorry, looking into it ({i})."}])
        status, ctx = client.call("GET", f"{chat}/context?user_id={user}&window=400")
        assert status == 200 and phone in str(ctx["messages"])
    assert phone in str(client.call("GET", f"/users/{user}/profile")[1])
    if how == "convstate forget":
        out = subprocess.run([sys.executable, "-m", "convstate.cli", "forget", user,
                              "--store", store_target], capture_output=True, text=True,
                             timeout=120)
        assert out.returncode == 0 and "1 sessions" in out.stdout, out.stderr
    else:
        other = open_store(store_target)
        assert other.erase(session) == 24  # type: ignore[attr-defined]
        other.close()
    # the cached memory serves nothing erased, and shows what comes next
    status, ctx = client.call("GET", f"{chat}/context?window=400")
    assert status == 200 and ctx["messages"] == []
    client.call("POST", f"{chat}/messages?window=400",
                {"role": "user", "content": "Hello again, is my refund done?"})
    status, ctx = client.call("GET", f"{chat}/context?window=400")
    assert [m["content"] for m in ctx["messages"]] == ["Hello again, is my refund done?"]
    for i in range(12):  # folds again: nothing erased comes back
        client.call("POST", f"{chat}/messages?window=400",
                    [{"role": "user", "content": f"Question {i}: when do you open?"},
                     {"role": "assistant", "content": "At nine."}])
        assert client.call("GET", f"{chat}/context?window=400")[0] == 200
    state = client.call("GET", f"{chat}/state")[1]
    profile = client.call("GET", f"/users/{user}/profile")[1]
    assert state["version"] >= 1 and state["folded_through"] >= 1
    assert not {phone, order} & set(re.findall(r"DD\d+|\d{11}", str([state, profile])))
    # the session the cached memory went on with is still the user's
    assert client.call("DELETE", f"/users/{user}")[1]["sessions"] == 1
    assert client.call("GET", f"{chat}/state")[0] == 404


def test_deleting_a_user_racing_with_their_traffic_leaves_nothing(store_target: str,
                                                                   tmp_path: Path) -> None:
    from convstate.store import open_store

    with served(tmp_path, store=store_target) as (client, _), \
            closing(open_store(store_target)) as store:
        for _ in range(3):
            said = Said()
            sessions = [f"{said.session}-{k}" for k in range(3)]
            talk_while_deleted(client, said, sessions)
            kept = {c for c in sessions if store.turn_count(c)}
            assert kept <= set(store.user_sessions(said.user))  # type: ignore[attr-defined]
            status, out = client.call("DELETE", f"/users/{said.user}")
            assert status == 200 and out["sessions"] >= len(kept)
            assert not any(store.turn_count(c) for c in sessions)
            assert store.user_sessions(said.user) == []  # type: ignore[attr-defined]
            assert store.load_profile(said.user) is None  # type: ignore[attr-defined]
            assert all(store.head(c).generation == 0 for c in sessions)  # type: ignore[attr-defined]


def talk_while_deleted(client: Client, said: Said, sessions: list[str]) -> None:
    """The user talks in each session while DELETE /v1/users/{id} runs again and again."""
    def talk(chat: str) -> None:
        for i in range(10):
            client.call("POST", f"/sessions/{chat}/messages?user_id={said.user}&window=400",
                        {"role": "user", "content": f"My phone is {said.phone} ({i})."})
            client.call("GET", f"/sessions/{chat}/context?user_id={said.user}&window=400")

    threads = [threading.Thread(target=talk, args=(c,)) for c in sessions]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        client.call("DELETE", f"/users/{said.user}")
    for t in threads:
        t.join(120)


def test_deleting_a_session_takes_its_part_of_the_profile(api) -> None:
    client, _ = api
    said = Said()
    user, session, phone, order = said.user, said.session, said.phone, said.order
    first, second = f"/sessions/{session}-1", f"/sessions/{session}-2"
    client.call("POST", f"{first}/messages?user_id={user}&window=400",
                [{"role": "user", "content": f"My phone is {phone}, order {order}."},
                 {"role": "assistant", "content": "Noted."}] * 12)
    client.call("POST", f"{second}/messages?user_id={user}&window=400",
                [{"role": "user", "content": f"Order {order} again: I don't want an exchange."},
                 {"role": "assistant", "content": "Understood."}] * 12)
    for _ in range(200):  # both folds (and promotions) run in the server's background
        for chat in (first, second):
            client.call("GET", f"{chat}/context?user_id={user}&window=400")
        items = client.call("GET", f"/users/{user}/profile")[1].get("items", [])
        if {i["kind"] for i in items} >= {"phone", "order_id", "negative_constraint"} and \
                next(i for i in items if i["kind"] == "order_id")["confirmations"] == 2:
            break
        time.sleep(0.1)
    else:
        raise AssertionError(f"the profile never took both sessions: {items}")
    assert client.call("DELETE", first)[0] == 200
    items = client.call("GET", f"/users/{user}/profile")[1]["items"]
    assert phone not in str(items)
    assert {i["kind"]: i["session_id"] for i in items} == {
        "order_id": f"{session}-2", "negative_constraint": f"{session}-2"}
    client.call("POST", f"/sessions/{session}-3/messages?user_id={user}",
                {"role": "user", "content": "Hi, it's me again."})
    block = client.call("GET", f"/sessions/{session}-3/context?user_id={user}")[1][
        "messages"][0]["content"]
    assert order in block and phone not in block
