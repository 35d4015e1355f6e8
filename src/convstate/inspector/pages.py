"""The inspector's pages as HTML strings. Every value from a turn, the state or a request
passes through ``esc`` (or ``url``) before it is written: a turn saying ``<script>`` is
shown as text, never run. The pages need no JavaScript and no asset from elsewhere."""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any
from urllib.parse import quote, urlencode

from ..lookup import Found
from ..profile import Profile
from ..sections import field_of, text_of
from ..state import ConversationState
from ..store.base import CompactionRecord
from ..turns import Turn

TURNS_PER_PAGE = 100
SESSIONS_PER_PAGE = 50
LOG_LINES = 100  # the newest compaction log lines shown
HISTORY_SHOWN = 20  # the newest values of a key shown (all with ?items=all)


def esc(value: object) -> str:
    """``value`` as HTML text (quotes too: safe inside an attribute)."""
    return html.escape(str(value), quote=True)


def url(*parts: str, **query: object) -> str:
    """A path under /ui from ``parts`` (each quoted whole) and a query, escaped for an
    attribute."""
    path = "/ui" + "".join("/" + quote(p, safe="") for p in parts)
    kept = {k: v for k, v in query.items() if v is not None and v != ""}
    return esc(path + ("?" + urlencode(kept) if kept else ""))


def turn_link(session_id: str, turn: int) -> str:
    """A link to ``turn`` on the page of turns that holds it."""
    return (f'<a href="{url("sessions", session_id, tpage=turn // TURNS_PER_PAGE)}'
            f'#turn-{turn}">#{turn}</a>')


def page(title: str, body: str, *, signed_in: bool = False) -> str:
    """A whole page: ``title`` is text (escaped here), ``body`` HTML already escaped."""
    logout = ('<form class="inline" method="post" action="/ui/logout">'
              '<button type="submit">Sign out</button></form>') if signed_in else ""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{esc(title)} · convstate inspector</title>'
        '<link rel="stylesheet" href="/ui/static/inspector.css"></head><body>'
        '<a class="skip" href="#main">Skip to content</a>'
        '<header><strong>convstate inspector</strong><a href="/ui">Sessions</a>'
        f'{logout}</header><main id="main">{body}</main></body></html>')


def login(error: str | None = None) -> str:
    """The sign-in form: the API token or a tenant's key."""
    shown = f'<p class="error" role="alert">{esc(error)}</p>' if error else ""
    return page("Sign in", (
        f'<h1>Sign in</h1>{shown}<form method="post" action="/ui/login">'
        '<p><label for="key">API token or key</label>'
        '<input type="password" id="key" name="key" autocomplete="current-password" '
        'required autofocus></p><p><button type="submit">Sign in</button></p></form>'
        '<p class="muted">The key is kept in a cookie only this site\'s pages send '
        '(HttpOnly, SameSite=Strict) until the browser closes or you sign out.</p>'))


def error(status: int, message: str, signed_in: bool) -> str:
    return page(f"Error {status}", f'<h1>Error {status}</h1><p class="error" role="alert">'
                f'{esc(message)}</p><p><a href="/ui">Back to the sessions</a></p>',
                signed_in=signed_in)


def sessions(rows: Sequence[tuple[str, str | None, int, int, datetime | None]], q: str,
             spage: int, total: int, erased: str | None, signed_in: bool) -> str:
    """The sessions list: (id, user, turns, folds, last activity) per row."""
    note = (f'<p class="notice" role="status">Session {esc(erased)} was erased.</p>'
            if erased else "")
    found = "".join(
        f'<tr><td><a href="{url("sessions", sid)}">{esc(sid)}</a></td>'
        f'<td>{esc(user) if user else "<span class=muted>-</span>"}</td>'
        f'<td>{n}</td><td>{folds}</td><td>{_when(last)}</td></tr>'
        for sid, user, n, folds, last in rows)
    table = ('<table><caption class="muted">' f'{total} session(s)</caption>'
             '<thead><tr><th scope="col">Session</th><th scope="col">User</th>'
             '<th scope="col">Turns</th><th scope="col">Folds</th>'
             '<th scope="col">Last activity</th></tr></thead>'
             f'<tbody>{found}</tbody></table>') if rows else \
        '<p>No session matches.</p>'
    pages = -(-total // SESSIONS_PER_PAGE)
    return page("Sessions", (
        f'<h1>Sessions</h1>{note}<form method="get" action="/ui" role="search">'
        '<label for="q">Session or user id</label>'
        f'<input type="search" id="q" name="q" value="{esc(q)}"> '
        '<button type="submit">Search</button></form>'
        f'{table}{_pager(pages, spage, lambda p: url(q=q, page=p))}'), signed_in=signed_in)


class SessionView:
    """What the session page shows, gathered by the route (see ``session``)."""

    def __init__(self, session_id: str, user: str | None, count: int,
                 state: ConversationState, context: list[dict[str, Any]],
                 sources: list[int | None], tokens: list[int], total_tokens: int,
                 window: int, budget: int,
                 block: str, turns: list[Turn], tpage: int, log: list[CompactionRecord],
                 profile: Profile | None, where: tuple[str, Found] | None,
                 all_items: bool = False):
        self.session_id, self.user, self.count, self.state = session_id, user, count, state
        self.context, self.tokens, self.total_tokens = context, tokens, total_tokens
        self.sources = sources  # the turn of each context message (None: not a turn)
        self.window, self.budget, self.block = window, budget, block
        self.turns, self.tpage, self.log, self.profile = turns, tpage, log, profile
        self.where, self.all_items = where, all_items
        # the items this page lists (all, or the live ones): a link to another goes to
        # the page that lists every item
        self.shown = {i.id for spec in state.sections() for i in getattr(state, spec.name)
                      if all_items or i.status == spec.live}

    def item_link(self, item_id: str) -> str:
        """A link to a state item's row, on this page when it lists it."""
        where = "" if item_id in self.shown else url("sessions", self.session_id,
                                                       items="all")
        return f'<a href="{where}#item-{esc(item_id)}">{esc(item_id)}</a>'


def session(v: SessionView, signed_in: bool) -> str:
    """A session's page: context, state, histories, log, where, profile, turns, erase."""
    sid, st = v.session_id, v.state
    facts = (f'<p>{v.count} turns · user {esc(v.user) if v.user else "none"} · state '
             f'version {st.version} · folded through #{st.folded_through} · let go of '
             f'through #{st.evicted_through}</p>')
    toc = ('<nav aria-label="On this page"><a href="#context">Context</a> · '
           '<a href="#state">State</a> · <a href="#history">Value history</a> · '
           '<a href="#log">Compaction log</a> · <a href="#where">Where</a> · '
           '<a href="#profile">Profile</a> · <a href="#turns">Turns</a> · '
           '<a href="#erase">Erase</a></nav>')
    body = (f'<h1>Session {esc(sid)}</h1>{facts}{toc}{_where(v)}{_context(v)}'
            f'{_state(v)}{_history(v)}{_log(v)}{_profile(v)}{_turns(v)}'
            f'<h2 id="erase">Erase</h2><p><a href="{url("sessions", sid, "erase")}">Erase '
            'this session…</a> (asks for confirmation)</p>')
    return page(f"Session {sid}", body, signed_in=signed_in)


def confirm_erase(session_id: str, count: int, signed_in: bool) -> str:
    """The confirmation step of an erasure: a POST form that names the session."""
    return page(f"Erase {session_id}", (
        f'<h1>Erase session {esc(session_id)}?</h1><p class="notice">This deletes its '
        f'{count} turns, every saved state, its compaction log and what it gave its '
        'user\'s profile, for good (a privacy request). It cannot be undone.</p>'
        f'<form method="post" action="{url("sessions", session_id, "erase")}">'
        '<p><label for="confirm">Type the session id to confirm</label>'
        '<input type="text" id="confirm" name="confirm" required autocomplete="off"></p>'
        '<p><button type="submit" class="danger">Erase for good</button> '
        f'<a href="{url("sessions", session_id)}">Cancel</a></p></form>'),
        signed_in=signed_in)


def _when(at: datetime | None) -> str:
    return f'<time datetime="{esc(at.isoformat())}">{esc(f"{at:%Y-%m-%d %H:%M:%S}")}' \
           '</time>' if at else '<span class="muted">-</span>'


def _pager(pages: int, current: int, link: Any) -> str:
    if pages <= 1:
        return ""
    parts = [f'<a href="{link(0)}">First</a>' if current > 0 else "",
             f'<a href="{link(current - 1)}" rel="prev">Previous</a>' if current > 0 else "",
             f'<span>Page {current + 1} of {pages}</span>',
             f'<a href="{link(current + 1)}" rel="next">Next</a>'
             if current < pages - 1 else "",
             f'<a href="{link(pages - 1)}">Last</a>' if current < pages - 1 else ""]
    return '<nav class="pages" aria-label="Pages">' + "".join(parts) + "</nav>"


def _where(v: SessionView) -> str:
    asked, answer = v.where if v.where else ("", None)
    shown = ""
    if answer is not None:
        item = f" · item {v.item_link(answer.item)}" if answer.item else ""
        turn = f" · said at turn {turn_link(v.session_id, answer.turn)}" \
            if answer.turn is not None else ""
        value = f" as <q>{esc(answer.value)}</q>" if answer.value else ""
        shown = (f'<div class="answer" role="status"><strong>{esc(asked)}</strong>: '
                 f'<strong>{esc(answer.place)}</strong> — {_PLACES[answer.place]}'
                 f'{value}{item}{turn}</div>')
    return ('<h2 id="where">Where is it now?</h2>'
            f'<form method="get" action="{url("sessions", v.session_id)}#where">'
            '<label for="where-q">A value (order number, phone, any text)</label>'
            f'<input type="search" id="where-q" name="where" value="{esc(asked)}" '
            'required> <button type="submit">Find</button></form>' + shown)


_PLACES = {
    "raw": "in a raw turn of the context the model gets",
    "block": "in the state block of the context",
    "state": "in the state, but the block left it out for its budget",
    "pending": "in a turn not yet folded that the context left out",
    "store": "only in the stored turns: the state kept nothing of it",
    "nowhere": "never said in this session",
}


def _context(v: SessionView) -> str:
    rows = "".join(
        f'<tr><td>{i}</td><td>{esc(m.get("role", ""))}</td>'
        f'<td>{"-" if t is None else turn_link(v.session_id, t)}</td><td>{n}</td>'
        f'<td><pre>{esc(_content(m))}</pre></td></tr>'
        for i, (m, t, n) in enumerate(zip(v.context, v.sources, v.tokens, strict=True)))
    raw = sum(t is not None for t in v.sources)
    return (
        f'<h2 id="context">Context, as the model gets it</h2><p>{v.total_tokens} of '
        f'{v.budget} tokens (window {v.window}, less the reply reserve) '
        f'<meter min="0" max="{v.budget}" value="{v.total_tokens}" '
        f'aria-label="tokens used of the budget">{v.total_tokens}</meter> · '
        f'{len(v.context)} messages, {raw} of them raw turns</p>'
        '<table><thead><tr><th scope="col">#</th><th scope="col">Role</th>'
        '<th scope="col">Turn</th><th scope="col">Tokens</th>'
        '<th scope="col">Content</th></tr></thead>'
        f'<tbody>{rows}</tbody></table>'
        '<h3>The state block alone</h3>'
        f'<pre>{esc(v.block) if v.block else "(empty: nothing folded to show)"}</pre>')


def _content(message: dict[str, Any]) -> str:
    content = message.get("content")
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    if message.get("tool_calls"):
        text += "\ntool calls: " + json.dumps(message["tool_calls"], ensure_ascii=False)
    return text


def _state(v: SessionView) -> str:
    out = ['<h2 id="state">State by section</h2>']
    st = v.state
    for spec in st.sections():
        items = getattr(st, spec.name)
        if not items:
            continue
        listed = [i for i in items if i.id in v.shown]
        rows = "".join(_item_row(v, item) for item in listed)
        hidden = len(items) - len(listed)
        more = (f'<p class="muted">{hidden} more no longer {esc(spec.live)} (replaced, '
                f'done, retired…): <a href="{url("sessions", v.session_id, items="all")}'
                '#state">list every item</a></p>') if hidden else ""
        out.append(
            f'<h3>{esc(spec.name.replace("_", " "))} ({len(listed)} of {len(items)})</h3>'
            '<table><thead><tr><th scope="col">Id</th><th scope="col">What</th>'
            '<th scope="col">Said by</th><th scope="col">Status</th>'
            '<th scope="col">From turns</th></tr></thead>'
            f'<tbody>{rows}</tbody></table>{more}')
    if st.sentiment is not None:
        s = st.sentiment
        out.append(f'<h3>sentiment</h3><p>{esc(s.label)} ({s.score:+.2f}, {esc(s.trend)}) '
                   f'at turn {turn_link(v.session_id, s.turn)}</p>')
    for name in type(st).custom_fields():
        out.append(f'<h3>{esc(name)}</h3><pre>{esc(getattr(st, name))}</pre>')
    if len(out) == 1:
        out.append("<p>Nothing folded yet.</p>")
    return "".join(out)


def _item_row(v: SessionView, item: Any) -> str:
    key = field_of(item, "key")
    what = (f'<strong>{esc(key)}</strong> = ' if key else "") + \
        f'<span class="text">{esc(text_of(item))}</span>'
    subject = field_of(item, "subject")
    if subject:
        what += f' <span class="muted">(of {esc(subject)})</span>'
    owner = field_of(item, "owner")
    if owner:
        what += f' <span class="muted">(owed by {esc(owner)})</span>'
    status = esc(item.status) + (" · provisional" if v.state.is_provisional(item) else "")
    by = field_of(item, "superseded_by")
    if by:
        status += f" by {v.item_link(by)}"
    turns = " ".join(turn_link(v.session_id, t) for t in item.turns)
    if item.mentions > len(item.turns):
        turns += f' <span class="muted">({item.mentions} in all)</span>'
    return (f'<tr id="item-{esc(item.id)}"><td>{esc(item.id)}</td><td>{what}</td>'
            f'<td>{esc(item.speaker)}</td><td class="status-{esc(item.status)}">{status}</td>'
            f'<td>{turns}</td></tr>')


def _history(v: SessionView) -> str:
    # the anchors' keys, and the fields of a state of your own (their values and conflicts)
    keys = list(dict.fromkeys(sorted({a.key for a in v.state.anchors}) + [
        f for f in type(v.state).custom_fields() if v.state.history(f)]))
    out = ['<h2 id="history">Value history</h2><p class="muted">Every value each key took, '
           'oldest first: what replaced what, and who said it.</p>']
    for key in keys:
        values = v.state.history(key)
        shown = values if v.all_items else values[-HISTORY_SHOWN:]
        rows = "".join(
            f'<tr><td><span class="text">{esc(e.value)}</span></td>'
            f'<td>{turn_link(v.session_id, e.turn)}</td><td>{esc(e.speaker or "-")}</td>'
            f'<td class="status-{esc(e.status)}">{esc(e.status)}</td></tr>'
            for e in shown)
        more = (f'<p class="muted">The newest {len(shown)} of {len(values)}: <a href="'
                f'{url("sessions", v.session_id, items="all")}#history">every value</a></p>'
                ) if len(shown) < len(values) else ""
        out.append(f'<h3>{esc(key)}</h3>{more}<table><thead><tr><th scope="col">Value</th>'
                   '<th scope="col">Turn</th><th scope="col">Said by</th>'
                   f'<th scope="col">Status</th></tr></thead><tbody>{rows}</tbody></table>')
    if not keys:
        out.append("<p>No exact values kept yet.</p>")
    return "".join(out)


def _log(v: SessionView) -> str:
    shown = v.log[-LOG_LINES:][::-1]
    rows = "".join(
        f'<tr><td>{_span(v.session_id, r)}</td><td>{r.version or "-"}</td>'
        f'<td>{esc(r.extractor)}</td><td>+{r.added}</td><td>{r.deduplicated}</td>'
        f'<td>{r.superseded}</td><td>{r.updated}</td><td>{r.rejected}</td>'
        f'<td>{r.tokens_before} → {r.tokens_after}</td>'
        f'<td><span class="text">{_reasons(r)}</span></td></tr>'
        for r in shown)
    more = (f'<p class="muted">The newest {LOG_LINES} of {len(v.log)} lines.</p>'
            if len(v.log) > LOG_LINES else "")
    if not v.log:
        return '<h2 id="log">Compaction log</h2><p>No fold yet.</p>'
    return ('<h2 id="log">Compaction log</h2><p class="muted">What each fold added, merged, '
            'replaced, updated and rejected (with the reasons the fold gave), newest '
            f'first.</p>{more}<table><thead><tr><th scope="col">Turns</th>'
            '<th scope="col">Version</th><th scope="col">Extractor</th>'
            '<th scope="col">Added</th><th scope="col">Merged</th>'
            '<th scope="col">Replaced</th><th scope="col">Updated</th>'
            '<th scope="col">Rejected</th><th scope="col">Context tokens</th>'
            f'<th scope="col">Notes</th></tr></thead><tbody>{rows}</tbody></table>')


def _span(session_id: str, r: CompactionRecord) -> str:
    if r.first_turn is None or r.last_turn is None:
        return "-"
    return f"{turn_link(session_id, r.first_turn)}–{turn_link(session_id, r.last_turn)}"


def _reasons(r: CompactionRecord) -> str:
    said = [("error", r.error), ("fallback", r.fallback), ("notes", r.notes)]
    return "<br>".join(f"<strong>{name}</strong>: {esc(text)}" for name, text in said if text)


def _profile(v: SessionView) -> str:
    head = '<h2 id="profile">The user\'s profile</h2>'
    if v.user is None:
        return head + "<p>This session belongs to no user.</p>"
    if v.profile is None:
        return head + f"<p>User {esc(v.user)} has no profile yet.</p>"
    rows = "".join(
        f'<tr><td>{esc(i.id)}</td><td>{esc(i.kind)}</td>'
        f'<td><span class="text">{esc(i.value)}</span></td>'
        f'<td class="status-{esc(i.status)}">{esc(i.status)}</td><td>{i.confirmations}</td>'
        f'<td>{_said_in(v.session_id, i.session_id, i.turn)}</td></tr>'
        for i in v.profile.items)
    return (head + f'<p>User {esc(v.user)}, profile version {v.profile.version}.</p>'
            '<table><thead><tr><th scope="col">Id</th><th scope="col">Kind</th>'
            '<th scope="col">Value</th><th scope="col">Status</th>'
            '<th scope="col">Confirmed</th><th scope="col">Said in</th></tr></thead>'
            f'<tbody>{rows}</tbody></table>')


def _said_in(here: str, session_id: str, turn: int) -> str:
    if session_id == here:
        return "this session, turn " + turn_link(here, turn)
    return f'<a href="{url("sessions", session_id)}">{esc(session_id)}</a> turn #{turn}'


def _turns(v: SessionView) -> str:
    pages = -(-v.count // TURNS_PER_PAGE)
    sid = v.session_id
    pager = _pager(pages, v.tpage, lambda p: url("sessions", sid, tpage=p) + "#turns")
    jump = (f'<form method="get" action="{url("sessions", sid)}">'
            '<label for="turn">Go to turn</label>'
            f'<input type="number" id="turn" name="turn" min="0" max="{max(v.count - 1, 0)}">'
            ' <button type="submit">Go</button></form>')
    folded = v.state.folded_through
    rows = "".join(
        f'<tr class="turn" id="turn-{t.index}"><td><a href="#turn-{t.index}">{t.index}</a>'
        f'</td><td>{esc(t.role)}{_name(t)}</td><td>{"yes" if t.index <= folded else ""}</td>'
        f'<td>{_when(t.created_at)}</td><td><pre>{esc(t.text)}</pre></td></tr>'
        for t in v.turns)
    return (f'<h2 id="turns">Turns</h2>{jump}{pager}'
            '<table><thead><tr><th scope="col">#</th><th scope="col">Role</th>'
            '<th scope="col">Folded</th><th scope="col">At</th>'
            f'<th scope="col">Text</th></tr></thead><tbody>{rows}</tbody></table>{pager}')


def _name(t: Turn) -> str:
    extra = [f"name {t.name}"] if t.name else []
    extra += [f"answers {t.tool_call_id}"] if t.tool_call_id else []
    return f' <span class="muted">({esc(", ".join(extra))})</span>' if extra else ""
