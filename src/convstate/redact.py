"""Redaction hooks for the rendered block: the model sees masked values, the store and
the state keep the originals. Pass one as ``ConversationMemory(redact=...)``."""

from __future__ import annotations

import re

from .extract.rules import ANCHOR_PATTERNS

_PHONE = next(p for kind, _, p, _ in ANCHOR_PATTERNS if kind == "phone")
_EMAIL = next(p for kind, _, p, _ in ANCHOR_PATTERNS if kind == "email")


def mask_phones(text: str, keep: int = 4) -> str:
    """Phone numbers with all but their last ``keep`` digits masked: 138****5678."""
    def mask(m: re.Match[str]) -> str:
        digits = sum(c.isdigit() for c in m.group(0))
        seen = 0
        out = []
        for c in m.group(0):
            if c.isdigit():
                seen += 1
                out.append(c if seen > digits - keep else "*")
            else:
                out.append(c)
        return "".join(out)
    return _PHONE.sub(mask, text)


def mask_emails(text: str) -> str:
    """Email addresses with the local part masked but its first letter: z***@example.com."""
    return _EMAIL.sub(lambda m: m.group(0)[0] + "***@" + m.group(0).split("@", 1)[1], text)


def mask_contacts(text: str) -> str:
    """Both: phone numbers and email addresses."""
    return mask_emails(mask_phones(text))
