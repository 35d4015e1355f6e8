"""How a store grows: the database file against the bytes of the turns it holds, and the
size of the latest state, after N turns of the bench_core conversations (rule extractor,
window 4096, a SQLite file).

    python benchmarks/bench_storage.py [--turns 1000 10000]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_core import conversation  # noqa: E402

from convstate import ConversationMemory, SQLiteStore  # noqa: E402


def measure(n: int, unique: bool) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "s.db"
        mem = ConversationMemory("s", store=SQLiteStore(db), context_window=4096)
        turns = 0
        for m in conversation(n, unique):
            mem.add_message(m)
            mem.context()
            turns += len(m["content"].encode("utf-8"))
        state = len(mem.state.model_dump_json().encode("utf-8"))
        refs = sum(len(getattr(i, "turns", [])) for name in mem.state.sections()
                   for i in getattr(mem.state, name.name))
        versions = mem.state.version
        mem.close()
        store = SQLiteStore(db)
        # VACUUM writes the rebuilt file through the WAL: checkpoint after it, or the
        # WAL holds a second copy of the database
        store._db.execute("VACUUM")
        store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        store.close()
        size = sum(p.stat().st_size for p in Path(tmp).glob("s.db*"))
        return {"turn_bytes": turns, "db_bytes": size, "state_bytes": state,
                "turn_refs": refs, "versions": versions}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--turns", type=int, nargs="+", default=[1000, 10000])
    args = p.parse_args()
    print("| conversation | turns | state versions | turn text | database | database / "
          "turns | latest state | turn references in it |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for unique in (False, True):
        for n in args.turns:
            r = measure(n, unique)
            label = "new order id every cycle" if unique else "one case, repeated"
            print(f"| {label} | {n} | {r['versions']} | {r['turn_bytes'] / 1e6:.2f} MB | "
                  f"{r['db_bytes'] / 1e6:.2f} MB | {r['db_bytes'] / r['turn_bytes']:.1f}x | "
                  f"{r['state_bytes'] / 1e3:.0f} KB | {r['turn_refs']} |", flush=True)
    print(json.dumps({"note": "sizes after a WAL checkpoint and VACUUM"}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
