"""Exact counters for models that are not OpenAI's: the model's own tokenizer plus its
own chat template.

A chat template (the Jinja text in a model's ``tokenizer_config.json`` or GGUF file) says
what the server wraps around each message. ``TemplateCounter`` renders it once per role
to learn that overhead, so a message costs overhead(role) + tokens(fields), and a request
adds the generation prompt, a BOS token and any system message the template inserts by
itself when none comes first (SmolLM2's does): counted on the safe side, always.

    from convstate.counters import tokenizer_counter, llama_counter
    counter = tokenizer_counter("tokenizer.json", chat_template=open("template.jinja").read())
    counter = llama_counter("model.gguf")          # tokenizer and template from the GGUF
    mem = ConversationMemory("s1", token_counter=counter, context_window=4096)
"""

from __future__ import annotations

import atexit
import contextlib
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from .counting import fields_tokens
from .errors import ConfigError

# Known families, for a tokenizer that carries no template of its own.
TEMPLATES = {
    "chatml": ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}"
               "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n"
               "{% endif %}"),
    "llama3": ("{{ bos_token }}{% for m in messages %}<|start_header_id|>{{ m['role'] }}"
               "<|end_header_id|>\n\n{{ m['content'] }}<|eot_id|>{% endfor %}"
               "{% if add_generation_prompt %}<|start_header_id|>assistant<|end_header_id|>"
               "\n\n{% endif %}"),
}
_PROBE = {"role": "system", "content": "x"}


class TemplateCounter:
    """Counts with ``encode`` (text → token ids, special tokens recognized) and a chat
    template (Jinja source, or a name in ``TEMPLATES``)."""

    def __init__(self, encode: Callable[[str], list[int]], chat_template: str,
                 bos_token: str = "", eos_token: str = "", name: str = "template"):
        import jinja2.sandbox

        source = TEMPLATES.get(chat_template, chat_template)
        env = jinja2.sandbox.ImmutableSandboxedEnvironment(trim_blocks=True,
                                                           lstrip_blocks=True)
        env.globals["raise_exception"] = _raise
        try:
            self._template = env.from_string(source)
        except jinja2.TemplateError as exc:
            raise ConfigError("chat_template", f"not a Jinja template: {exc}") from None
        self._encode, self.name = encode, name
        self._tokens = {"bos_token": bos_token, "eos_token": eos_token}
        self._overhead: dict[str, int] = {}
        probe_user = {"role": "user", "content": "x"}
        alone = self._size([probe_user])
        inserted = alone - (self._size([_PROBE, probe_user]) - self._size([_PROBE]))
        self.reply_priming = (self._size([_PROBE], generation=True) - self._size([_PROBE])
                              + max(inserted, 0) + 1)  # + a BOS the server may add

    def _size(self, messages: list[dict[str, Any]], generation: bool = False) -> int:
        text = self._template.render(messages=messages, add_generation_prompt=generation,
                                     **self._tokens)
        return len(self._encode(text))

    def count(self, text: str) -> int:
        """Tokens of a plain text."""
        return len(self._encode(text)) if text else 0

    def message(self, msg: Mapping[str, Any]) -> int:
        """Tokens of one chat message: the template's wrapping of its role, its fields."""
        role = str(msg.get("role", "user"))
        if role not in self._overhead:
            empty = {"role": role, "content": ""}
            self._overhead[role] = self._size([_PROBE, empty]) - self._size([_PROBE])
        return self._overhead[role] + fields_tokens(self, msg)


def _raise(message: str) -> None:
    raise ConfigError("chat_template", f"the template refused the probe: {message}")


def tokenizer_counter(tokenizer_json: str | Path, chat_template: str = "chatml",
                      bos_token: str = "", eos_token: str = "") -> TemplateCounter:
    """A counter from a Hugging Face ``tokenizer.json`` (needs ``pip install tokenizers``)
    and the model's chat template (Jinja source, or ``"chatml"`` / ``"llama3"``)."""
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise ImportError("tokenizer_counter needs: pip install tokenizers") from None
    tok = Tokenizer.from_file(str(tokenizer_json))
    return TemplateCounter(lambda text: tok.encode(text, add_special_tokens=False).ids,
                           chat_template, bos_token, eos_token, name=Path(tokenizer_json).name)


def llama_counter(model_path: str | Path, chat_template: str | None = None) -> TemplateCounter:
    """A counter from a GGUF model file: its tokenizer and (unless given) its chat
    template, as ``llama_cpp.server`` uses them (needs ``llama-cpp-python``)."""
    try:
        import llama_cpp
    except ImportError:
        raise ImportError("llama_counter needs: pip install llama-cpp-python") from None
    try:  # llama.cpp prints a context warning to the C stderr even with verbose=False
        from llama_cpp._utils import suppress_stdout_stderr
        quiet: Any = suppress_stdout_stderr(disable=False)
    except ImportError:
        quiet = contextlib.nullcontext()
    with quiet:
        model = llama_cpp.Llama(model_path=str(model_path), vocab_only=True, verbose=False)
    atexit.register(model.close)  # freed before interpreter teardown, not during it
    meta = model.metadata
    template = chat_template or meta.get("tokenizer.chat_template") or "chatml"

    def token_text(key: str) -> str:
        tid = meta.get(key)
        return model.detokenize([int(tid)], special=True).decode("utf-8", "replace") \
            if tid is not None else ""

    return TemplateCounter(
        lambda text: model.tokenize(text.encode("utf-8"), add_bos=False, special=True),
        template, token_text("tokenizer.ggml.bos_token_id"),
        token_text("tokenizer.ggml.eos_token_id"), name=Path(model_path).name)


@cache
def local_counter() -> TemplateCounter:
    """The counter of the bundled local model (``convstate serve-local``)."""
    from .extract.local import model_path
    return llama_counter(model_path())
