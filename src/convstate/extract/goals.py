"""A goal achieved: a report of the act it wants (zh + en).

A goal wants an act: its words after the want ("I need to change the delivery address":
changing the address; "I want a refund for my headphones": refunding; 我想退掉电饭煲: 退).
The assistant's later report that the act is done marks it achieved: "I've changed the
delivery address for you", "Your refund has been processed", 已经为您退款了, 收货地址已修
改 (the task grammar reads it: tasks.py's ``achieves`` says when). The report must say
the act is done now (a perfect or a passive, not a simple past: "We replaced your router
in March" tells of before; not a modal perfect: "I would have changed it"), by the
speaker's side, to what the goal names and nothing else (not "Your refund for the
blender", "order 5678" for "order 1234", "the other order", "Your husband's order"), with
no "but" after it in the turn ("..., but the change failed"), and the goal must want that
one act ("cancel my subscription and get a refund" is not achieved by the cancelling
alone).

Only an act one party does for the other is achieved this way (a verb of the packs'
classes: send, call, refund, arrange, cancel, replace, change...). A search is not:
"I found 10 restaurants" lists what the user may choose, and the user's choice ends a
search, not the list.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..delta import ItemUpdate, StateDelta
from ..lang import Cues
from ..state import IndexEntry, section_entries
from .acts import Act
from .tasks import achieves

C = Cues()


def wanted(goal: str) -> str:
    """The words of the act a goal's text wants: what follows its want, past what stands
    before the act (the pack's ``want_lead``: "to", "a", "my"; "I'd like a refund")."""
    m = C.goal.search(goal)
    rest = goal[m.end():] if m else goal
    lead = C.want_lead.match(rest)
    return rest[lead.end():] if lead else rest


def achieved(done: Act, report: str, after: str, turn: int, index: Sequence[IndexEntry],
             delta: StateDelta) -> None:
    """Mark achieved the live goals (the index's, by an update; this batch's from an
    earlier turn, in place) whose act the assistant's report ``done`` (its clause
    ``report``), in ``turn``, does (tasks.py's ``achieves``): not one of another one or
    someone else's ("the other order", "Your husband's order"), nor one the rest of the
    turn (``after``) takes back ("..., but unfortunately the change failed")."""
    if C.another_one.search(report) or C.undone.search(after):
        return
    taken = {u.id for u in delta.updates}
    for e in section_entries(index, "goals"):
        if e.status == "active" and e.id not in taken \
                and achieves(done, report, wanted(e.text)):
            delta.updates.append(ItemUpdate(id=e.id, status="achieved", turn=turn))
    for g in delta.goals:
        if g.status == "active" and g.turns[0] < turn \
                and achieves(done, report, wanted(g.text)):
            g.status = "achieved"
            g.turns.append(turn)
