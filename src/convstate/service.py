"""convstate over HTTP, for bots not written in Python (``pip install convstate[serve]``;
``convstate serve --store DSN``).

Every session lives in the store; the service keeps a cache of memories (one per session
and window, a few windows a session) bounded by the bytes they hold, and folds in the
background under the store's lease, so a slow extractor never delays a reply. Every
error, whatever its status, is JSON: ``{"error": {"type", "field", "message"}}`` (on the
inspector's pages, ``/ui``, a page that says the same: ``inspector/``). With a token
(``CONVSTATE_API_TOKEN``) every route but ``/v1/health`` and ``/v1/ready`` needs
``Authorization: Bearer TOKEN`` (the inspector's pages take it from their sign-in
cookie too; its sign-in form and stylesheet need none); without one only loopback
clients naming a loopback ``Host`` are answered (a web page's DNS rebinding cannot
reach it). Writes take ``application/json`` bodies only (a cross-site form or
``text/plain`` POST is refused), but the inspector's forms, which only its own pages
may post; no CORS unless origins are given.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from typing import Annotated, Any

import anyio
from fastapi import Depends, FastAPI, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from . import __version__
from .errors import ConfigError, ConvStateError, IdempotencyConflictError, StoreError
from .extract import Extractor
from .inspector import html, is_ui, mount, pages, same_origin
from .memory import ConversationMemory
from .registry import FORMATS
from .store.base import Store, key_ttl
from .tenants import Keys, scoped, tenant_sessions, unscoped_ids
from .tokens import DEFAULT_COUNT
from .turns import MAX_NESTING, _nests_deeper
from .window import MIN_WINDOW

MAX_BODY = 1_000_000  # bytes of one request body
# a body nested deeper is refused before anything walks it (pydantic's and json's
# serializers overflow near 250-1,000 levels); a message's own parts have their limit
# (MAX_NESTING), refused naming the part, well inside this one
MAX_BODY_NESTING = 2 * MAX_NESTING
MAX_MEMORIES = 512  # memories kept warm; the store has the rest
# windows of one session kept warm: each is a whole memory (the live state, the recent
# turns), so a client cycling through ?window= values would otherwise multiply a long
# session's memory (20 windows of a 33k-turn session: 185 MB -> 1.1 GB)
WINDOWS_PER_SESSION = 4
# the bytes the warm memories may hold together (estimated: footprint.py), in MB: a
# count alone lets 512 long sessions take gigabytes
CACHE_MB = 256.0
SESSION_ID = re.compile(r"[A-Za-z0-9._:@-]{1,128}")
LOOPBACK = ("127.0.0.1", "::1", "localhost")
IDEMPOTENCY_KEY = re.compile(r"[\x21-\x7e]{1,255}")  # visible ASCII, as a header carries
WRITES = ("POST", "PUT", "PATCH")
# the status's name in the error shape, for statuses the framework answers itself
_KINDS = {404: "NotFound", 405: "MethodNotAllowed", 413: "TooLarge",
          415: "UnsupportedMediaType", 422: "ValidationError"}


class HTTPError(Exception):
    """An error answered as JSON with its status."""

    def __init__(self, status: int, field: str, message: str, kind: str = "RequestError"):
        super().__init__(message)
        self.status, self.field, self.kind = status, field, kind


def _session(session_id: str) -> str:
    if not SESSION_ID.fullmatch(session_id):
        raise HTTPError(400, "session_id", "1-128 characters of A-Z a-z 0-9 . _ : @ -")
    return session_id


def _tenant(request: Request) -> str:
    """The caller's tenant ('' without ``--keys``); 401 for a caller without a key."""
    found: str = request.app.state.tenant_of(request)
    return found


# (module level: FastAPI resolves these annotations in the module's namespace)
Session = Annotated[str, Depends(_session)]
Tenant = Annotated[str, Depends(_tenant)]
Window = Annotated[int | None, Query(description="context window in tokens")]
User = Annotated[str | None, Query(description="the user this session belongs to")]


def api_token(value: str | None) -> str | None:
    """The bearer token to require: None (or an unset ``""`` variable) for none; a blank
    one is refused (it would look like protection and let anyone in)."""
    if value is None or value == "":
        return None
    if not value.strip():
        raise ConfigError("token", "CONVSTATE_API_TOKEN is blank: give a real token, or "
                          "none (unset) to serve loopback only")
    return value


def create_app(store: Store, *, token: str | None = None, window: int = 8192,
               model: str = DEFAULT_COUNT, extractor: Callable[[], Extractor] | None = None,
               background: bool = True, max_body: int = MAX_BODY,
               cors_origins: Sequence[str] = (), open_docs: bool = False,
               keys: Keys | None = None, idempotency_ttl: float | None = None,
               cache_mb: float = CACHE_MB, **options: Any) -> FastAPI:
    """The HTTP API over ``store``. ``window`` is the default context window (a request
    may ask for another with ``?window=``); ``extractor`` makes each memory's extractor;
    ``background=False`` folds before answering, as ``ConversationMemory.context()``
    does. ``keys`` (instead of ``token``): API keys, each seeing only its tenant's
    sessions and users. Without either only loopback clients naming a loopback ``Host``
    are answered. ``cors_origins``: the web origins allowed to call it (none by default);
    ``open_docs``: serve ``/docs`` and ``/openapi.json`` without the token.
    ``idempotency_ttl``: seconds an ``Idempotency-Key`` is kept (the store's, 24 hours by
    default). ``cache_mb``: the MB the warm memories may hold together (estimated; the
    least recently used go first). Other keyword arguments are ``ConversationMemory``'s."""
    token = api_token(token)
    if idempotency_ttl is not None:
        if not hasattr(store, "idempotency_ttl"):
            raise ConfigError("idempotency_ttl", f"{type(store).__name__} keeps no "
                              "idempotency keys")
        store.idempotency_ttl = key_ttl(idempotency_ttl)
    if token is not None and keys is not None:
        raise ConfigError("keys", "either API keys or one token (CONVSTATE_API_TOKEN), "
                          "not both")
    guarded = token is not None or keys is not None
    app = FastAPI(title="convstate", version=__version__, docs_url=None, redoc_url=None,
                  openapi_url=None,
                  description="Conversation state and contexts that fit a token window.")
    if not 0 < cache_mb < float("inf"):
        raise ConfigError("cache_mb", f"expected a positive number of MB, not {cache_mb!r}")
    cache = Memories(store, window, model, extractor, background, options,
                     int(cache_mb * 2**20))
    tenant_of_key = _key_check(keys, token)
    app.state.tenant_of = _request_check(guarded, tenant_of_key)
    _guard(app, guarded, cors_origins)
    _answer_errors(app)
    _probes(app, store)
    _docs(app, open_docs)
    _session_routes(app, cache, max_body)
    _user_routes(app, cache)
    mount(app, store, memory=cache.memory, drop=cache.drop, sized=cache.sized,
          known=lambda who, sid: _known(store, who, sid), check_session=_session,
          tenant_of_key=tenant_of_key if guarded else None)
    return app


class Memories:
    """The service's warm memories: a cache of memories over one store with the
    service's settings, bounded by the bytes they hold (``budget``, estimated by
    ``ConversationMemory.held_bytes``), by their number and by a few windows a session;
    the least recently used go first."""

    def __init__(self, store: Store, window: int, model: str,
                 extractor: Callable[[], Extractor] | None, background: bool,
                 options: dict[str, Any], budget: int = int(CACHE_MB * 2**20)) -> None:
        self.store, self.window, self.model = store, window, model
        self.extractor, self.background, self.options = extractor, background, options
        self.memories: OrderedDict[tuple[str, int], ConversationMemory] = OrderedDict()
        self.budget, self.held = budget, 0
        self.sizes: dict[tuple[str, int], int] = {}  # each memory's bytes, last measured
        self.used: set[tuple[str, int]] = set()  # handed out since they were measured
        self.lock = threading.Lock()

    def memory(self, session_id: str, size: int, user_id: str | None = None
               ) -> ConversationMemory:
        """The memory of a session and window (a cached one, unless it is not yet known
        as ``user_id``'s)."""
        lock, key = self.lock, (session_id, size)
        with lock:
            cached = self._hit(key, user_id)
        if cached is None:
            mem = ConversationMemory(session_id, store=self.store, context_window=size,
                                     model=self.model,
                                     extractor=self.extractor() if self.extractor else None,
                                     background=self.background, user_id=user_id,
                                     **self.options)
            with lock:
                cached = self._hit(key, user_id)
                if cached is None:  # (a session now known as a user's: theirs)
                    if key in self.memories:
                        self._pop(key)
                    self.memories[key], self.sizes[key] = mem, 0
                    cached = mem
        with lock:
            evicted = self._evict(key)
        for old in evicted:  # a background fold in flight lands before it is dropped
            old.wait()
        return cached

    def _hit(self, key: tuple[str, int], user_id: str | None) -> ConversationMemory | None:
        mem = self.memories.get(key)
        if mem is None or (user_id is not None and mem.user_id != user_id):
            return None
        self.memories.move_to_end(key)
        return mem

    def _evict(self, key: tuple[str, int]) -> list[ConversationMemory]:
        """Measure ``key``'s memory and those handed out since the last call (again after
        their requests), then let go of the least recently used but ``key`` until the
        session has at most ``WINDOWS_PER_SESSION``, the cache ``MAX_MEMORIES`` and
        ``budget`` bytes (one memory bigger than the budget alone stays)."""
        for k in (self.used | {key}) & self.memories.keys():
            held = self.memories[k].held_bytes()
            self.held += held - self.sizes[k]
            self.sizes[k] = held
        self.used = {key}
        windows = [k for k in self.memories if k[0] == key[0]]  # least recent first
        evicted = [self._pop(k) for k in windows[:-WINDOWS_PER_SESSION]]
        while len(self.memories) > MAX_MEMORIES or self.held > self.budget:
            oldest = next((k for k in self.memories if k != key), None)
            if oldest is None:
                break
            evicted.append(self._pop(oldest))
        return evicted

    def _pop(self, key: tuple[str, int]) -> ConversationMemory:
        self.held -= self.sizes.pop(key)
        self.used.discard(key)
        return self.memories.pop(key)

    def drop(self, sessions: set[str]) -> None:
        """Forget the cached memories of ``sessions`` (their folds in flight land first)."""
        with self.lock:
            gone = [self._pop(k) for k in [k for k in self.memories if k[0] in sessions]]
        for mem in gone:
            mem.wait()

    def sized(self, size: int | None) -> int:
        """The window a request asks for (the service's by default), checked."""
        if size is None:
            return self.window
        if not MIN_WINDOW <= size <= 10_000_000:
            raise HTTPError(400, "window", f"expected {MIN_WINDOW} to 10,000,000 tokens")
        return size


def _owner(tenant: str, user_id: str | None) -> str | None:
    """The stored id of a session's user (checked as the client gave it)."""
    if user_id is None:
        return None
    if not SESSION_ID.fullmatch(user_id):
        raise HTTPError(400, "user_id", "1-128 characters of A-Z a-z 0-9 . _ : @ -")
    return scoped(tenant, user_id)


def _key_check(keys: Keys | None, token: str | None) -> Callable[[bytes], str | None]:
    """How a key or token as sent (its UTF-8 bytes) is told: its tenant, '' for the one
    token, None for no valid one."""
    secret = token.encode("utf-8") if token is not None else b""

    def tenant_of_key(sent: bytes) -> str | None:
        """The tenant of a key or token as sent (its UTF-8 bytes), None for no valid one."""
        if keys is not None:
            return keys.tenant(sent)
        return "" if hmac.compare_digest(sent, secret) else None

    return tenant_of_key


def _request_check(guarded: bool, tenant_of_key: Callable[[bytes], str | None]
                   ) -> Callable[[Request], str]:
    """How a request's tenant is told: by its bearer key ('' when nothing is guarded)."""

    def tenant_of(request: Request) -> str:
        if not guarded:
            return ""
        scheme, _, given = request.headers.get("authorization", "").strip().partition(" ")
        # the header's bytes as sent (the server decoded them as Latin-1): a UTF-8 key
        found = tenant_of_key(given.strip().encode("latin-1")) \
            if scheme.lower() == "bearer" else None
        if found is None:
            raise HTTPError(401, "authorization", "a valid 'Authorization: Bearer KEY' "
                            "header is required", "Unauthorized")
        return found

    return tenant_of


def _guard(app: FastAPI, guarded: bool, cors_origins: Sequence[str]) -> None:
    """The middleware every request passes: the guard, then CORS if origins are given."""

    @app.middleware("http")
    async def guard(request: Request, call_next: Callable[[Request], Awaitable[Response]]
                    ) -> Response:
        """Refused before any route: without a token, a client or a ``Host`` that is not
        loopback (a page on another site, DNS rebinding); on writes, a body that is not
        JSON (a cross-site form or ``text/plain`` POST needs no preflight)."""
        if not guarded and not (_loopback(request.client.host if request.client else "")
                                  and _loopback(_hostname(request.headers.get("host", "")))):
            return _error(403, "Forbidden", "host", "without CONVSTATE_API_TOKEN only "
                          "loopback clients naming a loopback Host are answered", request)
        if request.method in WRITES and is_ui(request):
            if not same_origin(request):  # a form another site's page posted
                return _error(403, "Forbidden", "origin", "a form must be posted from "
                              "this service's own pages (Origin or Referer naming its Host)",
                              request)
        elif request.method in WRITES and _media_type(request) != "application/json":
            return _error(415, "UnsupportedMediaType", "content-type",
                          "the body must be sent as 'Content-Type: application/json'",
                          request)
        return await call_next(request)

    if cors_origins:  # (outside the guard: a preflight is answered before it)
        app.add_middleware(CORSMiddleware, allow_origins=list(cors_origins),
                           allow_methods=["GET", "POST", "DELETE"],
                           allow_headers=["Authorization", "Content-Type", "Idempotency-Key"])


def _answer_errors(app: FastAPI) -> None:
    """Every error as JSON: ``{"error": {"type", "field", "message"}}``."""

    @app.exception_handler(HTTPError)
    def _http_error(request: Request, exc: HTTPError) -> Response:
        return _error(exc.status, exc.kind, exc.field, str(exc), request)

    @app.exception_handler(ConvStateError)
    def _convstate_error(request: Request, exc: ConvStateError) -> Response:
        status = 503 if isinstance(exc, StoreError) else (
            409 if isinstance(exc, IdempotencyConflictError) else 400)
        return _error(status, type(exc).__name__, getattr(exc, "field", None), str(exc),
                      request)

    @app.exception_handler(StarletteHTTPException)
    def _framework_error(request: Request, exc: StarletteHTTPException) -> Response:
        out = _error(exc.status_code, _KINDS.get(exc.status_code, "HTTPError"), None,
                     str(exc.detail), request)
        out.headers.update(exc.headers or {})  # 405's Allow
        return out

    @app.exception_handler(RequestValidationError)
    def _invalid(request: Request, exc: RequestValidationError) -> Response:
        first = exc.errors()[0] if exc.errors() else {}
        loc = [str(part) for part in first.get("loc", ()) if part not in ("query", "path")]
        return _error(422, "ValidationError", ".".join(loc) or None,
                      str(first.get("msg", "invalid request")), request)

    @app.exception_handler(Exception)
    def _internal(request: Request, exc: Exception) -> Response:
        # (what went wrong goes to the server's log, not to the client)
        return _error(500, "InternalError", None, "the server failed; see its log", request)


def _probes(app: FastAPI, store: Store) -> None:
    """Liveness and readiness, without authentication."""

    @app.get("/v1/health")
    async def health() -> dict[str, str]:
        """Liveness, without authentication, on the event loop: it answers while every
        worker thread is busy."""
        return {"status": "ok", "version": __version__}

    ready_lane = anyio.CapacityLimiter(1)  # its own thread: not behind busy requests

    @app.get("/v1/ready")
    async def ready() -> dict[str, str]:
        """Readiness, without authentication: the store answers a query (503 if not)."""
        try:
            await anyio.to_thread.run_sync(store.turn_count, "", limiter=ready_lane)
        except Exception as exc:  # whatever the driver raises: not ready
            raise HTTPError(503, "store", f"the store does not answer: "
                            f"{type(exc).__name__}", "NotReady") from None
        return {"status": "ready", "version": __version__}


def _docs(app: FastAPI, open_docs: bool) -> None:
    """The OpenAPI schema and its page (behind the token unless ``open_docs``)."""
    docs_auth = [] if open_docs else [Depends(_tenant)]

    @app.get("/openapi.json", include_in_schema=False, dependencies=docs_auth)
    def openapi() -> dict[str, Any]:
        return app.openapi()

    @app.get("/docs", include_in_schema=False, dependencies=docs_auth)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(openapi_url="/openapi.json", title="convstate")


def _session_routes(app: FastAPI, cache: Memories, max_body: int) -> None:
    """The sessions: list them, add messages, read the context, the state, the block."""
    store, memory, sized = cache.store, cache.memory, cache.sized

    @app.get("/v1/sessions")
    def sessions(who: Tenant) -> dict[str, list[str]]:
        """Every session in the store (with API keys: every session of the key's
        tenant)."""
        return {"sessions": tenant_sessions(store, who)}

    @app.post("/v1/sessions/{session_id}/messages",
              openapi_extra={"requestBody": {"required": True, "content": {
                  "application/json": {"schema": {"oneOf": [
                      {"type": "object", "description": "one OpenAI-style message"},
                      {"type": "array", "items": {"type": "object"},
                       "description": "several, stored in order"}]}}}}})
    async def add(session_id: Session, who: Tenant, request: Request, window: Window = None,
                  user_id: User = None) -> dict[str, Any]:
        """Store one OpenAI-style message, or a list of them: all checked before any is
        written, then stored in one transaction at consecutive indexes (all or none; no
        other client's turn between them, so a tool call stays next to its results).
        Returns the new turns' indexes. An ``Idempotency-Key`` header makes a retry store
        nothing twice (it answers the first request's indexes). ``user_id`` makes the
        session that user's: folds promote into their profile, and the block shows it."""
        request_key = request.headers.get("idempotency-key")
        if request_key is not None and not IDEMPOTENCY_KEY.fullmatch(request_key):
            raise HTTPError(400, "idempotency_key", "1-255 visible ASCII characters")
        body = await _read(request, max_body)
        try:
            data = json.loads(body)
        except ValueError as exc:  # or a number Python cannot hold (4,300+ digits)
            raise HTTPError(400, "body", f"not JSON: {str(exc).split(';')[0]}") from None
        except RecursionError:
            raise HTTPError(400, "body", "JSON nested too deeply") from None
        if _nests_deeper(data, MAX_BODY_NESTING):  # (what would overflow a serializer later)
            raise HTTPError(400, "body", f"JSON nested deeper than {MAX_BODY_NESTING} levels")
        messages = data if isinstance(data, list) else [data]
        if not messages:
            raise HTTPError(400, "body", "an empty list of messages")
        mem = await run_in_threadpool(memory, scoped(who, session_id), sized(window),
                                      _owner(who, user_id))
        turns = await run_in_threadpool(mem.add_messages, messages, request_key)
        return {"session_id": session_id, "turns": [t.index for t in turns]}

    @app.get("/v1/sessions/{session_id}/context")
    def context(session_id: Session, who: Tenant, window: Window = None,
                user_id: User = None) -> dict[str, Any]:
        """The messages for the next model call, within the window (404 for a session
        with no turns)."""
        size, user = sized(window), _owner(who, user_id)
        mem = memory(_known(store, who, session_id), size, user)
        messages = mem.context()
        return {"session_id": session_id, "window": mem.policy.context_window,
                "tokens": mem.tokens(messages), "messages": messages}

    @app.get("/v1/sessions/{session_id}/state")
    def state(session_id: Session, who: Tenant, window: Window = None) -> dict[str, Any]:
        """The state as of every stored turn, as JSON (404 for a session with no turns)."""
        size = sized(window)
        return memory(_known(store, who, session_id), size).state.model_dump(mode="json")

    @app.get("/v1/sessions/{session_id}/block")
    def block(session_id: Session, who: Tenant, window: Window = None,
              format: Annotated[str, Query(description="text, markdown, xml or json")] = "text"
              ) -> dict[str, Any]:
        """The state block as the context carries it (or in another format)."""
        if format not in FORMATS:
            raise HTTPError(400, "format", f"expected one of {FORMATS.names()}")
        size = sized(window)
        mem = memory(_known(store, who, session_id), size)
        return {"session_id": session_id, "format": format,
                "block": mem.render(None if format == mem.state_format else format)}


def _user_routes(app: FastAPI, cache: Memories) -> None:
    """A user's profile, and erasure: of a user everywhere, or of one session."""
    store, drop = cache.store, cache.drop

    @app.get("/v1/users/{user_id}/profile")
    def profile(user_id: str, who: Tenant) -> dict[str, Any]:
        """What a user told us across sessions (404 for a user without a profile)."""
        data = store.load_profile(scoped(who, user_id)) if hasattr(store, "load_profile") \
            else None
        if data is None:
            raise HTTPError(404, "user_id", f"no profile for user {user_id!r}", "NotFound")
        return dict(unscoped_ids(who, data))

    @app.delete("/v1/users/{user_id}")
    def forget(user_id: str, who: Tenant) -> dict[str, Any]:
        """Erase a user everywhere: every session's turns, states and log, and every
        version of the profile (privacy requests)."""
        if not hasattr(store, "forget_user"):
            raise HTTPError(501, "store", f"{type(store).__name__} cannot erase")
        user = scoped(who, user_id)
        sessions = set(store.user_sessions(user))  # type: ignore[attr-defined]
        drop(sessions)
        return {"user_id": user_id, "sessions": len(sessions),
                "erased_turns": store.forget_user(user)}

    @app.delete("/v1/sessions/{session_id}")
    def erase(session_id: Session, who: Tenant) -> dict[str, Any]:
        """Erase a session everywhere: turns, states, log, lease, and what it gave its
        user's profile (privacy requests); 404 for a session with no turns."""
        eraser = getattr(store, "erase", None)
        if eraser is None:
            raise HTTPError(501, "store", f"{type(store).__name__} cannot erase")
        stored = _known(store, who, session_id)
        drop({stored})
        return {"session_id": session_id, "erased_turns": eraser(stored)}


def _known(store: Store, tenant: str, session_id: str) -> str:
    """The stored id of a tenant's session that has turns (404 if it has none)."""
    stored = scoped(tenant, session_id)
    if store.turn_count(stored) == 0:
        raise HTTPError(404, "session_id", f"no turns for session {session_id!r}",
                        "NotFound")
    return stored


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


def _hostname(host: str) -> str:
    """The name in a ``Host`` header, without its port (``[::1]:8080`` -> ``::1``)."""
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return host.rpartition(":")[0] if host.count(":") == 1 else host


def _loopback(host: str) -> bool:
    if host.lower() in LOOPBACK:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _media_type(request: Request) -> str:
    return request.headers.get("content-type", "").partition(";")[0].strip().lower()


def _error(status: int, kind: str, field: str | None, message: str,
           request: Request | None = None) -> Response:
    """The error shape; for the inspector's pages (``/ui``), the same said as a page."""
    said = " ".join(message.split())
    if request is not None and is_ui(request):
        return html(pages.error(status, said, False), status)
    return JSONResponse(status_code=status, content={
        "error": {"type": kind, "field": field, "message": said}})


def check_exposure(host: str, token: str | None, keys: Keys | None = None) -> None:
    """Refuse to listen beyond loopback without a token or keys (a blank token is none)."""
    if api_token(token) is None and keys is None and host not in LOOPBACK:
        raise ConfigError("host", f"listening on {host} needs CONVSTATE_API_TOKEN (a bearer "
                          "token every client must send)")
