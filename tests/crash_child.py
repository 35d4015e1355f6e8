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
    live = False  # it reads the turns a fold takes, under the fold's lease, and dies there

    def extract(self, turns, index, delta_model=None):  # type: ignore[override]
        out = super().extract(turns, index)
        die()
        return out


def main(db: str, point: str) -> None:
    store = SQLiteStore(db)
    armed = [False]
    wrote_log = [False]  # the state write's last statement ran: its COMMIT is next

    def trace(sql: str) -> None:
        if not armed[0]:
            return
        if sql.startswith("INSERT INTO compactions"):
            if point == "in_write":
                die()
            wrote_log[0] = True
        elif sql == "COMMIT" and wrote_log[0] and point == "at_commit":
            die()

    store._db.set_trace_callback(trace)  # SQLite calls it as each statement runs
    mem = ConversationMemory("s", store=store, context_window=800, lease_ttl=1.0,
                             extractor=DyingExtractor() if point == "after_extract" else None,
                             on_fold=die if point == "after_commit" else None)
    armed[0] = True
    mem.compact()
    print("no crash", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
