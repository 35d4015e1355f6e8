"""The inspector in a real browser: Debian's Chromium driven by Playwright (no browser
download: ``executable_path`` is the system's ``chromium``). It signs in with the form,
searches, opens a session, follows an item's provenance to its turn, asks where a value
is with the keyboard, and erases the session through the confirmation step. Skipped when
Chromium or Playwright is missing, except in CI (``CI`` set), where that fails."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from test_service import TOKEN, Client, served  # noqa: E402

CHROMIUM = shutil.which("chromium")
SHOTS = os.environ.get("CONVSTATE_SCREENSHOTS")


def _shot(page: Any, name: str) -> None:
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"))


def _missing(what: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"CI must install {what} (.ci/run does)")
    pytest.skip(f"needs {what}")


@pytest.fixture
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright (pip install 'convstate[ui]')")
    if CHROMIUM is None:
        _missing("chromium (apt-get install chromium)")
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()


def test_a_support_agent_finds_why_and_erases(browser: Any, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    with served(tmp_path, "--foreground", "--window", "600") as (api, _):
        texts = [f"Small talk {i}, about the weather today." for i in range(130)]
        texts[3] = "My order SR-20240315-889 arrived broken."
        for session, user in (("case-7", "alice"), ("case-8", "bob")):
            for text in texts if session == "case-7" else texts[:3]:
                assert api.call("POST", f"/sessions/{session}/messages?user_id={user}", [
                    {"role": "user", "content": text},
                    {"role": "assistant", "content": "Noted."}])[0] == 200
        root = api.base.removesuffix("/v1")
        page = browser.new_page(viewport={"width": 1200, "height": 760})
        page.goto(root + "/ui")
        expect(page).to_have_url(root + "/ui/login")
        page.get_by_label("API token or key").fill(TOKEN)
        page.keyboard.press("Enter")
        expect(page.get_by_role("heading", name="Sessions")).to_be_visible()
        page.keyboard.press("Tab")  # the keyboard meets the skip link first
        expect(page.get_by_role("link", name="Skip to content")).to_be_focused()
        # search by user id
        page.get_by_label("Session or user id").fill("alice")
        page.get_by_role("button", name="Search").click()
        expect(page.get_by_role("link", name="case-7")).to_be_visible()
        expect(page.get_by_role("link", name="case-8")).to_have_count(0)
        _shot(page, "inspector_sessions")
        page.get_by_role("link", name="case-7").click()
        expect(page.get_by_role("heading", name="Session case-7")).to_be_visible()
        # follow the order number's provenance to its turn, on the first page of turns
        row = page.locator("tr", has=page.locator("text=SR-20240315-889")).filter(
            has=page.locator("strong", has_text="order_id")).first
        row.get_by_role("link", name="#6").click()
        assert page.url.endswith("/ui/sessions/case-7?tpage=0#turn-6")
        turn = page.locator("#turn-6")
        expect(turn).to_be_in_viewport()
        expect(turn).to_contain_text("My order SR-20240315-889 arrived broken.")
        # where is it now? typed as an agent would, answered with the item and the turn
        where = page.get_by_label("A value (order number, phone, any text)")
        where.focus()
        page.keyboard.type("sr20240315889")
        page.keyboard.press("Enter")
        answer = page.get_by_role("status")
        expect(answer).to_contain_text("SR-20240315-889")
        expect(answer.get_by_role("link", name="#6")).to_be_visible()
        item = answer.get_by_role("link").first.inner_text()
        expect(page.locator(f"#item-{item}")).to_contain_text("SR-20240315-889")
        _shot(page, "inspector_where")
        page.get_by_role("navigation", name="On this page").get_by_role(
            "link", name="State", exact=True).click()
        expect(page.locator("#state")).to_be_in_viewport()
        _shot(page, "inspector_state")
        # erase, through the confirmation step
        page.get_by_role("link", name="Erase this session…").click()
        page.get_by_label("Type the session id to confirm").fill("case-7")
        page.get_by_role("button", name="Erase for good").click()
        expect(page.get_by_role("status")).to_contain_text("Session case-7 was erased.")
        expect(page.get_by_role("link", name="case-7")).to_have_count(0)
        expect(page.get_by_role("link", name="case-8")).to_be_visible()
        assert Client(api.base).call("GET", "/sessions/case-7/state")[0] == 404
        page.close()
