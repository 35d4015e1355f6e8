"""Open questions and tasks of the rule extractor read turn by turn, against the gold.

`convstate eval` scores open questions by extracting all the turns up to each gold turn
in one batch. A live state extracts each turn as it comes, so a question is folded in
one batch and answered in a later one, through the state's index: this script scores
that path. After every user turn with a gold row, an open question of the state is a hit
when it names a gold slot still unanswered (the words of ``open_tasks[].slot`` /
``requested_slots``, as `convstate eval` matches them); it also counts what is left open
at the end of each dialogue against ``gold.open_tasks_final``.

    python benchmarks/eval_open_tasks.py ../shared/data/sgd/sgd_test_long.json:30 \\
        ../shared/data/crosswoz/crosswoz_test_subset.json:30
"""

from __future__ import annotations

import argparse

from convstate import ConversationState, RuleExtractor, Turn, fold
from convstate.eval.run import _slot_words, gold_open_tasks, load_dialogues


def score(path: str, limit: int | None) -> dict[str, float | int | None]:
    hits = predicted = found = gold_slots = left_open = gold_final = 0
    for d in load_dialogues(path, limit):
        gold = gold_open_tasks(d)
        state = ConversationState()
        for t in d.turns:
            turn = Turn(index=t.idx, role="user" if t.speaker == "user" else "assistant",
                        content=t.text)
            delta = RuleExtractor().extract([turn], state.index()).delta
            state = fold(state, delta, {turn.index: turn})
            if turn.index not in gold:
                continue
            open_texts = [r.text.lower() for r in state.requests if r.status == "open"]
            words = [[w.lower() for w in _slot_words(s)] for s in gold[turn.index]]
            hits += sum(any(w in text for ws in words for w in ws) for text in open_texts)
            predicted += len(open_texts)
            found += sum(any(w in text for w in ws for text in open_texts) for ws in words)
            gold_slots += len(words)
        left_open += sum(t.status == "open" for t in state.open_tasks) + \
            sum(r.status == "open" for r in state.requests)
        gold_final += len(d.gold.open_tasks_final or [])
    return {"open_precision": round(hits / predicted, 3) if predicted else None,
            "open_recall": round(found / gold_slots, 3) if gold_slots else None,
            "left_open_at_end": left_open, "gold_open_at_end": gold_final}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="+", help="FILE or FILE:LIMIT")
    for spec in parser.parse_args().data:
        path, _, limit = spec.partition(":")
        print(path.rsplit("/", 1)[-1], score(path, int(limit) if limit else None))


if __name__ == "__main__":
    main()
