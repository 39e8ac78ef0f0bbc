"""A branch-name slug of a feature's words (``rgr run``'s branch, ``rgr queue add``'s):
the standard library only, so that a command that only names a branch (``rgr queue
add``) does not pay for importing the run's start (rgr.loop.starting: half a second)."""

from __future__ import annotations

import hashlib
import re
import unicodedata


def slugify(text: str, limit: int = 40) -> str:
    """A branch-name slug of ``text``: accents dropped from Latin letters (é -> e), the
    letters of other scripts kept, anything else a '-'. When the slug had to be cut, or
    nothing readable is left, a hash of the whole text makes it unique to that text."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    slug = re.sub(r"[\W_]+", "-", unicodedata.normalize("NFC", bare)).strip("-")
    if slug and len(slug) <= limit:
        return slug
    tag = hashlib.sha1(text.encode()).hexdigest()[:6]
    head = slug[: limit - len(tag) - 1].rstrip("-")
    return f"{head}-{tag}" if head else f"feature-{tag}"
