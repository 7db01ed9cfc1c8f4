"""Compact storage of JSON payloads: gzip of compact JSON."""

from __future__ import annotations

import gzip
import hashlib
import json
from typing import Any

__all__ = ["pack", "sha256", "unpack"]


def pack(value: Any) -> bytes:
    raw = json.dumps(value, separators=(",", ":"), sort_keys=False).encode()
    # mtime=0: equal payloads give equal bytes, so sha256 identifies the state
    return gzip.compress(raw, compresslevel=1, mtime=0)


def unpack(data: bytes | memoryview) -> Any:
    return json.loads(gzip.decompress(bytes(data)))


def sha256(data: bytes | memoryview) -> str:
    return hashlib.sha256(bytes(data)).hexdigest()
