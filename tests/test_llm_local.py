"""The real LLM path: a real model (SmolLM2-135M, GGUF) served by llama.cpp over HTTP.

`.ci/run` starts the server and sets CONVSTATE_TEST_LLM_URL. Elsewhere these tests skip,
unless CI is set: then a missing server is a failure, not a skip.
"""

from __future__ import annotations

import os
import urllib.request

import pytest
from conftest import replay_async
from pydantic import Field

from convstate import (
    ConversationMemory,
    ConversationState,
    HybridExtractor,
    InMemoryStore,
    LLMExtractor,
    delta_model,
)
from convstate.cli import load_demo
from convstate.delta import StateDelta

URL = os.environ.get("CONVSTATE_TEST_LLM_URL")
pytestmark = pytest.mark.skipif(
    not URL and not os.environ.get("CI"),
    reason="no local model server: set CONVSTATE_TEST_LLM_URL (.ci/run starts one)")


@pytest.fixture
def url() -> str:
    if not URL:
        pytest.fail("CI must start the local model server (see .ci/run)")
    try:  # a dead server would fail each test as a fold's fallback: say it once, plainly
        urllib.request.urlopen(f"{URL}/models", timeout=10).close()
    except OSError as e:
        pytest.fail(f"the local model server at {URL} does not answer ({e}): did it crash?")
    return URL


class Checked(LLMExtractor):
    """The real extractor, keeping every delta the model returned."""

    deltas: list[StateDelta]

    def propose(self, turns, index, delta_model=None):
        result = super().propose(turns, index, delta_model)
        self.deltas = [*getattr(self, "deltas", []), result.delta]
        return result


def test_30_turns_through_the_hybrid_extractor_over_http(url: str) -> None:
    llm = Checked(base_url=url, model="local", timeout=120, max_retries=2)
    mem = ConversationMemory("real", store=InMemoryStore(), extractor=HybridExtractor(llm),
                             context_window=700, system_prompt="You are a support agent.")
    messages = load_demo("en")["messages"][:30]
    for m in messages:
        mem.add_message(m)
        ctx = mem.context()
        assert mem.tokens(ctx) <= mem.policy.budget
    log = mem.compactions()
    assert len(log) >= 2 and all(r.error is None for r in log)
    assert all(r.prompt_tokens > 0 and r.model == "local" for r in log)  # usage recorded
    # every delta the model returned validates against the delta model
    assert getattr(llm, "deltas", []), [r.notes for r in log]
    for d in llm.deltas:
        assert StateDelta.model_validate(d.model_dump()).model_dump() == d.model_dump()
    # anchors stay verbatim: each one is an exact substring of every turn it cites
    history = {t.index: t.text for t in mem.history()}
    for a in mem.state.anchors:
        assert all(a.value in history[i] for i in a.turns)
    assert mem.state.anchor("order_id").value == "SR-20240315-889"
    u = mem.usage()
    assert u.prompt_tokens == sum(r.prompt_tokens for r in log) > 0
    assert [t.message() for t in mem.history()] == messages


def test_local_server_starts_and_stops() -> None:
    pytest.importorskip("llama_cpp")
    from convstate.extract.local import LocalServer

    with LocalServer(n_ctx=2048) as server:
        with urllib.request.urlopen(server.base_url + "/models", timeout=10) as r:
            assert r.status == 200
        proc = server.proc
    assert proc is not None and proc.poll() is not None


def test_serve_local_command_serves_and_stops_on_a_signal() -> None:
    pytest.importorskip("llama_cpp")
    import subprocess
    import sys

    from convstate.extract.local import free_port, wait_ready

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "convstate.cli", "serve-local", "--port",
                             str(port), "--n-ctx", "2048"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_ready(f"http://127.0.0.1:{port}/v1", 120, proc)
    finally:
        proc.terminate()  # the command became the server: the signal reaches it
        proc.wait(timeout=20)
    import socket

    with pytest.raises(OSError):  # nothing listens any more: the server itself stopped
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


class Ticket(ConversationState):
    product: str | None = Field(default=None, description="The product the user bought")


def test_a_custom_field_is_filled_over_http(url: str) -> None:
    llm = Checked(base_url=url, model="local", timeout=120)
    mem = ConversationMemory("custom", store=InMemoryStore(), state_model=Ticket,
                             extractor=HybridExtractor(llm), context_window=600)
    mem.add("user", "I bought wireless earbuds and the left one is broken.")
    mem.add("assistant", "Sorry to hear that about your wireless earbuds.")
    mem.compact(keep_recent_turns=0)
    assert mem.compactions()[-1].fallback is None  # the model's own delta, no fallback
    assert all(isinstance(d, delta_model(Ticket)) for d in llm.deltas)
    state = mem.state
    assert isinstance(state, Ticket) and state.product  # filled by the model
    assert [h.value for h in state.history("product")] == [state.product]


def test_the_async_path_over_http(url: str) -> None:
    llm = LLMExtractor(base_url=url, model="local", timeout=120)
    mem = replay_async(load_demo("en")["messages"][:20], session_id="async-real",
                       store=InMemoryStore(), context_window=700,
                       extractor=HybridExtractor(llm))
    log = mem.compactions()
    assert log and all(r.error is None and r.model == "local" and r.prompt_tokens > 0
                       for r in log)
    assert mem.state.anchor("order_id").value == "SR-20240315-889"


def test_every_context_fits_the_window_by_the_servers_own_count(url: str) -> None:
    # model="local" counts with the served model's tokenizer and chat template; the
    # default tiktoken count of these contexts is 50-60% under the server's
    pytest.importorskip("llama_cpp")
    from convstate.extract.local import served_prompt_tokens

    demo = load_demo("zh")
    mem = ConversationMemory("fits", store=InMemoryStore(), model="local",
                             context_window=1200, system_prompt=demo["system_prompt"])
    served = []
    for m in demo["messages"]:
        mem.add_message(m)
        ctx = mem.context()
        served.append((mem.tokens(ctx), served_prompt_tokens(url, ctx)))
    assert mem.compactions(), "the conversation must fold for the test to mean anything"
    assert all(real <= mem.policy.budget <= mem.policy.context_window
               for _, real in served), served
    # counted on the safe side, and close: the margin is the template's own system
    # prompt (counted in case none comes first) and tool calls it does not render
    assert all(0 <= counted - real <= 80 for counted, real in served), served


def test_documents_quoted_by_a_real_model_are_verbatim_and_within_budget(url: str) -> None:
    from pathlib import Path

    from convstate import compress_documents
    from convstate.eval.docs import load_qa

    x = load_qa(Path(__file__).resolve().parents[1] / "examples" / "tiny_qa.json")[1]
    llm = LLMExtractor(base_url=url, model="local", timeout=120, max_retries=1)
    out = compress_documents(x["question"], x["documents"], 60, llm=llm)
    texts = {d["id"]: d["text"] for d in x["documents"]}
    assert out.tokens <= 60 and out.text
    for doc_id, kept in out.kept.items():  # the model's quotes or the fallback's: verbatim
        assert all(run in texts[doc_id] for run in kept.split(" … "))
