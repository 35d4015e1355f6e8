"""Names in a turn, verbatim: places, businesses, people, products (zh + en).

No list of names: patterns of each language. English names are runs of capitalized
words (with initials, titles, a leading street number, and a few lower-case joiners),
or short all-capital acronyms; a lone capitalized word that opens a sentence is only a
sentence. Chinese names end in a word that says what the thing is (酒店, 博物馆, 地铁站,
公园...), may carry a branch in brackets (西单店) or an exit (B口), and start after a
function word, a verb of going or choosing, or punctuation.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..lang import Cues

C = Cues()
MAX_NAMES_PER_TURN = 12  # a long text names many things; the first ones are kept

# -- English ---------------------------------------------------------------------------

# a word, an initial ("E.") or a short abbreviation ("Inc.", "St."): a longer word
# that ends a sentence ("... Income. However ...") ends the name there. A brand may be
# written with a small first letter ("iPhone", "eBay"); a word after the first may be a
# model's number or code ("iPhone 15 Pro", "Galaxy S24 Ultra", "Terminal 2"), not a
# decimal, a time or a date ("2.5", "3:30", "3/4"). Latin letters only around a word:
# a model's name may stand right beside Chinese (华为Mate 60 Pro屏幕).
_AFTER = r"(?![A-Za-z0-9_'’-]|[.,:/]\d)"
_WORD = rf"(?:[A-Z][a-z]{{0,2}}\.|[A-Z][A-Za-z'’&]*(?:-[A-Za-z]+)*|[a-z][A-Z][A-Za-z]*){_AFTER}"
_MODEL = (rf"(?:\d{{1,4}}[A-Za-z]{{0,3}}|[A-Z]{{1,3}}\d{{1,4}}[A-Za-z]{{0,3}}){_AFTER}"
          # not a count of what follows ("Jane 2 days ago", "Walmart 24 hours")
          r"(?!\s+(?:day|week|month|year|hour|minute|second|time|item|unit|piece|box|pack"
          r"|package|pair|person|people|night|ticket|room|star|order|bag|charger|dollar"
          r"|point|mile)s?\b)")
_JOIN = r"(?:of|de|la|del|da|von|van|and|&|the)"
EN_NAME = re.compile(
    r"(?<![A-Za-z0-9_'’@.-])"
    r"(?:(?:Dr|Mr|Mrs|Ms|Prof|St)\.\s+)?"
    r"(?:\d{1,5}\s+)?"
    rf"{_WORD}(?:\s+(?:{_JOIN}\s+)?(?:{_WORD}|{_MODEL})){{0,5}}"
    # a place's region code: "Seattle, WA", "London, UK" (not "Jane Doe, PO Box")
    r"(?:,[ \t]?[A-Z]{2}(?![\w'’-])(?![ \t]+[A-Z]))?"
    r"|(?<![\w-])[A-Z]{2,5}(?![\w-])"
)
_JOINER = re.compile(_JOIN)
WORD = re.compile(r"\S+")
_CAPITAL = re.compile(r"[A-Z]")  # every name above holds one (a case-sensitive pattern)
# Capitalized words that open sentences or stand for no one in particular.
_NOT_NAMES = frozenset("""
i i'm i'll i've i'd im the a an this that these those it its it's he she we they you your
my our their his her is are was were be do does did can could would should will shall may
might must have has had what when where which who whom why how yes no not ok okay sure hi
hello hey dear thanks thank please sorry great good nice cool fine also and but or so if
then let let's there here just any anything something nothing all some alright well oh ah
perfect excellent awesome absolutely certainly definitely of in on at for to from with by
as into about after before today tomorrow yesterday tonight morning evening afternoon night
am pm usd rmb id faq tv vs etc ps mon tue wed thu fri sat sun monday tuesday wednesday
thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays saturdays
sundays weekends app apps january february march april may june july august september
october november december would've i'm sounds glad happy welcome bye goodbye really yeah
yep nope hmm wow maybe one two three four five six seven eight nine ten first second next
last every each both either neither another other such same own more most very too
here's there's that's what's however therefore additionally moreover furthermore
meanwhile instead otherwise finally firstly secondly lastly overall note
""".split())


def english_names(text: str) -> Iterator[tuple[int, int]]:
    """Spans of English names in ``text``."""
    if not _CAPITAL.search(text):
        return  # no capital, no name: one character class scans far faster than EN_NAME
    for m in EN_NAME.finditer(text):
        toks = [(m.start() + t.start(), m.start() + t.end(), t.group())
                for t in WORD.finditer(m.group(0))]
        opened = toks[0][0]
        while toks and toks[0][2].lower().rstrip(".,") in _NOT_NAMES:  # "The", "Thanks"
            toks.pop(0)
        while toks and toks[0][0] > opened and toks[0][2][0].isdigit():  # "Friday 5"
            toks.pop(0)
        if len(toks) > 1 and toks[0][2].isdigit() and toks[1][2][0].islower():
            toks.pop(0)  # "2 iPhone chargers": a count before a brand, no street number
        while toks and (toks[-1][2].lower().rstrip(".,") in _NOT_NAMES
                        or _JOINER.fullmatch(toks[-1][2])):
            toks.pop()
        if not toks:
            continue
        start, end = toks[0][0], toks[-1][1]
        while end > start and text[end - 1] in ".,":
            end -= 1
        word = toks[0][2]
        if sum(not any(c.isdigit() for c in t) for _, _, t in toks) == 1 \
                and word[0].isupper() and not word.isupper() \
                and _opens_sentence(text, start) and not _NAMED.match(text, end):
            continue  # "Sure", "Great", "Reserving 1": a sentence, not a name ("Terence is ...")
        if end - start >= 2:
            yield start, end


# After a lone capitalized word that opens a sentence, what makes it a name.
_NAMED = re.compile(r"'s\b|\s+(?:is|was|has|had|said|says|told|lives|lived|works|worked"
                    r"|called|wrote|sent)\b")


_OPENERS = " \t\"'“‘(*_#>•-"  # what may stand between a sentence's end and its first word


def _opens_sentence(text: str, at: int) -> bool:
    """Whether ``at`` starts a sentence, a line, a list item or a table row."""
    # looked at backwards from ``at``: a copy of the text before it, per name, made
    # a long text of names quadratic
    while at > 0 and text[at - 1] in _OPENERS:
        at -= 1
    return at == 0 or text[at - 1] in ".!?\n:;|"


# -- Chinese ---------------------------------------------------------------------------

# What a named place or business is: the last word of its name.
_ZH_KINDS = (
    "国际大酒店|大酒店|酒店|宾馆|饭店|旅馆|客栈|招待所|公寓|餐厅|餐馆|饭馆|食府|酒楼|火锅|烤鸭店|"
    "茶餐厅|咖啡馆|咖啡厅|酒吧|会馆|饭庄|博物馆|美术馆|纪念馆|展览馆|科技馆|图书馆|体育馆|剧院|影院|"
    "公园|乐园|游乐园|动物园|植物园|博览园|广场|大学|学院|中学|小学|医院|银行|商场|购物中心|超市|"
    "市场|大厦|中心|花园|地铁站|火车站|汽车站|高铁站|航站楼|机场|画廊|画家村|故居|胡同|大街|古镇|"
    "景区|风景区|水库|公社|寺|宫|府|庙|塔|陵|桥|山|湖|海|岛|村|城|店|馆|院|园|厅|楼|所|站"
)
# Characters a name does not contain: pronouns, particles, and verbs of going, staying,
# choosing and asking that come right before a name.
_ZH_STOP = ("您你我他她它们的是在去到和与或了吧呢吗啊呀就也还要想请给把被让从向对这那些个几"
            "座条有叫住选找逛推荐看玩吃喝订预约问查离近附哪什么怎样多少该此啥")
# "a", "which", "this" + a measure word, or a word for "nearby"/"other": a kind of
# place, not a named one (一家酒店, 哪家餐馆, 周边酒店, 其他景点)
_ZH_QUANTITY = re.compile(r"[一两几这那每某哪该此][家个座间条所]|周边|附近|其[他它]|别的")
_ZH_KIND = re.compile(rf"(?:{_ZH_KINDS})")
_HAN = re.compile(r"[\u4e00-\u9fff]")
# Words that come before a name but are not part of it: wishes, topics, connectives,
# "a bit", "after visiting" (希望酒店, 关于酒店, 或者商城, 一下北京饭店, 参观完博物馆)
# ... verbs of changing to (改为舒适型酒店, 能换成华为(旗舰店)), and someone's saying
# (我老公说…, 朋友说…; not 中国说唱艺术博物馆)
_ZH_CHANGE = "换成|换到|改成|改为|改到"
_ZH_LEAD = re.compile(r"希望|关于|或者|还是|以及|然后|但是|因为|所以|如果"
                      r"|可能|应该|需要|打算"
                      r"|准备|一下|顺便|麻烦|参观完?|游览完?|逛完|吃完|之后|以后|属于|觉得|认为|知道|另外"
                      r"|(?<=[我你您他她们公婆友妈爸哥姐弟妹人子])说"
                      r"|(?:更新|修改|变更)为"
                      rf"|{_ZH_CHANGE}")
# ... and words that open a name's run but are no part of it, only where it opens (比如北
# 新桥卤煮老店, 不过欢乐水魔方水上乐园, 查询后北京华尔顿酒店; a name that opens with one of
# them, 不过瘾烧烤店, is cut: rarer than the word before a name)
_ZH_OPENS = re.compile(r"不过|比如说?|例如|譬如|考虑|咨询|(?<=查)询后?")
# A kind of place, not a named one: a type word before the kind (经济型酒店, 中式餐厅)
_ZH_CATEGORY = re.compile(rf"[\u4e00-\u9fff]{{0,3}}[型式类档级](?:{_ZH_KINDS})")
# the same said with 的 (高档型的酒店), which a name never holds
_ZH_CATEGORY_OF = re.compile(
    rf"(?:(?![{_ZH_STOP}种类])[\u4e00-\u9fff]){{1,2}}(?<!类)[型式档级]的(?:{_ZH_KINDS})")
# the kind a category's type qualifies
_ZH_KIND_AFTER_TYPE = re.compile(rf"[型式类档级]的?({_ZH_KINDS})$")
# a grade said of a named place (高档型的北京贵都大酒店, 豪华型北京天伦王朝酒店): the place's
# category, apart from its name. Grades are a closed class of words (经济, 舒适, 高档...):
# any word before 型 would split names (造型工作室, 新型材料展览馆)
_ZH_TYPE = r"(?:经济|舒适|高档|中档|低档|豪华|奢华|标准|普通|精品)型"
_ZH_TYPE_OF = re.compile(rf"({_ZH_TYPE})的$")
_ZH_TYPE_IN = re.compile(_ZH_TYPE)
# ... not a kind of place with a word or two before it (豪华型大酒店, 经济型快捷酒店): a
# category whole
_ZH_GENERIC_PLACE = re.compile(
    rf"(?:大|快捷|商务|连锁|主题|度假|[一二三四五六七\d]星级?)?(?:{_ZH_KINDS})")


def category_kind(name: str) -> str | None:
    """The kind of place a Chinese name of a category qualifies (经济型酒店 and
    高档型的酒店: 酒店; 中式餐厅: 餐厅); None for a name of which place."""
    kind = _ZH_KIND_AFTER_TYPE.search(name)
    if kind and (_ZH_CATEGORY.fullmatch(name) or _ZH_CATEGORY_OF.fullmatch(name)):
        return _unsized(kind.group(1))
    return None


def _unsized(kind: str) -> str:
    """A kind word without its size (大酒店: 酒店), so that 经济型大酒店 and 舒适型酒店 are
    of one kind."""
    return kind[1:] if kind[0] == "大" and _ZH_KIND.fullmatch(kind, 1) else kind


def typed_kind(text: str, start: int, end: int) -> str | None:
    """The kind of the named place a grade at ``text[start:end]`` is said of
    (高档型的北京贵都大酒店: 酒店); None if it is no grade before a name."""
    if not _ZH_TYPE_IN.fullmatch(text, start, end):
        return None
    name = ZH_NAME.match(text, end + text.startswith("的", end))
    if name is None:
        return None
    # the kind word it ends in, without a size (北京贵都大酒店: 酒店, as 舒适型酒店 says it)
    kind = next((name.group()[k:] for k in range(len(name.group()))
                 if _ZH_KIND.fullmatch(name.group(), k)), None)
    return _unsized(kind) if kind else None


# the first characters of the kinds: one class tried before the ~100 words of the kinds
# at each place a name might end (the same matches, several times faster on long text)
_ZH_KIND_FIRST = "".join(sorted({k[0] for k in _ZH_KINDS.split("|")}))
ZH_NAME = re.compile(
    rf"(?:(?![{_ZH_STOP}])[\u4e00-\u9fffA-Za-z0-9·]){{1,16}}(?=[{_ZH_KIND_FIRST}])(?:{_ZH_KINDS})"
    r"(?:[A-Z]口|[0-9一二三四五六七八九十]+号?口)?"
    r"(?:[（(][^（()）\s]{1,12}[)）])?"
)


def name_goes_on(text: str, end: int) -> bool:
    """Whether the number (a duration, a count) that ends at ``end`` begins a Chinese
    name: what follows it names a kind of place, no particular one, alone (7天|连锁酒店),
    or a business with its branch (7天|优品酒店(国贸店)); not 3天|北京饭店, 3天送达上海."""
    if (m := _ZH_GENERIC_PLACE.match(text, end)) is not None and (
            m.group(0) != _unsized(m.group(0)) or not _ZH_KIND.fullmatch(m.group(0))):
        return True
    return (m := ZH_NAME.match(text, end)) is not None and m.group(0)[-1] in ")）"


def chinese_names(text: str, categories: bool = False) -> Iterator[tuple[int, int]]:
    """Spans of Chinese place and business names in ``text``; with ``categories``, kinds
    of place with their type too (经济型酒店: what a user asks for is a requirement)."""
    if not _HAN.search(text):
        return  # every name ends in a kind word, all Han: an English text has none
    for m in ZH_NAME.finditer(text):
        start, end = m.span()
        if q := _ZH_QUANTITY.match(text, start - (start > 0)) or \
                _ZH_QUANTITY.match(text, start):  # 一家酒店: "a hotel", not a name
            start = max(start, q.end())
            if _ZH_KIND.fullmatch(text, start, end):
                continue
        kind = _ZH_KIND.search(text, start, end)
        for lead in _ZH_LEAD.finditer(text, start, kind.start() if kind else end):
            start = lead.end()  # the name starts after the last of them
        if opens := _ZH_OPENS.match(text, start):
            start = opens.end()
        if text.startswith("者", start):  # 或者 cut by 或, a stop character
            start += 1
        if _ZH_KIND.fullmatch(text, start, end) or (
                not categories and _ZH_CATEGORY.fullmatch(text, start, end)):
            continue  # 地铁站, 经济型酒店: what a place is, not which
        if (opening := _opening(text, start, end)) is not None \
                and (brand := _name_before(text, opening)) is not None:
            start, end = brand, end + 1  # 全聚德(王府井店), 烤肉季(什刹海总店): one name
        if categories and (typed := _ZH_TYPE_OF.search(text, max(0, start - 4), start)) \
                and not _ZH_GENERIC_PLACE.fullmatch(text, start, end):
            yield typed.span(1)  # 高档型的|北京贵都大酒店
        elif categories and (typed := _ZH_TYPE_IN.match(text, start)) and end - typed.end() >= 3 \
                and not _ZH_GENERIC_PLACE.fullmatch(text, typed.end(), end):
            yield typed.span()  # 豪华型|北京天伦王朝酒店
            start = typed.end()
        if end - start >= 3:
            yield start, end
    if categories:
        for m in _ZH_CATEGORY_OF.finditer(text):
            yield m.span()
    yield from _named_by_role(text)


def _opening(text: str, start: int, end: int) -> int | None:
    """Where the parenthesis opens that a branch's name at ``text[start:end]`` closes
    (全聚德(王府井店); 烤肉季(什刹海总店), where the stop character 什 cut the name): None
    if it is not all a pair of parentheses holds, but for stop characters before it."""
    if end >= len(text) or text[end] not in ")）":
        return None
    at = max(text.rfind("(", 0, start), text.rfind("（", 0, start))
    cut = text[at + 1:start]
    # (在, "at", is a word of its own there, 在北京饭店: no branch begins with it; 和平门店
    # does with 和)
    return at if at >= 0 and all(c in _ZH_STOP and c != "在" for c in cut) else None


# verbs of choosing, buying and changing that come before a name (能换成华为(旗舰店))
_ZH_CHOOSE = re.compile(rf"{_ZH_CHANGE}|升级到|选择|购买|订购|办理|开通")
_ZH_BRAND = re.compile(rf"(?:(?![{_ZH_STOP}])[\u4e00-\u9fffA-Za-z0-9·]){{2,16}}$")
# A name with no kind word (天坛, 老萨烤羊) known by its role: set before "this place"
# (张裕爱斐堡国际酒庄这个景点), or what a place's attribute is asked of (天坛的电话)
_ZH_ROLE = re.compile(r"[这那][个家座间所处](?=景点|地方|餐馆|餐厅|酒店|宾馆|饭店)"
                      r"|的(?=地址|电话|门票|评分|价格|营业时间|游玩时间|人均消费|推荐菜|特色菜|附近|周边)")
_ZH_GENERIC = re.compile(r"景点|地方|酒店|餐馆|餐厅|宾馆|饭店|景区|房间|车|司机|出租车|客服|售后"
                         r"|商品|产品|手机|订单|快递|物流|包裹|公司|门店|店铺|平台|账号|电话|地址"
                         r"|学校|小区|单位|这里|那里")


# someone of the user's is no name (我老婆的电话, 我自己的电话): a relation (the pack's) or self
_ZH_SELF = ("自己", "本人")


def _person(name: str) -> bool:
    return name in _ZH_SELF or C.relation.fullmatch(f"我{name}") is not None


def _named_by_role(text: str) -> Iterator[tuple[int, int]]:
    for m in _ZH_ROLE.finditer(text):
        end = m.start()
        if (start := _name_before(text, end)) is None:
            continue
        if q := _ZH_QUANTITY.search(text, start, end):
            start = max(start, q.end())
        if end - start >= 2 and not _ZH_GENERIC.search(text, start, end) \
                and not _ZH_KIND.fullmatch(text, start, end) and not text[start].isdigit() \
                and not _person(text[start:end]):
            yield start, end


def _name_before(text: str, end: int) -> int | None:
    """Where a name that ends at ``end`` starts: after the last word a name comes after
    (a particle, a verb of choosing or changing, a wish: 能换成华为, 另外便宜坊), at least
    two letters; None when there is none, or it follows "this"/"a" (这家店: a kind)."""
    run = _ZH_BRAND.search(text, max(0, end - 16), end)
    if run is None or (run.start() > 0 and text[run.start() - 1] in "这那哪每某该此一两几"):
        return None
    start = run.start()
    if opens := _ZH_OPENS.match(text, start):
        start = opens.end()
    for word in (*_ZH_LEAD.finditer(text, start, end), *_ZH_CHOOSE.finditer(text, start, end)):
        start = max(start, word.end())
    return start if end - start >= 2 else None


def find_names(text: str, categories: bool = False) -> list[tuple[int, int]]:
    """Spans of names in ``text``, in order, at most MAX_NAMES_PER_TURN distinct ones
    (``categories``: see ``chinese_names``)."""
    seen: set[str] = set()
    out: list[tuple[int, int]] = []
    spans = set(english_names(text)) | set(chinese_names(text, categories))
    for start, end in sorted(spans, key=lambda span: (span[0], -span[1])):  # longest first
        value = text[start:end]
        if value in seen or any(s <= start < e for s, e in out):
            continue
        seen.add(value)
        out.append((start, end))
        if len(seen) >= MAX_NAMES_PER_TURN:
            break
    return out
