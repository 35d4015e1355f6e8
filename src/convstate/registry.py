"""Registries of named parts: block formats, extractors, stores. The built-ins register
themselves the same way a plugin does, so a plugin adds one without editing the package.

A plugin is a package with an entry point in the group ``convstate.plugins`` (after
simonw/llm's plugins): the entry point names a module, or a function called with no
arguments, that calls ``FORMATS.register(...)``, ``EXTRACTORS.register(...)`` or
``STORES.register(...)``. Plugins load once, on the first lookup of any registry::

    [project.entry-points."convstate.plugins"]
    yaml = "convstate_yaml"          # its import registers a "yaml" block format
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from importlib import import_module
from typing import Any, Generic, TypeVar

from .errors import ConfigError

T = TypeVar("T")
log = logging.getLogger("convstate")
GROUP = "convstate.plugins"
_BUILT_IN = ("convstate.lang", "convstate.render", "convstate.extract", "convstate.store")
_loaded = False
_loading = threading.Lock()


class Registry(Generic[T]):
    """Named things of one kind, in the order they were registered."""

    def __init__(self, kind: str):
        self.kind = kind
        self.version = 0  # counts registrations: what is built from the items can tell
        self._items: dict[str, T] = {}
        self._watchers: list[Callable[[], None]] = []

    def watch(self, changed: Callable[[], None]) -> None:
        """Call ``changed`` after every registration (to drop what was built from the
        items before)."""
        self._watchers.append(changed)

    def _changed(self) -> None:
        self.version += 1
        for changed in self._watchers:
            changed()

    def register(self, name: str, item: T) -> T:
        """Add ``item`` under ``name`` (a later registration of a name replaces it)."""
        if not isinstance(name, str) or not name:
            raise ConfigError(self.kind, f"a {self.kind} needs a non-empty name")
        self._items[name] = item
        self._changed()
        return item

    def unregister(self, name: str) -> None:
        """Remove ``name`` (nothing if it is not there)."""
        if self._items.pop(name, None) is not None:
            self._changed()

    def get(self, name: str) -> T:
        """The item registered as ``name``; ConfigError naming the known ones."""
        load_plugins()
        if name not in self._items:
            raise ConfigError(self.kind, f"expected one of {self.names()}, got {name!r}")
        return self._items[name]

    def names(self) -> tuple[str, ...]:
        load_plugins()
        return tuple(self._items)

    def __contains__(self, name: object) -> bool:
        load_plugins()
        return name in self._items


def load_plugins() -> None:
    """Import every installed plugin, once. A plugin that fails to load is logged and
    skipped: a broken plugin never stops the library."""
    global _loaded
    if _loaded:
        return
    with _loading:
        if _loaded:
            return
        _loaded = True
        for module in _BUILT_IN:  # they register themselves on import
            import_module(module)
        from importlib.metadata import entry_points  # ~11 ms: only when a lookup needs it

        for ep in entry_points(group=GROUP):
            try:
                loaded = ep.load()
                if callable(loaded):
                    loaded()
            except Exception:  # noqa: BLE001 - report and go on without it
                log.exception("convstate: plugin %r failed to load", ep.name)


# Formatter: (rows, labels, omitted count, provenance) -> text. See render.py.
FORMATS: Registry[Callable[..., str]] = Registry("format")
# Extractor factory: keyword options (base_url, model, timeout...) -> an Extractor.
EXTRACTORS: Registry[Callable[..., Any]] = Registry("extractor")
# Store factory by URL scheme ("sqlite" for a plain path): (target, readonly) -> a Store.
STORES: Registry[Callable[[str, bool], Any]] = Registry("store")
# Language packs by code ("en", "zh"): see convstate.lang.
LANGUAGES: Registry[Any] = Registry("lang")
