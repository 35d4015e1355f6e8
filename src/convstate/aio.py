"""asyncio, loaded on first use: it costs ~12 ms of ``import convstate`` that only
async callers need."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


async def in_thread(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``asyncio.to_thread``: ``fn`` in a worker thread, the event loop keeps running."""
    import asyncio

    return await asyncio.to_thread(fn, *args, **kwargs)
