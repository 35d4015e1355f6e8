"""Run by test_concurrency.py: one writer process. argv: DB, WORKER, TURNS.

Appends TURNS turns to the shared session and to its own, calling context() after each
(so folds happen), and prints how many turns it wrote."""

from __future__ import annotations

import sys

from convstate import ConversationMemory, SQLiteStore


def main(db: str, worker: int, turns: int) -> None:
    store = SQLiteStore(db, busy_timeout=5)  # short, so our own retries are exercised
    shared = ConversationMemory("shared", store=store, context_window=600)
    own = ConversationMemory(f"own-{worker}", store=store, context_window=600)
    for i in range(turns):
        role = "user" if i % 2 == 0 else "assistant"
        for mem in (shared, own):
            mem.add(role, f"w{worker}-{i} 订单号 DD{worker}{i:06d}，请尽快处理")
            mem.context()
    print(turns)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
