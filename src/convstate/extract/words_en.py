"""English words and phrases for the task grammar: lemmas (irregular forms from the
pack's table, the rest by suffix), word tokens with contractions spelled out, verb
phrases and their objects, noun phrases."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from .acts import Act, Agent, groups, words


class EnglishWords:
    """The words and phrases the English grammar (tasks_en.py) reads clauses with."""

    TOKEN = re.compile(r"[a-z]+(?:[-'][a-z]+)*|\d+(?:[:.]\d+)?")
    CONTRACTIONS = {"'ll": "will", "'ve": "have", "'re": "are", "'m": "am", "'d": "would",
                    "'s": "is"}
    PRONOUNS = frozenset("i we you they he she it who someone somebody".split())
    # an object that is a person: "update you" informs, "update the address" changes it
    PERSONS = frozenset("you me him her them us".split())

    def __init__(self, table: Mapping[str, str]) -> None:
        self.lemmas: dict[str, str] = {}
        self.past: set[str] = set()
        for group in groups(table["irregular_verbs"]):
            for form in group:
                self.lemmas[form] = group[0]
            self.past.update(group[1:] if len(group) > 1 else group)
        self.classes: dict[str, str] = {}
        for group in groups(table["verb_classes"]):
            for w in group:
                self.classes.setdefault(self.key(w), self.key(group[0]))
        self.withdrawing = self.key(table["withdrawing_class"])
        self.outlasting = self.key(table["outlasting_class"])
        self.converse = {self.key(a): self.key(b)
                         for a, b in (g[:2] for g in groups(table["converse_verbs"]))}
        self.on_things = {self.key(a): self.key(b)  # (a table added later: optional)
                          for a, b in (g[:2] for g in groups(table.get("thing_classes", "")))}
        self.generic = {self.key(w) for w in table["generic_verbs"].split()}
        self.light = {self.key(w) for w in table["light_verbs"].split()}
        self.causative = {self.key(w) for w in table["causative_verbs"].split()}
        self.empty = {self.key(w) for w in table["empty_verbs"].split()}
        self.done_adjectives = set(table["done_adjectives"].split())
        self.act_endings = [tuple(e.split(":")) for e in table["act_noun_endings"].split()]
        self.results = words(table["result_nouns"])
        self.naming = {self.key(w) for w in table["naming_verbs"].split()}
        self.check = {self.key(w) for w in table["check_verbs"].split()}
        self.stative = {self.key(w) for w in table["stative_verbs"].split()}
        self.known = set(self.classes) | self.generic | self.check
        self.phrasal = self.known | self.stative
        self.not_promise = words(table["not_promise"])
        self.particles = words(table["particles"])
        self.adverbs = words(table["adverbs"])
        self.chains = [tuple(g) for g in groups(table["verb_chains"])]
        self.failed = [tuple(g) for g in groups(table["failure_markers"])]
        self.team = words(table["team_nouns"])
        self.third = words(table["third_persons"])
        self.promise_verbs = words(table["promise_verbs"])
        self.subordinators = words(table["subordinators"])
        self.ends = words(table["object_ends"])
        self.function = words(table["function_words"])
        self.time = words(table["time_words"])
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
        """The tokens of ``text`` (see ``tokens``), not kept."""
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
        """A past form or participle: irregular by the table, regular by -ed."""
        return word in self.past or (len(word) > 4 and word.endswith("ed")
                                     and word not in self.lemmas)

    def act_verb(self, word: str) -> str | None:
        """The verb of a class a word is, or names as an act ("booking", "cancellation",
        "delivery": book, cancel, deliver), as a key; None for any other word."""
        if word in self.results:
            return None
        if (lemma := self.lemma(word)) in self.classes:
            return lemma
        for ending, verb in self.act_endings:
            if len(word) > len(ending) + 2 and word.endswith(ending) \
                    and (key := self.key(word[:-len(ending)] + verb)) in self.classes:
                return key
        return None

    def act_noun(self, word: str) -> str | None:
        """The verb class a word names as an act ("booking", "cancellation", "delivery",
        "replacement": arrange, cancel, send, replace), or None."""
        verb = self.act_verb(word)
        return None if verb is None else self.classes[verb]

    def content(self, toks: Sequence[str]) -> frozenset[str]:
        """The content words' lemmas (no pronouns, function words or particles)."""
        return frozenset(self.lemma(t) for t in toks
                         if len(t) > 2 and t.isalpha() and t not in self.function
                         and t not in self.PRONOUNS and t not in self.particles)

    def object_of(self, toks: Sequence[str], j: int) -> list[str]:
        """The words from ``j`` up to where an object ends (a time, a place, a clause)."""
        out = []
        for t in toks[j:]:
            if t in self.ends or t in self.subordinators:
                break
            out.append(t)
        return out

    def skip(self, toks: Sequence[str], j: int) -> int:
        """Past adverbs and verb chains ("try to", "go ahead and")."""
        while j < len(toks):
            if toks[j] in self.adverbs:
                j += 1
                continue
            chain = next((c for c in self.chains if tuple(toks[j:j + len(c)]) == c), None)
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
            else:  # "have a technician call you", "get someone to call you", "have the
                # store call you", "have a courier pick up the parcel": their act, the
                # first verb of a class after who does it (a phrasal one too)
                for k in range(j + 1, min(j + 6, len(toks))):
                    lemma = self.lemma(toks[k])
                    phrasal = f"{lemma}_{toks[k + 1]}" if k + 1 < len(toks) else ""
                    if (lemma in self.classes or phrasal in self.classes) \
                            and toks[k - 1].isalpha() and toks[k - 1] not in self.function:
                        return self.verb_phrase(toks, k)
        if named is None and key in self.light:  # "give you a call", "let you know"
            named = next((t for t in toks[j:j + 5] if self.lemma(t) in self.classes), None)
            if named is not None:
                obj = [t for t in obj if t != named]
        if named is not None:
            key = self.lemma(named)
        elif key in self.stative or key in self.empty and not self.content(obj):
            return None  # "I'll be happy to", "I'll do that"
        if key in self.naming and len(obj) > 1 and obj[1] not in self.particles \
                and obj[1].isalpha() and obj[1] not in self.time | self.function \
                and obj[0] in self.PRONOUNS | {"me", "him", "her", "them"}:
            # (not "call you 30 minutes before", "call you an hour ahead": when, not a name)
            return None  # "I will call you Liam": a name, not a phone call
        verbs = {self.on_things[key] if key in self.on_things and obj
                 and obj[0] not in self.PERSONS and obj[-1] not in self.team
                 else self.classes.get(key, key)}  # (a person or a team: "update the courier")
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
        """The act of these verbs, its object (or, with none, its subject's words)."""
        objects = self.content(obj)
        if not objects:  # "the courier will come": what comes is the courier
            objects = self.content(subject)
        generic = verbs <= self.generic
        if generic:  # "I'll process your cancellation": the act is cancelling
            objects |= {c for c in map(self.act_noun, obj) if c is not None}
        return Act(verbs, objects, agent, generic=generic)

    def noun_phrase(self, toks: Sequence[str], k: int) -> list[str]:
        """The noun phrase that ends at ``k`` (at most four words)."""
        stop = self.PRONOUNS | self.promise_verbs | self.ends | self.subordinators | {"that"}
        s = k
        while s > 0 and k - s < 3 and toks[s - 1] not in stop:
            s -= 1
        return list(toks[s:k + 1])
