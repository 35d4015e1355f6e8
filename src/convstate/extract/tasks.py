"""Task lifecycle by grammar (zh + en): a promise opens a task, a later report of the
same act closes it.

A task is an **act**: the classes of its verbs (send ~ email ~ mail; 发 ~ 寄 ~ 发送) and
the content words of what it is done to ("return label"; 退货标签). The grammar reads:

- a **promise**: a subject who can owe an act — I, we; on the assistant's side a team
  ("our team", "someone from billing", "the courier", 专员, 快递员) — with a future
  ("will", "'ll", "shall", "going to", "promise to"; 会, 将, 保证, 马上, 稍后...) and a
  verb, or a promise verb over a clause ("I promise the courier will come", 我保证...).
  An offer ("I can"), a question, a negation, a habit ("I'll always"), a state ("I'll
  be happy to") or a lookup done now ("I'll check", 我马上为您查询) is not one.
- a **report** of an act done: English perfect, passive or simple past (irregular forms
  from the pack's table, the rest by -ed: sent, given, rang, emailed); Chinese 已/已经 +
  verb, or verb + 了/好了/完了/成功. Negated ("I haven't sent it", 还没发) it is not one.
- a **failure**: the act reported as not done ("I was not able to", "couldn't",
  没能, 无法): it cancels the task.
- what the turn does itself ("let me check", "one moment", "I'm looking into it",
  请稍等, 查一下) opens nothing: no modal, or a lookup not put off to later.

A report closes the open tasks of the same act: a shared verb class and a shared object
word ("I've sent the return label" closes "I'll email you a prepaid return label"); with
no object on one side ("I've sent it") the newest task of that verb; a generic verb
("has been processed", 处理好了) by its object ("your refund" closes "we will refund
you"); the other party's "received" (收到照片了) closes a sending with the same object.
Who did it, when the report says (I, we / you), must be who owed it. A promise renewed
(the same act with a shared object: "I'll book you a cab to X" after "I'll book you a
regular cab") replaces the older one, which is cancelled.

An act already done when first mentioned ("已为您提交投诉", "I've already submitted your
complaint") opens nothing: a task is what is still owed, and the sentence stays in its
turn. Word tables are the language packs' ``words``; a pack without a grammar here has
no task reading.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from ..lang import pack
from ..registry import LANGUAGES

Agent = Literal["speaker", "other"] | None
_HAN = re.compile(r"[\u3400-\u9fff]")
# "... has been submitted and finance will prioritise it": a coordinator followed by a
# subject of a few words and a finite verb starts a clause of its own
_SUBCLAUSE = re.compile(
    r"\s+(?:and|but|so|then)\s+(?=(?:[\w'’-]+\s+){0,3}?(?:(?:will|shall|has|have|had|is|are"
    r"|was|were|do|does|did|can|could)(?:n['’]t)?|won['’]t|\w+['’](?:ll|ve|s|re))\b)",
    re.IGNORECASE)


@dataclass(frozen=True)
class Act:
    """An act: its verb classes, its object's content words, and who does it when the
    sentence says (``speaker``: I, we; ``other``: you)."""

    verbs: frozenset[str]
    objects: frozenset[str] = frozenset()
    agent: Agent = None
    generic: bool = False  # a verb that names no act of its own ("processed", 处理)


@dataclass
class Reading:
    """What one clause does to tasks: the promises it makes (verbatim text and act), the
    acts it reports done, and those it reports it could not do."""

    promises: list[tuple[str, Act]] = field(default_factory=list)
    reports: list[Act] = field(default_factory=list)
    failures: list[Act] = field(default_factory=list)  # "I was not able to", 没能


def read(text: str, role: str) -> Reading:
    """The promises, reports and failures of one clause said by ``role`` (user or
    assistant), each coordinated clause with a subject of its own read apart."""
    out = Reading()
    grammar = _grammar_for(text)
    if grammar is None:
        return out
    parts = [text] if _HAN.search(text) else _split(text)
    for part in parts:
        failed = grammar.failure(part)
        if failed is not None:
            out.failures.append(failed)
            continue
        done = grammar.report(part)
        if done is not None:
            out.reports.append(done)
            continue
        act = grammar.promise(part, role)
        if act is not None:
            out.promises.append((part, act))
    return out


def act_of(text: str) -> Act | None:
    """The act a task's text names (a promise, a request to do it, a bare verb phrase)."""
    return _act_of(text, LANGUAGES.version, False)


def closes(done: Act, speaker: str, tasks: Sequence[tuple[str, str | None]],
           renewal: bool = False) -> list[int]:
    """Positions in ``tasks`` (text, owner; oldest first) of the open tasks that the act
    ``done``, reported by ``speaker``, completes: every one of the same act with a shared
    object; else the newest of that verb where one side names no object. A ``renewal``
    (``done`` is a new promise of ``speaker``'s) matches only the speaker's promises of
    the same act with a shared object."""
    sent = None if renewal else _received(done)
    strong: list[int] = []
    weak: list[int] = []
    for k, (text, owner) in enumerate(tasks):
        if sent is not None:  # "received": the other party's sending
            if owner == speaker:
                continue
        elif (renewal or done.agent == "speaker") and owner != speaker or \
                done.agent == "other" and owner == speaker:
            continue
        verbs = sent or done.verbs
        task = _act_of(text, LANGUAGES.version, renewal)
        if task is None:
            continue
        shared_verb = bool(task.verbs & verbs)
        if shared_verb and task.objects & done.objects:
            strong.append(k)
        elif done.generic and done.objects & (task.objects | task.verbs):
            strong.append(k)  # "your refund has been processed": we will refund you
        elif shared_verb and not (sent or renewal) and not (task.objects and done.objects):
            weak.append(k)
    return strong or weak[-1:]


# -- the grammars ----------------------------------------------------------------------


def _groups(source: str) -> list[list[str]]:
    return [g.split() for g in source.split(";") if g.split()]


def _words(source: str) -> set[str]:
    return set(source.split())


def _split(text: str) -> list[str]:
    """An English clause cut where a coordinated clause with its own subject starts."""
    starts = [m.start() for m in _SUBCLAUSE.finditer(text)]
    if not starts:
        return [text]
    cuts = [0, *starts, len(text)]
    parts = [text[a:b].strip() for a, b in zip(cuts, cuts[1:], strict=False)]
    return [re.sub(r"^(?:and|but|so|then)\s+", "", p, flags=re.IGNORECASE)
            for p in parts if p]


class _English:
    """Future modal + verb promises; perfect, passive and past reports, on word tokens."""

    TOKEN = re.compile(r"[a-z]+(?:[-'][a-z]+)*|\d+(?:[:.]\d+)?")
    CONTRACTIONS = {"'ll": "will", "'ve": "have", "'re": "are", "'m": "am", "'d": "would",
                    "'s": "is"}
    ADVERBS = frozenset("also definitely certainly personally now then immediately soon"
                        " right away just quickly gladly happily first still really surely"
                        " promptly directly actually absolutely already successfully finally"
                        " since personally".split())
    CHAINS = (("try", "to"), ("attempt", "to"), ("make", "sure", "to"), ("do", "my", "best", "to"),
              ("do", "our", "best", "to"), ("be", "sure", "to"),
              ("go", "ahead", "and"), ("gone", "ahead", "and"), ("went", "ahead", "and"),
              ("be", "able", "to"), ("have", "to"), ("need", "to"), ("get", "to"))
    PRONOUNS = frozenset("i we you they he she it who someone somebody".split())

    def __init__(self, words: Mapping[str, str]) -> None:
        self.lemmas: dict[str, str] = {}
        self.past: set[str] = set()
        for group in _groups(words["irregular_verbs"]):
            for form in group:
                self.lemmas[form] = group[0]
            self.past.update(group[1:] if len(group) > 1 else group)
        self.classes: dict[str, str] = {}
        for group in _groups(words["verb_classes"]):
            for w in group:
                self.classes.setdefault(self.key(w), self.key(group[0]))
        self.converse = {self.key(a): self.key(b)
                         for a, b in (g[:2] for g in _groups(words["converse_verbs"]))}
        self.generic = {self.key(w) for w in words["generic_verbs"].split()}
        self.light = {self.key(w) for w in words["light_verbs"].split()}
        self.causative = {self.key(w) for w in words["causative_verbs"].split()}
        self.empty = {self.key(w) for w in words["empty_verbs"].split()}
        self.naming = {self.key(w) for w in words["naming_verbs"].split()}
        self.check = {self.key(w) for w in words["check_verbs"].split()}
        self.stative = {self.key(w) for w in words["stative_verbs"].split()}
        self.known = set(self.classes) | self.generic | self.check
        self.phrasal = self.known | self.stative
        self.not_promise = _words(words["not_promise"])
        self.particles = _words(words["particles"]) | {"care", "sure", "forward"}
        self.team = _words(words["team_nouns"])
        self.third = _words(words["third_persons"])
        self.promise_verbs = _words(words["promise_verbs"])
        self.subordinators = _words(words["subordinators"])
        self.ends = _words(words["object_ends"])
        self.function = _words(words["function_words"])
        self.time = _words(words["time_words"])
        self.seen: dict[str, tuple[str, ...]] = {}

    # words ------------------------------------------------------------------------
    def lemma(self, word: str) -> str:
        """A word's canonical stem: irregular forms by the table, the rest by suffix."""
        w = self.lemmas.get(word, word)
        if len(w) > 4 and w.endswith(("ied", "ies")):
            w = w[:-3] + "y"
        elif len(w) > 5 and w.endswith("ing"):
            w = w[:-3]
        elif len(w) > 4 and w.endswith("ed"):
            w = w[:-2]
        elif len(w) > 4 and w.endswith(("ches", "shes", "sses", "xes", "zes")):
            w = w[:-2]
        elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
            w = w[:-1]
        if len(w) > 3 and w.endswith("e"):
            w = w[:-1]
        if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeious":
            w = w[:-1]
        return w

    def key(self, word: str) -> str:
        """A lexicon word's key: its lemma, a phrasal verb's particle kept (reach_out)."""
        head, _, particle = word.partition("_")
        return f"{self.lemma(head)}_{particle}" if particle else self.lemma(head)

    def tokens(self, text: str) -> tuple[str, ...]:
        """Lower-case words, contractions spelled out ("won't" -> will not); a clause is
        read three ways (failure, report, promise), so its tokens are kept a while."""
        found = self.seen.get(text)
        if found is None:
            if len(self.seen) > 1024:
                self.seen.clear()
            found = self.seen[text] = tuple(self.split_words(text))
        return found

    def split_words(self, text: str) -> list[str]:
        out: list[str] = []
        for tok in self.TOKEN.findall(text.lower().replace("’", "'")):
            if tok == "won't":
                out += ["will", "not"]
            elif tok in ("can't", "cannot"):
                out += ["can", "not"]
            elif tok == "let's":
                out += ["let", "us"]
            elif tok.endswith("n't"):
                out += [tok[:-3], "not"]
            elif "'" in tok and tok[tok.index("'"):] in self.CONTRACTIONS:
                out += [tok[:tok.index("'")], self.CONTRACTIONS[tok[tok.index("'"):]]]
            else:
                out.append(tok)
        return out

    def is_past(self, word: str) -> bool:
        return word in self.past or (len(word) > 4 and word.endswith("ed")
                                     and word not in self.lemmas)

    def content(self, toks: Sequence[str]) -> frozenset[str]:
        """The content words' lemmas (no pronouns, function words or particles)."""
        return frozenset(self.lemma(t) for t in toks
                         if len(t) > 2 and t.isalpha() and t not in self.function
                         and t not in self.PRONOUNS and t not in self.particles)

    def object_of(self, toks: Sequence[str], j: int) -> list[str]:
        out = []
        for t in toks[j:]:
            if t in self.ends or t in self.subordinators:
                break
            out.append(t)
        return out

    def skip(self, toks: Sequence[str], j: int) -> int:
        """Past adverbs and verb chains ("try to", "go ahead and")."""
        while j < len(toks):
            if toks[j] in self.ADVERBS:
                j += 1
                continue
            chain = next((c for c in self.CHAINS if tuple(toks[j:j + len(c)]) == c), None)
            if chain is None:
                return j
            j += len(chain)
        return j

    # the verb phrase --------------------------------------------------------------
    def verb_phrase(self, toks: Sequence[str], j: int) -> tuple[frozenset[str], list[str],
                                                                 int] | None:
        """(verb classes, object tokens, end) of the verb phrase at ``j``."""
        if j >= len(toks) or not toks[j].isalpha():
            return None
        key = self.lemma(toks[j])
        j += 1
        if j < len(toks) and toks[j] in self.particles and \
                f"{key}_{toks[j]}" in self.phrasal:
            key = f"{key}_{toks[j]}"
            j += 1
        obj = self.object_of(toks, j)
        named = None
        if key in self.causative:  # "have a new card mailed to you", "get it sorted"
            # the participle ends the object ("the Grilled Salmon" is no causative)
            named = next((t for k, t in enumerate(toks[j:j + 6], j) if self.is_past(t)
                          and (k + 1 == len(toks) or toks[k + 1] in self.ends)), None)
            if named is not None:
                obj = list(toks[j:toks.index(named, j)])
        if named is None and key in self.light:  # "give you a call", "let you know"
            named = next((t for t in toks[j:j + 5] if self.lemma(t) in self.classes), None)
            if named is not None:
                obj = [t for t in obj if t != named]
        if named is not None:
            key = self.lemma(named)
        elif key in self.stative or key in self.empty and not self.content(obj):
            return None  # "I'll be happy to", "I'll do that"
        if key in self.naming and len(obj) > 1 and obj[1] not in self.particles \
                and obj[0] in self.PRONOUNS | {"me", "him", "her", "them"}:
            return None  # "I will call you Liam": a name, not a phone call
        verbs = {self.classes.get(key, key)}
        rest = toks[j + len(obj):]
        for k, t in enumerate(rest[:-1]):  # "check with the warehouse and get back to you"
            if t == "and":
                nxt = self.skip(rest, k + 1)
                if nxt < len(rest):
                    later = self.lemma(rest[nxt])
                    if nxt + 1 < len(rest) and f"{later}_{rest[nxt + 1]}" in self.known:
                        later = f"{later}_{rest[nxt + 1]}"
                    if later in self.known:
                        verbs.add(self.classes.get(later, later))
        return frozenset(verbs), obj, j + len(obj)

    def owed(self, verbs: frozenset[str], obj: Sequence[str]) -> bool:
        """An act one party waits for from the other: one the lexicon's classes name
        (send, call, submit...), or a generic one with an object ("I'll handle the
        return"); the user's or a third party's other plans are not tasks."""
        return bool(verbs & set(self.classes.values())) or (
            verbs <= self.generic and bool(self.content(obj)))

    def finish(self, verbs: frozenset[str], obj: Sequence[str], subject: Sequence[str],
               agent: Agent) -> Act:
        objects = self.content(obj)
        if not objects:  # "the courier will come": what comes is the courier
            objects = self.content(subject)
        return Act(verbs, objects, agent, generic=verbs <= self.generic)

    def noun_phrase(self, toks: Sequence[str], k: int) -> list[str]:
        """The noun phrase that ends at ``k`` (at most four words)."""
        stop = self.PRONOUNS | self.promise_verbs | self.ends | self.subordinators | {"that"}
        s = k
        while s > 0 and k - s < 3 and toks[s - 1] not in stop:
            s -= 1
        return list(toks[s:k + 1])

    # promises ---------------------------------------------------------------------
    def modal(self, toks: Sequence[str], i: int) -> tuple[int, int] | None:
        """(start, end) of a future at ``i``: will, shall, be going to, promise to."""
        t = toks[i]
        if t in ("will", "shall"):
            return i, i + 1
        if t == "going" and tuple(toks[i + 1:i + 2]) == ("to",) and i > 0 and \
                toks[i - 1] in ("am", "is", "are"):
            return i - 1, i + 2
        if t in self.promise_verbs and tuple(toks[i + 1:i + 2]) == ("to",):
            return i, i + 2
        return None

    def subject(self, toks: Sequence[str], start: int, role: str
                ) -> tuple[list[str], Agent, bool] | None:
        """(subject tokens, agent, needs "you") of a promise whose future starts at
        ``start``; None when the subject cannot owe an act."""
        k = start - 1
        while k >= 0 and toks[k] in self.ADVERBS:
            k -= 1
        if k < 0:
            return None
        head = toks[k]
        if head in ("i", "we"):
            return [], "speaker", False
        team = role == "assistant"
        if team and (head in self.team or "someone" in toks[max(0, k - 4):k]
                     or "somebody" in toks[max(0, k - 4):k]):
            return self.noun_phrase(toks, k), None, False
        if team and head in self.third:
            return [], None, True
        for m in range(k):  # "I promise (that) the refund will arrive"
            if toks[m] in self.promise_verbs and m > 0 and toks[m - 1] in ("i", "we") \
                    and head not in ("you", "it"):
                return list(toks[m + 1:k + 1]), None, False
        return None

    def promise(self, text: str, role: str) -> Act | None:
        toks = self.tokens(text)
        for i in range(len(toks)):
            span = self.modal(toks, i)
            if span is None:
                continue
            who = self.subject(toks, span[0], role)
            j = self.skip(toks, span[1])
            if who is None or j >= len(toks) or toks[j] in self.not_promise:
                continue
            progressive = toks[j] == "be" and j + 1 < len(toks) and toks[j + 1].endswith("ing")
            if progressive:
                if role == "user":
                    continue  # "I'll be leaving on the 7th": a plan, owed to no one
                j += 1  # "we'll be sending you a replacement"
            phrase = self.verb_phrase(toks, j)
            if phrase is None:
                continue
            verbs, obj, _ = phrase
            subject, agent, needs_you = who
            if needs_you and "you" not in toks[j:j + 4]:
                continue
            if (role == "user" or needs_you) and not self.owed(verbs, obj):
                continue  # "I will depart from Philadelphia", "they will charge you"
            if agent == "speaker" and verbs <= self.check and \
                    not self.time & set(toks[span[1]:]):
                continue  # "I'll check": the speaker's lookup, done now (a team's is owed)
            return self.finish(verbs, obj, subject, agent)
        return None

    # reports ----------------------------------------------------------------------
    FAILED = (("not", "able", "to"), ("unable", "to"), ("failed", "to"), ("could", "not"),
              ("can", "not"))

    def failure(self, text: str) -> Act | None:
        """An act reported as not done: "I was not able to", "couldn't", "failed to"."""
        toks = self.tokens(text)
        if not {"not", "unable", "failed"} & set(toks):
            return None
        for i in range(len(toks)):
            form = next((f for f in self.FAILED if tuple(toks[i:i + len(f)]) == f), None)
            if form is None:
                continue
            j = self.skip(toks, i + len(form))
            phrase = self.verb_phrase(toks, j)
            if phrase is not None:
                verbs, obj, _ = phrase
                return self.finish(verbs, obj, [], None)
        return None

    def report(self, text: str) -> Act | None:
        toks = self.tokens(text)
        if "not" in toks or "never" in toks or any(self.modal(toks, i)
                                                   for i in range(len(toks))):
            return None
        for a, t in enumerate(toks):
            if any(s in self.subordinators for s in toks[:a]):
                return None  # "once it is uploaded": a condition, not a report
            perfect = t in ("have", "has", "had") and tuple(toks[a + 1:a + 2]) != ("to",)
            passive = t in ("is", "are", "was", "were", "am", "been")
            if perfect or passive:
                p = self.skip(toks, a + 1)
                if perfect and tuple(toks[p:p + 1]) == ("been",):
                    passive, p = True, self.skip(toks, p + 1)
                if p < len(toks) and self.is_past(toks[p]) and toks[p] != "been":
                    return self.reported(toks, a, p, passive)
            elif self.is_past(t) and a > 0 and self.doer(toks, a) is not None:
                return self.reported(toks, a, a, False)
        return None

    def doer(self, toks: Sequence[str], a: int) -> Agent | Literal[""] | None:
        """Who did the act whose past form is at ``a`` (simple past): "speaker" (I, we),
        "other" (you), "" for anyone else named; None when no subject stands before."""
        k = a - 1
        while k >= 0 and toks[k] in self.ADVERBS:
            k -= 1
        if k < 0:
            return None
        if toks[k] in ("i", "we"):
            return "speaker"
        if toks[k] == "you":
            return "other"
        if toks[k] in self.team or toks[k] in self.third or (
                len(toks[k]) > 2 and toks[k].isalpha() and toks[k] not in self.function
                and toks[k] not in self.subordinators and toks[k] not in self.PRONOUNS):
            return ""  # a team, a third party, a thing ("the invoice went out")
        return None

    def reported(self, toks: Sequence[str], a: int, p: int, passive: bool) -> Act | None:
        phrase = self.verb_phrase(toks, p)
        if phrase is None:
            return None
        verbs, obj, _ = phrase
        subject = list(toks[:a])
        while subject and subject[-1] in self.ADVERBS:
            subject.pop()
        agent: Agent = None
        if not passive:
            who = self.doer(toks, a)
            agent = who if who in ("speaker", "other") else None
        # a passive's object is its subject ("the label has been emailed")
        objects = (self.content(subject) | self.content(obj)) if passive else \
            (self.content(obj) or self.content(subject))
        return Act(verbs, objects, agent, generic=verbs <= self.generic)

    # a task's own text --------------------------------------------------------------
    def act_of(self, text: str) -> Act | None:
        found = self.promise(text, "assistant")
        if found is not None:
            return found
        toks = self.tokens(text)
        j = 0  # "please upload a photo", "could you send the receipt"
        while j < len(toks) and toks[j] in ("please", "could", "can", "would", "you",
                                             "kindly", "to"):
            j += 1
        j = self.skip(toks, j)
        phrase = self.verb_phrase(toks, j)
        if phrase is None:
            return None
        return self.finish(phrase[0], phrase[1], [], None)


class _Chinese:
    """会/将/保证/马上 + verb promises; 已/已经 + verb and verb + 了 reports."""

    TIME = re.compile(
        r"在[^，。把将]{0,14}?(?:之内|以内|之前|以前|之后|以后|内|前|后)"
        r"|[\d一二两三四五六七八九十半]+\s*个?(?:小时|分钟|天|工作日|周|星期)(?:之内|以内|之后|内|后)?"
        r"|(?:今天|明天|后天|今晚|明早|本周|下周|周[一二三四五六日天])?"
        r"(?:上午|下午|晚上|中午|早上|傍晚)?(?:\d{1,2}|[一二两三四五六七八九十]{1,3})[点:：]"
        r"(?:半|\d{1,2}分?)?(?:之前|以前|前|左右)?"
        r"|今天|明天|后天|今晚|明早|当天|本周|下周|之后|以后|随后|上午|下午|晚上|中午|早上"
        r"|稍后|待会儿?|等会儿?|回头|晚点")

    def __init__(self, words: Mapping[str, str]) -> None:
        self.classes: dict[str, str] = {}
        for group in _groups(words["verb_classes"]):
            for w in group:
                self.classes.setdefault(w, group[0])
        self.converse = {a: b for a, b in (g[:2] for g in _groups(words["converse_verbs"]))}
        self.generic = _words(words["generic_verbs"])
        self.check = _words(words["check_verbs"])
        verbs = set(self.classes) | self.generic | self.check | _words(words["other_verbs"])
        self.verb = re.compile("|".join(sorted(verbs, key=len, reverse=True)))
        self.long_verb = re.compile("|".join(sorted((v for v in verbs if len(v) > 1),
                                                    key=len, reverse=True)))
        self.first = _words(words["first_person"])
        self.team = _words(words["team_nouns"])
        self.third = _words(words["third_persons"])
        self.second = _words(words["second_person"])
        self.marker = _alternation(words["promise_markers"])
        self.deferring = _alternation(words["deferring"])
        self.done_marker = _alternation(words["report_markers"])
        negations = _alternation(words["negations"]).pattern
        self.negated = re.compile(f"(?:{negations})$")  # what a verb follows
        self.negation = re.compile(negations)
        self.perfective = re.compile(
            f"(?:{_alternation(words['perfective']).pattern})[。！!~～.]*$")
        self.adverbs = _alternation(words["adverbs"])
        self.benefactive = _alternation(words["benefactives"])
        self.ack = _alternation(words["acknowledgements"])
        self.ends = _alternation(words["object_ends"])
        self.function = _alternation(words["function_words"])
        self.degree = _alternation(words["degree"])
        self.named = set(self.classes.values())
        self.transfer = self.classes.get(words["transfer_verb"], words["transfer_verb"])
        self.vouching = _words(words["promise_verbs"])
        self.second_re = _alternation(words["second_person"])
        people = _alternation(words["second_person"] + " " + words["first_person"]).pattern
        self.to_you = re.compile(f"给(?:{people})")
        self.trailing = re.compile(
            f"(?:{self.adverbs.pattern}|{self.benefactive.pattern}|把|将)$")
        self.future = _alternation(words["future_times"])
        self.vague = _words(words["vague_verbs"])
        self.subjects = sorted(self.first | self.team | self.third | self.second, key=len,
                               reverse=True)
        self.subject_end = re.compile(f"(?:{'|'.join(self.subjects)})$")

    def strip(self, text: str) -> str:
        """Leading adverbs, times and 为您/给您 before the verb."""
        while True:
            m = self.benefactive.match(text) or self.adverbs.match(text) or \
                self.TIME.match(text)
            if m is None or not m.group(0):
                return text
            text = text[m.end():]

    def terms(self, *parts: str) -> frozenset[str]:
        """Content terms of object text: its character pairs (a lone character alone)."""
        out: set[str] = set()
        for part in parts:
            for run in re.findall(r"[\u3400-\u9fff]+", self.function.sub(" ", part)):
                out.update([run] if len(run) == 1 else
                           [run[i:i + 2] for i in range(len(run) - 1)])
        return frozenset(out)

    def who(self, prefix: str) -> tuple[str, str]:
        """(subject, topic before it) of the text before a marker, times and adverbs
        left out; ("", topic) when no subject is said."""
        rest = self.TIME.sub("", prefix)
        rest = re.sub(r"^(?:" + self.ack.pattern + r")+", "", rest)
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
            if m is None:
                return None
            moved, text = text[1:m.start()], self.strip(text[m.start():])
        m = self.verb.match(text)
        if m is None:
            if known_only or not _HAN.match(text) or text[0] in self.NOT_VERBS:
                return None
            verb = text[:1]  # most Chinese verbs are one character
        else:
            verb = m.group(0)
        tail = text[len(verb):]
        if tail.startswith(("一下", verb)):  # 查一下, 看看: done now
            return None
        tail = re.sub(r"^(?:[了着完好]|过(?![去来]))+", "", tail)  # 联系过您了: aspect
        verbs = {self.classes.get(verb, verb)}
        if self.to_you.match(tail) and verb not in self.classes:
            verbs.add(self.transfer)  # 拍给你: the photo goes to you, a sending
        for later in self.long_verb.findall(tail):
            verbs.add(self.classes.get(later, later))
        end = self.ends.search(tail)
        obj = tail[:end.start()] if end else tail
        return frozenset(verbs), verb, moved + obj

    def promise(self, text: str, role: str) -> Act | None:
        team = role == "assistant"
        vouched = False  # 我保证快递员今天会上门: a promise verb over a clause
        markers = sorted([*self.marker.finditer(text), *(
            m for m in self.future.finditer(text)
            if self.who(text[:m.start()])[0] in self.first)], key=lambda m: m.start())
        for n, m in enumerate(markers):
            if m.start() > 0 and text[m.start() - 1] in "不机社学":
                continue  # 不会, 机会, 社会
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
            else:
                continue  # 退款凭证会发送到...: a thing's future, owed by no one
            if self.negation.match(self.strip(rest)):
                continue  # 我们将不再...
            # the user's promise, or 将 (also 把: 将原诗转化为...), needs a verb it knows
            phrase = self.verb_phrase(rest, known_only=not team or m.group(0) == "将")
            if phrase is None:
                continue
            verbs, _, obj = phrase
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

    FAILED = re.compile(r"没能|未能|无法|没办法|没有办法|不能")
    # not a verb when a phrase starts with it: particles, pronouns, prepositions
    NOT_VERBS = frozenset("的了吗呢吧啊哦呀是在有这那也都就还和与及或很太真挺"
                          "我你您他她它对给按向从被跟")

    def failure(self, text: str) -> Act | None:
        """An act reported as not done: 没能, 未能, 无法..."""
        m = self.FAILED.search(text)
        if m is None:
            return None
        phrase = self.verb_phrase(text[m.end():], known_only=True)
        if phrase is None:
            return None
        verbs, _, obj = phrase
        return Act(verbs, self.terms(obj), None, generic=verbs <= self.generic)

    def report(self, text: str) -> Act | None:
        m = self.done_marker.search(text)
        if m is not None:
            before = text[:m.start()]
            if self.negated.search(before):
                return None
            phrase = self.verb_phrase(text[m.end():], known_only=True)
            if phrase is not None:
                return self.reported(phrase, before)
        for v in self.verb.finditer(text):  # 我刚刚给您发了邮件, 联系过您: aspect after the verb
            if text[v.end():v.end() + 1] in ("了", "过") and self.acted(text, v):
                phrase = self.verb_phrase(text[v.start():], known_only=True)
                if phrase is not None:
                    return self.reported(phrase, text[:v.start()])
        end = self.perfective.search(text)
        if end is None:
            return None
        for v in self.verb.finditer(text, 0, end.start()):
            if self.degree.search(text, v.end(), end.start()) or not self.acted(text, v):
                continue
            phrase = self.verb_phrase(text[v.start():end.start()], known_only=True)
            if phrase is not None:
                return self.reported(phrase, text[:v.start()])
        return None

    def acted(self, text: str, verb: re.Match[str]) -> bool:
        """The verb at ``verb`` is said as done: not negated (没发), not a future or a
        wish (会发, 要发)."""
        before = text[:verb.start()]
        return not (self.negated.search(before)
                    or re.search(r"(?:会|将|要|想|能|可以|得|需要)$", before))

    def reported(self, phrase: tuple[frozenset[str], str, str], before: str) -> Act:
        verbs, _, obj = phrase
        who = self.who(before)
        subject, topic = who if who else ("", before)
        agent: Agent = "speaker" if subject in self.first else \
            "other" if subject in self.second else None
        return Act(verbs, self.objects(subject, topic, obj), agent,
                   generic=verbs <= self.generic)

    def objects(self, subject: str, topic: str, obj: str) -> frozenset[str]:
        """What an act is done to: its object and the topic put before (照片我等下拍给你);
        with no object, a team doer too (客服专员会联系您: who comes is the point)."""
        if self.terms(obj) or subject not in self.team:
            return self.terms(topic, obj)
        return self.terms(topic + subject)

    def act_of(self, text: str) -> Act | None:
        found = self.promise(text, "assistant")
        if found is not None:
            return found
        m = re.match(r"(?:请您?|麻烦您?|能否|可以)?", text)  # 请您拍一张照片上传
        phrase = self.verb_phrase(text[m.end() if m else 0:], known_only=True)
        if phrase is None:
            return None
        verbs, _, obj = phrase
        return Act(verbs, self.terms(obj), None, generic=verbs <= self.generic)


def _alternation(source: str) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(w) for w in sorted(source.split(), key=len,
                                                             reverse=True)))


_Grammar = _English | _Chinese
_BUILDERS: dict[str, type[_English] | type[_Chinese]] = {"en": _English, "zh": _Chinese}


@lru_cache(maxsize=8)
def _grammars(version: int) -> dict[str, _Grammar]:
    del version  # the cache key: rebuilt when a pack is registered
    out: dict[str, _Grammar] = {}
    for code, build in _BUILDERS.items():
        if code in LANGUAGES.names():
            out[code] = build(pack(code).words)
    return out


def _grammar_for(text: str) -> _Grammar | None:
    grammars = _grammars(LANGUAGES.version)
    return grammars.get("zh" if _HAN.search(text) else "en")


@lru_cache(maxsize=4096)
def _act_of(text: str, version: int, promised: bool) -> Act | None:
    """The act of a task's text; with ``promised``, only if the text is a promise (a
    request to the other party is not renewed by that party's own promise)."""
    del version
    grammar = _grammar_for(text)
    if grammar is None:
        return None
    return grammar.promise(text, "assistant") if promised else grammar.act_of(text)


def _received(done: Act) -> frozenset[str] | None:
    """The verbs a "received" report stands for (the other party's sending), if any."""
    out: set[str] = set()
    for grammar in _grammars(LANGUAGES.version).values():
        out.update(grammar.converse[v] for v in done.verbs if v in grammar.converse)
    return frozenset(out) if out else None
