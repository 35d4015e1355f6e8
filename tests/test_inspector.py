"""The inspector (`/ui` of `convstate serve`) over real HTTP, no browser: who may look
(the token or a tenant's key, as a bearer or the sign-in cookie), what a tenant sees,
forms refused from other origins, text from turns escaped, turns paged, where() and
erasure (on a SQLite file and on PostgreSQL)."""

from __future__ import annotations

import http.client
import json
import re
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from test_service import TOKEN, Client, served, wait_ready_health  # noqa: E402

from convstate.extract.local import free_port  # noqa: E402

HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)> & "quoted"'


class Browserless:
    """HTTP to /ui as a browser would send it: no redirects followed, a cookie kept,
    forms url-encoded with this page's Origin."""

    def __init__(self, base: str):
        parts = urlsplit(base)
        self.host, self.port = parts.hostname or "", parts.port or 80
        self.origin = f"http://{self.host}:{self.port}"
        self.cookie: str | None = None

    def call(self, method: str, path: str, form: dict[str, str] | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
        sent = {"Origin": self.origin} if method == "POST" else {}
        if form is not None:
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        if self.cookie:
            sent["Cookie"] = self.cookie
        sent.update(headers or {})
        sent = {k: v for k, v in sent.items() if v}  # a header given as "" is not sent
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        try:
            conn.request(method, path, body=urlencode(form) if form is not None else None,
                         headers=sent)
            r = conn.getresponse()
            head = {k.lower(): v for k, v in r.getheaders()}
            return r.status, head, r.read().decode("utf-8")
        finally:
            conn.close()

    def sign_in(self, key: str) -> tuple[int, dict[str, str], str]:
        out = self.call("POST", "/ui/login", {"key": key})
        if "set-cookie" in out[1]:
            self.cookie = out[1]["set-cookie"].split(";")[0]
        return out


def _chat(client: Client, session: str, texts: list[str], user: str | None = None) -> None:
    query = f"?user_id={user}" if user else ""
    for text in texts:
        status, _ = client.call("POST", f"/sessions/{session}/messages{query}", [
            {"role": "user", "content": text}, {"role": "assistant", "content": "Noted."}])
        assert status == 200


def test_the_pages_need_the_token_and_the_cookie_is_strict(tmp_path: Path) -> None:
    with served(tmp_path, "--foreground") as (api, _):
        _chat(api, "s1", ["My order SR-20240315-889 arrived broken."])
        ui = Browserless(api.base)
        status, head, _ = ui.call("GET", "/ui")
        assert status == 303 and head["location"] == "/ui/login"
        assert ui.call("GET", "/ui/sessions/s1")[0] == 303
        status, _, page = ui.sign_in("not-the-token")
        assert status == 401 and "not a valid" in page and ui.cookie is None
        status, head, _ = ui.sign_in(TOKEN)
        assert status == 303 and head["location"] == "/ui"
        cookie = head["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie and "path=/ui" in cookie
        status, head, page = ui.call("GET", "/ui")
        assert status == 200 and 'href="/ui/sessions/s1"' in page
        assert "script-src" not in head["content-security-policy"]  # no script at all
        # a forged cookie is no key; a bearer header is the API's way, and works here too
        assert Browserless(api.base).call("GET", "/ui", headers={
            "Cookie": "convstate_key=Zm9yZ2Vk"})[0] == 303
        assert Browserless(api.base).call("GET", "/ui", headers={
            "Authorization": f"Bearer {TOKEN}"})[0] == 200
        # signing out clears the cookie
        status, head, _ = ui.call("POST", "/ui/logout", {})
        assert status == 303 and 'convstate_key=""' in head["set-cookie"]


def test_forms_from_another_origin_are_refused_and_erasure_is_confirmed(
        store_target: str, tmp_path: Path) -> None:
    session = f"erase-{uuid.uuid4().hex[:8]}"  # (the PostgreSQL database outlives tests)
    with served(tmp_path, "--foreground", store=store_target) as (api, _):
        _chat(api, session, ["My phone is 13812345678.", "Order SR-20240315-889."])
        ui = Browserless(api.base)
        # signing in from another site's page (login CSRF) is refused before the key is read
        status, _, page = ui.call("POST", "/ui/login", {"key": TOKEN},
                                  headers={"Origin": "http://evil.example"})
        assert status == 403 and "own pages" in page
        assert ui.sign_in(TOKEN)[0] == 303
        path = f"/ui/sessions/{session}/erase"
        status, _, page = ui.call("GET", path)
        assert status == 200 and 'name="confirm"' in page and 'method="post"' in page
        for origin in ("http://evil.example", f"http://127.0.0.1:{ui.port + 1}", ""):
            assert ui.call("POST", path, {"confirm": session},
                           headers={"Origin": origin})[0] == 403, origin
        assert ui.call("POST", path, {"confirm": "another"})[0] == 400
        assert api.call("GET", f"/sessions/{session}/state")[0] == 200  # nothing erased yet
        # a same-site Referer (a browser that sends no Origin) is the page's own
        status, head, _ = ui.call("POST", path, {"confirm": session}, headers={
            "Origin": "", "Referer": f"{ui.origin}{path}"})
        assert status == 303 and head["location"] == f"/ui?erased={session}"
        assert api.call("GET", f"/sessions/{session}/state")[0] == 404
        status, _, page = ui.call("GET", head["location"])
        assert status == 200 and f"Session {session} was erased" in page
        assert ui.call("GET", f"/ui/sessions/{session}")[0] == 404


def test_a_tenant_sees_only_its_sessions_and_users(store_target: str, tmp_path: Path) -> None:
    run = uuid.uuid4().hex[:8]
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps({"key-a-ключ": f"acme-{run}", "key-b": f"globex-{run}"}),
                    "utf-8")
    with served(tmp_path, "--keys", str(keys), "--foreground", token=None,
                store=store_target) as (api, _):
        a, b = Client(api.base, "key-a-ключ"), Client(api.base, "key-b")
        _chat(a, "s1", ["My phone is 13911112222."], user="u1")
        _chat(b, "s1", ["My phone is 13833334444."], user="u1")
        _chat(b, "only-b", ["Order BX-7741-2290."])
        ui = Browserless(api.base)
        assert ui.sign_in(TOKEN)[0] == 401  # no token: keys only
        assert ui.sign_in("key-a")[0] == 401  # a key is the whole key
        assert ui.sign_in("key-a-ключ")[0] == 303  # any UTF-8 text, as on the API
        status, _, page = ui.call("GET", "/ui")
        assert status == 200 and "/ui/sessions/s1" in page and "only-b" not in page
        assert "acme-" not in page  # ids as the tenant's clients gave them
        status, _, page = ui.call("GET", "/ui/sessions/s1")
        assert status == 200 and "13911112222" in page and "13833334444" not in page
        assert "acme-" not in page and "user u1" in page  # the profile's ids too
        assert ui.call("GET", "/ui/sessions/only-b")[0] == 404
        assert ui.call("GET", "/ui?q=only")[2].count("/ui/sessions/") == 0
        status, _, page = ui.call("GET", "/ui?q=u1")  # by user id
        assert status == 200 and "/ui/sessions/s1" in page
        # the other tenant's erase form cannot reach a's session
        assert ui.call("POST", "/ui/sessions/only-b/erase", {"confirm": "only-b"})[0] == 404
        assert b.call("GET", "/sessions/only-b/state")[0] == 200


def test_text_from_turns_is_shown_as_text(tmp_path: Path) -> None:
    with served(tmp_path, "--foreground", "--window", "400") as (api, _):
        _chat(api, "s1", [f"Order SR-20240315-889. {HOSTILE}"] * 3 +
              [f"More small talk number {i}, nothing else." for i in range(12)])
        ui = Browserless(api.base)
        ui.sign_in(TOKEN)
        for path in ("/ui/sessions/s1", "/ui/sessions/s1?tpage=0",
                     "/ui/sessions/s1?" + urlencode({"where": HOSTILE})):
            status, _, page = ui.call("GET", path)
            assert status == 200
            assert "<script>" not in page and "<img" not in page, path
            assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page, path
        status, _, page = ui.call("GET", "/ui?" + urlencode({"q": HOSTILE}))
        assert status == 200 and "<script>" not in page and "&lt;script&gt;" in page


def test_turns_are_paged_and_provenance_links_to_its_turn(tmp_path: Path) -> None:
    with served(tmp_path, "--foreground", "--window", "600") as (api, _):
        texts = [f"Small talk {i}, about the weather." for i in range(130)]
        texts[3] = "My order SR-20240315-889 arrived broken."
        _chat(api, "long", texts, user="u-long")  # 260 turns: 3 pages of 100
        ui = Browserless(api.base)
        ui.sign_in(TOKEN)
        status, _, page = ui.call("GET", "/ui/sessions/long")  # the newest page first
        assert status == 200 and 'id="turn-259"' in page and 'id="turn-199"' not in page
        # the context: the block (no turn of its own), then raw turns, each linked
        context = page[page.index('id="context"'):page.index('id="state"')]
        assert "<tr><td>0</td><td>system</td><td>-</td>" in context
        assert '<td><a href="/ui/sessions/long?tpage=2#turn-259">#259</a></td>' in context
        assert "#turn-6" not in context  # long folded: not a raw turn of this context
        assert "Page 3 of 3" in page and 'id="turn-6"' not in page
        status, _, page = ui.call("GET", "/ui/sessions/long?tpage=0")
        assert 'id="turn-0"' in page and 'id="turn-99"' in page and 'id="turn-100"' not in page
        # the order number's item cites turn 6, linked to the page that holds it
        row = re.search(r'<tr id="item-(A\d+)"><td>\1</td><td><strong>order_id</strong>.*?</tr>',
                        page)
        assert row and 'href="/ui/sessions/long?tpage=0#turn-6"' in row.group(0)
        # the user's profile took the order number, and says where it was said
        profile = page[page.index('id="profile"'):page.index('id="turns"')]
        assert "User u-long, profile version" in profile and "SR-20240315-889" in profile
        assert 'this session, turn <a href="/ui/sessions/long?tpage=0#turn-6">' in profile
        status, head, _ = ui.call("GET", "/ui/sessions/long?turn=150")
        assert status == 303 and head["location"] == "/ui/sessions/long?tpage=1#turn-150"
        # where() answers with the item and the turn
        status, _, page = ui.call("GET", "/ui/sessions/long?where=SR20240315889")
        answer = re.search(r'<div class="answer".*?</div>', page)
        assert answer and f'href="#item-{row.group(1)}"' in answer.group(0)
        assert "#turn-6" in answer.group(0) and "SR-20240315-889" in answer.group(0)


def test_without_a_token_loopback_needs_no_sign_in(tmp_path: Path) -> None:
    with served(tmp_path, "--foreground", token=None) as (api, _):
        for n in range(53):
            _chat(api, f"s{n:02d}", ["hello there"])
        ui = Browserless(api.base)
        status, head, page = ui.call("GET", "/ui")
        assert status == 200 and "/ui/sessions/s00" in page and "Sign out" not in page
        assert page.count('href="/ui/sessions/') == 50 and "Page 1 of 2" in page
        page = ui.call("GET", "/ui?page=1")[2]  # the sessions list is paged too
        assert page.count('href="/ui/sessions/') == 3 and "/ui/sessions/s52" in page
        assert ui.call("GET", "/ui/login")[1]["location"] == "/ui"
        # a page elsewhere cannot post a form here, token or not
        assert ui.call("POST", "/ui/sessions/s01/erase", {"confirm": "s01"},
                       headers={"Origin": "http://evil.example"})[0] == 403
        assert ui.call("GET", "/ui/static/inspector.css")[0] == 200


def test_items_no_longer_live_are_listed_on_asking(tmp_path: Path) -> None:
    with served(tmp_path, "--foreground", "--window", "400") as (api, _):
        _chat(api, "s1", ["My phone is 13812345678."] +
              [f"Small talk {i}, about the weather today." for i in range(10)] +
              ["My phone changed, it is now 13987654321."] +
              [f"More small talk {i}, nothing else." for i in range(10)])
        ui = Browserless(api.base)
        ui.sign_in(TOKEN)
        _, _, page = ui.call("GET", "/ui/sessions/s1")
        old = re.search(r'<tr id="item-(A\d+)">(?:(?!</tr>).)*13812345678', page)
        assert old is None  # replaced: not listed among the live items...
        assert 'href="/ui/sessions/s1?items=all#state">list every item' in page
        history = page[page.index('id="history"'):page.index('id="log"')]
        assert history.index("13812345678") < history.index("13987654321")  # ...its history is
        _, _, page = ui.call("GET", "/ui/sessions/s1?items=all")
        old = re.search(r'<tr id="item-(A\d+)">(?:(?!</tr>).)*?13812345678.*?</tr>', page)
        assert old and "superseded by" in old.group(0)
        new = re.search(r'<tr id="item-(A\d+)">(?:(?!</tr>).)*?13987654321', page)
        assert new and f'href="#item-{new.group(1)}"' in old.group(0)


# a service whose state has a field of its own (the command cannot name one: create_app)
OWN_STATE = """
import sys
from typing import Annotated, Literal
import uvicorn
from convstate import ConversationState, Cue, SQLiteStore
from convstate.service import create_app

class Case(ConversationState):
    method: Annotated[Literal["refund", "exchange"] | None,
                      Cue({"refund": "refund", "exchange": "exchange"})] = None

app = create_app(SQLiteStore(sys.argv[1]), token=sys.argv[2], background=False, window=400,
                 state_model=Case)
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[3]), log_level="warning")
"""


def test_a_field_of_your_own_shows_its_history(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-c", OWN_STATE, str(tmp_path / "own.db"),
                             TOKEN, str(port)], stderr=subprocess.PIPE)
    try:
        base = f"http://127.0.0.1:{port}/v1"
        wait_ready_health(base, proc)
        api = Client(base)
        _chat(api, "own", ["I want an exchange please."] +
              [f"Weather talk {i}." for i in range(8)] +
              ["Actually no exchange, I want a refund."] + [f"Talk {i}." for i in range(8)])
        _, _, page = Browserless(base).call("GET", "/ui/sessions/own", headers={
            "Authorization": f"Bearer {TOKEN}"})
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    history = page[page.index('id="history"'):page.index('id="log"')]
    assert "<h3>method</h3>" in history
    assert history.index("exchange") < history.index("refund")
