"""Adapters to agent frameworks, each an optional extra imported only when asked for:
``convstate.integrations.langchain`` (a middleware for ``create_agent``, a chat message
history) and ``convstate.integrations.llamaindex`` (a memory block)."""
