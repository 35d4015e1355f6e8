"""The async face of a memory: the same calls as ``ConversationMemory``'s, for event
loops, with store and tokenizer work in a worker thread and the extractor through its
async client."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from .aio import in_thread
from .assembly import DOCUMENT_SHARE
from .compactor import Compactor
from .extract.base import Extractor
from .store.base import CompactionRecord
from .turns import Turn
from .view import SessionView
from .window import WindowPolicy


class _Memory(Protocol):
    """What the async calls use of a memory: its sync calls and its parts."""

    _compactor: Compactor
    _extractor: Extractor
    _view: SessionView

    def add(self, role: str, content: str | None = None, **fields: Any) -> Turn: ...

    def add_message(self, message: dict[str, Any]) -> Turn: ...

    def add_messages(self, messages: list[dict[str, Any]],
                     idempotency_key: str | None = None) -> list[Turn]: ...

    def close(self) -> None: ...

    async def await_fold(self) -> None: ...

    def _keeping(self, keep_recent_turns: int | None) -> WindowPolicy: ...


class AsyncCalls:
    """``ConversationMemory``'s calls for event loops (a base of it)."""

    async def arefresh(self: _Memory) -> CompactionRecord | None:
        """``refresh`` for event loops (the extractor's async client)."""
        return await self._compactor.arefresh()

    async def aadd(self: _Memory, role: str, content: str | None = None, **fields: Any
                   ) -> Turn:
        """``add`` in a worker thread (store I/O stays off the event loop)."""
        return await in_thread(self.add, role, content, **fields)

    async def aadd_message(self: _Memory, message: dict[str, Any]) -> Turn:
        """``add_message`` in a worker thread."""
        return await in_thread(self.add_message, message)

    async def aadd_messages(self: _Memory, messages: list[dict[str, Any]],
                            idempotency_key: str | None = None) -> list[Turn]:
        """``add_messages`` in a worker thread."""
        return await in_thread(self.add_messages, messages, idempotency_key)

    async def acontext(self: _Memory,
                       documents: Sequence[str | Mapping[str, Any]] | None = None,
                       query: str | None = None, document_share: float = DOCUMENT_SHARE
                       ) -> list[dict[str, Any]]:
        """``context`` for event loops: store and tokenizer work in a worker thread, the
        extractor through its async client (LLMExtractor, HybridExtractor); with
        ``background=True`` a due fold runs as a task and nothing waits for it."""
        await self._compactor.adue(force=False)
        return await in_thread(self._view.context, documents, query, document_share)

    async def acompact(self: _Memory, keep_recent_turns: int | None = None
                       ) -> CompactionRecord | None:
        """``compact`` for event loops (see ``acontext``)."""
        return await self._compactor.adue(force=True, policy=self._keeping(keep_recent_turns))

    async def aclose(self: _Memory) -> None:
        """Wait for a background fold, close the extractor's async client, then ``close``."""
        await self.await_fold()
        await self._extractor.aclose()
        await in_thread(self.close)

    async def await_fold(self: _Memory) -> None:
        """Wait for a background fold task started by ``acontext`` (``wait`` for threads)."""
        if self._compactor.task is not None:
            await self._compactor.task
