"""Names the API server generates (``metadata.generateName``), made repeatable.

The API server appends five random characters from an alphabet without vowels
or look-alike digits; here they are drawn from a seed (a UID and what the
name is for), so a simulation names the same object the same way each run.
"""

from __future__ import annotations

import hashlib

__all__ = ["generated_name"]

# the API server's alphabet (k8s.io/apimachinery/pkg/util/rand)
_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_SUFFIX_LENGTH = 5
# names the API server generates are cut so that the suffix fits in 63 characters
_MAX_BASE = 63 - _SUFFIX_LENGTH


def generated_name(base: str, seed: str) -> str:
    """``base`` (cut to fit) followed by five characters drawn from ``seed``."""
    digest = hashlib.sha256(seed.encode()).digest()
    suffix = "".join(_ALPHABET[b % len(_ALPHABET)] for b in digest[:_SUFFIX_LENGTH])
    return base[:_MAX_BASE] + suffix
