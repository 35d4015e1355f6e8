"""The service's warm memories are bounded by the bytes they hold (``--cache-mb``): the
least recently used leave first, the one in use stays, and a memory let go is read again
from the store as it was. Over real HTTP, on a real SQLite file."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from test_service import TOKEN, Client, served  # noqa: E402
from test_service_edges import _in_process  # noqa: E402

from convstate import ConfigError, ConversationMemory, InMemoryStore, SQLiteStore  # noqa: E402
from convstate.service import create_app  # noqa: E402


def _talk(name: str, n: int) -> list[dict[str, str]]:
    return [{"role": "user" if i % 2 == 0 else "assistant",
             "content": f"{name}: order SR-{i:06d} came broken; call me on 139{i:08d}."}
            for i in range(n)]


def _alive(run: str) -> list[str]:
    """The sessions of ``run`` whose memories are alive (one entry a memory)."""
    gc.collect()
    return sorted(o.session_id[len(run):] for o in gc.get_objects()
                  if isinstance(o, ConversationMemory) and o.session_id.startswith(run))


@pytest.mark.parametrize("room", [1.5, 3.5])
def test_the_budget_keeps_as_many_memories_as_it_holds_the_least_recent_leave(
        tmp_path: Path, room: float) -> None:
    store, run = SQLiteStore(tmp_path / "cache.db"), f"{room}-"  # (a session per run)
    for name in "abc":
        store.append_many(run + name, _talk(name, 240))
    probe = ConversationMemory(run + "a", store=store)
    probe.context()
    one = probe.held_bytes()  # the three sessions are alike: about one memory each
    del probe
    with _in_process(store, token=TOKEN, cache_mb=room * one / 2**20) as base:
        client = Client(base)
        for name in "abaca":
            status, ctx = client.call("GET", f"/sessions/{run}{name}/context")
            assert status == 200 and ctx["messages"][-1]["content"].startswith(f"{name}:")
        assert _alive(run) == (["a"] if room < 2 else ["a", "b", "c"])
        status, ctx = client.call("GET", f"/sessions/{run}b/context")  # read again, the same
        assert status == 200 and ctx["messages"][-1] == _talk("b", 240)[-1]
        assert _alive(run) == (["b"] if room < 2 else ["a", "b", "c"])


def test_a_memory_s_estimate_grows_with_its_turns_and_its_state(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "grow.db")
    mem = ConversationMemory("s", store=store, context_window=100_000)
    sizes = []
    for k in range(3):
        mem.add_messages(_talk(f"part {k}", 100))
        mem.context()
        sizes.append(mem.held_bytes())
    assert sizes[0] < sizes[1] < sizes[2]
    assert len(mem.state.anchors) > 100  # (the phone numbers and orders it keeps)


def test_cache_mb_is_taken_from_the_command_and_checked(tmp_path: Path) -> None:
    with served(tmp_path, "--cache-mb", "0.01") as (client, _):
        for name in "abab":  # every memory over the budget: one at a time, still right
            assert client.call("POST", f"/sessions/{name}/messages", _talk(name, 20))[0] == 200
            status, ctx = client.call("GET", f"/sessions/{name}/context")
            assert status == 200 and ctx["messages"][-1]["content"].startswith(f"{name}:")
    for bad in (0, -1, float("nan")):
        with pytest.raises(ConfigError) as err:
            create_app(InMemoryStore(), cache_mb=bad)
        assert err.value.field == "cache_mb"
