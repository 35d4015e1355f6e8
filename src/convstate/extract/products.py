"""Product, plan and service names, verbatim, by the grammar of such names (zh + en).

No list of products: a product name is a naming part followed by a head that says
what kind of product it is — 套餐, 流量包, 会员, 宽带, 月卡, 业务 ("畅享套餐", "5G流量包",
"黄金会员", 开通"来电显示业务"); plan, package, pack, subscription, membership, card, pass,
tier, broadband, warranty ("the Unlimited Plus plan", "Gold membership", "the 20GB data
add-on", "the Premium Care warranty").
The naming part is what tells one product from another, so a head alone, or one after
a word that only says which one or what for (这个套餐, 流量套餐, my plan, a new plan), is
no name:

- English: one to four words, each capitalized or holding a digit ("Unlimited Plus",
  "5GB", "Disney+"), on one line, after the last word that opens sentences or stands
  for no one (names.py's list: "The", "my", "Actually I") or says which one (new,
  current, same...); a lone capitalized word that opens a sentence is not enough
  ("Premium plans cost more"), a lone number is a count, and a plural head names a
  kind ("Gold cards"). The heads are count nouns of what is sold: a mass noun
  ("insurance") names a kind of thing.
- Chinese has no spaces, so a name starts after the last word a name comes after —
  a particle or preposition (的, 是, 为), a pronoun, a measure word (个, 种), an adverb
  or conjunction (也, 可能, 如果), a verb of having, choosing or changing (办理, 开通,
  升级到, 提供) — or at the start of its clause: two to six Han characters, or a Latin
  run (5G, PLUS, 100M). Not a number alone (2011年卡塔尔), not a word that only says
  what the product is for or how it is (流量套餐, 家庭宽带, 高速宽带), and not a head
  that starts a longer word (会员大会, 会员费).

Measured on 1.8 M characters of Chinese and English web and encyclopedia text (the
shared QA sets), 20 names in all, most of them names of things sold (乐视会员, VIP会员,
东西栅联票, BSkyB subscription); on the shared dialogue sets, one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .names import _NOT_NAMES, WORD, _opens_sentence

# -- English ---------------------------------------------------------------------------

# count nouns of what is sold by name (a mass noun, "insurance", names a kind of thing)
_EN_HEADS = ("plan|package|pack|subscription|membership|card|pass|tier|bundle|add-on|broadband"
             "|warranty")
# a word of the name: capitalized, an acronym, or one holding a digit (5GB, 24-month)
_EN_WORD = r"(?:[A-Z][A-Za-z'’&+]*|[A-Za-z]*\d[\w+-]*)(?:\+)?"
# words that join or point, never a word of what a product is ("John about the plan")
_EN_FUNCTION = (r"(?:about|and|or|but|for|the|with|from|into|onto|over|under|her|his|its|our"
                r"|their|your|this|that|these|those|any|some|all|not|new|old|current)")
# ... and up to two words of what it is between the name and its head ("20GB data
# add-on", "the Travel Pass roaming package", "AppleCare+ protection plan")
EN_PRODUCT = re.compile(
    rf"(?<![\w'’@.-])({_EN_WORD}(?:[ \t]+(?:&[ \t]+)?{_EN_WORD}){{0,3}})"
    rf"(?:[ \t]+(?!{_EN_FUNCTION}\b)[a-z]{{3,}}){{0,2}}?[ \t]+(?i:{_EN_HEADS})(?![\w-])")
# Words before a head that say which, not what: "a New plan", "the Same card" (a tier
# such as Basic, Standard or Free is a name: "the Basic plan").
_EN_NOT_NAMING = frozenset("""
new old current previous existing same different cheaper cheapest better best right
whole entire
""".split())

# -- Chinese ---------------------------------------------------------------------------

_ZH_HEADS = re.compile(
    # (定向 is part of its head, 定向流量包: its 向 is no preposition; 漫游日包 a head too)
    r"套餐|(?:定向)?(?:流量|语音|短信|通话|视频|定向|加油|漫游)(?:日|月|周)?包"
    r"|会员(?![号费价日卡大权制等级中心账期])|宽带"
    r"|(?:会员|储值|礼品|流量|电话|上网|年|季|月|周|次)卡|套票|通票|联票|礼包"
    # a service got or dropped by name (开通来电显示业务: see _ZH_ACQUIRE)
    r"|业务(?![员量])")
# a letter of a Chinese product name: Han, Latin, digits and the joiners names carry
_ZH_LETTER = re.compile(r"[\u4e00-\u9fffA-Za-z0-9+·]")
_LATIN = re.compile(r"[A-Za-z0-9+]+$")
_HAN = re.compile(r"[\u4e00-\u9fff]")
MAX_ZH_NAME = 6  # Han characters of a name before its head (a Latin run may be longer)
# What comes right before a name, so the name starts after it (Chinese has no spaces):
# particles and prepositions, pronouns, measure words, adverbs and conjunctions, verbs
# of having, choosing and changing (办理畅享套餐, 一个5G流量包, 可以买联票: no name);
# not the 用 that ends a word of what a thing is for (20GB通用流量包, 专用宽带; not 家用,
# 公用, 常用, 适用: each also 家 + 用 "use", 我家用畅享套餐).
_ZH_BEFORE = re.compile(
    r"[的是在和与或及把被给让从向对为以于将跟同到吗呢吧啊呀就也还都又再才只很最更太]|了(?!解)"
    r"|[您你我他她它咱]们?|(?!一下)[一两几这那哪每某该此][个种款条张份项类档级]?|[个种款条张份项类档级]"
    r"|办理|开通|订购|购买|买|选择|选|使用|(?<![通专])用|换成|换到|换|改成|改为|变成|升级到|升级成|升级"
    r"|降级到|降级成|降级"
    r"|加入|参加|成为|申请|领取|享受|办|开|订|续费|充值|取消|退订|退掉|关闭|注册|推荐|介绍"
    r"|暂停|恢复|冻结|解冻|停用|启用|激活|注销|保留|变更|续订|查询|转接|转到|转"
    r"|了解|咨询|想要|想|需要|要|没有|有|提供|配备|配有|带有|支持|包含|包括|含|可能|可以|已经|正在|首先|然后|如果|自己"
    # verbs of installing, repairing or moving a service, and of coming to do it (来装宽带;
    # two characters: 装 and 来 alone are in names, 精装宽带, 悦享来电套餐)
    r"|安装|维修|报修|移机|迁移|来装|来修|去装|上门装|上门修"
    r"|一下|其他|其它|别的|什么|任何|当前|现在|目前|原来|之前|新的|旧的|非常")
# Verbs of getting, changing or dropping a service: 业务 ("business", "a service") is a
# product's head only after one (开通来电显示业务; not 银行业务, 他们的业务)
_ZH_ACQUIRE = re.compile(r"(?:办理|开通|订购|购买|取消|退订|关闭|续订|暂停|恢复|申请|开|办|订|退)"
                         r"(?:一下)?$")
# Words that only say what a product is for, who it serves or how it is: with the head
# alone they name a kind of product (流量套餐, 家庭宽带, 高速宽带), not one.
_ZH_GENERIC = re.compile(
    r"(?:流量|话费|通话|语音|短信|宽带|手机|电话|包月|包年|月租|优惠|合约|家庭|个人|企业|学生"
    r"|高速|免费|无线|有线|光纤|便宜|划算|普通|通用|专用|家里|家中|新|老|原|旧|同款"
    # ... and what any service is (售后服务, 人工服务, 上门服务, 增值业务)
    r"|售后|客户|客服|人工|在线|上门|增值|优质|贴心|基础|相关|全部|所有|各项|各种|更多)+")


# A dish named before "this dish" (有杏仁豆腐这道菜, 炒饭和火焰冰淇淋这两道菜): the
# apposition says which one, so what stands before it is a name. Verbs of eating come
# before a dish. (这款/这个 + a noun is tried as often on a question's words: 请问这款.)
_ZH_APPOSED = re.compile(r"[这那]([一两二三四五六七八九几]?)道菜")
_ZH_BEFORE_DISH = re.compile(rf"{_ZH_BEFORE.pattern}|吃|喝|品尝|尝尝?")
_ZH_AND = re.compile(r"[和与及、跟]")


def english_products(text: str) -> Iterator[tuple[int, int]]:
    """Spans of English product names (the name and its head) in ``text``."""
    for m in EN_PRODUCT.finditer(text):
        words = [(m.start(1) + w.start(), w.group()) for w in WORD.finditer(m.group(1))]
        for k in range(len(words) - 1, -1, -1):  # "The", "My", "Actually I": not the name
            if words[k][1].lower().rstrip(".,") in _NOT_NAMES | _EN_NOT_NAMING:
                words = words[k + 1:]
                break
        if not words:
            continue
        start, first = words[0]
        if len(words) == 1 and (first.isdigit() or not any(c.isdigit() for c in first)
                                and not first.isupper() and _opens_sentence(text, start)):
            continue  # "Basic plan is cheaper": a sentence, not a name; "2 plan": a count
        yield start, m.end()


def chinese_products(text: str) -> Iterator[tuple[int, int]]:
    """Spans of Chinese product names (the name and its head) in ``text``: the name is
    the run of letters before the head, from the last word a name comes after (or
    from the start of its clause), two to six Han characters or a Latin run."""
    after = 0  # a name never reaches back into the name before it
    for head in _ZH_HEADS.finditer(text):
        at = run = head.start()
        while run > after and at - run < 2 * MAX_ZH_NAME and _ZH_LETTER.match(text, run - 1):
            run -= 1
        cut = run > after and _ZH_LETTER.match(text, run - 1) is not None
        before = [m.end() for m in _ZH_BEFORE.finditer(text, run, at)]
        after = head.end()
        if before:
            run = max(before)
        elif cut:
            continue  # a long run with no word to start after: where the name starts is unknown
        name = text[run:at]
        if head.group(0) == "业务" and not _ZH_ACQUIRE.search(text, max(0, run - 4), run):
            continue  # 银行业务: 业务 names a service sold only as what one gets or drops
        if name.isdigit() or _ZH_GENERIC.fullmatch(name) or not (
                2 <= len(name) and len(_HAN.findall(name)) <= MAX_ZH_NAME
                or _LATIN.match(name)):  # (5G畅享199元套餐: three Han characters)
            continue
        yield run, head.end()


def chinese_apposed(text: str) -> Iterator[tuple[int, int]]:
    """Spans of the Chinese names set before a demonstrative and a measure word (see
    ``_ZH_APPOSED``); with a number over one, the names joined before it too."""
    for m in _ZH_APPOSED.finditer(text):
        end, many = m.start(), m.group(1) not in ("", "一")
        while end > 0:
            run = end
            while run > 0 and end - run < 2 * MAX_ZH_NAME and _ZH_LETTER.match(text, run - 1):
                run -= 1
            before = [b.end() for b in _ZH_BEFORE_DISH.finditer(text, run, end)]
            start = max(before) if before else run
            if not 2 <= end - start <= 2 * MAX_ZH_NAME or text[start:end].isdigit() or (
                    not before and run > 0 and _ZH_LETTER.match(text, run - 1)):
                break
            yield start, end
            if not (many and start > 0 and _ZH_AND.match(text, start - 1)):
                break
            end = start - 1


# A word every head holds (lower case), looked for before the patterns: most turns name
# no product, and a substring test costs a fraction of the patterns' scan.
HEAD_WORDS = (*_EN_HEADS.split("|"), "套", "包", "会员", "宽带", "卡", "票", "业务")


_EN_HEAD_AT_END = re.compile(rf"(?i:{_EN_HEADS})$")


def product_head(name: str) -> str:
    """The head of a product name: what kind of product it is ("plan", 宽带, 流量包)."""
    if m := _EN_HEAD_AT_END.search(name):
        return m.group(0).lower()
    heads = list(_ZH_HEADS.finditer(name))
    return heads[-1].group(0) if heads else name


def find_products(text: str) -> list[tuple[int, int]]:
    """Spans of product, plan and service names in ``text``, in order, not overlapping."""
    low = text.lower()
    found = set(chinese_apposed(text)) if "道菜" in text else set()
    if any(w in low for w in HEAD_WORDS):
        found |= set(english_products(text)) | set(chinese_products(text))
    out: list[tuple[int, int]] = []
    for start, end in sorted(found):
        if not out or start >= out[-1][1]:
            out.append((start, end))
    return out
