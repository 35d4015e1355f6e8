"""The English task grammar: future modal + verb promises; perfect, passive and past
reports (irregular forms from the pack's table, the rest by -ed); failures ("wasn't
able to"). Read on word tokens, contractions spelled out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Literal

from .acts import Act, Agent
from .words_en import EnglishWords

# the verb class of sending (ship, dispatch...): what the service owes of a thing
_SENT = "send"


class English(EnglishWords):
    """Future modal + verb promises; perfect, passive and past reports, on word tokens."""

    # modals before "have" + participle: what might have been, not what was done
    UNREAL = frozenset("would should could might must may".split())
    # what opens a noun phrase that a relative clause may follow
    DETERMINERS = frozenset("the this that these those my your our his her their a an".split())
    # ... and what may follow a verb as its object
    OBJECTS = DETERMINERS | frozenset("it you me us them him her".split())
    # "get" before a participle is a passive's ("I got charged twice", "got refunded"):
    # the act is the participle's, not a receiving
    GET = frozenset("get gets got gotten".split())

    # words of a partitive ("one of", "the rest of", "a member of"): the head is after "of"
    PARTITIVE = frozenset("""one two three some most all each any none many few several
        both either neither rest part half member members""".split())

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
        while k >= 0 and toks[k] in self.adverbs:
            k -= 1
        # the head comes before what it is of ("A refund of $49.99 will be issued"),
        # unless it says how many or which part of it ("One of our agents will call")
        k = next((m - 1 for m in range(k, max(k - 4, 0), -1) if toks[m] == "of"
                  and toks[m - 1] not in self.PARTITIVE), k)
        if k < 0:
            return None
        head = toks[k]
        if head in ("i", "we"):
            return [], "speaker", False
        if head in ("nobody", "nothing", "none", "noone") or head == "one" and k \
                and toks[k - 1] == "no":
            return None  # "Nobody will call you back today": no one owes it
        team = role == "assistant"
        if team and (head in self.team or "someone" in toks[max(0, k - 4):k]
                     or "somebody" in toks[max(0, k - 4):k]):
            return self.noun_phrase(toks, k), None, False
        if team and (head in self.third or head.isalpha() and head not in self.PRONOUNS
                     and head not in self.function and head not in self.adverbs):
            return [], None, True  # "Billing will call you": a third party, owing "you"
        for m in range(k):  # "I promise (that) the refund will arrive"
            if toks[m] in self.promise_verbs and m > 0 and toks[m - 1] in ("i", "we") \
                    and head not in ("you", "it"):
                return list(toks[m + 1:k + 1]), None, False
        return None

    def promise(self, text: str, role: str) -> Act | None:
        """The act ``text`` promises, said by ``role``; None if it promises none."""
        toks = self.tokens(text)
        for i in range(len(toks)):
            span = self.modal(toks, i)
            if span is None:
                continue
            who = self.subject(toks, span[0], role)
            j = self.skip(toks, span[1])
            if who is None or j >= len(toks) or toks[j] in self.not_promise:
                continue
            if toks[j] == "be" and role == "assistant" and j + 1 < len(toks) \
                    and self.is_past(toks[j + 1]) and who[1] is None:
                # "A return label will be emailed to you", "Your refund will be processed":
                # the thing promised is the subject, the customer's or sent to them
                phrase = self.verb_phrase(toks, j + 1)
                thing = self.noun_phrase(toks, span[0] - 1)
                if phrase is not None and (self.owed(phrase[0], phrase[1])
                                           or self.owed(phrase[0], thing)) \
                        and {"you", "your"} & set(toks):
                    return self.finish(phrase[0], thing, [], None)
                continue
            progressive = toks[j] == "be" and j + 1 < len(toks) and toks[j + 1].endswith("ing")
            if who[2] and toks[j] == "be" and not progressive:
                continue  # "The weather will be sunny when you arrive": a state, owed by none
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
                # the customer's thing that will be sent ("Your replacement will ship
                # tomorrow"): owed as the passive is. Not another act a thing or someone
                # of theirs will do (Your package will arrive, Your bank will respond)
                thing = self.noun_phrase(toks, span[0] - 1)
                if role == "assistant" and "your" in thing and not obj \
                        and verbs == {self.key(_SENT)}:
                    return self.finish(verbs, thing, [], None)
                continue
            if (role == "user" or needs_you) and not self.owed(verbs, obj):
                continue  # "I will depart from Philadelphia", "they will charge you"
            if agent == "speaker" and verbs <= self.check and \
                    not self.time & set(toks[span[1]:]):
                continue  # "I'll check": the speaker's lookup, done now (a team's is owed)
            return self.finish(verbs, obj, subject, agent)
        return None

    # reports ----------------------------------------------------------------------
    def failure(self, text: str) -> Act | None:
        """An act reported as not done: "I was not able to", "couldn't", "failed to"."""
        toks = self.tokens(text)
        if not {"not", "unable", "failed"} & set(toks):
            return None
        for i in range(len(toks)):
            form = next((f for f in self.failed if tuple(toks[i:i + len(f)]) == f), None)
            if form is None:
                continue
            j = self.skip(toks, i + len(form))
            phrase = self.verb_phrase(toks, j)
            if phrase is not None:
                verbs, obj, _ = phrase
                return self.finish(verbs, obj, [], None)
        return None

    def report(self, text: str) -> Act | None:
        """The act ``text`` reports done (perfect, passive, simple past); None if none."""
        toks = self.tokens(text)
        if "not" in toks or "never" in toks or any(self.modal(toks, i)
                                                   for i in range(len(toks))):
            return None
        for a, t in enumerate(toks):
            if any(s in self.subordinators for s in toks[:a]):
                return None  # "once it is uploaded": a condition, not a report
            # (not a modal perfect: "I would have changed it, but ..." did not)
            perfect = t in ("have", "has", "had") and tuple(toks[a + 1:a + 2]) != ("to",) \
                and not (a and toks[a - 1] in self.UNREAL)
            passive = t in ("is", "are", "was", "were", "am", "been") or t in self.GET \
                and (q := self.skip(toks, a + 1)) < len(toks) and self.is_past(toks[q]) \
                and toks[q] not in self.GET
            if perfect or passive:
                p = self.skip(toks, a + 1)
                if perfect and tuple(toks[p:p + 1]) == ("been",):
                    passive, p = True, self.skip(toks, p + 1)
                if p < len(toks) and toks[p] != "been" and (
                        self.is_past(toks[p]) or passive and toks[p] in self.done_adjectives):
                    if passive and (toks[p] in self.done_adjectives
                                    or self.lemma(toks[p]) in self.empty):
                        done = self.said_done(toks, a, p)
                        participle = toks[p] in self.done_adjectives and self.is_past(toks[p])
                        if done is not None or not participle:
                            return done
                        # (a participle of its own, said of no act's noun: "Your order is
                        # confirmed" reports a confirming)
                    done = self.reported(toks, a, p, passive)
                    return done if done is None or t not in self.GET else \
                        replace(done, undergone=True)
            elif self.is_past(t) and (a == 0 or toks[a - 1] not in ("have", "has", "had")) \
                    and self.doer(toks, a) is not None and not self.relative(toks, a):
                # (a participle after "have" is a perfect's, read above, or a modal one's)
                return self.reported(toks, a, a, False)
        return None

    def said_done(self, toks: Sequence[str], a: int, p: int) -> Act | None:
        """The act a thing is said done with no verb of its own ("Your refund is complete",
        "The cancellation is done", "Your booking is confirmed"): its noun's (one naming
        an act, not "the form"; "Your refund request is complete" is the request's), the
        word ending the clause (not "done within 5-7 days", "complete once the bank
        approves it"). The noun names the act, as a generic verb's object does."""
        head = self.head(toks[:a])
        named = self.act_noun(head)
        if named is None or any(t not in self.adverbs and t not in ("today", "for", "you")
                                for t in toks[p + 1:]):
            return None
        act = self.reported(toks, a, p, True)
        return None if act is None else replace(  # the noun and its class: a generic
            # verb's object ("confirm your booking" is closed by "Your booking is confirmed")
            act, objects=frozenset({self.lemma(head), named}), generic=True)

    def head(self, subject: Sequence[str]) -> str:
        """The head noun of a subject: its last word before what it is of or for ("Your
        refund for order 88231"), adverbs aside."""
        end = next((k for k, t in enumerate(subject) if t == "of" or t in self.ends),
                   len(subject))
        return next((t for t in reversed(subject[:end]) if t not in self.adverbs), "")

    def relative(self, toks: Sequence[str], a: int) -> bool:
        """Whether the past form at ``a`` is a relative clause's: its subject right after a
        noun a determiner opens ("the blender I bought", "the shoes you sent me"). It
        says which thing is meant; it reports nothing done."""
        k = a - 1
        while k >= 0 and toks[k] in self.adverbs:
            k -= 1
        if k < 2 or toks[k] not in self.PRONOUNS:
            return False
        noun = k - 1 - (toks[k - 1] in ("that", "which"))  # "the blender that I bought"
        return noun > 0 and toks[noun].isalpha() and toks[noun] not in self.function \
            and any(t in self.DETERMINERS for t in toks[max(0, noun - 3):noun])

    def joined_reports(self, text: str, done: Act) -> list[Act]:
        """The acts a report goes on to after "and" with a past form of their own and the
        first one's subject ("I've reset your password and texted you the code": the
        texting, done to the code), each read as a report of that subject."""
        toks = self.tokens(text)
        who = "i" if done.agent == "speaker" else "they"
        out = []
        for k, t in enumerate(toks[:-1]):
            j = self.skip(toks, k + 1) if t == "and" else len(toks)
            if j < len(toks) and self.is_past(toks[j]) and toks[j] not in ("been", "was",
                                                                          "were"):
                later = self.report(" ".join((who, *toks[j:])))
                if later is not None:
                    out.append(later)
        return out

    def doer(self, toks: Sequence[str], a: int) -> Agent | Literal[""] | None:
        """Who did the act whose past form is at ``a`` (simple past): "speaker" (I, we, or
        none said, its object after it: "Just texted you the link", "Sent!"; not
        "Refunded orders take 5 days", "Sent from my iPhone"), "other" (you), "" for anyone
        else named; None when what stands before is no subject."""
        k = a - 1
        while k >= 0 and toks[k] in self.adverbs:
            k -= 1
        if k < 0:
            after = toks[a + 1] if a + 1 < len(toks) else ""
            return "speaker" if after in self.OBJECTS or not after else None
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
        """The act of a report whose aux is at ``a`` and participle at ``p``."""
        phrase = self.verb_phrase(toks, p)
        if phrase is None and passive and self.lemma(toks[p]) in self.empty:
            # "The refund is done": an empty verb whose subject names the act
            phrase = frozenset({self.lemma(toks[p])}), [], p + 1
        if phrase is None:
            return None
        verbs, obj, _ = phrase
        subject = list(toks[:a])
        while subject and subject[-1] in self.adverbs:
            subject.pop()
        agent: Agent = None
        if not passive:
            who = self.doer(toks, a)
            agent = who if who in ("speaker", "other") else None
        generic = verbs <= self.generic
        # a passive's object is its subject ("the label has been emailed"); a generic
        # one's head names the act ("Your cancellation has been processed" is a
        # cancelling; not "Your cancellation request")
        objects = (self.content(subject) | self.content(obj)) if passive else \
            (self.content(obj) or self.content(subject))
        if generic and passive and (named := self.act_noun(self.head(subject))):
            objects |= {named}
        return Act(verbs, objects, agent, generic=generic, told=a == p,
                   head=self.head_of(obj if self.content(obj) or not passive else subject))

    def head_of(self, phrase: Sequence[str]) -> str | None:
        """The lemma of a noun phrase's head: its last content word before a relative
        clause ("the replacement you said you'd send": replacement)."""
        words: list[str] = []
        for t in phrase:
            if words and t in self.PRONOUNS:
                break
            if self.content((t,)):
                words.append(t)
        return self.lemma(words[-1]) if words else None

    # a task's own text --------------------------------------------------------------
    def act_of(self, text: str) -> Act | None:
        """The act a task's text names: a promise, or a request to do it."""
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
