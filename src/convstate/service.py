"""convstate over HTTP, for bots not written in Python (``pip install convstate[serve]``;
``convstate serve --store DSN``).

Every session lives in the store; the service keeps a bounded cache of memories (one per
session and window) and folds in the background under the store's lease, so a slow
extractor never delays a reply. Errors are JSON: ``{"error": {"type", "field",
"message"}}``. With a token (``CONVSTATE_API_TOKEN``) every route but ``/v1/health``
needs ``Authorization: Bearer TOKEN``; without one the service only listens on loopback.
"""

from __future__ import annotations

import hmac
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Query, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from . import __version__
from .errors import ConfigError, ConvStateError, StoreError
from .extract import Extractor
from .memory import ConversationMemory
from .registry import FORMATS
from .store.base import Store
from .window import MIN_WINDOW

MAX_BODY = 1_000_000  # bytes of one request body
MAX_MEMORIES = 512  # memories kept warm; the store has the rest
SESSION_ID = re.compile(r"[A-Za-z0-9._:@-]{1,128}")
LOOPBACK = ("127.0.0.1", "::1", "localhost")


class HTTPError(Exception):
    """An error answered as JSON with its status."""

    def __init__(self, status: int, field: str, message: str, kind: str = "RequestError"):
        super().__init__(message)
        self.status, self.field, self.kind = status, field, kind


def _session(session_id: str) -> str:
    if not SESSION_ID.fullmatch(session_id):
        raise HTTPError(400, "session_id", "1-128 characters of A-Z a-z 0-9 . _ : @ -")
    return session_id


# (module level: FastAPI resolves these annotations in the module's namespace)
Session = Annotated[str, Depends(_session)]
Window = Annotated[int | None, Query(description="context window in tokens")]
User = Annotated[str | None, Query(description="the user this session belongs to")]


def create_app(store: Store, *, token: str | None = None, window: int = 8192,
               model: str = "gpt-4o-mini", extractor: Callable[[], Extractor] | None = None,
               background: bool = True, max_body: int = MAX_BODY,
               **options: Any) -> FastAPI:
    """The HTTP API over ``store``. ``window`` is the default context window (a request
    may ask for another with ``?window=``); ``extractor`` makes each memory's extractor;
    ``background=False`` folds before answering, as ``ConversationMemory.context()``
    does. Other keyword arguments are ``ConversationMemory``'s."""
    app = FastAPI(title="convstate", version=__version__,
                  description="Conversation state and contexts that fit a token window.")
    memories: OrderedDict[tuple[str, int], ConversationMemory] = OrderedDict()
    lock = threading.Lock()

    def memory(session_id: str, size: int, user_id: str | None = None) -> ConversationMemory:
        key = (session_id, size)
        with lock:
            if key in memories and (user_id is None or memories[key].user_id == user_id):
                memories.move_to_end(key)
                return memories[key]
        if user_id is not None and not SESSION_ID.fullmatch(user_id):
            raise HTTPError(400, "user_id", "1-128 characters of A-Z a-z 0-9 . _ : @ -")
        mem = ConversationMemory(session_id, store=store, context_window=size, model=model,
                                 extractor=extractor() if extractor else None,
                                 background=background, user_id=user_id, **options)
        with lock:
            cached = memories.get(key)
            if cached is None or (user_id is not None and cached.user_id != user_id):
                memories[key] = cached = mem  # a session now known as a user's: theirs
            evicted = [memories.popitem(last=False)[1]
                       for _ in range(len(memories) - MAX_MEMORIES)]
        for old in evicted:  # a background fold in flight lands before it is dropped
            old.wait()
        return cached

    def drop(sessions: set[str]) -> None:
        """Forget the cached memories of ``sessions`` (their folds in flight land first)."""
        with lock:
            gone = [memories.pop(k) for k in [k for k in memories if k[0] in sessions]]
        for mem in gone:
            mem.wait()

    def authorized(request: Request) -> None:
        if token is None:
            return
        given = request.headers.get("authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
            raise HTTPError(401, "authorization", "a valid 'Authorization: Bearer TOKEN' "
                            "header is required", "Unauthorized")

    def sized(size: int | None) -> int:
        if size is None:
            return window
        if not MIN_WINDOW <= size <= 10_000_000:
            raise HTTPError(400, "window", f"expected {MIN_WINDOW} to 10,000,000 tokens")
        return size

    auth = [Depends(authorized)]

    @app.exception_handler(HTTPError)
    def _http_error(request: Request, exc: HTTPError) -> JSONResponse:
        return _error(exc.status, exc.kind, exc.field, str(exc))

    @app.exception_handler(ConvStateError)
    def _convstate_error(request: Request, exc: ConvStateError) -> JSONResponse:
        status = 503 if isinstance(exc, StoreError) else 400
        return _error(status, type(exc).__name__, getattr(exc, "field", None), str(exc))

    @app.get("/v1/health")
    def health() -> dict[str, str]:
        """Liveness, without authentication."""
        return {"status": "ok", "version": __version__}

    @app.get("/v1/sessions", dependencies=auth)
    def sessions() -> dict[str, list[str]]:
        """Every session in the store."""
        return {"sessions": store.sessions()}

    @app.post("/v1/sessions/{session_id}/messages", dependencies=auth,
              openapi_extra={"requestBody": {"required": True, "content": {
                  "application/json": {"schema": {"oneOf": [
                      {"type": "object", "description": "one OpenAI-style message"},
                      {"type": "array", "items": {"type": "object"},
                       "description": "several, stored in order"}]}}}}})
    async def add(session_id: Session, request: Request, window: Window = None,
                  user_id: User = None) -> dict[str, Any]:
        """Store one OpenAI-style message, or a list of them (all checked before any is
        written). Returns the new turns' indexes. ``user_id`` makes the session that
        user's: folds promote into their profile, and the block shows it."""
        body = await _read(request, max_body)
        try:
            data = json.loads(body)
        except ValueError as exc:  # or a number Python cannot hold (4,300+ digits)
            raise HTTPError(400, "body", f"not JSON: {str(exc).split(';')[0]}") from None
        except RecursionError:
            raise HTTPError(400, "body", "JSON nested too deeply") from None
        messages = data if isinstance(data, list) else [data]
        if not messages:
            raise HTTPError(400, "body", "an empty list of messages")
        mem = await run_in_threadpool(memory, session_id, sized(window), user_id)
        turns = await run_in_threadpool(mem.add_messages, messages)
        return {"session_id": session_id, "turns": [t.index for t in turns]}

    @app.get("/v1/sessions/{session_id}/context", dependencies=auth)
    def context(session_id: Session, window: Window = None, user_id: User = None
                ) -> dict[str, Any]:
        """The messages for the next model call, within the window."""
        mem = memory(session_id, sized(window), user_id)
        messages = mem.context()
        return {"session_id": session_id, "window": mem.policy.context_window,
                "tokens": mem.tokens(messages), "messages": messages}

    @app.get("/v1/sessions/{session_id}/state", dependencies=auth)
    def state(session_id: Session, window: Window = None) -> dict[str, Any]:
        """The state as of every stored turn, as JSON (404 for a session with no turns)."""
        _known(store, session_id)
        return memory(session_id, sized(window)).state.model_dump(mode="json")

    @app.get("/v1/sessions/{session_id}/block", dependencies=auth)
    def block(session_id: Session, window: Window = None,
              format: Annotated[str, Query(description="text, markdown, xml or json")] = "text"
              ) -> dict[str, Any]:
        """The state block as the context carries it (or in another format)."""
        if format not in FORMATS:
            raise HTTPError(400, "format", f"expected one of {FORMATS.names()}")
        _known(store, session_id)
        mem = memory(session_id, sized(window))
        return {"session_id": session_id, "format": format,
                "block": mem.render(None if format == mem.state_format else format)}

    @app.get("/v1/users/{user_id}/profile", dependencies=auth)
    def profile(user_id: str) -> dict[str, Any]:
        """What a user told us across sessions (404 for a user without a profile)."""
        data = store.load_profile(user_id) if hasattr(store, "load_profile") else None
        if data is None:
            raise HTTPError(404, "user_id", f"no profile for user {user_id!r}", "NotFound")
        return dict(data)

    @app.delete("/v1/users/{user_id}", dependencies=auth)
    def forget(user_id: str) -> dict[str, Any]:
        """Erase a user everywhere: every session's turns, states and log, and every
        version of the profile (privacy requests)."""
        if not hasattr(store, "forget_user"):
            raise HTTPError(501, "store", f"{type(store).__name__} cannot erase")
        sessions = set(store.user_sessions(user_id))  # type: ignore[attr-defined]
        drop(sessions)
        return {"user_id": user_id, "sessions": len(sessions),
                "erased_turns": store.forget_user(user_id)}

    @app.delete("/v1/sessions/{session_id}", dependencies=auth)
    def erase(session_id: Session) -> dict[str, Any]:
        """Erase a session everywhere: turns, states, log, lease, and what it gave its
        user's profile (privacy requests)."""
        eraser = getattr(store, "erase", None)
        if eraser is None:
            raise HTTPError(501, "store", f"{type(store).__name__} cannot erase")
        drop({session_id})
        return {"session_id": session_id, "erased_turns": eraser(session_id)}

    return app


def _known(store: Store, session_id: str) -> None:
    if store.turn_count(session_id) == 0:
        raise HTTPError(404, "session_id", f"no turns for session {session_id!r}",
                        "NotFound")


async def _read(request: Request, limit: int) -> bytes:
    """The body, refused past ``limit`` bytes (whatever Content-Length claims)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise HTTPError(413, "body", f"over the limit of {limit} bytes", "TooLarge")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise HTTPError(413, "body", f"over the limit of {limit} bytes", "TooLarge")
        chunks.append(chunk)
    return b"".join(chunks)


def _error(status: int, kind: str, field: str | None, message: str) -> JSONResponse:
    return JSONResponse(status_code=status, content={
        "error": {"type": kind, "field": field, "message": " ".join(message.split())}})


def check_exposure(host: str, token: str | None) -> None:
    """Refuse to listen beyond loopback without a token."""
    if token is None and host not in LOOPBACK:
        raise ConfigError("host", f"listening on {host} needs CONVSTATE_API_TOKEN (a bearer "
                          "token every client must send)")
