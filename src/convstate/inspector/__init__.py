"""The inspector: ``/ui`` of ``convstate serve``, where a support team sees what the bot
knows about a session, and why (server-rendered HTML, no JavaScript needed).

Who may look is decided as for the API: with a token or tenant keys, the caller's key,
sent as ``Authorization: Bearer KEY`` or held in the cookie the sign-in form sets
(HttpOnly, SameSite=Strict, path /ui: a page of another site can neither read it nor
make the browser send it); a key sees its tenant's sessions only. Without either, only
loopback clients are answered (the service's own rule). A form posted to /ui must come
from the service's own pages: its ``Origin`` (or, without one, ``Referer``) must name
the ``Host`` it was sent to (the service's guard checks it before any route).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from importlib.resources import files
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, quote

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ..profile import Profile
from ..store.base import Store
from ..tenants import scoped, tenant_sessions, unscoped
from ..turns import Turn
from . import pages

if TYPE_CHECKING:  # (the service hands its memories in: nothing here opens one)
    from ..memory import ConversationMemory

COOKIE = "convstate_key"
MAX_FORM = 8192  # bytes of a sign-in or erase form
MAX_WHERE = 500  # characters of a where() question
# what a page may load and where its forms may go: its own origin only, no script
POLICY = ("default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
          "frame-ancestors 'none'; base-uri 'none'")
_CSS = files(__name__).joinpath("static", "inspector.css")


def html(body: str, status: int = 200) -> HTMLResponse:
    """A page with the headers every inspector page carries."""
    return HTMLResponse(body, status_code=status, headers={
        "Content-Security-Policy": POLICY, "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin", "Cache-Control": "no-store"})


def is_ui(request: Request) -> bool:
    """Whether ``request`` is for the inspector (its errors are pages, not JSON)."""
    path = request.url.path
    return path == "/ui" or path.startswith("/ui/")


def same_origin(request: Request) -> bool:
    """Whether a form was posted from a page of this service: its Origin (or Referer)
    names the Host it was sent to."""
    sent = request.headers.get("origin") or request.headers.get("referer") or ""
    scheme, _, rest = sent.partition("://")
    host = request.headers.get("host", "")
    return scheme in ("http", "https") and bool(host) and \
        rest.partition("/")[0].lower() == host.lower()


def mount(app: FastAPI, store: Store, *, memory: Callable[..., ConversationMemory],
          drop: Callable[[set[str]], None], sized: Callable[[int | None], int],
          known: Callable[[str, str], str], check_session: Callable[[str], str],
          tenant_of_key: Callable[[bytes], str | None] | None) -> None:
    """Add the inspector's routes to ``app``. ``tenant_of_key``: a key's tenant (None
    when the key is not valid), or None when the service needs no key."""

    def viewer(request: Request) -> str | None:
        """The tenant of the caller ('' without tenants), None when it must sign in."""
        if tenant_of_key is None:
            return ""
        scheme, _, given = request.headers.get("authorization", "").strip().partition(" ")
        if scheme.lower() == "bearer":
            return tenant_of_key(given.strip().encode("latin-1"))
        kept = request.cookies.get(COOKIE)
        if not kept:
            return None
        try:
            key = base64.urlsafe_b64decode(kept.encode("ascii"))
        except (ValueError, binascii.Error):
            return None
        return tenant_of_key(key)

    def signed_in(request: Request) -> bool:
        return tenant_of_key is not None and COOKIE in request.cookies

    def gate(request: Request) -> str | Response:
        who = viewer(request)
        return RedirectResponse("/ui/login", 303) if who is None else who

    @app.get("/ui/static/inspector.css", include_in_schema=False)
    def css() -> Response:
        return Response(_CSS.read_text("utf-8"), media_type="text/css",
                        headers={"Cache-Control": "max-age=3600"})

    @app.get("/ui/login", include_in_schema=False)
    def login_form() -> Response:
        if tenant_of_key is None:
            return RedirectResponse("/ui", 303)
        return html(pages.login())

    @app.post("/ui/login", include_in_schema=False)
    async def login(request: Request) -> Response:
        if tenant_of_key is None:
            return RedirectResponse("/ui", 303)
        key = (await _form(request)).get("key", "").encode("utf-8", "surrogatepass")
        if not key.strip() or tenant_of_key(key) is None:
            return html(pages.login("That is not a valid token or key."), 401)
        out = RedirectResponse("/ui", 303)
        out.set_cookie(COOKIE, base64.urlsafe_b64encode(key).decode("ascii"), path="/ui",
                       httponly=True, samesite="strict",
                       secure=request.url.scheme == "https")
        return out

    @app.post("/ui/logout", include_in_schema=False)
    def logout() -> Response:
        out = RedirectResponse("/ui/login" if tenant_of_key else "/ui", 303)
        out.delete_cookie(COOKIE, path="/ui", httponly=True, samesite="strict")
        return out

    @app.get("/ui", include_in_schema=False)
    def sessions(request: Request, q: str = "", page: int = 0, erased: str | None = None
                 ) -> Response:
        who = gate(request)
        if not isinstance(who, str):
            return who
        names = tenant_sessions(store, who)
        wanted = q.strip()
        if wanted:
            users = getattr(store, "user_sessions", None)
            theirs = set(unscoped(who, users(scoped(who, wanted)))) if users else set()
            names = [n for n in names if wanted.lower() in n.lower() or n in theirs]
        per = pages.SESSIONS_PER_PAGE
        page = min(max(page, 0), max(len(names) - 1, 0) // per)
        rows = [_row(store, who, name) for name in names[page * per:(page + 1) * per]]
        return html(pages.sessions(rows, wanted, page, len(names), erased,
                                   signed_in(request)))

    @app.get("/ui/sessions/{session_id}", include_in_schema=False)
    def session(request: Request, session_id: str, tpage: int | None = None,
                turn: int | None = None, where: str | None = None,
                window: int | None = None, items: str = "live") -> Response:
        who = gate(request)
        if not isinstance(who, str):
            return who
        stored = known(who, check_session(session_id))
        per = pages.TURNS_PER_PAGE
        if turn is not None:  # the page that holds it, scrolled to it
            return RedirectResponse(f"/ui/sessions/{quote(session_id, safe='')}"
                                    f"?tpage={max(turn, 0) // per}#turn-{turn}", 303)
        owner = _user_of(store, stored)
        mem = memory(stored, sized(window), owner)
        context = mem.context()
        count = store.turn_count(stored)
        last = max(count - 1, 0) // per
        tpage = last if tpage is None else min(max(tpage, 0), last)
        found = None
        if where:
            asked = where[:MAX_WHERE]
            found = (asked, mem.where(asked))
        view = pages.SessionView(
            session_id, _mine(who, owner), count, mem.state, context,
            _sources(context, store.turns(stored, after=count - 1 - len(context)),
                     mem.config.tool_call_content),
            [mem.tokens([m]) for m in context], mem.tokens(context),
            mem.policy.context_window, mem.policy.budget, mem.render(),
            store.turns(stored, after=tpage * per - 1, through=tpage * per + per - 1),
            tpage, store.compactions(stored), _profile(store, who, owner), found,
            all_items=items == "all")
        return html(pages.session(view, signed_in(request)))

    @app.get("/ui/sessions/{session_id}/erase", include_in_schema=False)
    def confirm(request: Request, session_id: str) -> Response:
        who = gate(request)
        if not isinstance(who, str):
            return who
        stored = known(who, check_session(session_id))
        return html(pages.confirm_erase(session_id, store.turn_count(stored),
                                        signed_in(request)))

    @app.post("/ui/sessions/{session_id}/erase", include_in_schema=False)
    async def erase(request: Request, session_id: str) -> Response:
        who = gate(request)
        if not isinstance(who, str):
            return who
        eraser = getattr(store, "erase", None)
        if eraser is None:
            return html(pages.error(501, f"{type(store).__name__} cannot erase",
                                    signed_in(request)), 501)
        if (await _form(request)).get("confirm") != session_id:
            return html(pages.error(400, "The id typed does not name this session: nothing "
                                    "was erased.", signed_in(request)), 400)
        stored = known(who, check_session(session_id))
        drop({stored})
        eraser(stored)
        return RedirectResponse(f"/ui?erased={quote(session_id, safe='')}", 303)


async def _form(request: Request) -> dict[str, str]:
    """A small url-encoded form's fields (the first value of each); {} past the limit."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM:
            return {}
    fields = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
    return {k: v[0] for k, v in fields.items()}


def _sources(context: list[dict[str, Any]], tail: list[Turn], null_content: str | None
             ) -> list[int | None]:
    """The turn each message of ``context`` is, matched from the end against the newest
    turns (the raw turns close a context); None for the others (the block, a notice)."""
    found: list[int | None] = [None] * len(context)
    i = len(context) - 1
    for turn in reversed(tail):
        if i < 0 or context[i] != turn.message(null_content):
            break
        found[i] = turn.index
        i -= 1
    return found


def _user_of(store: Store, stored: str) -> str | None:
    owner = getattr(store, "user_of", None)
    found: str | None = owner(stored) if owner else None
    return found


def _mine(tenant: str, stored: str | None) -> str | None:
    """A stored user or session id as the tenant's clients gave it."""
    if stored is None:
        return None
    mine = unscoped(tenant, [stored])
    return mine[0] if mine else None


def _row(store: Store, tenant: str, name: str) -> tuple[str, str | None, int, int, Any]:
    """(session, user, turns, folds, last activity) of one of the tenant's sessions."""
    stored = scoped(tenant, name)
    count = store.turn_count(stored)
    last = store.turns(stored, after=count - 2)
    return (name, _mine(tenant, _user_of(store, stored)), count,
            store.state_version(stored), last[-1].created_at if last else None)


def _profile(store: Store, tenant: str, user: str | None) -> Profile | None:
    """The user's profile, its session ids as the tenant gave them."""
    load = getattr(store, "load_profile", None)
    data = load(user) if load is not None and user is not None else None
    if data is None:
        return None
    profile = Profile.model_validate(data)
    for item in profile.items:
        item.session_id = _mine(tenant, item.session_id) or item.session_id
    return profile
