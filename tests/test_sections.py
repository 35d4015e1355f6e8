"""A section is one spec: a state of your own adds one, and the delta, the fold, the
block, the lookups, the LLM prompt and the store follow without editing the package."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Literal

import pytest
from conftest import make_turns, sources
from pydantic import Field

from convstate import (
    ConversationMemory,
    ConversationState,
    Extraction,
    FieldTypeError,
    IndexEntry,
    RuleExtractor,
    SQLiteStore,
    StateDelta,
    Turn,
    delta_model,
    fold_report,
    render,
)
from convstate.extract.llm import instructions
from convstate.sections import Item, New, Section


class Complaint(Item):
    text: str
    status: Literal["open", "resolved"] = "open"


class NewComplaint(New):
    text: str


COMPLAINTS = Section("complaints", Complaint, NewComplaint, prefix="C", position=35,
                     rank=lambda c: 75.0, speakers=frozenset({"user"}),
                     instruction="complaints (what the user complains about, verbatim)",
                     labels={"en": "Complaints", "zh": "投诉"})


class ComplaintState(ConversationState):
    complaints: Annotated[list[Complaint], COMPLAINTS] = Field(default_factory=list)


class ComplaintRules:
    """The section's extractor rules: the rule extractor, plus complaints by cue word."""

    name = "complaint-rules"
    CUE = re.compile(r"投诉|complain", re.IGNORECASE)

    def extract(self, turns: Sequence[Turn], index: Sequence[IndexEntry],
                delta_model: type[StateDelta] = StateDelta) -> Extraction:
        out = RuleExtractor().extract(turns, index, delta_model)
        out.delta.complaints = [  # type: ignore[attr-defined]
            NewComplaint(text=t.text, turns=[t.index]) for t in turns
            if t.role == "user" and self.CUE.search(t.text)]
        return out


def test_the_delta_and_the_prompt_carry_a_section_of_your_own() -> None:
    model = delta_model(ComplaintState)
    assert "complaints" in model.model_fields
    schema = model.model_json_schema()
    assert "resolved" in str(schema["$defs"])  # an update may resolve a complaint
    assert "complaints" not in ComplaintState.custom_fields()  # a section, not a field
    assert "complaints (what the user complains about" in instructions(ComplaintState)
    assert "complaints" not in instructions(ConversationState)


def test_the_fold_assigns_ids_admits_deduplicates_and_updates_a_new_section() -> None:
    turns = make_turns(("user", "I want to complain: the parcel came broken."),
                       ("assistant", "I complain too, sorry about that."),
                       ("user", "I want to complain: the parcel came broken."))
    model = delta_model(ComplaintState)
    delta = model(complaints=[NewComplaint(text=turns[0].text, turns=[0]),
                              NewComplaint(text=turns[1].text, turns=[1]),
                              NewComplaint(text=turns[2].text, turns=[2])])
    state, stats = fold_report(ComplaintState(), delta, sources(turns))
    assert [(c.id, c.turns) for c in state.complaints] == [("C1", [0, 2])]
    assert stats.deduplicated == 1 and stats.rejected == 1  # the assistant's is refused
    assert state.find("C1") is state.complaints[0]
    assert [e.id for e in state.index()] == ["C1"]
    assert state.diff(ComplaintState()).added == {"complaints": ["C1"]}

    later = make_turns(("assistant", "A replacement is on its way."), start=3)
    resolved, stats = fold_report(state, model.model_validate(
        {"updates": [{"id": "C1", "status": "resolved", "turn": 3}]}), sources(later))
    assert resolved.complaints[0].status == "resolved" and stats.updated == 1
    assert resolved.index() == []
    refused, stats = fold_report(state, model.model_validate(
        {"updates": [{"id": "C1", "status": "done", "turn": 3}]}), sources(later))
    assert refused.complaints[0].status == "open" and stats.rejected == 1


def test_a_memory_keeps_renders_and_stores_a_new_section(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    mem = ConversationMemory("s", context_window=300, state_model=ComplaintState,
                             store=SQLiteStore(path), extractor=ComplaintRules())
    mem.add("user", "I want to complain about order SR-1234: the parcel came broken.")
    for k in range(12):
        mem.add("assistant", f"Let me check that for you, step {k} of the usual routine.")
        mem.add("user", f"Fine, still waiting on step {k}, go on with the routine.")
        mem.context()  # folds when due
    state = mem.state
    assert [c.text for c in state.complaints] == [
        "I want to complain about order SR-1234: the parcel came broken."]
    block = render(state, budget=None)
    assert "Complaints:" in block and "the parcel came broken" in block
    reopened = ConversationMemory("s", context_window=300, state_model=ComplaintState,
                                  store=SQLiteStore(path), extractor=ComplaintRules())
    assert reopened.state.complaints == state.complaints


def test_a_section_spec_must_match_its_field_and_have_a_live_status() -> None:
    class Stateless(Item):
        text: str

    with pytest.raises(TypeError, match="status"):
        Section("x", Stateless, NewComplaint, prefix="X", position=1,
                rank=lambda i: 1.0, instruction="x", labels={"en": "X"})

    with pytest.raises(TypeError, match="resolved"):  # a stale status it does not have
        Section("x", Complaint, NewComplaint, prefix="X", position=1, rank=lambda i: 1.0,
                instruction="x", stale="resolved ")

    with pytest.raises(FieldTypeError, match="grumbles"):
        class Misnamed(ConversationState):
            grumbles: Annotated[list[Complaint], COMPLAINTS] = Field(default_factory=list)


def test_field_of_reads_fields_properties_and_missing_names_like_getattr() -> None:
    from pydantic import BaseModel

    from convstate.sections import field_of

    class Ticket(BaseModel):
        value: str = "T-1"
        owner: str | None = None

        @property
        def text(self) -> str:
            return f"ticket {self.value}"

    t, plain = Ticket(owner="assistant"), ("a", "b")
    for item, name in [(t, "value"), (t, "owner"), (t, "text"), (t, "missing"),
                       (Ticket(), "owner"), (plain, "count"), (plain, "missing")]:
        assert field_of(item, name) == getattr(item, name, None)
