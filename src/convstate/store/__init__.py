"""Stores: where turns, state versions, the compaction log and fold leases live."""

from __future__ import annotations

from typing import Any

from ..errors import ConfigError
from ..registry import STORES
from .base import CompactionRecord, Store
from .sqlite import InMemoryStore, SQLiteStore

__all__ = ["CompactionRecord", "InMemoryStore", "PostgresStore", "SQLiteStore", "Store",
           "open_store"]


def open_store(target: str, readonly: bool = False) -> Store:
    """A store from a path or a URL: the URL's scheme names a registered store
    (``postgresql://...`` opens PostgreSQL), a plain path a SQLite file (``readonly``:
    opened only to look, never created or changed)."""
    scheme = target.split("://", 1)[0] if "://" in target else "sqlite"
    store: Store = STORES.get(scheme)(target, readonly)
    return store


def _postgres(target: str, readonly: bool) -> Store:
    from .postgres import PostgresStore

    try:
        return PostgresStore(target, readonly=readonly)
    except ImportError as exc:  # a URL names the store: the missing extra is a setting's
        raise ConfigError("store", f"a postgresql:// store needs psycopg: {exc}") from None


STORES.register("sqlite", lambda target, readonly: SQLiteStore(target, readonly=readonly))
STORES.register("postgresql", _postgres)
STORES.register("postgres", _postgres)


def __getattr__(name: str) -> Any:
    if name == "PostgresStore":  # psycopg loads only when asked for
        from .postgres import PostgresStore

        return PostgresStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
