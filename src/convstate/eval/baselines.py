"""The ways of building a context that `convstate eval` compares, at one budget and
tokenizer: convstate itself, truncation, a sliding window, and a rolling prose summary
(re-summarized with each batch of expiring turns, the same batches as convstate; its
summarizer is an LLM when one is given, else a deterministic extractive one)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..memory import ConversationMemory
from ..tokens import TokenCounter
from ..window import Slot, WindowPolicy, plan_expiry

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionUserMessageParam

SYSTEM_PROMPT = "You are a helpful assistant."


def _fit(head: list[dict[str, Any]], turns: list[dict[str, Any]], budget: int,
         counter: TokenCounter) -> list[dict[str, Any]]:
    """``head`` + the newest ``turns`` that fit in ``budget`` tokens."""
    used = counter.messages(head)
    kept: list[dict[str, Any]] = []
    for m in reversed(turns):
        cost = counter.message(m)
        if used + cost > budget:
            break
        kept.insert(0, m)
        used += cost
    return head + kept


class Method:
    """A way to build a context from a growing conversation."""

    name = ""

    def add(self, message: dict[str, Any]) -> None:
        raise NotImplementedError

    def context(self) -> list[dict[str, Any]]:
        raise NotImplementedError


class Truncation(Method):
    name = "truncation"

    def __init__(self, budget: int, counter: TokenCounter):
        self.budget, self.counter = budget, counter
        self.turns: list[dict[str, Any]] = []

    def add(self, message: dict[str, Any]) -> None:
        self.turns.append(message)

    def context(self) -> list[dict[str, Any]]:
        return _fit([{"role": "system", "content": SYSTEM_PROMPT}], self.turns, self.budget,
                    self.counter)


class SlidingWindow(Truncation):
    name = "sliding_window"

    def __init__(self, budget: int, counter: TokenCounter, k: int):
        super().__init__(budget, counter)
        self.k = k

    def context(self) -> list[dict[str, Any]]:
        return _fit([{"role": "system", "content": SYSTEM_PROMPT}], self.turns[-self.k:],
                    self.budget, self.counter)


Summarizer = Callable[[str, list[dict[str, Any]], int], str]


def extractive_summarizer(counter: TokenCounter) -> Summarizer:
    """Deterministic: the previous summary + each turn's first clause, cut to the budget
    from the front (what is oldest is lost first, as in a summary of a summary)."""
    def summarize(previous: str, turns: list[dict[str, Any]], budget: int) -> str:
        lines = [previous] if previous else []
        for m in turns:
            first = (m.get("content") or "").replace("\n", " ").split("。")[0].split(". ")[0][:120]
            lines.append(f"{m['role']}: {first}")
        text = "\n".join(lines)
        while counter.count(text) > budget and "\n" in text:
            text = text.split("\n", 1)[1]
        return counter.truncate(text, budget)
    return summarize


def summary_request(previous: str, turns: list[dict[str, Any]]
                    ) -> list[ChatCompletionUserMessageParam]:
    """What a rolling summary sends a model: its previous summary and the new turns."""
    convo = "\n".join(f"{m['role']}: {m.get('content') or ''}" for m in turns)
    return [{"role": "user", "content": (
        "Update the summary of this conversation with the new turns. Keep every exact "
        f"value.\nSummary so far:\n{previous or '(none)'}\nNew turns:\n{convo}")}]


def llm_summarizer(base_url: str, model: str) -> Summarizer:
    """An OpenAI-compatible model re-summarizing its previous summary with new turns."""
    from openai import OpenAI

    client = OpenAI(base_url=base_url, api_key="not-needed", timeout=120, max_retries=1)

    def summarize(previous: str, turns: list[dict[str, Any]], budget: int) -> str:
        reply = client.chat.completions.create(model=model, temperature=0, max_tokens=budget,
                                               messages=summary_request(previous, turns))
        return reply.choices[0].message.content or ""
    return summarize


class RollingSummary(Method):
    name = "rolling_summary"

    def __init__(self, policy: WindowPolicy, counter: TokenCounter, summarizer: Summarizer,
                 summary_budget: int):
        self.policy, self.counter, self.summarize = policy, counter, summarizer
        self.summary_budget = summary_budget
        self.summary = ""
        self.raw: list[tuple[int, dict[str, Any], int]] = []  # (index, message, tokens)
        self.next_index = 0
        self.prompt_tokens = 0

    def add(self, message: dict[str, Any]) -> None:
        self.raw.append((self.next_index, message, self.counter.message(message)))
        self.next_index += 1

    def _head(self) -> list[dict[str, Any]]:
        head = [{"role": "system", "content": SYSTEM_PROMPT}]
        if self.summary:
            head.append({"role": "system", "content": "Summary of the earlier conversation:\n"
                         + self.summary})
        return head

    def context(self) -> list[dict[str, Any]]:
        # the same trigger as convstate's: on the raw turns (with the system prompt)
        fixed = self.counter.messages(self._head()[:1])
        slots = [Slot(i, m["role"], n) for i, m, n in self.raw]
        through = plan_expiry(fixed, slots, self.policy)
        if through is not None:
            batch = [m for i, m, _ in self.raw if i <= through]
            self.prompt_tokens += self.counter.count(self.summary) + sum(
                n for i, _, n in self.raw if i <= through)
            self.summary = self.summarize(self.summary, batch, self.summary_budget)
            self.raw = [r for r in self.raw if r[0] > through]
        return _fit(self._head(), [m for _, m, _ in self.raw], self.policy.budget,
                    self.counter)


class Convstate(Method):
    name = "convstate"

    def __init__(self, memory: ConversationMemory):
        self.mem = memory

    def add(self, message: dict[str, Any]) -> None:
        self.mem.add_message(message)

    def context(self) -> list[dict[str, Any]]:
        return self.mem.context()
