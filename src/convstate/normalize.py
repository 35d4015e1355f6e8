"""The normalized key that deduplication compares (zh and en alike)."""

from __future__ import annotations

import unicodedata
from functools import lru_cache


@lru_cache(maxsize=16384)  # every fold keys the whole state again: the same texts
def normalize(text: str) -> str:
    """Fold width (NFKC), case, whitespace and punctuation: '１３８-0013 8000' == '13800138000'.

    Letters and digits of every script are kept, so Chinese text keeps its characters.
    A text of only punctuation or symbols keeps its folded form rather than becoming ''.
    """
    # upper() before casefold(): 'ı' and 'i' (and other letters whose case mapping is
    # not one-to-one) meet in one form; NFKC again for what case mapping decomposes.
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).upper()
                                   .casefold())
    key = "".join(ch for ch in folded if unicodedata.category(ch)[0] in "LN")
    return key or "".join(folded.split())
