"""Query the state from code: anchors, tasks, the history of a value, what a fold changed,
and any saved version, reloaded from the SQLite file."""

import tempfile
from pathlib import Path

from convstate import ConversationMemory
from convstate.cli import load_demo

db = Path(tempfile.mkdtemp()) / "query.db"
demo = load_demo("en")
with ConversationMemory("case-889", store=db, context_window=1000,
                        system_prompt=demo["system_prompt"]) as mem:
    for message in demo["messages"]:
        mem.add_message(message)
        mem.context()

# A new process, the same file: everything is back.
mem = ConversationMemory("case-889", store=db, context_window=1000)
state = mem.state
print("version:", state.version, "folded through turn", state.folded_through)
print("order:", state.anchor("order_id").value)
print("phone now:", state.anchor("phone").value)
print("phone history:", [(h.value, h.turn, h.status) for h in state.history("phone")])
print("negative constraints:",
      [a.value for a in state.active_anchors() if a.kind == "negative_constraint"])
print("open on the assistant:", [t.text for t in state.tasks(status="open", owner="assistant")])
print("done:", [t.text for t in state.tasks(status="done")])

# What did the last fold change?
previous = mem.state_at(state.version - 1)
change = state.diff(previous)
print("last fold added:", change.added, "changed:", change.changed)
print("sentiment:", state.sentiment.label if state.sentiment else None,
      state.sentiment.trend if state.sentiment else "")
print("json bytes:", len(state.model_dump_json()))
