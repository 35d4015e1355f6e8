"""A goal achieved: a report of the act it wants (zh + en).

A goal wants an act: its words after the want ("I need to change the delivery address":
changing the address; "I want a refund for my headphones": refunding; 我想退掉电饭煲: 退).
A later report of that act, by either side (the task grammar reads it: tasks.py), marks
it achieved: "I've changed the delivery address for you", "Your refund has been
processed", 已经为您退款了, 收货地址已修改. The report must do the same act to the same
thing: a verb of the same class and a shared object, a generic verb that names the act
("has been processed": the refund), or, with no object on either side, the same verb.

Only an act one party does for the other is achieved this way (a verb of the packs'
classes: send, call, refund, arrange, cancel, replace, change...). A search is not:
"I found 10 restaurants" lists what the user may choose, and the user's choice ends a
search, not the list.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..delta import ItemUpdate, StateDelta
from ..lang import Cues
from ..state import IndexEntry, section_entries
from .acts import Act
from .tasks import achieves

C = Cues()
# what stands between a want and the act it wants ("to", "a", "my": "I'd like a refund")
_LEAD = re.compile(r"^\s*(?:(?:to|a|an|the|my|our|some|help|me)\s+)*", re.IGNORECASE)


def wanted(goal: str) -> str:
    """The words of the act a goal's text wants: what follows its want."""
    m = C.goal.search(goal)
    return _LEAD.sub("", goal[m.end():] if m else goal)


def achieved(done: Act, turn: int, index: Sequence[IndexEntry], delta: StateDelta
             ) -> None:
    """Mark achieved the live goals (the index's, by an update; this batch's from an
    earlier turn, in place) whose act the report ``done``, in ``turn``, does."""
    taken = {u.id for u in delta.updates}
    for e in section_entries(index, "goals"):
        if e.status == "active" and e.id not in taken and achieves(done, wanted(e.text)):
            delta.updates.append(ItemUpdate(id=e.id, status="achieved", turn=turn))
    for g in delta.goals:
        if g.status == "active" and g.turns[0] < turn and achieves(done, wanted(g.text)):
            g.status = "achieved"
            g.turns.append(turn)
