"""Speakers and kinds: who said a value, what kind of value a cue or a question makes it,
and product and plan names (zh + en), extracted in one batch or turn by turn."""

from __future__ import annotations

from conftest import make_turns, sources

from convstate import ConversationState, RuleExtractor, fold
from convstate.profile import candidates


def folded(rows: list[tuple[str, str]], batch: int) -> ConversationState:
    """The rows folded ``batch`` turns at a time, each batch extracted against the
    index of the state before it (as a live state extracts turn by turn)."""
    turns, state = make_turns(*rows), ConversationState()
    for k in range(0, len(turns), batch):
        part = turns[k:k + batch]
        delta = RuleExtractor().extract(part, state.index()).delta
        state = fold(state, delta, sources(part))
    return state


def values(state: ConversationState, *keys: str) -> list[tuple[str, str, str]]:
    """(key, value, speaker) of the anchors of ``keys``, in order of first turn."""
    return [(a.key, a.value, a.speaker) for a in sorted(state.anchors, key=lambda a: a.first_turn)
            if a.key in keys]


def test_history_says_who_said_each_value_and_the_assistants_never_become_the_users() -> None:
    state = folded([
        ("user", "My number is 138-0013-8000."),
        ("assistant", "You can also call our hotline 400-820-8820, or email help@shop.com."),
        ("tool", '{"phone": "139-1111-2222", "account": "ACC88213"}'),
        ("user", "新号码是139-8765-4321"),
        ("assistant", "好的，已记录139-8765-4321。您的会员账号是 VIP20931。"),
    ], 100)
    phones = state.history("phone")
    assert [(h.value, h.speaker, h.status) for h in phones] == [
        ("138-0013-8000", "user", "superseded"), ("400-820-8820", "assistant", "active"),
        ("139-1111-2222", "tool", "active"), ("139-8765-4321", "user", "active")]
    assert [h.value for h in state.history("phone", speaker="user")] == [
        "138-0013-8000", "139-8765-4321"]
    assert state.anchor("phone").value == "139-8765-4321"  # the user's, the latest
    assert state.anchor("email", speaker="user") is None
    assert state.anchor("email").value == "help@shop.com"
    offered = {(kind, value) for kind, value, _ in candidates(state)}
    assert ("phone", "139-8765-4321") in offered
    assert not offered & {("phone", "400-820-8820"), ("phone", "139-1111-2222"),
                          ("email", "help@shop.com"), ("account", "ACC88213"),
                          ("account", "VIP20931")}
