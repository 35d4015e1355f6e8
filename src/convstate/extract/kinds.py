"""What kind of value a cue names, and which kinds a question asks for (zh + en).

An id's kind is what its cue calls it, not what it looks like: 订单号 / order number
an order, 投诉单号 / ticket, case or complaint number a ticket, 快递单号 / tracking
number a parcel, 账号 / account number or username an account. The same cues tell
which values an assistant asks the user for ("What is your order number?", "您的订单号
是多少？", "may I have your username, email address and order ID"): the answer takes
the kind of the question (answers.py).
"""

from __future__ import annotations

import re
from typing import cast

from ..sections import AnchorKind

_I = re.IGNORECASE
# what joins the values of a list ("SR-1, SR-2 and SR-3", "A、B和C"): a list of ids after
# one cue (rules.py), or given in answer to one question (answers.py), is of its kind
LIST_SEP = r"\s*+(?:[,，、/;；&]\s*+(?:(?:and|or)\s++)?|(?:and|or)\s++|以及|和|及|与|或)\s*+"

# the cue of a ticket: a complaint, a case, a return or a service request
TICKET_CUE = (r"投诉单号|投诉编号|投诉单|工单号|工单编号|服务单号|受理单号|受理编号|售后单号"
              r"|退款单号|退货单号|维修单号|报修单号|报修编号|报修单"
              r"|(?<![A-Za-z])(?:ticket|case|complaint|claim|incident|RMA"
              r"|return(?:\s+authori[sz]ation)?|refund|(?:service\s+)?request|reference|ref)"
              r"\s*(?:number|no\.?|id|#|reference|ref\b\.?)"
              # a case or a claim named by its number alone, with letters or "#" ("case
              # CS-2024-0042", "case #4471"; not "claim 25000 points"), and an RMA's
              # number, which says what it is ("RMA-55120")
              r"|(?<![A-Za-z])(?:case|claim|incident)(?=\s*(?:#\s*|[A-Z]{1,4}-?)\d)"
              r"|(?<![A-Za-z])(?=RMA-?\d)")
# a word every ticket's cue holds (lower case), looked for before the pattern
TICKET_WORDS = ("投诉", "工单", "服务单号", "受理单号", "受理编号", "售后", "维修", "报修",
                "退款单号", "退货单号", "ticket", "case", "complaint", "claim",
                "incident", "rma", "refund",
                "return", "request", "ref")
# a ticket number named by its cue ("投诉单号TS20240315001", "case number CS-88213",
# "ticket TK-20931"), or by a bare 单号 in a sentence about a complaint or a service
# request filed ("您的投诉已受理，单号TS20240611777": what the number is of, said before
# it; "我要投诉，单号是DD…" quotes an order's)
TICKET_ID = re.compile(
    rf"(?:{TICKET_CUE}|工单|(?<![A-Za-z])ticket(?![A-Za-z])"
    r"|(?:(?:投诉|工单|售后|维修|报修)[^。！？!?\n]{0,12}?(?:受理|提交|登记|生成|创建)"
    r"|(?:受理|提交|登记|生成|创建)[^。！？!?\n]{0,6}?(?:投诉|工单|售后|维修|报修))[^。！？!?\n]{0,8}?"
    r"(?<![订运])单号)"
    # ... a relative clause between ("the case number you gave me was CS-0048812")
    r"(?:\s+(?:that\s+)?(?:you|they|we|your\s+\w+|the\s+\w+)\s+(?:gave|sent|provided|issued"
    r"|emailed|texted|told)(?:\s+(?:me|us))?)?"
    r"(?:\s|是|为|:|：|#|\bis\b|\bwas\b)*"
    r"((?=[A-Z-]*\d)[A-Z0-9][A-Z0-9-]{4,})(?![A-Za-z0-9])", _I)

# What a question names, per kind; the more specific first (a tracking number is not an
# order number, an email address not an address). English needs the noun's word for an
# id ("order number", "order ID": "your order" alone asks about the order, not its id)
# and a phone as a noun ("your phone", "email and phone", not "can I phone you").
ASKED: tuple[tuple[AnchorKind, str], ...] = (
    # ... or a number of the case named after it ("a reference from the earlier complaint")
    ("ticket_id", TICKET_CUE + r"|(?:number|reference|ref)\s+(?:from|for|of|on)\s+(?:the|your"
                  r"|that)\s+(?:\w+\s+)?(?:complaint|case|ticket|claim)\b"),
    ("tracking_number", r"快递单号|运单号|物流单号|包裹单号|tracking\s*(?:number|no\.?|id|code|#)?"
                        r"|waybill"),
    ("order_id", r"订单号|订单编号|预订号|预约号|确认号|order\s*(?:number|no\.?|id|#)"
                 r"|(?:booking|confirmation|reservation)\s*(?:number|no\.?|code|id|#"
                 r"|reference|ref\b)"),
    ("account", r"账号|帐号|账户|帐户|会员号|会员卡号|客户编号|客户号|用户名"
                r"|account\s*(?:number|no\.?|id|name)|user\s?name|user\s?id"
                r"|log\s?in\s+(?:id|name)|customer\s*(?:number|no\.?|id|#)"
                r"|(?:member(?:ship)?|loyalty|rewards?)\s+(?:card\s+)?(?:number|no\.?|id)"),
    ("email", r"(?:邮箱|电子邮件|邮件)(?:地址)?|e-?mail(?:\s+address)?"),
    ("phone", r"手机号码?|电话号码?|手机|电话|联系方式"
              r"|(?:phone|mobile|cell|contact|callback)\s*(?:number|no\.?|#)"
              r"|(?:(?<=your\s)|(?<=the\s)|(?<=and\s)|(?<=\bor\s)|(?<=,\s))"
              r"(?:phone|mobile|cell)(?![A-Za-z])"),
    ("address", r"收货地址|收件地址|地址|住址|(?:shipping\s+|mailing\s+|home\s+)?address"),
    # a person's name: the user's own, or the one a booking is under
    ("name", r"(?:your|the\s+guest's|the\s+customer's)\s+(?:full\s+|last\s+|first\s+)?name"
             r"|(?:under|in)\s+(?:what|which|whose)\s+name|name\s+(?:is|was)\s+(?:the|your|it|this)"
             r"(?:\s+\w+)?\s+(?:under|in)\b|您的姓名|您贵姓|怎么称呼|(?:预约|预订|订)人(?:的)?姓名"),
    # how much the user paid or was charged (not a price the assistant tells)
    ("amount", r"how\s+much\s+(?:were|was|did|have|are)\s+(?:you|it)\s+(?:charged|billed|pay|paid"
               r"|spend|spent|deducted)|(?:扣|收|付|花|交)了(?:您|你)?多少钱?"),
)
_ASKED = re.compile("|".join(f"(?P<{kind}>{cue})" for kind, cue in ASKED), _I)
# A word every cue above holds (lower case), looked for before the patterns: most turns
# name no such value, and a substring test costs a fraction of the patterns' scan.
CUE_WORDS = ("单", "账", "帐", "户", "邮", "电", "手机", "联系", "址", "用户名", "会员",
             "customer", "loyalty", "reward", "name", "姓", "称呼", "how much", "扣了", "收了",
             "付了", "花了", "交了",
             "ticket", "case", "complaint", "claim", "incident", "rma", "return", "request",
             "ref", "track", "waybill", "order", "booking", "confirmation", "reservation",
             "预订", "预约", "确认号", "account", "user", "log", "member", "mail",
             "phone", "mobile", "cell", "contact", "callback", "address")


def names_a_kind(text: str) -> bool:
    """Whether ``text`` holds a word of some kind's cue (a fast test before the cues)."""
    low = text.lower()
    return any(w in low for w in CUE_WORDS)


def kind_named(sentence: str) -> bool:
    """Whether ``sentence`` names a kind of value ("Would you like the hotel's phone
    number?", 您需要酒店的电话吗: an offer of a value, asked for or not)."""
    return names_a_kind(sentence) and _ASKED.search(sentence) is not None


# A sentence that asks the user for something: a question, an ask ("may I have",
# "please provide", "请提供", "麻烦您告诉"), or a need of the user's value ("I'd need your
# phone number", "需要您的手机号").
_ASKS = re.compile(
    r"[?？]|[吗呢]\s*+[。.]?\s*+$|多少|是什么|哪个"  # possessive: linear in a gap
    r"|请(?:您|你)?(?:再)?(?:提供|告诉|输入|发|留|报|确认|核对|说|上传|拍)"
    r"|麻烦(?:您|你)?(?:提供|告诉|发|留|报|说|上传|拍)"
    r"|(?:需要|要)(?:您|你)(?:的|提供)"
    r"|\b(?:may|can|could)\s+(?:I|we)\s+(?:have|get|ask\s+for|know|take|grab)\b"
    r"|\b(?:provide|give|tell|send|share|confirm|enter|type|spell|verify)\s+(?:me|us)\b"
    r"|\b(?:please|(?:can|could|would|will)\s+you(?:\s+please)?)\s+(?:provide|give|tell|send"
    r"|share|confirm|enter|type|spell|verify|read|upload)\b"
    r"|\b(?:need|want|require)\s+(?:your|the)\b|\bwhat(?:'s|\s+is|\s+was)\b", _I)
# An offer, not an ask, in the clause before a cue: "Would you like the hotel's phone
# number?", "需要我把电话发给您吗", "您需要酒店的电话吗".
_OFFER = re.compile(r"\b(?:would you like|do you (?:want|need)|shall I|should I|want me to"
                    r"|I can (?:give|send|share)|here(?:'s| is))\b"
                    r"|需要我|要不要|是否需要|您需要(?!提供|告诉|输入|发|留|报)|我(?:可以|来|帮您|给您|把)",
                    _I)
_CLAUSE_BREAK = re.compile(r"[,，;；:：]")
# A cue that only says whose or which (the tracking number *of your order*, 账号*绑定的*
# 手机号): what is asked for is the other value.
_EN_OF = re.compile(r"\b(?:of|for|on|from|in|with|to|under|associated with|linked to|tied to)"
                    r"\s+(?:your|the|this|that|my)?\s*(?:[a-z]+\s+){0,2}$", _I)
_ZH_OF = re.compile(r"(?:绑定|关联|对应|下|里|上|中)?的")
# A cue its value follows is a value given or read back, not asked for ("please verify:
# the address 888 Oak Grove Avenue", "the order number is BX-1, right?", "地址是..."),
# or one of a named place ("the address of Heathrow"); "是多少" asks.
_GIVEN = re.compile(r"\s*(?i:is|was)\s+(?!what|\?)|\s*[:：]|[ \t]+[A-Z0-9]"
                    r"|[ \t]+of[ \t]+(?:the[ \t]+)?[A-Z]"  # the address of Heathrow: its own
                    r"|是(?!多少|什么|哪|几|否|不是|\s*[?？]|\s*$)|为(?!多少|什么|\s*[?？])")


def asked_kinds(sentence: str, owed: bool = False) -> list[AnchorKind]:
    """The kinds of value ``sentence`` (an assistant's) asks the user for, in the order
    it names them; [] when it asks for none. ``owed``: the sentence is a task the user
    owes (any extractor's words: "Provide the order number"), so it needs no question
    or ask to ask for the values it names."""
    if not owed and not _ASKS.search(sentence):
        return []
    out: list[AnchorKind] = []
    for m in _ASKED.finditer(sentence):
        clause_at = max((b.end() for b in _CLAUSE_BREAK.finditer(sentence, 0, m.start())),
                        default=0)
        if _EN_OF.search(sentence, 0, m.start()) or _ZH_OF.match(sentence, m.end()) \
                or _OFFER.search(sentence, clause_at, m.start()) \
                or _GIVEN.match(sentence, m.end()):
            continue  # a modifier (the number *of your order*), offered or given: not asked
        kind = cast(AnchorKind, m.lastgroup)  # the groups are named by kind
        if kind not in out:
            out.append(kind)
    return out
