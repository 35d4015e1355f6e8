"""An after-sales refund bot with its own typed case fields (RefundCase).

Offline it folds with the rule extractor: anchor fields (order number, phone) are
filled by pattern, Cue fields by what the user asks for (a negated or merely mentioned
option is not chosen). With OPENAI_BASE_URL set it folds with the
hybrid extractor (rules for anchors, the model at that URL for the rest, e.g.
`convstate serve-local`; CONVSTATE_MODEL names the model).
"""

from __future__ import annotations

import os
from typing import Annotated, Literal

from pydantic import Field

from convstate import (
    Anchor,
    ConversationMemory,
    ConversationState,
    Cue,
    InMemoryStore,
    Label,
    SetOnce,
)


class RefundCase(ConversationState):
    """The state of one after-sales refund case."""

    # An anchor field: verbatim, kind from the name; set once: a different later order
    # number is surfaced as a conflict instead of silently replacing this one.
    order_id: Annotated[Anchor | None, SetOnce(), Label(en="Order", zh="订单号")] = None
    # Latest value wins; earlier numbers stay in state.history("phone").
    phone: Annotated[Anchor | None, Label(en="Contact phone", zh="联系电话")] = None
    product: str | None = Field(default=None, description="Product")
    refund_method: Annotated[
        Literal["refund", "exchange"] | None,
        Cue({"refund": r"退款|refund", "exchange": r"换货|exchange"}),
        Label(en="Resolution", zh="处理方式"),
    ] = None
    urgency: Annotated[
        Literal["today", "expedite"] | None,
        Cue({"today": r"今天|today", "expedite": r"加急|尽快|expedite|asap"}),
        Label(en="Urgency", zh="时限"),
    ] = None


CHAT = [
    ("user", "你好，我买的无线耳机左耳没声音，订单号 DD20240315889。"),
    ("assistant", "抱歉！请问您希望换货还是退款？"),
    ("user", "我不要换货，只要退款。"),
    ("assistant", "好的，我会为您提交退款申请。"),
    ("user", "我的手机号是 13812345678。"),
    ("assistant", "已记录。"),
    ("user", "必须今天处理完，麻烦加急。"),
    ("assistant", "好的，我来帮您申请加急处理。"),
    ("user", "号码换一下，打 139-8765-4321。"),
    ("assistant", "联系电话已更新。"),
    ("user", "对了，另一个订单 DD20240401777 也是我的，先别管它。"),
    ("assistant", "明白，这次只处理 DD20240315889。"),
    ("user", "好的，谢谢。"),
]


def extractor():
    if not os.environ.get("OPENAI_BASE_URL"):
        return None  # the offline default: the rule extractor
    from convstate import HybridExtractor, LLMExtractor

    return HybridExtractor(LLMExtractor(model=os.environ.get("CONVSTATE_MODEL", "local")))


def main() -> None:
    mem = ConversationMemory("case-889", store=InMemoryStore(), state_model=RefundCase,
                             extractor=extractor(), context_window=600, keep_recent_turns=2,
                             system_prompt="你是优品商城的售后客服。")
    for role, text in CHAT:
        mem.add(role, text)
        mem.context()
    mem.compact(keep_recent_turns=0)
    case: RefundCase = mem.state  # type: ignore[assignment]
    print("order_id:", case.order_id.value if case.order_id else None)
    print("phone:", case.phone.value if case.phone else None)
    print("refund_method:", case.refund_method)
    print("urgency:", case.urgency)
    print("product:", case.product or "(filled by an LLM extractor)")
    for c in case.conflicts():
        print(f"conflict: {c.field} = {c.value} (turn {c.turn}) was not applied")
    print("phone history:", [(h.value, h.turn, h.status) for h in case.history("phone")])
    print("open assistant tasks:", [t.text for t in case.tasks(status="open", owner="assistant")])
    print(mem.render(lang="zh"))


if __name__ == "__main__":
    main()
