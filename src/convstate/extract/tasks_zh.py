"""The Chinese task grammar: 会/将/保证/马上 + verb promises; 已/已经 + verb, verb +
了/过/好了/成功 reports; failures (没能, 无法). Read on characters, with the pack's verb
lexicon (longest first) where Chinese has no inflection to go by."""

from __future__ import annotations

import re
from collections.abc import Mapping

from .acts import HAN, HAN_RUN, Act, Agent, alternation, groups, words

# a verb of two characters with its aspect between them (回过电话: 回电)
_SPLIT = re.compile(r"([\u4e00-\u9fff])[了过]([\u4e00-\u9fff])")


def _conditions(table: Mapping[str, str]) -> re.Pattern[str]:
    """What opens a clause of condition or of the future (如果, 一旦, 将在; not after 已:
    已将于先生的退款…, 将 marks the object; 等 and 待 at its start, not 等了, a wait told)."""
    openers = alternation(table["condition_openers"]).pattern
    return re.compile(f"(?<![已经])(?:{alternation(table['conditions']).pattern})"
                      f"|^(?:{openers})(?![了过着])")


# a day: today, tomorrow, a weekday or the weekend (周三, 下星期五, 周末), this or next week
_DAY = (r"(?:(?:本|这|下个?)?(?:周|星期|礼拜)[一二三四五六日天末]|今天|明天|后天|今晚|明早|当天"
        r"|本周|下周|月底|月初)")

# what joins a second verb to a report's first, under the same 已 (开好并发到您邮箱了)
_JOINED = re.compile(r"并且?|然后|同时|随后")


def _head(words: str) -> str | None:
    """The head of what a report's act was done to, its last two characters (of the topic
    put before, when there is one: 收货地址已修改为…: 地址); None when it names none."""
    runs = HAN_RUN.findall(words)
    return runs[-1][-2:] if runs else None


def _nearest(verb: re.Pattern[str], text: str, end: int) -> list[re.Match[str]]:
    """The verbs of ``text`` before ``end``, nearest it first, the longest first at one
    end: every start is tried, as one verb may overlap another (标签收到了: 收到, not 签收)."""
    found = [m for i in range(end) if (m := verb.match(text, i, end))]
    return sorted(found, key=lambda m: (m.end(), m.end() - m.start()), reverse=True)


class Chinese:
    """会/将/保证/马上 + verb promises; 已/已经 + verb and verb + 了 reports."""

    TIME = re.compile(  # (于 before one: 将于明天上午联系您)
        r"于?(?:在[^，。把将]{0,14}?(?:之内|以内|之前|以前|之后|以后|内|前|后)"
        r"|[\d一二两三四五六七八九十半]+\s*个?(?:小时|分钟|天|工作日|周|星期)(?:之内|以内|之后|内|后)?"
        rf"|{_DAY}?(?:上午|下午|晚上|中午|早上|傍晚)?(?:\d{{1,2}}|[一二两三四五六七八九十]{{1,3}})"
        r"[点:：](?:半|\d{1,2}分?)?(?:之前|以前|前|左右)?"
        rf"|在?{_DAY}|之后|以后|随后|上午|下午|晚上|中午|早上|稍后|待会儿?|等会儿?|回头|晚点)")
    ASPECT = re.compile(r"^(?:完成|完毕|成功|[了着完好]|过(?![去来]))+")  # what may follow a verb
    MODAL_END = re.compile(r"(?:会|将|要|想|能|可以|得|需要)$")  # a future or a wish before it
    PLEASE = re.compile(r"(?:请您?|麻烦您?|能否|可以)?")  # what opens a request

    def __init__(self, table: Mapping[str, str]) -> None:
        self.classes: dict[str, str] = {}
        for group in groups(table["verb_classes"]):
            for w in group:
                self.classes.setdefault(w, group[0])
        self.converse = {a: b for a, b in (g[:2] for g in groups(table["converse_verbs"]))}
        self.withdrawing = table["withdrawing_class"]
        self.outlasting = table["outlasting_class"]
        self.changing, self.change_goal = table["changing_class"], alternation(table["change_goal"])
        self.generic = words(table["generic_verbs"])
        self.check = words(table["check_verbs"])
        verbs = set(self.classes) | self.generic | self.check | words(table["other_verbs"])
        self.verb = alternation(" ".join(verbs))
        self.long_verb = alternation(" ".join(v for v in verbs if len(v) > 1))
        self.pairs = frozenset(v for v in verbs if len(v) == 2)  # (split_verb)
        self.first = words(table["first_person"])
        self.team = words(table["team_nouns"])
        self.third = words(table["third_persons"])
        self.second = words(table["second_person"])
        self.marker = alternation(table["promise_markers"])
        self.deferring = alternation(table["deferring"])
        self.done_marker = alternation(table["report_markers"])
        negations = alternation(table["negations"]).pattern
        self.negated = re.compile(f"(?:{negations})$")  # what a verb follows
        self.negation = re.compile(negations)
        self.condition = _conditions(table)
        self.perfective = re.compile(
            f"(?:{alternation(table['perfective']).pattern})[。！!~～.]*$")
        self.adverbs = alternation(table["adverbs"])
        self.benefactive = alternation(table["benefactives"])
        self.ack = alternation(table["acknowledgements"])
        self.acks = re.compile(f"^(?:{self.ack.pattern})+")
        self.ends = alternation(table["object_ends"])
        self.function = alternation(table["function_words"])
        self.degree = alternation(table["degree"])
        self.named = set(self.classes.values())
        self.transfer = self.classes.get(table["transfer_verb"], table["transfer_verb"])
        self.vouching = words(table["promise_verbs"])
        self.second_re = alternation(table["second_person"])
        people = alternation(table["second_person"] + " " + table["first_person"]).pattern
        self.to_you = re.compile(f"给(?:{people})")
        self.trailing = re.compile(f"(?:{self.adverbs.pattern}|{self.benefactive.pattern}|把|将)$")
        self.future = alternation(table["future_times"])
        self.vague = words(table["vague_verbs"])
        self.failed = alternation(table["failure_markers"])
        self.not_verbs = frozenset(table["not_verbs"].replace(" ", ""))
        self.subjects = sorted(self.first | self.team | self.third | self.second, key=len,
                               reverse=True)
        self.subject_end = re.compile(f"(?:{'|'.join(self.subjects)})$")

    def strip(self, text: str) -> str:
        """Leading adverbs, times and 为您/给您 before the verb."""
        while True:
            m = self.benefactive.match(text) or self.adverbs.match(text) or self.TIME.match(text)
            if m is None and text.startswith("去") and self.benefactive.match(text, 1):
                text = text[1:]  # 去帮您催快递: going to do it, the act is the verb after
                continue
            if m is None or not m.group(0):
                return text
            text = text[m.end():]

    def terms(self, *parts: str) -> frozenset[str]:
        """Content terms of object text: its character pairs (a lone character alone)."""
        out: set[str] = set()
        for part in parts:
            for run in HAN_RUN.findall(self.function.sub(" ", part)):
                out.update([run] if len(run) == 1 else
                           [run[i:i + 2] for i in range(len(run) - 1)])
        return frozenset(out)

    def who(self, prefix: str) -> tuple[str, str]:
        """(subject, topic before it) of the text before a marker, times and adverbs
        left out; ("", topic) when no subject is said."""
        rest = self.TIME.sub("", prefix)
        rest = self.acks.sub("", rest)
        while (m := self.trailing.search(rest)) and m.group(0):
            rest = rest[:m.start()]  # 我这边一定, 我给您: the subject is before
        m = self.subject_end.search(rest)
        if m is None:
            return ("", rest)
        return (m.group(0), rest[:m.start()])

    def verb_phrase(self, text: str, known_only: bool
                    ) -> tuple[frozenset[str], str, str] | None:
        """(verb classes, verb, object text) of the verb phrase ``text`` starts with."""
        text = self.strip(text)
        if text.startswith("有"):  # 稍后会有专员联系您: the doer comes after 有
            doer = next((w for w in self.subjects if text.startswith(w, 1)), None)
            if doer is not None:
                text = self.strip(text[1 + len(doer):])
        if any(text.startswith(v) for v in self.vague):
            return None  # 我会尽力满足您的要求: help, not an act owed
        moved = ""
        if text[:1] in ("把", "将"):  # 把退货标签发给您
            m = self.verb.search(text, 2)
            while m is not None and text.startswith("的", m.end()):
                m = self.verb.search(text, m.end())  # 把多收的运费退给您: 收 modifies
            if m is None:
                return None
            moved, text = text[1:m.start()], self.strip(text[m.start():])
        m = self.verb.match(text)
        split = self.split_verb(text) if m is None else None
        if split is not None:  # a verb split by its aspect (回过电话, 回了电话: 回电)
            verb, tail = split.group(1) + split.group(2), text[split.end():]
        elif m is None:
            if known_only or not HAN.match(text) or text[0] in self.not_verbs:
                return None
            verb = text[:1]  # most Chinese verbs are one character
            tail = text[1:]
        else:
            verb = m.group(0)
            tail = text[len(verb):]
        if tail.startswith(("一下", verb)):  # 查一下, 看看: a lookup done now
            if verb in self.check:
                return None
            tail = tail[2 if tail.startswith("一下") else len(verb):]  # 催一下: a softener
        tail = self.ASPECT.sub("", tail)  # 联系过您了: aspect
        verbs = {self.classes.get(verb, verb)}
        if self.to_you.search(tail) and verb not in self.classes:
            # 拍给你, 拍一张照片发给我们: the photo goes to you, a sending
            verbs.add(self.transfer)
        kind = self.classes.get(verb)  # (取消申请, 改到…上门: what is withdrawn or moved)
        if not (kind == self.withdrawing or kind == self.changing and self.change_goal.match(tail)):
            verbs |= {self.classes.get(w, w) for w in self.long_verb.findall(tail)}
        end = self.ends.search(tail)
        obj = tail[:end.start()] if end else tail
        return frozenset(verbs), verb, moved + obj

    def split_verb(self, text: str, at: int = 0) -> re.Match[str] | None:
        """A two-character verb at ``at`` with its aspect between (回过电话: 回电)."""
        m = _SPLIT.match(text, at)
        return m if m is not None and m.group(1) + m.group(2) in self.pairs else None

    def promise(self, text: str, role: str) -> Act | None:
        """The act ``text`` promises, said by ``role``; None if it promises none."""
        team = role == "assistant"
        vouched = False  # 我保证快递员今天会上门: a promise verb over a clause
        markers = _markers(self, text, team)
        for n, m in enumerate(markers):
            owed_thing = False
            if m.start() > 0 and text[m.start() - 1] in "不机社学" \
                    or text[m.end():m.end() + 1] in ("员", "议", "计"):
                continue  # 不会, 机会, 社会; 会员, 会议, 会计: no "will"
            subject, topic = self.who(text[:m.start()])
            rest = text[m.end():]
            if any(later.start() >= m.end() for later in markers[n + 1:]):
                vouched = vouched or m.group(0) in self.vouching
                continue  # 稍后我会给您回电: the last future word is the verb's
            if subject in self.first:
                agent: Agent = "speaker"
            elif not team:
                continue  # the user's 尽快处理 asks; the user promises with 我
            elif vouched or subject in self.team or (not subject and not topic.strip(" ，,")):
                agent = None
            elif subject in self.third and self.second_re.search(rest):
                agent = None  # 他们会联系您
            elif not subject and (self.second_re.match(topic.strip(" ，,"))
                                  or self.second_re.search(rest)):
                # a thing of the customer's, or sent to them, whose future is an act the
                # service owes (您的退款将在3个工作日内到账, 新卡将在一周内寄给您)
                agent, owed_thing = None, True
            else:
                continue  # 退款凭证会发送到原账户: a thing's future, owed by no one
            if self.negation.match(self.strip(rest)):
                continue  # 我们将不再...
            # the user's promise, or 将 (also 把: 将原诗转化为...), needs a verb it knows
            phrase = self.verb_phrase(rest, known_only=not team or m.group(0) == "将"
                                      or m.re is _DAYS)  # (a bare day: 我们周日休息)
            if phrase is None:
                continue
            verbs, _, obj = phrase
            if owed_thing and not verbs & (self.named | self.generic):
                continue  # 您的包裹明天会到: an act of no one's (not a sending, a refund...)
            if not team and not (verbs & self.named
                                 or verbs & self.generic and self.terms(topic, obj)):
                continue  # 我们一定会去的: the user's plan, owed to no one
            own = agent == "speaker" or not subject
            if own and verbs <= self.check and not self.deferring.search(text) \
                    and not self.TIME.search(rest):
                continue  # 我马上为您查询: the speaker's lookup, done now (a team's is owed)
            return Act(frozenset(verbs), self.objects(subject, topic, obj), agent,
                       generic=verbs <= self.generic)
        return None

    def failure(self, text: str) -> Act | None:
        """An act reported as not done: 没能, 未能, 无法..."""
        m = self.failed.search(text)
        if m is None:
            return None
        rest = text[m.end():]
        if m.group(0) == "不了" and m.start() > 0:  # 上不了门: the verb is split around it
            rest = text[m.start() - 1] + rest
        phrase = self.verb_phrase(rest, known_only=True)
        if phrase is None:
            return None
        verbs, _, obj = phrase
        return Act(verbs, self.terms(obj), None, generic=verbs <= self.generic)

    def report(self, text: str) -> Act | None:
        """The act ``text`` reports done (已/已经 + verb, verb + 了/过/好了); None if none."""
        if self.condition.search(text):  # 如果退款处理完毕, 将在三天内处理完毕: not yet
            return None
        m = self.done_marker.search(text)
        if m is not None:
            before = text[:m.start()]
            if self.negated.search(before):
                return None
            rest = text[m.end():]
            phrase = self.verb_phrase(rest, known_only=True)
            if phrase is None and (self.benefactive.match(rest) or self.passive_topic(before)):
                # 已为您重置端口, 密码已重置: the service's act for the customer, or done to
                # a thing of theirs, whatever its verb (not 我已经等了一周)
                phrase = self.verb_phrase(rest, known_only=False)
            if phrase is not None:
                for j in _JOINED.finditer(rest):  # 开好并发到您邮箱了: 发 too
                    if later := self.verb_phrase(rest[j.end():], known_only=True):
                        phrase = phrase[0] | later[0], phrase[1], phrase[2]
                return self.reported(phrase, before)
        for v in self.verb.finditer(text):  # 我刚刚给您发了邮件, 联系过您: aspect after the verb
            if text[v.end():v.end() + 1] in ("了", "过") and self.acted(text, v):
                phrase = self.verb_phrase(text[v.start():], known_only=True)
                if phrase is not None:
                    return self.reported(phrase, text[:v.start()])
        for k in (k for k, c in enumerate(text[1:-1], 1) if c in "了过"):  # 回了电话
            if (split := self.split_verb(text, k - 1)) is not None and self.acted(text, split):
                phrase = self.verb_phrase(text[split.start():], known_only=True)
                if phrase is not None:
                    return self.reported(phrase, text[:split.start()])
        end = self.perfective.search(text)
        if end is None:
            return None
        # the verb nearest before it is the one it marks (退货标签发给您了: 发; see _nearest)
        for v in _nearest(self.verb, text, end.start()):
            if self.degree.search(text, v.end(), end.start()) or not self.acted(text, v):
                continue
            phrase = self.verb_phrase(text[v.start():end.start()], known_only=True)
            if phrase is not None:
                return self.reported(phrase, text[:v.start()])
        return None

    def passive_topic(self, before: str) -> bool:
        """Whether ``before`` (the text before 已) names a thing the act was done to
        (密码已重置): some content, and no person (我, 您, 他, 我们...) as its subject."""
        subject, topic = self.who(before)
        return bool(HAN.search(topic + subject)) and not subject \
            and not any(p in before for p in self.first | self.second | self.third)

    def acted(self, text: str, verb: re.Match[str]) -> bool:
        """The verb at ``verb`` is said as done: not negated (没发, 没给您发), not a future
        or a wish (会发, 要发)."""
        before = text[:verb.start()]
        while (m := self.trailing.search(before)) and m.group(0):
            before = before[:m.start()]  # 没给您发: the negation is before 给您
        return not (self.negated.search(before) or self.MODAL_END.search(before))

    def reported(self, phrase: tuple[frozenset[str], str, str], before: str) -> Act:
        """The act of a report: its verb phrase, and the text before it (who, what)."""
        verbs, _, obj = phrase
        subject, topic = self.who(before)
        agent: Agent = "speaker" if subject in self.first else \
            "other" if subject in self.second else None
        objects = self.objects(subject, topic, obj)
        if verbs <= self.generic:  # 退款已经办理完成: the act named as its object
            objects |= {self.classes[t] for t in objects if t in self.classes}
        return Act(verbs, objects, agent, generic=verbs <= self.generic, head=_head(
            self.function.sub(" ", topic if self.terms(topic) else obj)))

    def objects(self, subject: str, topic: str, obj: str) -> frozenset[str]:
        """What an act is done to: its object and the topic put before (照片我等下拍给你);
        with no object, a team doer too (客服专员会联系您: who comes is the point)."""
        if self.terms(obj) or subject not in self.team:
            return self.terms(topic, obj)
        return self.terms(topic + subject)

    def act_of(self, text: str) -> Act | None:
        """The act a task's text names: a promise, or a request to do it (请您...)."""
        found = self.promise(text, "assistant")
        if found is not None:
            return found
        m = self.PLEASE.match(text)  # 请您拍一张照片上传
        phrase = self.verb_phrase(text[m.end() if m else 0:], known_only=True)
        if phrase is None:
            return None
        verbs, _, obj = phrase
        return Act(verbs, self.terms(obj), None, generic=verbs <= self.generic)


# a day said bare (周一, 下周, 月底) reads ahead, for an act the lexicon knows; no time reads
# ahead before a span (周一到周五: hours kept) or a mark of the past (没接, 今天给您打的电话)
_DAYS = re.compile(_DAY)
_NOT_AHEAD = re.compile(r"\s*(?:到|至|-|—|~|～)|[^，。！？]*没"
                        r"|(?:给(?:您|你们|你))?[\u4e00-\u9fff]{1,2}的")


def _markers(zh: Chinese, text: str, team: bool) -> list[re.Match[str]]:
    """What a promise's verb may follow in ``text``: 会/将/保证..., or a time ahead the
    speaker (or, for the assistant, the team, or no one said) sets: 我明天发给您,
    快递员明天上门取件, 我周一给您回电话 (a bare day as above), 周二给您回电话."""
    ahead = [m for m in (*zh.future.finditer(text), *(
        m for m in _DAYS.finditer(text) if not zh.future.fullmatch(m.group(0))))
             if not _NOT_AHEAD.match(text, m.end())]
    return sorted([*zh.marker.finditer(text), *(
        m for m in ahead if (who := zh.who(text[:m.start()])[0]) in zh.first
        or team and (who in zh.team or _dropped(zh, text, m)))], key=lambda m: m.start())


def _dropped(zh: Chinese, text: str, m: re.Match[str]) -> bool:
    """The assistant's clause opens with the time, its subject dropped, and does an act
    the lexicon knows for the customer (周二给您回电话, 明天上午为您补发): the speaker's,
    as with 我. Not when 的 follows: the phrase describes (周二给您回电话的是我们的专员,
    今天给您发的验证码, 明天给您发货的话)."""
    rest = text[m.end():]
    lead = rest[:len(rest) - len(zh.strip(rest))]  # the times and 给您/为您 before the verb
    return not text[:m.start()].strip(" ，,") and "的" not in rest \
        and bool(zh.to_you.search(lead) or zh.benefactive.search(lead)) \
        and zh.verb_phrase(rest, known_only=True) is not None  # (not 给您添麻烦了)
