"""Quickstart: a support chat in a small window; exact values read back from code.

Runs offline. With OPENAI_API_KEY set (and optionally OPENAI_BASE_URL / CONVSTATE_MODEL)
it also sends the context to a chat model.
"""

import os
import tempfile
from pathlib import Path

from convstate import ConversationMemory

db = Path(tempfile.mkdtemp()) / "quickstart.db"
mem = ConversationMemory(
    "order-889",
    store=db,                      # a SQLite file: the full history is kept here
    context_window=600,            # tiny on purpose, so that folds happen
    keep_recent_turns=2,           # user turns always kept raw
    system_prompt="You are the after-sales assistant of ShopRight.",
)

chat = [
    ("user", "Hi, my order number is SR-20240315-889 and the left earbud is silent."),
    ("assistant", "Sorry about that! Would you like an exchange or a refund?"),
    ("user", "I don't want an exchange, I only want a refund."),
    ("assistant", "Okay. I will submit the refund request now."),
    ("user", "Call me at (415) 555-0132 if anything is unclear."),
    ("assistant", "Noted. Please upload a photo of the earbuds."),
    ("user", "Sorry, my number changed: use (628) 555-0199 instead."),
    ("assistant", "Updated. Anything else?"),
    ("user", "The refund must go back to my original card, no store credit."),
    ("assistant", "Understood, back to the original card."),
    ("user", "How long will it take?"),
    ("assistant", "Usually 1 to 3 business days."),
    ("user", "That is too slow, I'm really frustrated."),
]
for role, content in chat:
    mem.add(role, content)
    messages = mem.context()       # folds by itself when the window fills

mem.compact()                      # fold everything but the last 2 user turns, now
state = mem.state
print("order:", state.anchor("order_id").value)
print("phone:", state.anchor("phone").value)
for a in state.anchors:
    print(f"  {a.status:10} {a.key}: {a.value}")
print("open tasks:", [t.text for t in state.tasks(status="open", owner="assistant")])
print("sentiment:", state.sentiment.label if state.sentiment else None)

messages = mem.context()
print(f"{len(messages)} messages, {mem.tokens(messages)} tokens "
      f"(full history: {len(mem.history())} turns)")
if os.environ.get("OPENAI_API_KEY"):
    from openai import OpenAI

    reply = OpenAI().chat.completions.create(
        model=os.environ.get("CONVSTATE_MODEL", "gpt-4o-mini"), messages=messages)
    print("model:", reply.choices[0].message.content)
