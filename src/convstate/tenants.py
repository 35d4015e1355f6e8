"""API keys and the tenants they stand for (``convstate serve --keys FILE``).

FILE is a JSON object mapping each key to a tenant name, ``{"KEY": "tenant-a", ...}``.
A key sees only its tenant's sessions and users: the service stores them as
``tenant/id``, a name no client can give (ids have no ``/``). The file is read again
when it changes, or after ``reload()`` (SIGHUP); a file broken by an edit keeps the keys
read before, so a typo never locks every client out.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import warnings
from pathlib import Path
from typing import Any

from .errors import ConfigError
from .store.base import Store, sessions_under

TENANT = re.compile(r"[A-Za-z0-9._:@-]{1,64}")


def scoped(tenant: str, name: str) -> str:
    """The stored name of a tenant's session or user (``name`` itself without tenants)."""
    return f"{tenant}/{name}" if tenant else name


def unscoped(tenant: str, names: list[str]) -> list[str]:
    """The tenant's own names among stored ones, as its clients gave them."""
    if not tenant:
        return names
    prefix = f"{tenant}/"
    return [n[len(prefix):] for n in names if n.startswith(prefix)]


def tenant_sessions(store: Store, tenant: str) -> list[str]:
    """The tenant's sessions in ``store`` (every session without tenants), as its clients
    named them."""
    return unscoped(tenant, sessions_under(store, scoped(tenant, "")))


def unscoped_ids(tenant: str, data: Any) -> Any:
    """``data`` (JSON, a profile) with the stored names in its ``session_id`` and
    ``user_id`` fields as the tenant's clients gave them (no tenant's name shown)."""
    if not tenant:
        return data
    prefix = f"{tenant}/"
    if isinstance(data, list):
        return [unscoped_ids(tenant, v) for v in data]
    if not isinstance(data, dict):
        return data
    return {k: v[len(prefix):] if k in _IDS and isinstance(v, str) and v.startswith(prefix)
            else unscoped_ids(tenant, v) for k, v in data.items()}


_IDS = ("session_id", "user_id")


class Keys:
    """The keys of a key file, each standing for its tenant. Keys are compared by their
    SHA-256 digest, so looking one up reveals nothing of the others."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._lock = threading.Lock()
        self._stamp: tuple[int, int, int] | None = None
        self._tenants: dict[bytes, str] = {}
        self._fresh(strict=True)

    def tenant(self, key: bytes) -> str | None:
        """The tenant of ``key`` (its UTF-8 bytes), None for no key of the file."""
        self._fresh(strict=False)
        return self._tenants.get(hashlib.sha256(key).digest())

    def reload(self) -> None:
        """Read the file again on the next lookup (a SIGHUP handler calls this)."""
        self._stamp = None

    def _fresh(self, strict: bool) -> None:
        try:
            st = os.stat(self.path)
        except OSError as exc:
            if strict:
                raise ConfigError("keys", f"cannot read {self.path}: {exc.strerror}") from None
            return
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        if stamp == self._stamp:
            return
        with self._lock:
            if stamp == self._stamp:
                return
            try:
                self._tenants = _read(self.path)
            except ConfigError as exc:
                if strict:
                    raise
                warnings.warn(f"convstate: {exc}; the keys read before stay", stacklevel=2)
            self._stamp = stamp


def _read(path: Path) -> dict[bytes, str]:
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ConfigError("keys", f"{path} is not a JSON file: {exc}") from None
    if not isinstance(data, dict) or not data:
        raise ConfigError("keys", f"{path}: expected a JSON object of keys and tenant names")
    tenants: dict[bytes, str] = {}
    for key, tenant in data.items():
        if not key.strip():
            raise ConfigError("keys", f"{path}: a blank key (for tenant {tenant!r})")
        if not isinstance(tenant, str) or not TENANT.fullmatch(tenant):
            raise ConfigError("keys", f"{path}: tenant {tenant!r}: 1-64 characters of A-Z "
                              "a-z 0-9 . _ : @ -")
        tenants[hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()] = tenant
    return tenants
