"""The key under which surface forms of one name count as the same.

It lives in the store because the store keys aliases by it; everything above
(extraction, de-duplication, metrics) uses this one definition.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache


@lru_cache(maxsize=200_000)
def normalize_surface(text: str) -> str:
    """Case, accents, punctuation and spacing ignored ("Nike, Inc." ~ "nike inc")."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = re.sub(r"[^\w\s]", " ", text.casefold())
    return " ".join(text.split())
