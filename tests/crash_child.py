"""Run in a child process by test_crash.py: fold a stored conversation and die with
SIGKILL at the named point. argv: DB, POINT."""

from __future__ import annotations

import os
import signal
import sys

from convstate import ConversationMemory, RuleExtractor, SQLiteStore


def die(*_: object) -> None:
    os.kill(os.getpid(), signal.SIGKILL)


class DyingExtractor(RuleExtractor):
    def extract(self, turns, index, delta_model=None):  # type: ignore[override]
        out = super().extract(turns, index)
        die()
        return out


def main(db: str, point: str) -> None:
    store = SQLiteStore(db)
    statements = {"in_write": "INSERT INTO compactions", "at_commit": "COMMIT"}
    armed = [False]

    def trace(sql: str) -> None:
        if armed[0] and sql.startswith(statements.get(point, "\0")):
            die()

    store._db.set_trace_callback(trace)  # SQLite calls it as each statement runs
    mem = ConversationMemory("s", store=store, context_window=800,
                             extractor=DyingExtractor() if point == "after_extract" else None,
                             on_fold=die if point == "after_commit" else None)
    armed[0] = True
    mem.compact()
    print("no crash", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
