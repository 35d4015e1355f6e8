"""The offline rule extractor (zh + en): patterns for exact values, cue words for the rest.

Deterministic, no key, no network. It is precise on anchors (ids, phones, emails,
amounts, dates, times, marked addresses) and approximate on goals, tasks and decisions;
an LLM extractor understands those better (HybridExtractor keeps these anchors).
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from ..delta import (
    FieldValue,
    ItemUpdate,
    NewAnchor,
    NewDecision,
    NewGoal,
    NewPreference,
    NewRequest,
    NewSentiment,
    NewTask,
    StateDelta,
)
from ..lang import Cues, detect_language
from ..lang.acts import expressive, masked_out
from ..lang.en import NUMBER_WORDS as _EN_NUM
from ..lang.zh import NUMBER_WORDS as _ZH_NUM
from ..normalize import normalize
from ..registry import LANGUAGES
from ..sections import (
    BUILT_IN,
    CONTACT_KEYS,
    COUNT_KEYS,
    FACTS,
    MAX_LIVE_PER_KEY,
    MAX_SUBJECT,
    MAX_TEXT,
    SLOT_OF,
    AnchorKind,
    text_of,
)
from ..state import IndexEntry, section_entries
from ..turns import Turn
from .acts import HAN_RUN, Act
from .answers import GROUPED_ID, Asks, corrected_ids, ids_alike
from .base import BaseExtractor, Extraction
from .facts import EN_SENTENCE, SENTENCE, expository, find_facts
from .goals import achieved
from .kinds import LIST_SEP, TICKET_ID, TICKET_WORDS, asked_kinds
from .names import category_kind, find_names, name_goes_on, typed_kind
from .negation import choice, latest_choice, negated, question as asks, quoted, refusal
from .products import find_products
from .rechoice import chosen_again
from .requirements import requirements
from .settle import (
    OFFERED_KEYS,
    Options,
    agrees_only,
    answer_offer,
    cancelled,
    corrected,
    cue_offers,
    declined,
    moved_from,
    offered_option,
    offers,
    proposed_instead,
    retried,
    self_corrected,
    switched,
    switched_away,
    taken_up,
    took_stated,
)
from .takeback import given_up, let_go, lifted
from .tasks import FUTURE_ZH, JOINED_ZH, act_of, closes, is_receipt, read, terms, withdrawn
from .yesno import (
    ARROW,
    answer_closed,
    closed_questions,
    last_closed,
    own_part,
    polarity,
    waits,
)

_I = re.IGNORECASE
_MONTHS = (r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
           r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)")
_LANGS = r"(English|Chinese|Mandarin|Cantonese|Spanish|French|German|Japanese|Korean)"
_PART_OF_DAY = r"(?:morning|afternoon|evening|night|noon)"
# Linear time on any text: a pattern is tried at most once per run of the characters it
# starts with (a look-behind), whitespace is taken whole (possessive: a split of it
# between two quantifiers is tried once), and a look-ahead or a number scans a bounded
# stretch. Normal text matches as before; a run of 50,000 digits costs no more than 50,000
# letters (benchmarks/bench_adversarial.py).
_ID_LETTERS = 32  # letters an id may have before its first digit ("SR-", "ORDER-")
_NUMBER_CHARS = 30  # digits and commas of an amount, past its first and last digit
_ORDER_ID = rf"(?=[A-Z-]{{0,{_ID_LETTERS}}}\d)[A-Z0-9][A-Z0-9-]{{4,}}(?![A-Za-z0-9])"  # 5+
_TRACKING = r"[A-Z0-9][A-Z0-9-]{7,}"
# an id said in groups of digits after its cue (订单号 0123 4567 8901, "my loyalty card
# number is 6012 3456 7890"): the whole of it, before a phone's pattern can take it
_GROUPED = rf"{GROUPED_ID}(?![\dA-Za-z])"
_REFERENCE = rf"(?=[0-9-]*[A-Z][A-Z0-9-]){_ORDER_ID}"  # an id with a letter before its end

# by id: a compiled pattern's hash reads its whole program, at every lookup (every turn)
_NUMERIC: set[int] = set()
_DIGIT = re.compile(r"\d")


# the things a count counts, by the key their counts take: people (a party), tickets,
# rooms... ("count_key"). In Chinese the measure word says what is counted: 人 and 位
# people (not 6位验证码, nor 三人套餐, a product), 张 tickets (张…票, or 张 alone: 改成四张吧;
# not 三张图片), 间 rooms (间…房; not 三间房 as a place: 在三间房), 晚 or 夜 nights.
_COUNTED = {"people": r"people|persons?|guests?|adults?|passengers?|travell?ers?",
            "tickets": r"tickets?|seats?", "rooms": r"rooms?", "bedrooms": r"bedrooms?",
            "beds": r"beds?", "baths": r"baths?|bathrooms?", "nights": r"nights?"}
_COUNTED_ZH = {"people": r"人|位", "tickets": r"张.{0,12}票|张",
               "rooms": r"间[\u4e00-\u9fff]{0,3}(?:房间?|间)|间", "nights": r"晚上?|夜"}
_COUNTED_ANY = "(?:" + "|".join(_COUNTED.values()) + ")"
_COUNTED_WORDS = ("people", "person", "guest", "adult", "passenger", "travel", "ticket",
                  "seat", "room", "bed", "bath", "night", "table", "party", "group", "family")
_COUNT_KEYS = [(k, re.compile(rf"(?<![a-z])(?:{v}|{_COUNTED_ZH.get(k, '(?!)')})\s*$", _I))
               for k, v in _COUNTED.items()]
_ZH_COUNT = r"(?:\d{1,4}|[一二两三四五六七八九十]{1,3})"  # (一百二十: no number_in reads it)


# a clause about another time than the request's ("last time 2 tickets never came")
_PAST_TIME = re.compile(r"\b(?:last\s+(?:time|week|month|year|night|stay|visit|order)"
                        r"|yesterday|ago|previous(?:ly)?|earlier|before)\b", _I)


def _wanted_count(text: str, start: int, end: int) -> bool:
    """Whether the count at ``text[start:end]`` says how many are wanted: not in a clause
    about another time, a supposition or a refusal ("If I bought 3 tickets...", "I don't
    need 3 tickets"), nor in a question of price ("how much is it for one person?"); a
    Chinese one only in a clause that books or orders (``count_wanted``: 订两张票, 我们三个
    人), or that says the count alone (两位。, 改成四张吧)."""
    first, last = _clause(text, start, end)
    clause = text[first:last]
    if HAN_RUN.search(text, start, end) and (C.count_past.search(clause) or not (
            C.count_wanted.search(clause) or len(normalize(clause)) <= end - start + 4)):
        return False  # (a Chinese count is wanted where a booking is: 两人之间 is none)
    return not (_PAST_TIME.search(clause) or C.condition.search(clause)
                or C.negator.search(text, first, start)
                or asks(clause) and C.asked_amount.search(clause))


def count_key(value: str) -> str:
    """The key of a count by what it counts ("3 people": people); "a table for 4" counts
    people."""
    return next((k for k, p in _COUNT_KEYS if p.search(value)), "people")


_NEEDS: dict[int, re.Pattern[str]] = {}  # one search for any of the words
_TODAY = ("today", "tomorrow", "tonight")
_TODAY_ZH = ("今天", "明天", "今晚", "明早", "明晚")
_DAY_ZH = "|".join(_TODAY_ZH)  # (as a pattern's alternatives)


def _needs(words: tuple[str | re.Pattern[str], ...], pattern: re.Pattern[str]
           ) -> re.Pattern[str]:
    """Mark ``pattern`` as one that no match of holds without one of ``words`` ("@" for
    an email, 点 for a time in Chinese numerals; _DIGIT: any digit, as ``\\d`` reads one):
    it is not run on a turn that has none (most turns have none of most). Looked for
    ignoring case as the patterns do (nıght is a night to them)."""
    _NEEDS[id(pattern)] = re.compile(
        "|".join(r"\d" if w is _DIGIT else re.escape(str(w)) for w in words), _I)
    return pattern


def _numeric(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """Mark ``pattern`` as one that no match of holds without a digit (each alternative
    needs one): it is not run on a turn that has none (most turns)."""
    _NUMERIC.add(id(pattern))  # (the patterns live as long as the module)
    return pattern


# A phone's international prefix: "+" (or the international prefix 00, then a break
# after the country code: 00 and 13 digits in a row may be any number) and a country
# code of 1 to 3 digits, never 0 first (E.164), "(+44)" too; then the trunk 0 in brackets
# ("+44 (0)20 ...") and the area code in brackets ("+7 (495) ...") if written. The
# national number's first digit is 0 only after a break and before another digit (+39 06
# ...): "+10 000 000" and "+1 000 000 000" are counts.
_CC_TO_NATIONAL = (r"(?:\(\+[1-9]\d{0,2}\)|\+[1-9]\d{0,2}|00(?=[1-9]\d{0,2}[-.\s(])[1-9]\d{0,2})"
                   r"(?:[-.\s]?\(0\))?(?:[-.\s]|(?=[(（1-9]))(?:[(（]\d{1,5}[)）][-.\s]?)?"
                   r"(?!0[-.\s]?0)")
# A separator that begins another group of a phone's digits: two digits or more, and
# not an hour after a space ("24" of "24/7", "9:00", "10am"); a phone's run of groups
# ends where none begins, not before a digit or a letter (an extension may follow:
# "x12"). "_RUN_DIGIT{n,m}" counts the run's digits one by one.
_NEW_GROUP = r"[-.\s](?!(?<=\s)\d{1,2}[/:A-Za-z])(?=\d\d)"
_RUN_DIGIT = rf"(?:\d|{_NEW_GROUP}\d)"
_RUN_END = rf"(?!\d|{_NEW_GROUP})(?![A-Za-wyz_])"


# (kind, key, pattern, group): the value is the group's text, verbatim. Order matters:
# each match is masked so that a later, looser pattern cannot claim its characters.
ANCHOR_PATTERNS: list[tuple[AnchorKind, str, re.Pattern[str], int]] = [
    ("email", "email", _needs(("@",), re.compile(  # a local part from where its run
        # starts (one try a run), or of at most 64 characters (right after another match)
        r"(?:(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+|[A-Za-z0-9._%+-]{1,64})"
        r"@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")), 0),
    ("tracking_number", "tracking_number", _needs(("快递单号", "运单号", "物流单号", "tracking"),
        re.compile(r"(?:快递单号|运单号|物流单号|tracking\s*+(?:numbers?|nos?\.?|#)?)\s*+"
                   r"(?:是|为|:|：|#|分别|\s|\bis\b|\bwas\b|\bare\b|\bwere\b)*+"
                   rf"({_GROUPED}|{_TRACKING})", _I)), 1),
    ("other", "quote", _needs(('“', '"', "「", "『", "'"), re.compile(  # words set in
        # quotation marks, kept whole
        r"[“\"「『]([^“”\"「」『』\n]{12,300})[”\"」』]"
        # or in single quotes, marks included (they tell a quote from apostrophes):
        # opened after a space and closed before one ("Don't" neither opens nor closes)
        r"|(?:^|(?<=[\s:(]))('(?:[^'\n]|(?<=\w)'(?=\w)){12,300}?')(?=[\s.,;:!?)]|$)")), -1),
    # 投诉单号: a ticket, before any 单号
    ("ticket_id", "ticket_id", _needs(TICKET_WORDS, _numeric(TICKET_ID)), 1),
    ("order_id", "order_id", _numeric(re.compile(
        # (a booking's number is its order's: "confirmation number CP-88213", 预订号)
        r"(?:订单号码?|订单编号|单号|订单|预订号码?|预约号码?|确认号码?"
        r"|orders?\s*+(?:numbers?|nos?\.?|ids?|#)?"
        r"|(?:booking|confirmation|reservation)\s*+(?:numbers?|nos?\.?|codes?|ids?|#"
        r"|reference|ref\.?))"
        r"(?:\s|是|为|:|：|#|分别|\bis\b|\bwas\b|\bare\b|\bwere\b|\bactually\b)*"
        rf"({_GROUPED}|{_ORDER_ID})", _I)), 1),
    ("account", "account", _needs(("账号", "账户", "会员", "客户", "用户名", "account", "user",
                                   "customer", "member", "loyalty", "reward"), re.compile(
        r"(?:账号|账户|会员号|会员卡号|客户编号|客户号|用户名)\s*+(?:是|为|:|：|#|\s)*+"
        rf"({_GROUPED}|[A-Za-z0-9_.-]{{4,}})"
        r"|\b(?:(?:account|user\s?name|user\s?id)\s*+(?:number|no\.?|id|#)?"
        r"|(?:customer|(?:member(?:ship)?|loyalty|rewards?)\s+(?:card\s+)?)\s*+(?:number|no\.?|id|#))"
        rf"\s*+(?:is|:|#|(?<=\s))\s*+({_GROUPED}|(?=[A-Za-z_.-]*\d)[A-Za-z0-9_.-]{{4,}})",
        _I)), -1),
    ("phone", "phone", _numeric(re.compile(
        r"(?<![\dA-Za-z])(?:\+?86[-\s]?)?1[3-9]\d[-\s]?\d{4}[-\s]?\d{4}(?!\d)"
        # North American: (312) 555-0186, 312-555-0186, 773.555.0143, 773 555 0143,
        # 1-800-555-0199 (one separator throughout)
        r"|(?<![0-9A-Za-z_+-])(?:\+?1[-.\s]?)?\(\d{3}\)\s?\d{3}[-.\s]?\d{4}(?![\d-])"
        r"|(?<![0-9A-Za-z_+.-])(?:\+?1[-.\s]?)?\d{3}(?P<sep>[-.\s])\d{3}(?P=sep)\d{4}"
        r"(?![0-9A-Za-wyz_-])"  # (an extension may follow: 312-555-0186x123)
        r"|(?<![0-9A-Za-z_-])400-?\d{3}-?\d{4}(?!\d)"
        # Chinese landlines: 010-66667777, (010) 6666-7777, （010）66667777
        r"|(?<![0-9A-Za-z_-])0\d{2,3}-?\d{7,8}(?![\d-])"
        r"|(?<![0-9A-Za-z_-])[(（]0\d{2,3}[)）]\s?\d{3,4}-?\d{4}(?![\d-])"
        # international (E.164): a country code, then the national number in groups of
        # digits split any way, 7 to 13 of them, its trunk 0 left out (or in brackets):
        # +44 7700 900123, +49 151 23456789, 0044 20 7946 0958, +44 (0)20 7946 0958,
        # +7 (495) 123-45-67; the whole run of digit groups or nothing (no run of 20 is
        # a phone's first 15)
        r"|(?<![0-9A-Za-z_+$€£¥￥])(?<![0-9A-Za-z_][-/])(?<!\d[.,:\s])"
        rf"(?={_CC_TO_NATIONAL}\d{_RUN_DIGIT}{{6,12}}{_RUN_END})"
        rf"{_CC_TO_NATIONAL}\d+(?:{_NEW_GROUP}\d+)*{_RUN_END}"
        # national, after the trunk prefix 0: 10 to 12 digits in groups split the same
        # way throughout (not a date and a time, 05.06.2024 10.30): 07700 900123,
        # 020 7946 0958, 0800 123 4567, 0151 23456789, 01 23 45 67 89, 021 6438 1234
        r"|(?<![0-9A-Za-z_+$€£¥￥])(?<![0-9A-Za-z_][-/])(?<!\d[.,:\s])"
        rf"(?=0\d{_RUN_DIGIT}{{8,10}}{_RUN_END})"
        rf"0\d{{1,4}}(?=(?P<tsep>[-.\s]))(?:(?=(?P=tsep)){_NEW_GROUP}\d+)+{_RUN_END}"
        # ... or its area code in brackets: (020) 7946 0958, (0151) 23456789
        rf"|(?<![0-9A-Za-z_])[(（](?=0\d{{1,4}}[)）]\s?\d{_RUN_DIGIT}{{5,9}}{_RUN_END})"
        rf"0\d{{1,4}}[)）]\s?\d+(?:{_NEW_GROUP}\d+)*{_RUN_END}"
        # a local number with no area code, named as a phone number by its cue
        r"|(?<=电话是)\d{7,8}(?![\d-])|(?<=电话为)\d{7,8}(?![\d-])|(?<=电话：)\d{7,8}(?![\d-])"
        r"|(?<=电话:)\d{7,8}(?![\d-])|(?<=号码是)\d{7,8}(?![\d-])")), 0),
    ("phone", "phone", _numeric(re.compile(  # ten digits a phone cue names ("my mobile is
        # 7735550143", "call me at 7735550143")
        r"\b(?:(?:my\s+)?(?:phone|mobile|cell)(?:\s+number)?|my\s+number)\s+is\s+"
        r"(\+?\d{10,11})(?!\d)|\bme\s+at\s+(\+?\d{10,11})(?!\d)", _I)), -1),
    # an id of no kind above, named by its noun ("invoice number INV-20931", "serial
    # number is SN8472A", 发票号FP20240315001, 保单编号是…): kept as said, of no kind.
    # A letter before its last character: digits alone (an ID's check letter X after
    # them) are a person's numbers (a card, an ID, a code sent to them, a phone), or a
    # count; nor a code or a document's number (a passport's, a card's): the person's
    ("other", "reference", _numeric(re.compile(
        r"(?<![A-Za-z])(?!(?:the|my|your|his|her|our|their|this|that|an?|phone|mobile|cell"
        r"|contact|passport|licen[cs]e|card|security|social|tax|pin|pass)\s)"
        rf"[A-Za-z]{{3,}}\s+(?:number|no\.|#|id)\s*+(?:is\b|was\b|[:#\s])*+({_REFERENCE})"
        rf"|(?![证卡照])[\u4e00-\u9fff](?:号码?|编号)(?:是|为|[:：\s])*+({_REFERENCE})",
        _I)), -1),
    ("date", "date", _needs((_DIGIT, "day"), re.compile(  # (a weekday ends in "day")
        r"\d{4}[-/.年]\d{1,2}[-/.月]\d{1,2}[日号]?|\d{1,2}月\d{1,2}[日号]"
        # a day of the month alone (16号, 15日), said where a date is (after a break, a
        # verb of booking or changing: 改成, not of a thing known by its number: 色号换成,
        # 座位改成; a preposition, 我, a day) and as one: before a
        # clause's end, a time of day, an act that starts or ends a stay, or a particle —
        # not a number a place or a thing is known by (胡同6号, 3号楼, 7号电池, 2号航站楼)
        r"|(?:^|(?<=[\s，。,.!！?？:：、到至在是于订改约等从和或及我您你天])|(?<=[改换][成为]))"
        r"(?<!址在)(?<![号位码间柜室][改换][成为])"
        r"(?:[12]\d|3[01]|0?[1-9])[日号](?=\s*(?:$|[，。,.!！?？;；、]|[上下中]午|晚上|早上|凌晨"
        r"|取车|提车|还车|入住|退房|离店|出发|上门|送|到|前|之前|以前|之后|以后|左右|吧|呢|吗"
        r"|可以|行|的(?:房间|票|航班|位子|机票)))"
        r"|\b" + _MONTHS + r"\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s*\d{4})?\b"
        r"|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTHS + r"\b"
        r"|(?<![\d/])\d{1,2}/\d{1,2}/\d{2,4}(?![\d/])"
        r"|\b\d{1,2}(?:st|nd|rd|th)\s+of\s+(?:this|next)\s+month\b"
        r"|\b(?:next\s+)?(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day(?:\s+next\s+week)?\b",
        _I)), 0),
    ("date", "date", _needs(_TODAY + _TODAY_ZH, re.compile(
        # a relative day said with a time: the day of it ("tomorrow at 7 pm", "2 pm
        # today", 明天下午三点)
        r"\b(today|tomorrow|tonight)\s+(?:at\s+|around\s+|by\s+)?(?=\d{1,2}(?::\d{2})?\s*"
        r"(?:[ap]\.?m\.?|o['’‘`\x22]?clock)(?![a-z]))"
        r"|\b\d{1,2}(?::\d{2})?\s*[ap]\.?m\.?\s+(today|tomorrow|tonight)\b"
        rf"|({_DAY_ZH})(?=(?:上午|下午|晚上|早上|中午|傍晚)?"
        r"(?:\d{1,2}|[两二三四五六七八九]|十[一二]?)点)", _I)), -1),
    ("time", "time", _needs(("am", "a.m", "pm", "p.m", "night", "noon", "morning", "afternoon",
                             "evening", "quarter", "half", "midnight"), re.compile(  # in words:
        # "quarter to 6 in the evening", "one pm"; a window whose first end takes the
        # second's am or pm ("9-11 am", "from 2 to 4 pm", "between 9 and 11 am")
        r"\b\d{1,2}(?::\d{2})?\s*(?:-|–|to)\s*\d{1,2}(?::\d{2})?\s?[ap]\.?m\.?(?![a-z])"
        r"|(?<=between\s)\d{1,2}(?::\d{2})?\s+and\s+\d{1,2}(?::\d{2})?\s?[ap]\.?m\.?(?![a-z])"
        r"|\b(?:(?:a\s+)?quarter\s+(?:to|past)\s+|half\s+past\s+)?"
        rf"(?:\d{{1,2}}(?::\d{{2}})?|{_EN_NUM})(?:\s+o['’‘`\x22]?clock)?"
        rf"\s+(?:in\s+the\s+{_PART_OF_DAY}|at\s+night|[ap]\.?m\.?(?![a-z]))"
        # a part of the day before its hour ("morning 7:15", "afternoon 2"), ending its
        # phrase: not a time said whole ("afternoon 3 pm"), a count ("evening 2 guests",
        # "evening 4 or 5 people", "evening 6 and 2 kids")
        rf"|\b{_PART_OF_DAY}\s+(?:1[0-2]|0?[1-9])(?:[:.][0-5]\d)?(?:\s+o['’‘`\x22]?clock)?"
        r"(?![:.]?\d)(?=\s*(?:[,;!?)]|\.|$)|\s+(?:on|at|please|then|today|tomorrow|tonight"
        r"|instead|too|again|works?|would|will|sounds?|okay|ok|fine)\b)"
        rf"|\b(?:a\s+)?quarter\s+(?:to|past)\s+(?:\d{{1,2}}|{_EN_NUM})\b"
        rf"|\bhalf\s+past\s+(?:\d{{1,2}}|{_EN_NUM})\b"
        r"|\b(?:12\s+)?(?:noon|midnight)\b", _I)), 0),  # "at noon", "by midnight"
    ("date", "date", _needs(("tomorrow", "the", "后天"), re.compile(
        # relative days and a day of the month
        r"\b(?:the\s+)?day\s+after\s+tomorrow\b|\bthe\s+\d{1,2}(?:st|nd|rd|th)\b"
        r"|后天|大后天", _I)), 0),
    ("date", "date", _needs(_TODAY + _TODAY_ZH, re.compile(
        # a day a booking or a change asks for ("make it for later today", "change that
        # to tomorrow"), not one told in passing ("it arrived today", "thanks for today")
        r"\b(?:book|schedule|reschedule|move|change|switch|make|set|put|reserve|get)\b"
        r"[^.?!;\n]{0,40}?\b(?:for|to)\s+((?:later\s+)?(?:today|tomorrow|tonight))\b"
        r"(?!['’])"
        # ... or the day said of the thing talked of ("No, make it later today", "it's for
        # tomorrow"): its day, not one an event of it was on ("it came today")
        r"|\b(?:make|do)\s+(?:it|that|them)\s+((?:later\s+)?(?:today|tomorrow|tonight))"
        r"\b(?!['’])"
        r"|\b(?:it|that|they)(?:['’]s|['’]re|\s+is|\s+are|\s+will\s+be)\s+for\s+"
        r"((?:later\s+)?(?:today|tomorrow|tonight))\b(?!['’])"
        r"|\bthe\s+(?:table|booking|reservation|appointment|ride|trip|ticket|tickets|room"
        r"|delivery|pick-?up)\s+(?:is|are|will\s+be)\s+for\s+((?:later\s+)?(?:today|tomorrow"
        r"|tonight))\b(?!['’])"
        # ... and in Chinese, the day a change or a booking goes to, ending its clause
        # (改成明天上午吧, 约到今晚, asked for: 可以改到明天下午吗); not negated (不要改成明天,
        # 没办法改到明天), supposed (改成明天的话) or a thing's (换成明天到货的那款)
        r"|(?<!不要)(?<!不用)(?<!不想)(?<!不能)(?<!没法)(?<!办法)(?<!没有)(?<![别不])"
        r"(?:改成|改到|改为|改在|换到|换成|挪到|推到|约到|约在|定在|安排在)"
        rf"({_DAY_ZH})(?=(?:上午|下午|晚上|早上|中午|傍晚)?"
        r"(?:吧|了|啊|呀|嘛|哈|就行|就好|好了|也行|也可以|可以|行|好)?(?:吗|吧)?"
        r"\s*(?:[，。！!,.;；?？~]|谢谢|$))", _I)), -1),
    ("other", "rating", _numeric(re.compile(  # a rating named by its cue: "rating 4.8", "评分4.3"
        r"(?:rating|rated|评分|评价|得分)\s*+(?:of|is|:|：|是|为)?\s*+(\d(?:\.\d)?)(?![\d.]*\s*(?:分|%))",
        _I)), 1),
    ("time", "time", _numeric(re.compile(
        r"(?<![\d:])\d{1,2}:\d{2}(?:\s*[-~至到]\s*\d{1,2}:\d{2})?(?:\s?[ap]\.?m\.?)?(?![\d:])"
        r"|\b\d{1,2}\s?[ap]\.?m\.?"
        r"|(?:上午|下午|晚上|早上|中午|凌晨)?\d{1,2}点(?:半|\d{1,2}分)?", _I)), 0),
    ("time", "time", _needs(("点",), re.compile(  # in Chinese numerals: 下午两点, 十点钟, 三点半
        r"(?:上午|下午|晚上|早上|中午|凌晨|傍晚)(?:[两二三四五六七八九]|十[一二]?)点"
        r"(?:半|[一二三四五六七八九十]{1,3}分|\d{1,2}分|钟)?"
        r"|(?<![快慢多少早晚便宜好大小高低近远有])(?:[两二三四五六七八九]|十[一二]?)点(?:半|钟)"
        # ... or alone where a time is said: after a day (or a date found, masked) or a
        # verb of being, booking or changing and before a clause's end or a particle (不是
        # 三点，是四点; 明天三点可以吗; 那就三点吧), or before a bound or a range (三点到五点
        # 之间; 三点左右; 三点前到) — not one of a list's points (以上三点, 这两点, 扣了五点,
        # 原因是两点，第一…)
        r"|(?:(?<=[是在到约订定等改从于就天日号\x00])(?:[两二三四五六七八九]|十[一二]?)点"
        r"(?=\s*(?:$|[。.!！?？；;]|[，,、](?!\s*第)|吧|呢|吗|可以|行))"
        r"|(?<![上这那几了第有快慢多少])(?:[两二三四五六七八九]|十[一二]?)点"
        r"(?=前|后|以前|之前|以后|之后|左右|到|至|之间))"
        # 一点 is also "a bit" (快一点, 一点消息都没有, 有一点半信半疑): a time only by a part
        # of the day or 钟, and not run into a word
        r"|(?:(?:上午|下午|晚上|早上|中午|凌晨|傍晚)一点(?:半|钟)?|(?<![有快慢多少])一点钟)"
        r"(?![\u4e00-\u9fff](?<![前后左以到至的见在整吧啊呢吗了可]))")), 0),
    ("date", "date", _needs(("周", "星期", "礼拜"), re.compile(  # a weekday: 周三, 下周三,
        # 星期五, 礼拜天; not a schedule's (营业时间周一至周日, 周六、周日), every one
        # (每周一), a count of weeks (一周一次) or a word that starts with the weekday's
        # character (上周一直)
        r"(?<!每)(?<![周期拜][一二三四五六日天][,，、至到~—-])(?<![一两三四五六七八九十几个])"
        r"(?:下下?个?|这个?|本|上个?)?(?:周|星期|礼拜)[一二三四五六日天](?![直次折末])"
        r"(?!\s*[至到~—,，、-]\s*(?:周|星期|礼拜))")), 0),
    ("amount", "amount", _needs(("¥", "￥", "$", "usd", "rmb", "元", "块", "美元", "dollar", "buck",
                                 "免费"), re.compile(
        r"(?:¥|￥|\$|USD\s?|RMB\s?)\d(?:[\d,]*\d)?(?:\.\d+)?"
        # (a range said in words too, 100到150元; not a change, 从58到88元: the price now)
        rf"|(?<!\d)\d(?:[\d,]{{0,{_NUMBER_CHARS}}}\d)?(?:\.\d+)?"
        r"(?:\s?-\s?\d+(?:\.\d+)?|(?<!从\d)(?<!从\d\d)(?<!从\d\d\d)(?<!从\d{4})"
        r"\s?[~～–—至到]\s?\d+(?:\.\d+)?)?\s?"
        r"(?:元|块钱|块|美元|USD|dollars?|bucks)(?:以上|以下|左右)?"
        rf"|{_ZH_NUM}{{1,8}}(?:元|块钱|块|美元)(?:以上|以下|左右)?"
        r"|免费(?!的?(?:停车|wifi|WiFi|取消|退换|咨询))", _I)), 0),  # a price of nothing
    ("other", "duration", _needs(("小时", "天", "分钟", "工作日", "星期"), re.compile(
        r"(?<!\d)\d+(?:\.\d+)?\s*个?(?:小时|天|分钟|工作日)"
        r"(?:\s*[-~至到]\s*\d+(?:\.\d+)?\s*(?:小时|天|分钟))?"
        r"|(?<!\d)\d+\s*[-~至到]\s*\d+\s*个?(?:小时|天|分钟|工作日)"  # 3到5个工作日
        rf"|{_ZH_NUM}{{1,4}}个?(?:半)?(?:小时|分钟)|{_ZH_NUM}{{1,3}}个?(?:工作日|星期)")), 0),
    ("other", "rating", _numeric(re.compile(r"\d(?:\.\d)?分(?:以上|以下)?")), 0),
    # the speaker's own name in Chinese, where they say it is (我叫王小明，…; a person's
    # name has no kind word for the name finder to end it by): the user's only. Not 叫 as
    # "call for" or "call someone" (我叫个车, 我叫一辆出租车, 我叫下车, 我叫她…)
    ("name", "name", _needs(("我叫", "名字"), re.compile(
        r"(?:我叫|我的名字(?:是|叫))(?![她他它你您一两几个下了辆])"
        r"((?:(?!车)[\u4e00-\u9fff]){2,4}?)(?=[，,。.！!？?\s]|$)")), 1),
    ("address", "address", _needs((_DIGIT, "地址", "寄到", "送到", "位于", "坐落", "address"),
                                  re.compile(
        r"(?:地址[^。！？!?\n]{0,8}?(?:改成|改为|换成)|收货地址|收件地址|地址|寄到|送到|位于|坐落于"
        r"|坐落在)\s*+"
        r"(?:是|为|在|改成|改为|换成|(?:已经?)?(?:更新|修改|变更)为|:|：|\s)*"
        # (past a label of the place before a colon: 寄到我们的退货仓：…, 送到我家：…)
        r"(?:[^，。,;；!！?？\n\s：:]{1,8}[：:]\s*)?"
        r"((?=[^，。,;；!！?？\n\s：:]{0,58}[省市区县镇乡村路街道巷弄号楼室栋座])"
        r"(?![和与跟及或吗呢吧]|还是|还|就是|就|也|都)[^，。,;；!！?？\n\s：:]{4,60}"
        r"(?<![吧呢啊呀哦嘛了对吗]))"  # (送到…2号吧, …号对吧: a particle ends it)
        # a Chinese address by its shape alone, with no cue (不对，是杭州市滨江区江南大道2号):
        # a city or a district, then a road and its number
        r"|(?:(?<![\u4e00-\u9fff])|(?<=[是到在为成往]))"  # (where a word may start)
        r"((?![是到在为成往改送寄我您你他她])(?:[\u4e00-\u9fff]{2,3}省)?[\u4e00-\u9fff]{2,4}[市区县][\u4e00-\u9fff]{0,8}?"
        r"[\u4e00-\u9fff]{1,8}(?:路|街|大道|大街|巷|弄)\d{1,5}号(?:\d{1,4}(?:栋|幢|楼|号楼)"
        r"|[\u4e00-\u9fff\d]{0,10}?(?:\d{1,5}室|\d{1,3}单元))*)"
        # (not a place said of something else: …2号的门店, …88号那家店, …附近)
        r"(?![\d栋幢楼室单元]|的|那|这|附近|旁边|对面)"
        r"|\b(?i:address)\b[^.!?\d\n]{0,40}?(\d+[A-Za-z]?\s+[A-Z][\w .,'#-]{3,60}?)"
        # up to the sentence's end or the words that go on past the address ("… with
        # Nicole", "…, correct?", "… now")
        r"(?=,?\s+(?i:with|to|for|and|from|by|please|correct|right|now|instead|too|then)\b"
        r"|[.;!?\n]|$)"
        r"|\b(\d{1,5}\s+(?:[A-Z][A-Za-z]+\s+|\d{1,3}(?:st|nd|rd|th)\s+){1,3}"
        r"(?i:Street|St|Avenue|Ave|Road|Rd|Drive|Dr|Boulevard|Blvd|Lane|Ln|Way|Court|Ct"
        r"|Place|Pl|Terrace|Ter|Parkway|Pkwy|Highway|Hwy)\b\.?"
        # and the town after it, with the state and ZIP code ("…, Springfield, IL 62704")
        # or ending the sentence ("…, Mountain View.")
        r"(?:,\s*+[A-Z][A-Za-z]+(?:\s[A-Z][A-Za-z]+){0,2}(?:,?\s[A-Z]{2}(?:\s\d{5}"
        r"(?:-\d{4})?)?(?![\w-])|(?=\s*(?:[.;!?\n]|$))))?)")), -1),
    ("other", "count", _needs(_COUNTED_WORDS, re.compile(  # how many of a thing a user
        # wants: "for 3 people", "3 tickets please", "two bedrooms", "a table for 4 (people)"
        # (the key is the thing: count_key); not one that refers to some ("the 2 beds", "my
        # 2 tickets", "top 10 seats", "per person"), says what fits ("up to 6 guests", "max
        # 4 people", "fits 4 people"), is told in passing ("2 people complained", "2
        # tickets never arrived", "3 nights ago", "10 seats left", "2 people in our
        # group") or names a kind ("one bath apartments")
        r"(?<![\w.,$-])(?<!\bthe )(?<!these )(?<!those )(?<!\btop )(?<!behind )(?<!\bover )"
        r"(?<!\bper )(?<!every )(?<!\beach )(?<!first )(?<!\blast )(?<!other )(?<!\bmy )"
        r"(?<!your )(?<!\bour )(?<!\ball )(?<!same )(?<!\bmax )(?<!up to )(?<!\bof )"
        r"(?<!\bfits )(?<!holds )(?<!sleeps )(?<!\bseats )(?<!accommodates )(?<!\bhas )"
        rf"((?:\d{{1,3}}|{_EN_NUM})\s+(?:adult\s+)?{_COUNTED_ANY})\b"
        r"(?!\s+(?:ago|left|later|apiece|each|per|were|are|was|is|have|has|had|did|do|does"
        r"|can|could|will|would|should|might|may|must|never|already|still|got|went|came"
        r"|remain\w*|available|free|max(?:imum)?|\w+n['’]t|\w+ed|rooms?|suites?|apartments?"
        r"|houses?|homes?|units?|propert(?:y|ies)|(?:in|of|from)\s+(?:our|my|your|us|them))"
        r"\b)"
        rf"|\b(?:table|party|group|family)\s+(?:for|of)\s+((?:\d{{1,2}}|{_EN_NUM})"
        r"(?:\s+people)?)\b"
        r"(?![.,:]\d|\s*(?:o['’‘`\x22]?clock|[ap]\.?m\b))", _I)), -1),
    ("other", "count", _needs(("人", "位", "张", "间", "晚", "夜"), re.compile(
        # 我们三个人, 两位, 五位客人, 两张明天去北京的高铁票, 改成四张吧, 订两间大床房, 住两晚 (the
        # number not part of another: 第三位, 十二; not told of the past: 订了两张; not one
        # added or taken away: 再加一张; not one of each: 每桌十个人; not a person described:
        # 一位导游, 两个人的事; not an invoice: 两张发票)
        rf"(?<![\d零一二两三四五六七八九十百千万第了在去从加减多少退有.])(?<!每.)"
        rf"(?:(?<=改到)|(?<!到))({_ZH_COUNT}\s*(?:"
        r"个?人(?!套餐|份|餐|次|民币|均|头|工|之间|一|的(?:事|套餐|份|餐))"
        r"|位(?=[吧呢啊的就，,。.！!？?\s]|$|客人|成人|大人|小孩|儿童|乘客|游客|宾客)"
        r"|张[^，,。.！!？?\s]{0,12}?(?<!发)票|张(?=[吧呢啊就，,。.！!？?\s]|$)"
        r"|间[\u4e00-\u9fff]{0,3}?(?:房间?|间)|间(?=[吧呢啊就，,。.！!？?\s]|$)"
        r"|个?晚上?(?![饭餐])|个?夜(?!宵|班)))"
        # (not 一个人都没回: not even one; not 有三个人不吃辣: some of the party)
        r"(?![都也]?[没不])")), -1),
    ("language", "language", _needs(("用", "reply", "respond", "answer", "speak", "talk", "write"),
        re.compile(r"用(英文|中文|英语|汉语|粤语)(?:回复|回答|交流|沟通)"
                   r"|(?:reply|respond|answer|speak|talk|write)\s+(?:to me\s+)?in\s+" + _LANGS,
                   _I)), 0),
]
# The values a cue names may be a list: "orders: SR-1, SR-2 and SR-3", "单号分别是A、B和C".
# Each listed value is one of the same form as the first (letters, digits and the rest
# in the same order: a phone number after an order id is not another order id).
LISTED = {"order_id": re.compile(rf"{LIST_SEP}({_ORDER_ID})", _I),
          "tracking_number": re.compile(rf"{LIST_SEP}({_TRACKING})(?![A-Za-z0-9])", _I)}
_BUDGET_CUE = re.compile(r"预算|不超过|最多|以内|budget|at most|no more than|up to|under", _I)
# a date in the end role (the packs' "date_end": "until March 13th", "drop it off on
# the 5th") has the key "until": a later end replaces the end, a later start ("from the
# 7th") the start. English only so far: Chinese says the act after the date (3月6日还车).
_END_REACH = 48  # characters before a date where its end cue is looked for


def _own_name_said_again(anchors: list[NewAnchor], index: Sequence[IndexEntry],
                         delta: StateDelta) -> list[NewAnchor]:
    """The user's own name said again ("Thanks, Ann Lee") is that name, not another of
    the names talked about: it goes with it when the user corrects it."""
    if not any(a.key == "names" for a in anchors):
        return anchors
    own = {normalize(e.text.partition("=")[2]) for e in section_entries(index, "anchors")
           if e.status == "active" and e.text.startswith("name=")}
    own |= {normalize(a.value) for a in delta.anchors if a.key == "name"}
    return [a.model_copy(update={"key": "name"}) if a.key == "names"
            and normalize(a.value) in own else a for a in anchors]


# a trip's ends, and the preposition each is said after
_TRIP_ENDS = {"origin": "trip_from_only", "destination": "trip_to_only"}


def _roles_said_again(turn: Turn, anchors: list[NewAnchor], index: Sequence[IndexEntry],
                      delta: StateDelta, batch: Sequence[Turn]) -> list[NewAnchor]:
    """A value said with no role takes the role of a live value of its kind (``SLOT_OF``)
    that it says again ("Would March 12th work?" for the end, "Yes, March 12th works."),
    or, from the user, that it changes where the user gave that role alone ("until
    Friday", then "Sorry, I meant Saturday"; not "I'll pick it up on the 12th"): so it
    does not replace the start."""
    kinds = set(SLOT_OF.values())
    if not any(a.key in kinds for a in anchors):
        return anchors
    live = _live_values(index, delta, batch)
    said = {(SLOT_OF[key], normalize(value)): key for key, value, _ in live if key in SLOT_OF}
    mine = {key for key, _, speaker in live if speaker == "user"}
    alone = {kind: role for role, kind in SLOT_OF.items()
             if turn.role == "user" and role in mine and kind not in mine}
    out = []
    for a in anchors:
        role = said.get((a.key, normalize(a.value)))
        if role is None and a.key in alone:
            at = max(turn.text.find(a.value), 0)
            if not C.date_start.search(turn.text, max(0, at - _END_REACH), at):
                role = alone[a.key]
        out.append(a if role is None else a.model_copy(update={"key": role}))
    return out


def _ends_said_again(turn: Turn, anchors: list[NewAnchor], index: Sequence[IndexEntry],
                     delta: StateDelta, batch: Sequence[Turn]) -> list[NewAnchor]:
    """A name said with no role that is a live trip end, said again after its preposition
    ("a Sedan car from Palo Alto Caltrain Station" read back: where the pick-up is) or in
    a sentence of travel ("You will be picking up a hatchback at 9:30 am on March 8th at
    Gatwick"), takes that end; not in another act ("share the location Palo Alto Caltrain
    Station"). In the user's correction, a name after an end's preposition takes that end
    whatever it was ("Sorry, I meant from Modesto")."""
    said: dict[int, tuple[list[str], bool]] = {}  # (the ends a preposition gives, travel)
    for k, a in enumerate(anchors):  # (the text first: the live values only if it may)
        if a.key == "names":
            at = max(turn.text.find(a.value), 0)
            after = [key for key, cue in _TRIP_ENDS.items()
                     if getattr(C, cue).search(turn.text, max(0, at - _ROLE_REACH), at)]
            travel = C.trip_means.search(turn.text, *_sentence(turn.text, at, at)) is not None
            if after or travel:
                said[k] = (after, travel)
    if not said:
        return anchors
    ends = {(key, normalize(value)) for key, value, _ in _live_values(index, delta, batch)
            if key in _TRIP_ENDS}
    if not ends:
        return anchors
    corrects = {key for key, _ in ends} if turn.role == "user" \
        and C.corrects.search(turn.text) else set()
    out = list(anchors)
    for k, (after, travel) in said.items():
        value = normalize(anchors[k].value)
        role = next((key for key in _TRIP_ENDS if key in after and (
            key in corrects or (key, value) in ends) or (key, value) in ends and travel), None)
        if role is not None:
            out[k] = anchors[k].model_copy(update={"key": role})
    return out


def _live_values(index: Sequence[IndexEntry], delta: StateDelta, batch: Sequence[Turn]
                 ) -> list[tuple[str, str, str | None]]:
    """(key, value, speaker) of the live anchors: the index's, and this batch's so far
    (not in the index yet)."""
    live = [(*e.text.partition("=")[::2], e.speaker)
            for e in section_entries(index, "anchors") if e.status == "active"]
    speakers = {t.index: t.role for t in batch}
    return live + [(a.key, a.value, speakers.get(a.turns[0])) for a in delta.anchors]


def _not_hours(text: str, found: list[tuple[int, NewAnchor]]) -> list[tuple[int, NewAnchor]]:
    """``found`` less the days and times of opening hours: two of a kind joined as a range
    after a word of opening in their clause, and the ranges after them in their sentence
    ("open Monday to Friday 9am to 6pm", "We're open from 9 am to 6 pm, Monday to
    Friday", 营业时间周一到周五早上9点到晚上6点): when a place is open, no date or time of
    anyone's."""
    if not C.hours.search(text):
        return found  # (most turns)
    ordered = sorted(found, key=lambda f: f[0])
    out: set[int] = set()
    until = -1  # the end of the sentence of the opening hours found last
    for (s1, a), (s2, b) in itertools.pairwise(ordered):
        if a.kind != b.kind or a.kind not in ("date", "time") \
                or not C.range_joint.fullmatch(text, s1 + len(a.value), s2):
            continue
        first, _ = _clause(text, s1, s1)
        if s1 < until or C.hours.search(text, max(first, s1 - _HOURS_REACH), s1):
            out.update((id(a), id(b)))
            stop = _SENTENCE_END.search(text, s2)
            until = stop.start() if stop else len(text)
    return [(s, a) for s, a in found if id(a) not in out]


_HOURS_REACH = 40  # characters before a range where the word of opening is looked for
_SENTENCE_END = re.compile(r"[.!?。！？\n]")


def _ends_said_with(text: str, found: list[tuple[int, NewAnchor]]) -> None:
    """A date right after an end date, said of it ("until Friday, March 13th", "until
    Friday or Saturday"), is in the end role too."""
    if not any(a.key == "until" for _, a in found):
        return  # (most turns)
    last_end = None
    for start, a in sorted(found, key=lambda f: f[0]):
        if a.kind != "date":
            continue
        if a.key == "date" and last_end is not None \
                and C.date_end_more.fullmatch(text, last_end, start) is not None:
            a.key = "until"
        last_end = start + len(a.value) if a.key == "until" else None


def _ends(text: str, start: int, end: int) -> bool:
    """Whether the date at ``text[start:end]`` is in the end role: by the words before
    it (English, "until"; 住到) or, as Chinese says it, the act after it (3月6日还车)."""
    lo = max(0, start - _END_REACH)
    return C.date_end.search(text, lo, start) is not None \
        and C.date_end_negated.search(text, max(0, start - 2 * _END_REACH), start) is None \
        or C.date_end_after.match(text, end) is not None


# Clause-level cues, from every language pack (convstate.lang). A clause takes the first
# category that matches, in this order: question, negative, constraint, preference,
# completion, commitment, goal; a decision may be any of them. Sentiment: negative
# phrases are matched first and masked, so that "不满意" / "not happy" never count as the
# positive "满意" / "happy".
C = Cues()
_CLAUSE = re.compile(r"[^，,]+(?:[，,]+)?")
# A turn gives at most as many values as the state keeps live of one key: a pasted list
# of 100 order numbers is taken whole, and what a longer text holds past this is named
# in the fold's log.
MAX_ANCHORS_PER_TURN = MAX_LIVE_PER_KEY
MAX_CLAUSE = 160  # a constraint, a goal or a task is a clause, not a paragraph
# A turn's clauses read for tasks, goals, decisions...: a message that says more is a
# pasted text (a long chat's pasted pages have ~130); past it, what one clause costs
# (a completion is compared with every open task) would grow with the turn's length.
MAX_CLAUSES_PER_TURN = 256
_TRAILING = "，。,.;；!！、:：…~～ "


@dataclass
class _Clause:
    turn: Turn
    text: str  # verbatim substring of turn.text
    question: bool  # its sentence asks something
    sentence: int = 0  # which sentence of the turn it is in
    start: int = 0  # where it starts in the turn's content
    # the clause with the frame of time before it, verbatim ("From now on, don't call
    # me": a rule for every time, 以后，别打电话), or the clause alone
    framed: str = ""
    tag: str = ""  # the consent its sentence asks after it ("is that okay?", 可以吗？)

    def __post_init__(self) -> None:
        self.framed = self.framed or self.text


class RuleExtractor(BaseExtractor):
    """Offline, deterministic extractor for Chinese and English conversations."""

    name = "rules"
    live = True  # cheap enough to read every turn as it comes (live.py)

    def extract(self, turns: Sequence[Turn], index: Sequence[IndexEntry],
                delta_model: type[StateDelta] = StateDelta) -> Extraction:
        """A delta from ``turns`` alone; ``index`` lets completions close existing tasks.

        Of a state model's own fields it fills anchor fields (through the anchors, by
        kind) and Literal fields that carry a ``Cue``.
        """
        delta = StateDelta(language=detect_language(" ".join(t.text for t in turns)))
        open_tasks = [e for e in section_entries(index, "open_tasks") if e.status == "open"]
        open_requests = [e for e in section_entries(index, "requests") if e.status == "open"]
        live_goals = [e for e in section_entries(index, "goals") if e.status == "active"]
        notes: list[str] = []
        # the names in the user turn just before, looked up when a value may be about one
        asked: list[str] | None = None
        asks = Asks(index)  # the values the assistant asked the user for
        cue_fields = _cue_fields(delta_model)
        cue_options = [o for _, options in cue_fields for o in options]
        for turn in turns:
            anchors = find_anchors(turn, notes)
            if len(anchors) > MAX_ANCHORS_PER_TURN:  # before the answers look through them
                left = anchors[MAX_ANCHORS_PER_TURN:]
                kinds = ", ".join(f"{k} {n}" for k, n in Counter(a.key for a in left).items())
                notes.append(f"turn #{turn.index}: {len(left)} values past the first "
                             f"{MAX_ANCHORS_PER_TURN} not taken ({kinds}), from "
                             f"{left[0].value[:40]!r} on")
                anchors = anchors[:MAX_ANCHORS_PER_TURN]
            anchors = _alternates(turn, anchors, index)  # "also try my work phone"
            anchors = asks.answer(turn, anchors, delta)
            anchors = corrected_ids(turn, anchors, index)  # "No, it's SR-778812."
            anchors, down = ids_alike(turn, anchors, index)  # "It's SR-20240315-898."
            delta.updates.extend(down)
            anchors = anchors + _count_changed(turn, anchors, index)  # "Make it 3."
            anchors = _roles_said_again(turn, anchors, index, delta, turns)
            anchors = _ends_said_again(turn, anchors, index, delta, turns)
            anchors = _own_name_said_again(anchors, index, delta)
            anchors = self_corrected(turn, anchors)
            anchors, down = declined(turn, anchors, index)
            delta.updates.extend(down)
            anchors, down = moved_from(turn, anchors, index)
            delta.updates.extend(down)
            anchors, down = cancelled(turn, anchors, index)
            delta.updates.extend(down)
            anchors, down = proposed_instead(turn, anchors, index)
            delta.updates.extend(down)
            loose = [a for a in anchors if a.subject is None and a.kind != "name"
                     and _tied(a, turn.role)] if turn.role == "assistant" else []
            if loose:  # "全聚德的电话？" "是010-…"
                asked = _asked_before(turns, index) if asked is None else asked
                for a in loose if len(asked) == 1 else ():
                    a.subject = asked[0]
            asked = [a.value for a in anchors if a.kind == "name"
                     and len(a.value) <= MAX_SUBJECT] if turn.role == "user" else asked
            delta.anchors.extend(anchors)
            before = _sizes(delta)
            clauses = _clauses([turn])
            goal: tuple[_Clause, NewGoal] | None = None  # the last goal, its clause
            for clause in itertools.islice(clauses, MAX_CLAUSES_PER_TURN):
                goes_on = goal is not None and goal[0].sentence == clause.sentence
                sizes, goals = _sizes(delta) if goes_on else None, len(delta.goals)
                self._clause(clause, delta, open_tasks, live_goals)
                if len(delta.goals) > goals:
                    goal = (clause, delta.goals[-1])
                elif goal and goes_on and _sizes(delta) == sizes \
                        and _go_on(goal[1], goal[0].start, clause, anchors):
                    continue
                else:
                    goal = None  # (what says something of its own ends the goal's words)
            if unread := sum(1 for _ in clauses):
                notes.append(f"turn #{turn.index}: {unread} clauses past the first "
                             f"{MAX_CLAUSES_PER_TURN} not read")
            delta.facts.extend(find_facts(turn, anchors, _added_texts(delta, before)))
            delta.preferences.extend(requirements(turn))  # (the user's, of what they seek)
            asks.ask(turn, anchors, delta)
            # the user's to take or turn down
            taken = [sentence for sentence, _ in offers(turn, anchors)]
            taken += [s for s in cue_offers(turn, cue_options) if not any(s in t for t in taken)]
            # "Shall I add breakfast?" (one naming a Cue field's option is cue_offers' to
            # take or leave: "Would you like a refund? We can also do an exchange.")
            offered = [a.value for a in anchors if a.key in OFFERED_KEYS]
            taken += [own_part(q, offered) for q in closed_questions(turn)
                      if not any(q in t for t in taken)
                      and not any(p.search(q) for _, p in cue_options)]
            for sentence in taken:
                delta.open_tasks.append(NewTask(text=sentence, owner="user",
                                                turns=[turn.index]))
            if turn.role == "user":
                answer_closed(turn, delta.open_tasks, index, delta)  # (before the
                # confirmations' close those of an offer)
                _answered_once(delta.decisions, turn.index)
                _answer_asks({a.kind for a in anchors}, delta, open_tasks, turn.index)
                _answer_confirmation(turn, delta, open_tasks)
                _answer_info(turn, delta, open_tasks)
                delta.updates.extend(corrected(turn, anchors, index))
                delta.updates.extend(answer_offer(turn, anchors, index)
                                     or took_stated(turn, anchors, index))
                delta.updates.extend(taken_up(turn, anchors, index))
                delta.updates.extend(switched(turn, anchors, index))
                delta.updates.extend(retried(turn, anchors, index))
                delta.updates.extend(given_up(turn, _said_in, index, delta))
                delta.updates.extend(let_go(turn, _said_in, index, delta))
                delta.updates.extend(lifted(turn, _said_in, index))
                delta.updates.extend(chosen_again(turn, list(_said_in(turn)), index, delta))
                _refused(turn, open_tasks, delta)
            elif turn.role == "assistant" and turn.content:
                _answer_requests(turn, {a.key for a in anchors} | {a.kind for a in anchors},
                                 delta, open_requests)
                delta.updates.extend(switched_away(turn, anchors, index))
        delta.sentiment = sentiment_of(turns)
        if delta_model is not StateDelta:
            # no re-validation: a long batch may hold more items than a model may send
            cued = _cued(turns, cue_fields, _offers_by_turn(delta, index)) if cue_fields \
                else {}
            values: dict[str, Any] = {**dict(delta), **cued}
            delta = delta_model.model_construct(**values)
        return Extraction(delta=delta, extractor=self.name, notes=notes)

    def _clause(self, c: _Clause, delta: StateDelta, index: list[IndexEntry],
                goals: list[IndexEntry]) -> None:
        """What one clause gives: ``index`` holds the open tasks, ``goals`` the live goals."""
        role, text, at, question = c.turn.role, c.text, [c.turn.index], c.question
        junk = role == "user" and expressive(text)  # asks for nothing (lang/acts.py)
        if role == "user":
            if junk and not C.asks.search(text) and _words(text) <= _EXCLAIMED:
                pass  # a short pleasantry or outcry put as a question asks nothing ("Are
                # you kidding me?", "Hello?"): the sentiment's to read
            elif (C.question.search(text) or C.asks.search(text)) and not C.negative.search(text):
                if (m := C.seek_ask.search(text)) and not C.seek_nothing.match(text, m.end()) \
                        and not C.goal_stop.search(text):
                    # a search asked for ("Can you find me a cheap restaurant?", 请帮我找
                    # 一家评分4.5分以上的酒店吗？): answered, what it seeks is still sought
                    delta.goals.append(NewGoal(text=text, turns=at))
                else:
                    delta.requests.append(NewRequest(text=text, turns=at))
            elif junk:
                pass  # a pleasantry, a feeling, a complaint: the sentiment's to read
            elif refusal(text) and not _objectless(text):
                delta.anchors.append(NewAnchor(kind="negative_constraint",
                                               key="negative_constraint", value=c.framed,
                                               turns=at))
            elif (m := C.constraint.search(text)) and not quoted(text, m.start()) \
                    and not _budget_amount(c.turn, text, delta):
                delta.anchors.append(NewAnchor(kind="constraint", key="constraint",
                                               value=c.framed, turns=at))
            elif m := C.preference.search(text):
                cue = m.group(0).lower()
                # ("I'd rather not": a weighing cue negated after it; not "我喜欢不辣的菜")
                weighed_not = bool(C.weighs.search(cue) and C.not_after.match(text, m.end()))
                dislike = bool(C.dislike.search(cue)) != (negated(text, m.start()) or weighed_not)
                polarity: Literal["like", "dislike"] = "dislike" if dislike else "like"
                topic = normalize(text[m.end():])[:12] or normalize(text)[:12]
                delta.preferences.append(NewPreference(text=text, polarity=polarity, topic=topic,
                                                       turns=at))
            elif _lifecycle(c, delta, index, goals):
                pass
            elif (m := C.goal.search(text)) and not C.goal_stop.search(text[m.start():]) \
                    and not negated(text, m.start()):
                delta.goals.append(NewGoal(text=text, turns=at))
        elif role == "assistant":
            if _lifecycle(c, delta, index, goals):
                pass
            elif C.ask_user.search(text) or C.ask_info.search(text) \
                    and not asked_kinds(text, owed=True):  # (a kind's ask: answers.py)
                delta.open_tasks.append(NewTask(text=text, owner="user", turns=at))
        if role in ("user", "assistant") and (m := C.decision.search(text)) and not question \
                and not negated(text, m.start()) and not junk:
            delta.decisions.append(NewDecision(text=text, turns=at))


# words of a question that may be an outcry and no more ("Are you kidding me?"); a
# longer one, or one with a question word, asks ("Why is my refund still not here?")
_EXCLAIMED = 5


def _words(text: str) -> int:
    """How many words ``text`` says: Latin ones, and a Chinese one per two characters."""
    han = sum(len(run) for run in HAN_RUN.findall(text))
    return len(HAN_RUN.sub(" ", text).split()) + han // 2


# the sections a clause may go to (a fact is what fits none of them)
_TEXT_SECTIONS = tuple(s.name for s in BUILT_IN if s is not FACTS)


def _sizes(delta: StateDelta) -> dict[str, int]:
    return {name: len(getattr(delta, name)) for name in _TEXT_SECTIONS}


def _asked_before(turns: Sequence[Turn], index: Sequence[IndexEntry]) -> list[str]:
    """The names stated in the latest turn before these turns that stated anything (the
    user's question, when turns are read one at a time as they come: it is in the
    state's index by then)."""
    if not turns or turns[0].role == "user":
        return []
    first = turns[0].index
    latest = max((e.turn for e in index if e.turn is not None and e.turn < first),
                 default=None)
    if latest is None:
        return []
    return [e.text.split("=", 1)[1] for e in section_entries(index, "anchors")
            if e.turn == latest and e.text.startswith("names=")]


def _added_texts(delta: StateDelta, before: dict[str, int]) -> list[str]:
    """What the clauses of one turn gave other sections (a constraint, a goal...)."""
    return [text_of(item) for name, n in before.items()
            for item in getattr(delta, name)[n:]
            if name != "anchors" or item.kind in ("constraint", "negative_constraint")]


def find_anchors(turn: Turn, notes: list[str] | None = None) -> list[NewAnchor]:
    """Every pattern anchor in one turn, each value a verbatim slice of the turn's text.

    A value longer than the state holds (MAX_TEXT) is not taken, and its characters are
    claimed all the same (no looser pattern takes a piece of it); ``notes`` gets a line
    saying so."""
    text = turn.text
    masked = text
    priced: list[tuple[int, int]] = []  # (a price may be part of a plan's name: 畅联58元套餐)
    found: list[tuple[int, NewAnchor]] = []
    too_long: list[str] = []
    digits = _DIGIT.search(text) is not None
    for kind, key, pattern, group in ANCHOR_PATTERNS:
        if not digits and id(pattern) in _NUMERIC:
            continue
        if (needs := _NEEDS.get(id(pattern))) and not needs.search(text):
            continue
        if key == "quote" and (turn.role not in ("user", "assistant") or not turn.content):
            continue  # a tool call's JSON is full of quotation marks that quote no one
        if key == "name" and turn.role != "user":
            continue  # (the agent's own name is no one's the state keeps)
        claimed: list[tuple[int, int]] = []  # in order, never overlapping
        for m in pattern.finditer(masked):
            if group < 0:  # alternatives: the first capture group that took part
                group_at = next(g for g in range(1, len(m.groups()) + 1) if m.group(g))
            else:
                group_at = group
            spans = [m.span(group_at)]
            if key in LISTED:  # and the values listed after it
                spans += _listed(masked, LISTED[key], *spans[0])
            for start, end in spans:
                if key == "count" and "\0" in masked[start:end]:  # 两张周六的票: a value
                    end = masked.index("\0", start)  # within; the count is 两张
                value = text[start:end].strip().rstrip(".")
                if not value or "\0" in masked[start:end] or (
                        claimed and start < claimed[-1][1]) \
                        or (key == "duration" and name_goes_on(text, end)):  # overlaps an
                    continue  # earlier anchor, or it begins a name (7天连锁酒店)
                if key == "count" and not _wanted_count(text, start, end):
                    continue  # (no count: its words stay for the names, 一位钢琴家)
                claimed.append((start, end))
                if len(value) > MAX_TEXT:
                    too_long.append(key)
                    continue
                if kind == "amount" and _BUDGET_CUE.search(text[max(0, start - 16):start]):
                    key_here = "budget"
                elif kind == "date" and _ends(text, start, end):
                    key_here = "until"
                elif key == "count":
                    key_here = count_key(value)
                else:
                    key_here = key
                found.append((start, NewAnchor(kind=kind, key=key_here, value=value,
                                               turns=[turn.index])))
        masked = _masked(masked, claimed)
        priced += claimed if kind == "amount" else ()
    _ends_said_with(text, found)
    found = _not_hours(text, found)
    # a tool's record is data; a kind of place named is what the user asks for or what
    # the assistant says a place is (高档型的酒店)
    products = find_products(_masked(masked, priced, shown=text)) if turn.role != "tool" else []
    masked = _masked(masked, products)
    names = find_names(masked, categories=True) if turn.role != "tool" else []
    too_long += ["names" for s, e in names + products if e - s > MAX_TEXT]
    names = [(s, e) for s, e in names if e - s <= MAX_TEXT]
    products = [(s, e) for s, e in products if e - s <= MAX_TEXT]
    tied = [(start, anchor) for start, anchor in found if _tied(anchor, turn.role)]
    if tied:  # a value is about the nearest name before it, if any
        stops, named = [m.start() for m in _BREAK_AT.finditer(text)], sorted(names + products)
        for start, anchor in tied:
            anchor.subject = _nearest(text, named, start, stops)
    for start, anchor in found if turn.role == "assistant" else ():
        if anchor.kind in CONTACT_KEYS and anchor.subject is None:  # "Our hotline is ..."
            first, _ = _clause(text, start, start)
            own = [m for m in C.own_contact.finditer(text, first, start)
                   if C.contact_link.fullmatch(text, m.end(), start) and (
                       m.group(0).lower() != "us" or C.reach_us.search(text, first, m.start()))]
            anchor.subject = own[-1].group(0) if own else None
    for start, anchor in found if turn.role == "user" else ():
        if anchor.kind in _OWNED and anchor.subject is None:  # "cc my assistant at ..."
            first, _ = _clause(text, start, start)
            if first and not text[first:start].strip():  # "my wife's email, a@b.c"
                first, _ = _clause(text, first - 1, first - 1)
            if owner := C.owner.search(text, first, start):
                anchor.subject = owner.group(0)
            elif pronoun := C.third_owner.search(text, first, start):  # "Her phone is"
                relations = list(C.relation.finditer(text, 0, pronoun.start()))
                anchor.subject = (relations[-1] if relations else pronoun).group(0)
            elif anchor.kind in CONTACT_KEYS and (theirs := _listeners(text, first, start,
                                                                       anchor.value)):
                anchor.subject = theirs  # "I called your hotline 1-800-...": the service's
    for start, end in products:
        found.append((start, NewAnchor(kind="name", key="product", value=text[start:end],
                                       turns=[turn.index])))
    for start, end in names:
        role, of = _name_role(text, start, end, turn.role)
        found.append((start, NewAnchor(kind="name", key=role, value=text[start:end],
                                       subject=of, turns=[turn.index])))
    if too_long and notes is not None:
        notes.append(f"turn #{turn.index}: {len(too_long)} value(s) over {MAX_TEXT} "
                     f"characters not taken ({', '.join(sorted(set(too_long)))})")
    return [a for _, a in sorted(found, key=lambda f: f[0])]


_APPOSED = re.compile(r"\s*[,，(（]\s*")  # a value set beside what it is, or in brackets


def _listeners(text: str, first: int, start: int, value: str) -> str | None:
    """What the user calls the contact at ``text[start:]`` (``value``, in a clause from
    ``first``) when it is the listener's: right before it ("your hotline 1-800-...",
    "Your hotline, 1-800-...,", 你们客服电话400-…, 打你们400-…) or right after it ("Is
    1-800-... your customer service number?")."""
    # (searched a character past ``start``: a cue may look ahead at the value, 打你们400-…)
    before = [m for m in C.listener_contact.finditer(text, first, start + 1)
              if m.end() <= start and (C.contact_link.fullmatch(text, m.end(), start)
                                       or _APPOSED.fullmatch(text, m.end(), start))]
    link = C.contact_link.match(text, start + len(value))
    after = C.listener_contact.match(text, link.end()) if link else None
    found = before[-1] if before else after
    return found.group(0) if found else None


def _alternates(turn: Turn, anchors: list[NewAnchor], index: Sequence[IndexEntry]
                ) -> list[NewAnchor]:
    """The user's contacts given as another of theirs ("you can also try my work phone",
    我的备用手机是…): about what the qualifier says, so each stands beside the one the user
    gave before — only when there is one (a first contact, "my work phone is ...", is the
    user's contact), and not when the turn puts it instead ("use my other number
    instead", "from now on", 以后打…)."""
    if turn.role != "user" or not turn.content or not any(
            a.kind in CONTACT_KEYS and a.subject is None for a in anchors):
        return anchors
    text = turn.content
    had = {key for e in section_entries(index, "anchors") if e.speaker == "user"
           and not e.subject and e.status == "active"
           for key, _, _ in [e.text.partition("=")] if key in CONTACT_KEYS}
    out = []
    for a in anchors:
        at = text.find(a.value)
        if a.kind in CONTACT_KEYS and a.subject is None and a.key in had and at > 0:
            first, _ = _clause(text, at, at)
            if first and not text[first:at].strip(" :："):  # "my work phone, 415-..."
                first, _ = _clause(text, first - 1, first - 1)
            alts = list(C.alt_contact.finditer(text, first, at))
            said = max((m.end() for m in _BREAK.finditer(text, 0, at)), default=0)
            end = _BREAK.search(text, at)
            if alts and not C.instead_of_contact.search(text, said, end.start() if end
                                                        else len(text)):
                a = a.model_copy(update={"subject": alts[-1].group(0)})
        out.append(a)
    return out


# what someone else may own: a contact, an order, an account ("my friend's order number")
_OWNED = CONTACT_KEYS | {"order_id", "tracking_number", "account"}


# how far before a name its role's word is looked for ("in the ", "another "), and the
# request that seeks it ("I'd like to see a ", "can you recommend a ")
_ROLE_REACH, _SEEK_REACH = 12, 24


def _name_role(text: str, start: int, end: int, speaker: str) -> tuple[str, str | None]:
    """The key of the name at ``text[start:end]`` by its role, and what it is about: where
    a search is ("in Walnut Creek"); what a user's request seeks (a category), one of a
    kind heading its phrase ("I need a Psychiatrist", "is there another SUV?"; not "a
    GUI library", "my car is a Toyota") or a type of place (经济型酒店: about 酒店, so one
    for a hotel and one for a restaurant stand together), unless the request adds one
    more ("a Sprite too", 另外…); a grade said of a named place (高档型的北京贵都大酒店),
    about its kind; a name the user says is the listener's (你们的APP, "your SmartHome
    app"), about the listener: the service's thing, not the user's; or a name (which one:
    "Dr. Lee", 如家)."""
    if C.address_role.search(text, max(0, start - _SEEK_REACH), start):
        return "address", None
    if speaker == "user" and (owner := C.listeners.search(text, max(0, start - _ROLE_REACH),
                                                           start)):
        return "names", owner.group(0).rstrip("的 ")  # the service's (你们的APP, your app)
    if speaker == "user" and C.own_name.search(text, max(0, start - _SEEK_REACH), start):
        return "name", None
    if end_of_trip := _trip_end(text, start, end):
        return end_of_trip, None
    before = text[max(0, start - _ROLE_REACH):start]
    if C.locative.search(before):
        return "place", None
    if kind := typed_kind(text, start, end):  # the grade of a named place (高档型的北京
        # 贵都大酒店): about its kind, so what is sought next for that kind replaces it
        return "category", kind
    of = category_kind(text[start:end])
    indefinite = C.indefinite.search(before) is not None
    one_of_a_kind = indefinite and C.phrase_end.match(text, end)
    if speaker != "user":  # the kind the assistant offers or says a place is, about no
        # kind in particular: what the user seeks next replaces it, the assistant's own
        # kinds of two places stand together (如家是经济型酒店, 全季是舒适型酒店)
        return ("category" if of or one_of_a_kind else "names"), None
    first, last = _clause(text, start, end)
    if kind := _kind_of(text, start, end, (first, last)):  # "Drama movies"
        return "category", kind
    if C.adds.search(text, first, last):
        return "names", None
    if of:
        return "category", of
    head = C.kind_head.match(text, end) if indefinite else None
    seeks = C.seeks.search(text, max(first, start - _SEEK_REACH), start)
    taken = indefinite and C.kind_taken.match(text, head.end() if head else end)
    # ... not refused ("I'm not happy with a Hatchback", "don't pick a Minivan")
    if ((one_of_a_kind or head) and seeks or taken) \
            and not C.negator.search(text, max(first, start - _SEEK_REACH), start):
        return "category", None
    return "names", None


def _kind_of(text: str, start: int, end: int, clause: tuple[int, int]) -> str | None:
    """The noun of a kind that the user's name at ``text[start:end]`` says which of
    ("Drama movies": movie; "Halal type of food": food), heading its phrase; None if none,
    or if its clause (``clause``: its bounds) turns it away before it ("I don't think I
    want Mexican food", "no Thai food", "I'm allergic to Thai food"), or it is a
    particular one the user has ("the Netflix movie") or one more added ("Thai food
    too"). (The assistant's are names: the kinds of the places it describes, "Café
    Habana with Mexican food", are no kind sought.)"""
    noun = C.kind_noun.match(text, end)
    first, last = clause
    if noun is None or C.negator.search(text, first, start) \
            or C.neg_det.search(text, first, start) or C.dislikes.search(text, first, start) \
            or C.particular.search(text, max(0, start - _ROLE_REACH), start) \
            or C.adds.search(text, first, last):
        return None
    return next(g for g in noun.groups() if g).lower()


# how far before a name its trip's verb is looked for ("picking them up from "), and a
# "from" before it with the name it was said of ("from Toronto Pearson International
# Airport to ")
_TRIP_REACH, _PAIR_REACH = 32, 72


def _trip_end(text: str, start: int, end: int) -> str | None:
    """The end of a trip the name at ``text[start:end]`` is ("origin": where it starts;
    "destination": where it ends; the cues say how), or None: its own role ("a bus from
    Fresno to San Diego", "I'm leaving from Las Vegas, going to Sacramento"; not "an email
    from Sarah", "tickets to Giants Vs Dodgers")."""
    before = text[max(0, start - _TRIP_REACH):start]
    if not C.phrase_end.match(text, end):
        return None
    # the sentence (its commas may set off a name's region: "from Fresno, CA to SD")
    first, last = _sentence(text, start, end)
    if C.trip_from.search(before) or C.trip_leave.search(before) and C.trip_when.match(text, end):
        role, context = "origin", C.trip_context
    elif C.trip_to.search(before):
        role, context = "destination", C.trip_context
    elif C.trip_pair.search(text, max(0, start - _PAIR_REACH), start) \
            or C.trip_reach.search(before):
        role, context = "destination", C.trip_means
    elif C.trip_from_only.search(before) and C.trip_pair_ahead.match(text, end):
        role, context = "origin", C.trip_means
    else:
        return None
    return role if context.search(text, first, last) else None


def _sentence(text: str, start: int, end: int) -> tuple[int, int]:
    """Where the sentence holding ``text[start:end]`` starts and ends (within a clause's
    length either way)."""
    return _between(_BREAK, text, start, end)


def _clause(text: str, start: int, end: int) -> tuple[int, int]:
    """Where the clause holding ``text[start:end]`` starts and ends (within a clause's
    length either way)."""
    return _between(_CLAUSE_BREAK, text, start, end)


def _between(breaks: re.Pattern[str], text: str, start: int, end: int) -> tuple[int, int]:
    starts = [m.end() for m in breaks.finditer(text, max(0, start - MAX_CLAUSE), start)]
    stop = breaks.search(text, end, end + MAX_CLAUSE)
    return (starts[-1] if starts else max(0, start - MAX_CLAUSE),
            stop.start() if stop else min(len(text), end + MAX_CLAUSE))


def _listed(text: str, more: re.Pattern[str], start: int, end: int) -> list[tuple[int, int]]:
    """The spans of the values listed right after ``text[start:end]``, each of its form."""
    form = _form(text[start:end])
    out = []
    while (m := more.match(text, end)) and _form(m.group(1)) == form:
        start, end = m.span(1)
        out.append((start, end))
    return out


def _form(value: str) -> str:
    """What a value looks like: each run of letters 'A', of digits '9', the rest kept."""
    return re.sub(r"[^\W\d_]+", "A", re.sub(r"\d+", "9", value))


def _masked(text: str, spans: list[tuple[int, int]], shown: str | None = None) -> str:
    """``text`` with each of the (ordered, disjoint) ``spans`` blanked out with NULs, or
    with ``shown``'s characters there (a masked text's spans shown again)."""
    if not spans:
        return text
    pieces, at = [], 0
    for start, end in spans:
        pieces += [text[at:start], "\0" * (end - start) if shown is None else shown[start:end]]
        at = end
    pieces.append(text[at:])
    return "".join(pieces)


# Kinds whose values describe a named thing (True), or do so unless the user states
# them (False: the user's own phone or address is about the user).
_TIED = {"amount": True, "time": True, "date": True, "other": True, "phone": False,
         "address": False, "email": False}
# (also a full stop typed with no space before the next sentence: "...Caltrain
# Station.I will need it till March 14th")
_BREAK = re.compile(r"[。！？!?；;\n]|\.\s|(?<=[a-z])\.(?=[A-Z][a-z]* )")
_CLAUSE_BREAK = re.compile(rf"[，,]|{_BREAK.pattern}")  # a sentence's, or a comma
_BREAK_AT = re.compile(f"(?=(?:{_BREAK.pattern}))")  # every place one starts


def _tied(anchor: NewAnchor, role: str) -> bool:
    return _TIED.get(anchor.kind, False) or (anchor.kind in _TIED and role != "user")


def _nearest(text: str, names: list[tuple[int, int]], at: int, stops: list[int]
             ) -> str | None:
    """The name closest before ``at`` in the same sentence, verbatim, if it names
    nothing longer than a subject may be. ``stops``: where each _BREAK match of ``text``
    starts, in order."""
    before = [(s, e) for s, e in names if e <= at]
    if not before:
        return None
    s, e = max(before, key=lambda n: n[1])
    # a break between the name and ``at`` (the first one after the name ends first)
    k = bisect_left(stops, e)
    if k < len(stops) and (m := _BREAK.match(text, stops[k])) and m.end() <= at:
        return None
    return text[s:e] if e - s <= MAX_SUBJECT else None


# what a refusal holds besides what it refuses: particles, thanks, punctuation
_BARE = re.compile(r"[了的吧啊呀呢哦嘛，,。.!！?？\s]+|谢谢|thanks?|thank you", _I)


def _objectless(clause: str) -> bool:
    """A refusal that refuses nothing named (不用了，谢谢; 不需要): the answer to an offer,
    no constraint."""
    return not _BARE.sub("", C.negative.sub("", clause))


def _budget_amount(turn: Turn, clause: str, delta: StateDelta) -> bool:
    """A budget clause whose amount is already a 'budget' anchor of this turn (that one
    supersedes); the turn's anchors are in the delta before its clauses are read."""
    return bool(_BUDGET_CUE.search(clause)) and any(
        a.key == "budget" and a.value in clause and turn.index in a.turns
        for a in delta.anchors)


def _go_on(goal: NewGoal, at: int, clause: _Clause, anchors: Sequence[NewAnchor]) -> bool:
    """A clause of the user's no section takes, in the sentence of a goal (said at ``at``)
    after it, goes on with what the goal seeks (请帮我找一家人均消费100-150元的，|有大螃蟹这个菜
    的餐馆; "I need a hotel in SF, |close to the airport"): the goal's text runs through
    it. Not one that says something of its own: a new subject ("the package arrived
    damaged", 我…), the user's contact or id, taking back or correcting ("never mind",
    "actually no"), a refusal, a pleasantry, a feeling or a complaint, a question: it
    ends the goal's words. Say whether the goal went on."""
    text, said = clause.turn.content or "", clause.text
    if clause.turn.role != "user" or expressive(said) or C.question.search(said) \
            or _NEW_SUBJECT.match(said) or C.give_up.search(said) or C.corrects.search(said) \
            or refusal(said) or any(a.kind in _PERSONAL and a.value in said for a in anchors):
        return False
    end = clause.start + len(said)
    if not text.startswith(goal.text, at) or end - at > MAX_CLAUSE:
        return False
    goal.text = text[at:end]
    return True


# what opens a clause of its own: a subject (a pronoun, a determiner), a conjunction,
# or a word of politeness alone (please, 麻烦了)
_NEW_SUBJECT = re.compile(r"(?:i|you|he|she|it|we|they|my|your|his|her|its|our|their|the|this"
                          r"|that|these|those|there|and|but|or|so|because|since|as|then|also"
                          r"|please|thanks?)\b|[我你您他她它咱这那麻谢]|因为|所以|但|而且|并且|然后",
                          _I)
# a clause holding one of these says the user's own details (or someone's name), not
# what a goal seeks
_PERSONAL = frozenset({"email", "phone", "order_id", "ticket_id", "tracking_number",
                       "account", "address", "name"})


def _said_in(turn: Turn) -> Iterator[tuple[str, bool]]:
    """(text, asks) of each clause of ``turn`` (``_clauses``)."""
    return ((c.text, c.question) for c in _clauses([turn]))


def _clauses(turns: Sequence[Turn]) -> Iterator[_Clause]:
    for turn in turns:
        if turn.role not in ("user", "assistant") or not turn.content or expository(turn):
            continue
        sentences = (s for part in EN_SENTENCE.split(turn.content)
                     for s in SENTENCE.findall(part))
        at = 0  # (each clause is found after the one before: where it is, not its twin's)
        for k, sentence in enumerate(sentences):
            question = bool(C.question.search(sentence))
            parts = _CLAUSE.findall(sentence)
            # a sentence that asks only consent after what it says ("I'll send a new one
            # tomorrow, is that okay?", 我明天给您补发，可以吗？): only its tag asks
            tag = parts[-1].strip() if question and len(parts) > 1 \
                and C.consent_tag.fullmatch(parts[-1].strip()) else ""
            frame = None  # where a clause that only says "for every time" starts
            for n, part in enumerate(parts):
                text = part.strip().rstrip(_TRAILING)
                if 2 <= len(normalize(text)) and len(text) <= MAX_CLAUSE:
                    at = max(turn.content.find(text, at), at)
                    framed = turn.content[frame:at + len(text)] if frame is not None else ""
                    told = bool(tag) and n < len(parts) - 1
                    yield _Clause(turn, text, question and not told, k, at,
                                  framed if framed.endswith(text) else "",
                                  tag if told else "")
                    frame = at if C.time_frame.fullmatch(text) else None
                    at += len(text)


def _close_matching(items: Sequence[NewTask | NewRequest], index: list[IndexEntry],
                    matches: Callable[[str, str | None], bool], status: Any,
                    delta: StateDelta, turn: int) -> bool:
    """Close the open items of this batch, and the open index entries, whose (text, owner)
    ``matches``: the batch's in place, the index's as updates by id. Say whether any was."""
    closed = False
    for item in items:
        if item.status == "open" and matches(item.text, getattr(item, "owner", None)):
            item.status, closed = status, True
            item.turns.append(turn)
    done_ids = {u.id for u in delta.updates}
    for entry in index:
        if entry.id not in done_ids and matches(entry.text, entry.owner):
            delta.updates.append(ItemUpdate(id=entry.id, status=status, turn=turn))
            closed = True
    return closed


def _lifecycle(c: _Clause, delta: StateDelta, index: list[IndexEntry],
               goals: list[IndexEntry]) -> bool:
    """A clause's reports close the open tasks (``index``) of the same act (a failure
    cancels them) and achieve the live goals that want it (goals.py); its promises open
    tasks of the speaker's, replacing a renewed one (extract/tasks.py); say whether it
    did any of it."""
    if c.question:
        return False
    role, turn = c.turn.role, c.turn.index
    reading = read(c.text, role)
    if not (reading.promises or reading.reports or reading.failures) \
            and (joined := JOINED_ZH.match(c.text)) \
            and (_promised_before(c, delta) or _future_before(c)) \
            and not C.addressed.match(c.text, joined.end()) \
            and (act := act_of(c.text[joined.end():])) is not None:  # 并给您寄一张优惠券
        reading.promises.append((c.text[joined.end():], act))
    owner: Literal["user", "assistant"] = "user" if role == "user" else "assistant"
    acts: list[tuple[Act, Literal["done", "cancelled"], bool]] = \
        [(a, "done", False) for a in reading.reports] + \
        [(a, "cancelled", False) for a in reading.failures] + \
        [(a, "cancelled", True) for _, a in reading.promises]
    for act, status, renewal in acts:
        pending = _pending(delta.open_tasks, index, delta, turn)
        # the user completes an assistant's task only by saying it came (the fold's rule),
        # in their own word (not "Tracking says it was delivered", 物流显示已签收)
        mine = role != "user" or status != "done" or is_receipt(act) \
            and not C.hearsay.search(c.text)
        for k in closes(act, role, [(text, owner) for text, owner, _ in pending], renewal,
                        c.text):
            if mine or pending[k][1] != "assistant":
                pending[k][2](status)
    if role == "assistant" and reading.reports:  # "I've changed the delivery address":
        said = c.turn.text  # what was wanted
        after = said[said.find(c.text) + len(c.text):]
        for act in reading.reports:
            achieved(act, c.text, after, turn, goals, delta)
    for act in reading.withdrawals:  # "I've cancelled the replacement": its sending is off
        pending = _pending(delta.open_tasks, index, delta, turn)
        for k in withdrawn(act, [(text, owner) for text, owner, _ in pending]):
            pending[k][2]("cancelled")
    for text, _ in reading.promises:
        said = _with_condition(c, text)
        if c.tag:  # with the consent it asks, verbatim: a no to it cancels it (_refused)
            said = c.turn.text[c.turn.text.find(said):c.turn.text.find(c.tag, c.start)
                               + len(c.tag)] if said in c.turn.text else said
        delta.open_tasks.append(NewTask(text=said, owner=owner, turns=[turn]))
    return bool(reading.reports or reading.failures or reading.promises)


def _refused(turn: Turn, index: list[IndexEntry], delta: StateDelta) -> None:
    """A no that opens the user's reply to a promise that asked consent ("I'll send a new
    one tomorrow, is that okay?" "No, I'd rather have a refund") cancels it; a yes or
    anything else leaves it open."""
    if not turn.content or polarity(turn.content) is not False:
        return
    for t in delta.open_tasks:
        if t.owner == "assistant" and t.status == "open" and _asked_consent(t.text) \
                and 0 < turn.index - t.turns[-1] <= 2:
            t.status = "cancelled"
            t.turns.append(turn.index)
    delta.updates.extend(ItemUpdate(id=e.id, status="cancelled", turn=turn.index)
                         for e in index if e.owner == "assistant" and e.turn is not None
                         and 0 < turn.index - e.turn <= 2 and _asked_consent(e.text))


def _asked_consent(text: str) -> bool:
    return bool(C.consent_tag.fullmatch(([""] + _CLAUSE.findall(text))[-1].strip()))


def _answered_once(decisions: list[NewDecision], turn: int) -> None:
    """Drop the decisions of ``turn`` that only say again an answer to a closed question
    made of the same words ("Sounds good." to "Shall I book it?": the answer, with its
    question, is the decision; the clause alone is no second one)."""
    answers = [d.text for d in decisions if d.question and d.turns == [turn]]
    decisions[:] = [d for d in decisions if d.question or d.turns != [turn]
                    or not any(a.endswith(f"{ARROW}{d.text}") for a in answers)]


def _with_condition(c: _Clause, text: str) -> str:
    """A promise's text with the condition its sentence puts before it ("If you send us
    a photo, we will replace it"; 如果您寄回商品，我们会退款): owed only then."""
    said = c.turn.text
    at = said.find(text)
    if at <= 0 or not said[:at].rstrip().endswith((",", "，")):
        return text
    start = max((said.rfind(mark, 0, at) for mark in ".!?;。！？；\n"), default=-1) + 1
    before = said[start:at].strip()
    # the clause before opens with its condition ("If ...", 如果…) or ends with it (…的话);
    # not "Let me know if you need anything else, I'll ..."
    opens = C.condition.match(_OPENER.sub("", before)) or before.rstrip("，, ").endswith("的话")
    return said[start:at + len(text)].strip() if opens and len(before) <= MAX_CLAUSE else text


_OPENER = re.compile(r"^(?:(?:and|but|so|ok(?:ay)?|sure|also)\b|好的|那|那么)?\W*", re.IGNORECASE)


def _promised_before(c: _Clause, delta: StateDelta) -> bool:
    """Whether the clause right before ``c`` in its turn (a comma apart) made a promise
    of its speaker's."""
    last = delta.open_tasks[-1] if delta.open_tasks else None
    if last is None or last.turns != [c.turn.index] or last.owner != c.turn.role:
        return False
    text = c.turn.text
    at = text.find(c.text)
    before = text.rfind(last.text, 0, at) if at > 0 else -1
    return before >= 0 and not text[before + len(last.text):at].strip(" ，,")


def _future_before(c: _Clause) -> bool:
    """Whether the clause right before ``c`` in its sentence (a comma apart) opens with
    the speaker's future (我会先帮您查一下，|然后给您回电话)."""
    text = c.turn.text
    at = text.find(c.text)
    start = max((text.rfind(mark, 0, max(at - 1, 0)) for mark in "，,。！？!?\n"), default=-1)
    return at > 0 and text[at - 1] in "，," and bool(FUTURE_ZH.match(text, start + 1, at))


def _pending(items: Sequence[NewTask] | Sequence[NewRequest], index: list[IndexEntry],
             delta: StateDelta, turn: int
             ) -> list[tuple[str, str | None, Callable[[Any], None]]]:
    """The open items, oldest first (the index's that no update of this delta has taken,
    then this batch's), each as (text, owner, a setter of its status at ``turn``: an
    update by id, or in place)."""
    taken = {u.id for u in delta.updates}

    def update(entry: IndexEntry) -> Callable[[Any], None]:
        return lambda status: delta.updates.append(
            ItemUpdate(id=entry.id, status=status, turn=turn))

    def in_place(item: NewTask | NewRequest) -> Callable[[Any], None]:
        def set_status(status: Any) -> None:
            item.status = status
            item.turns.append(turn)
        return set_status

    return [(e.text, e.owner, update(e)) for e in index if e.id not in taken] + \
        [(i.text, getattr(i, "owner", None), in_place(i)) for i in items if i.status == "open"]


# What an assistant's request names, by the anchor kind that answers it.
_ASKED_FOR = {
    "order_id": re.compile(r"订单|order", _I),
    "phone": re.compile(r"电话|手机|号码|phone|number", _I),
    "email": re.compile(r"邮箱|email|e-mail", _I),
    "address": re.compile(r"地址|address", _I),
    "account": re.compile(r"账号|账户|account", _I),
}


def _answer_asks(kinds: set[str], delta: StateDelta, index: list[IndexEntry],
                 turn: int) -> None:
    """A user turn that gives the value an open request asked for closes that request
    (a request for values of kinds that answers.py reads closes there, once all of them
    are given)."""
    asked = [p for k, p in _ASKED_FOR.items() if k in kinds]
    if asked:
        _close_matching(
            delta.open_tasks, index,
            lambda t, o: o == "user" and bool(C.ask_user.search(t))
            and any(p.search(t) for p in asked) and not asked_kinds(t, owed=True),
            "done", delta, turn)


def _cue_fields(delta_model: type[StateDelta]) -> list[tuple[str, Options]]:
    """The fields of the state model of ``delta_model`` that carry a ``Cue``, each with
    its options' patterns."""
    state_model = getattr(delta_model, "__state_model__", None)
    specs = state_model.custom_fields() if state_model else {}
    return [(name, spec.cue.compiled()) for name, spec in specs.items()
            if spec.cue is not None]


def _offers_by_turn(delta: StateDelta, index: Sequence[IndexEntry]) -> dict[int, list[str]]:
    """The offers put to the user (their open tasks), by the turn that made them."""
    out: dict[int, list[str]] = {}
    for e in section_entries(index, "open_tasks"):
        if e.owner == "user" and e.status == "open" and e.turn is not None:
            out.setdefault(e.turn, []).append(e.text)
    for t in delta.open_tasks:
        if t.owner == "user":
            out.setdefault(t.turns[0], []).append(t.text)
    return out


def _cued(turns: Sequence[Turn], fields: list[tuple[str, Options]],
          offered: dict[int, list[str]]) -> dict[str, FieldValue[Any]]:
    """Values of the Cue-marked ``fields`` (``_cue_fields``): the option the latest user
    turn that chooses one chooses last (negation and scope: extract/negation.py); a later
    turn that chooses none but refuses one lets go of it (the fold clears the field if it
    holds it). A reply that agrees to an offer of one option in ``offered`` (by turn:
    "Would you like a refund?" "Yes, please.") chooses it."""
    out: dict[str, FieldValue[Any]] = {}
    for name, options in fields:
        said = []
        for t in turns:
            if t.role != "user" or not t.content:
                continue
            text = t.content
            words = {w for offer in offered.get(t.index - 1, ())
                     if (w := offered_option(offer, options)) is not None}
            if len(words) == 1 and agrees_only(text) and choice(text, options) == (None, []):
                text = words.pop()  # the option it takes, as if said
            said.append((t.index, text))
        if (found := latest_choice(said, options)) is not None:
            value, turn, refused = found
            out[name] = FieldValue[Any](value=value, turns=[turn], refused=refused)
    return out


# a bare number the user changes a value to, ending its clause ("Actually make it 3.")
_CHANGED_TO = re.compile(rf"\b(?:make\s+(?:it|that)|change\s+(?:it|that)\s+to"
                         rf"|we['’]?ll\s+be|we\s+will\s+be|we['’]?re|we\s+are)\s+"
                         rf"(\d{{1,2}}|{_EN_NUM})(?=\s*(?:instead|now|then|please|of\s+us)?"
                         rf"\s*[.!,]?\s*$)", re.IGNORECASE)


def _count_changed(turn: Turn, anchors: Sequence[NewAnchor], index: Sequence[IndexEntry]
                   ) -> list[NewAnchor]:
    """A bare number the user changes a value to ("Table for 2." … "Actually make it 3.")
    is a count of the one thing they gave a count of: only when their live counts are of
    one key and no time of theirs is live (then "make it 8" may be the hour). One said
    with what it counts ("change the number of tickets to two") is a count of that."""
    if turn.role != "user" or not turn.content or not _DIGIT_OR_WORD.search(turn.text):
        return []
    if (m := _NUMBER_OF_TO.search(turn.text)) and not any(a.key == count_key(m.group(1))
                                                           for a in anchors) \
            and _wanted_count(turn.text, m.start(), m.end()) \
            and (not asks(turn.text) or _ASKS_TO_DO.match(turn.text)):  # not "Did you change…?"
        # "change the number of tickets to two": the count of what it names
        return [NewAnchor(kind="other", key=count_key(m.group(1)), value=m.group(2),
                          turns=[turn.index])]
    m = _CHANGED_TO.search(turn.text.strip())
    if m is None or any(a.value == m.group(1) for a in anchors):
        return []
    keys = {e.text.partition("=")[0] for e in section_entries(index, "anchors")
            if e.status == "active" and e.speaker == "user"}
    counts = keys & COUNT_KEYS
    if len(counts) != 1 or "time" in keys:
        return []
    return [NewAnchor(kind="other", key=counts.pop(), value=m.group(1), turns=[turn.index])]


_ASKS_TO_DO = re.compile(r"\W*(?:please\s+)?(?:can|could|would|will)\s+(?:you|I|we)\b",
                         re.IGNORECASE)  # a request put as a question
_NUMBER_OF_TO = re.compile(rf"\bnumber\s+of\s+({_COUNTED_ANY})\s+to\s+(\d{{1,2}}|{_EN_NUM})\b",
                           re.IGNORECASE)
_DIGIT_OR_WORD = re.compile(rf"\d|\b{_EN_NUM}\b", re.IGNORECASE)


def _answer_requests(turn: Turn, keys: set[str], delta: StateDelta, index: list[IndexEntry]
                     ) -> None:
    """An assistant reply answers the user's open questions, this batch's before it and
    the index's (asked in an earlier batch): one whose value it gives (a phone number for
    "电话是多少", by the key the question asks for); a yes/no question by a reply that
    starts with yes or no; and, when it gives none of the values asked for, any question
    by a substantive reply (a statement, not only a question back, a pleasantry or "let
    me check"). A question stays open only past replies that did not answer, so a reply
    answers what was asked since the last one that did."""
    text = turn.content or ""
    pending = _pending(delta.requests, index, delta, turn.index)
    if not pending:  # no open question: the reply is not read for answers
        return
    asks = [_asked(question) for question, _, _ in pending]
    given = keys | {"address"} if "name" in keys else keys  # a place named answers "where"
    typed = [bool(wants & given) for wants in asks]
    full = _substantive(text)
    polar = bool(C.polar_answer.search(text.strip()))
    # Of several questions, a reply that gives one its value, or speaks of what some ask,
    # answers those only ("The termination fee is $50" leaves "can I keep my number?"
    # open); one that speaks of none answers any, as a lone question's reply does.
    said = terms(text) if full and len(pending) > 1 else frozenset()
    about = [bool(said and said & terms(question)) for question, _, _ in pending]
    narrow = any(typed) or any(about)
    for (question, _, answered), by_value, spoken in zip(pending, typed, about, strict=True):
        if by_value or full and (spoken or not narrow) or (
                polar and C.polar_question.search(question)):
            answered("answered")


# The keys of the values a question may ask for (each a cue "asked_<key>" in the packs).
_ASKABLE = ("phone", "email", "address", "order_id", "account", "time", "date", "amount",
            "duration", "rating")


def _asked(question: str) -> frozenset[str]:
    return _asked_in(question, LANGUAGES.version)


@lru_cache(maxsize=4096)
def _asked_in(question: str, version: int) -> frozenset[str]:
    """The keys ``question`` asks for (cached: an open question meets every reply)."""
    del version  # the cache key: the cues change when a pack is registered
    return frozenset(k for k in _ASKABLE if getattr(C, f"asked_{k}").search(question))


_EN_WORD = re.compile(r"[A-Za-z]{3,}")
# a word holding a digit (a number or a code counts two words), tried where its run of
# letters and digits starts (from each of its characters, a long run without one was quadratic)
_WITH_DIGIT = re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]*\d[A-Za-z0-9]*")


def _substantive(text: str) -> bool:
    """Says something: clauses that are no question (but may propose: "How about X?") and
    no "let me check", with two content words in all besides acknowledgments (a Chinese
    character counting half a word, a number or code two: "It's SF1234567890")."""
    words = 0.0
    for part in EN_SENTENCE.split(text):
        for sentence in SENTENCE.findall(part):
            for m in _CLAUSE.finditer(sentence):
                clause = m.group(0).strip().rstrip(_TRAILING)
                proposed = C.proposal.search(clause)  # "How about Bluefin?" answers
                if not clause or C.interim.search(clause) or not proposed and (
                        C.question.search(clause) or C.asks.search(clause)):
                    continue
                said = C.acknowledgment.sub(" ", C.proposal.sub(" ", clause))
                words += len(_EN_WORD.findall(said)) + 2 * len(_WITH_DIGIT.findall(said)) + \
                    sum(map(len, HAN_RUN.findall(said))) / 2
    return words >= 2


def _answer_confirmation(turn: Turn, delta: StateDelta, index: list[IndexEntry]) -> None:
    """The user's next turn settles the assistant's request to confirm something
    ("Please confirm ..."/"请您确认...") or its offer ("Would you like me to try 11 am?":
    settle.offers): a yes, a no, or a change."""
    text = (turn.content or "").strip()
    if text:
        # a question back, a put-off, a hedge or a condition ("How much is it?", "I'll think
        # about it", "Yes, but only if it's free") leaves a closed question open (yesno.py);
        # read once, if ever: most turns close no question
        later = lru_cache(maxsize=1)(lambda: waits(text))
        _close_matching(delta.open_tasks, index,
                        lambda t, o: o == "user" and (
                            bool(C.ask_user.search(t)) and bool(C.ask_confirm.search(t))
                            or bool(C.offer.search(t) or C.offer_ask.search(t))
                            and not asked_kinds(t, owed=True))
                        and not (last_closed(t) and later()),
                        "done", delta, turn.index)


def _answer_info(turn: Turn, delta: StateDelta, index: list[IndexEntry]) -> None:
    """A user turn that says something answers the assistant's questions for a piece of
    the user's information of no kind the answers read ("What's your date of birth?"):
    those of a kind (an order number) wait for a value of it (answers.py)."""
    said = lru_cache(maxsize=1)(lambda: _substantive(turn.content or ""))  # read once, if
    # ever: most turns answer no such question
    _close_matching(delta.open_tasks, index,
                    lambda t, o: o == "user" and bool(C.ask_info.search(t))
                    and not asked_kinds(t, owed=True) and said(), "done", delta, turn.index)


def sentiment_of(turns: Sequence[Turn]) -> NewSentiment | None:
    """The user's mood over these turns, weighted toward the latest; None without cues."""
    readings: list[tuple[int, float, list[str]]] = []
    for turn in turns:
        if turn.role != "user" or not turn.content:
            continue
        text = turn.content
        negative, rest = masked_out(C.sentiment_neg, text)
        # (a complaint of how the service treats the user is a negative word too)
        neg = [m.group(0) for m in negative] + [m.group(0) for m in C.conduct.finditer(rest)]
        pos = C.sentiment_pos.findall(rest)
        if not neg and not pos:
            continue
        boost = 1 + 0.5 * min(len(C.intense.findall(text)), 2)
        n, p = len(neg) * boost, len(pos)
        readings.append((turn.index, (p - n) / (p + n + 1), neg + pos))
    if not readings:
        return None
    recent = readings[-3:]
    weights = range(1, len(recent) + 1)
    score = sum(w * s for w, (_, s, _) in zip(weights, recent, strict=True)) / sum(weights)
    score = max(-1.0, min(1.0, round(score, 2)))
    label: Literal["positive", "neutral", "negative"] = \
        "negative" if score <= -0.2 else "positive" if score >= 0.2 else "neutral"
    last_turn, _, words = readings[-1]
    return NewSentiment(label=label, score=score, reason=", ".join(dict.fromkeys(words)),
                        turn=last_turn)
