"""`convstate serve --keys FILE` over real HTTP, on a SQLite file and on PostgreSQL: each
key sees only its tenant, on every route; the file is read again when it changes and on
SIGHUP."""

from __future__ import annotations

import json
import signal
import uuid
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from test_service import Client, served  # noqa: E402

PHONE = {"a": "13911112222", "b": "13833334444"}


def _keys(path: Path, keys: dict[str, str]) -> Path:
    path.write_text(json.dumps(keys), "utf-8")
    return path


def test_two_tenants_are_isolated_on_every_route(store_target: str, tmp_path: Path) -> None:
    run = uuid.uuid4().hex[:8]  # (the PostgreSQL database outlives tests)
    names = {"a": f"acme-{run}", "b": f"globex-{run}"}
    keys = _keys(tmp_path / "keys.json", {"key-a-ключ": names["a"], "key-b": names["b"]})
    with served(tmp_path, "--keys", str(keys), "--foreground", token=None,
                store=store_target) as (base, _):
        a, b = Client(base.base, "key-a-ключ"), Client(base.base, "key-b")
        for who, client in (("a", a), ("b", b)):  # the same session and user names
            for i in range(8):
                status, _ = client.call("POST", "/sessions/s1/messages?user_id=u1&window=400", [
                    {"role": "user", "content": f"My phone is {PHONE[who]}, order {who}-{i}."},
                    {"role": "assistant", "content": "Noted."}])
                assert status == 200
            assert client.call("GET", "/sessions/s1/context?user_id=u1&window=400")[0] == 200
        assert a.call("GET", "/sessions")[1] == b.call("GET", "/sessions")[1] == \
            {"sessions": ["s1"]}
        for who, client in (("a", a), ("b", b)):
            other = PHONE["b" if who == "a" else "a"]
            for path in ("/sessions/s1/context?window=400", "/sessions/s1/state",
                         "/sessions/s1/block?format=json", "/users/u1/profile"):
                status, out = client.call("GET", path)
                text = json.dumps(out, ensure_ascii=False)
                assert status == 200 and PHONE[who] in text and other not in text, (who, path)
                assert f"{names[who]}/" not in text, (who, path)  # its names as it gave them
        profile = a.call("GET", "/users/u1/profile")[1]
        assert profile["user_id"] == "u1" and {
            s["session_id"] for item in profile["items"] for s in item["sources"]} == {"s1"}
        assert Client(base.base, "key-c").call("GET", "/sessions")[0] == 401
        assert Client(base.base, None).call("GET", "/sessions")[0] == 401
        # erasing stays inside the tenant
        assert b.call("DELETE", "/sessions/s1")[0] == 200
        assert b.call("GET", "/sessions/s1/state")[0] == 404
        assert a.call("GET", "/sessions/s1/state")[0] == 200
        b.call("POST", "/sessions/s2/messages?user_id=u1", {"role": "user", "content": "hi"})
        status, out = b.call("DELETE", "/users/u1")
        assert status == 200 and out["sessions"] == 1
        assert b.call("GET", "/sessions")[1] == {"sessions": []}
        assert a.call("GET", "/sessions")[1] == {"sessions": ["s1"]}
        assert a.call("GET", "/users/u1/profile")[0] == 200


def test_the_key_file_is_read_again_when_it_changes_and_on_sighup(tmp_path: Path) -> None:
    keys = _keys(tmp_path / "keys.json", {"old-key": "acme"})
    with served(tmp_path, "--keys", str(keys), token=None) as (base, _):
        old, new = Client(base.base, "old-key"), Client(base.base, "rotated-key")
        assert old.call("POST", "/sessions/s1/messages", {"role": "user", "content": "hi"})[0] \
            == 200
        assert new.call("GET", "/sessions")[0] == 401
        _keys(keys, {"rotated-key": "acme"})  # the key rotated
        assert new.call("GET", "/sessions")[1] == {"sessions": ["s1"]}
        assert old.call("GET", "/sessions")[0] == 401
        keys.write_text("{broken", "utf-8")  # an edit half done keeps the keys read before
        assert new.call("GET", "/sessions")[0] == 200
        assert base.proc is not None
        base.proc.send_signal(signal.SIGHUP)  # asks for a reread: the server lives on
        assert new.call("GET", "/sessions")[0] == 200 and base.proc.poll() is None


def test_keys_and_a_token_are_not_both_taken(tmp_path: Path) -> None:
    from convstate import ConfigError, InMemoryStore
    from convstate.service import create_app
    from convstate.tenants import Keys

    keys = Keys(_keys(tmp_path / "keys.json", {"k": "acme"}))
    with pytest.raises(ConfigError) as err:
        create_app(InMemoryStore(), token="t", keys=keys)
    assert err.value.field == "keys"
    for bad in ({" ": "acme"}, {"k": "no/slash"}, [], {}):
        with pytest.raises(ConfigError):
            Keys(_keys(tmp_path / "bad.json", bad))  # type: ignore[arg-type]
