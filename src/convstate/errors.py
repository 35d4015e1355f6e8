"""The exceptions a user of convstate can meet; all derive from ConvStateError."""

from __future__ import annotations


class ConvStateError(Exception):
    """Base class of every error convstate raises on purpose."""


class InvalidMessageError(ConvStateError, ValueError):
    """A turn has a bad shape: missing or unknown role, wrong content type, bad tool fields.

    ``field`` names the offending field (``role``, ``content``, ``tool_calls`` ...).
    """

    def __init__(self, field: str, problem: str):
        self.field, self.problem = field, problem
        super().__init__(f"invalid message field {field!r}: {problem}")


class TurnTooLargeError(InvalidMessageError):
    """A single turn is larger than ``max_turn_chars``; nothing was stored."""


class ConfigError(ConvStateError, ValueError):
    """A setting is out of range (window too small, ratios reversed ...); ``field`` names it."""

    def __init__(self, field: str, problem: str):
        self.field = field
        super().__init__(f"invalid setting {field!r}: {problem}")


class ReadOnlySettingError(ConvStateError, AttributeError):
    """A setting fixed for the life of a memory was assigned (its session, store,
    extractor, state model, window or token counter); ``field`` names it, and the message
    says how to get the change: open the session again with the new value (the store
    keeps its history and state). Nothing was changed."""

    def __init__(self, field: str, problem: str):
        self.field = field
        super().__init__(f"setting {field!r} cannot be assigned: {problem}")


class FieldTypeError(ConfigError, TypeError):
    """A field of your state model has a type the fold cannot merge; ``field`` names it.

    Raised when the class is defined.
    """

    def __init__(self, field: str, problem: str):
        self.field = field
        ConvStateError.__init__(self, f"state field {field!r}: {problem}")


class VersionConflictError(ConvStateError):
    """Another writer saved a newer state first; this write changed nothing."""

    def __init__(self, session_id: str, expected: int, found: int):
        self.session_id = session_id
        self.expected = expected
        self.found = found
        super().__init__(
            f"state of session {session_id!r} is at version {found}, expected {expected}: "
            "another writer folded first; nothing was written"
        )


class SessionErasedError(VersionConflictError):
    """The session was erased (or erased and begun again) after this write was planned:
    the write would bring erased data back, so nothing was written. A memory that meets
    it reloads the session as it is now."""

    def __init__(self, session_id: str, expected: int, found: int):
        self.session_id, self.expected, self.found = session_id, expected, found
        ConvStateError.__init__(
            self, f"session {session_id!r} was erased after this write was planned "
            f"(generation {expected}, now {found or 'none'}); nothing was written")


class IdempotencyConflictError(ConvStateError, ValueError):
    """An idempotency key given again with other turns than the request that first used
    it (a retry must send the very same turns); nothing was written. ``field`` is
    ``idempotency_key``."""

    def __init__(self, key: str):
        self.field = "idempotency_key"
        super().__init__("this idempotency key was used by a request with other messages; "
                         "a retry sends the same messages (use a new key for new ones)")


class StoreError(ConvStateError):
    """The store could not read or write (disk full, read-only, unreachable). The
    transaction was rolled back: nothing was half-written."""


class ExtractionError(ConvStateError):
    """An extractor could not produce a delta (the turns stay unfolded and are retried).

    ``prompt_tokens`` / ``completion_tokens`` / ``cached_tokens``: what the failed tries
    cost.
    """

    def __init__(self, message: str, prompt_tokens: int = 0, completion_tokens: int = 0,
                 cached_tokens: int = 0):
        super().__init__(message)
        self.prompt_tokens, self.completion_tokens = prompt_tokens, completion_tokens
        self.cached_tokens = cached_tokens


class DataError(ConvStateError, ValueError):
    """An evaluation file does not follow the layout; names the dialogue and the field."""
