"""One state, rendered into any prompt: four formats, an OpenAI system message,
Anthropic's system= string, a plain template, and LangChain messages (if installed)."""

from convstate import (
    ConversationMemory,
    InMemoryStore,
    as_system_message,
    fill_template,
    render,
    to_anthropic,
    to_langchain,
)
from convstate.cli import load_demo

demo = load_demo("zh")
mem = ConversationMemory("case-889", store=InMemoryStore(), context_window=1200,
                         system_prompt=demo["system_prompt"])
mem.add_messages(demo["messages"])
mem.compact()
state = mem.state

for fmt in ("text", "markdown", "xml", "json"):
    print(f"--- {fmt} (zh) ---")
    print(render(state, format=fmt)[:300])
print("--- text (en labels) ---")
print(render(state, lang="en").splitlines()[1])

print("--- OpenAI ---")
print(as_system_message(state)["role"], len(mem.context()), "messages in the context")

print("--- Anthropic ---")
request = to_anthropic(mem.context())
print("system starts with the original prompt:",
      request["system"].startswith(demo["system_prompt"]))
print("messages:", [m["role"] for m in request["messages"]][:6])

print("--- template ---")
print(fill_template("You are a support agent.\n\n{state}\n\nAnswer briefly.", state)[:120])

print("--- LangChain ---")
try:
    print([type(m).__name__ for m in to_langchain(mem.context())][:4])
except ImportError as e:
    print("skipped:", e)
