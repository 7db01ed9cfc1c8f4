"""Compact storage of JSON payloads: gzip of compact JSON.

:func:`pack_items` gives the bytes :func:`pack` gives for a list, built item
by item: the list is never held whole, nor its JSON text.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import zlib
from collections.abc import Iterable
from typing import Any

from scheduler_engine.collector import collector_paused

__all__ = ["pack", "pack_items", "sha256", "unpack"]

# what pack() passes to json.dumps and gzip.compress
_SEPARATORS = (",", ":")
_LEVEL = 1
# text gathered before it is handed to the compressor
_CHUNK = 1 << 20


def pack(value: Any) -> bytes:
    raw = json.dumps(value, separators=_SEPARATORS, sort_keys=False).encode()
    # mtime=0: equal payloads give equal bytes, so sha256 identifies the state
    return gzip.compress(raw, compresslevel=_LEVEL, mtime=0)


def pack_items(items: Iterable[Any]) -> tuple[bytes, int]:
    """``(pack(list(items)), len(list(items)))`` with one item in memory at a time.

    The same bytes: JSON with the same encoder options, written ``[a,b,...]``,
    into the deflate stream with the gzip header and trailer that
    ``gzip.compress(..., mtime=0)`` writes (``zlib`` with ``wbits=31``);
    deflate's output does not depend on how its input is cut.
    """
    encode = json.JSONEncoder(separators=_SEPARATORS, sort_keys=False).encode
    z = zlib.compressobj(_LEVEL, zlib.DEFLATED, 31)
    out = bytearray()
    text = ["["]
    size = 0
    n = 0
    for item in items:
        piece = encode(item)
        text.append("," + piece if n else piece)
        n += 1
        size += len(piece)
        if size >= _CHUNK:
            out += z.compress("".join(text).encode())
            text.clear()
            size = 0
    text.append("]")
    out += z.compress("".join(text).encode())
    out += z.flush()
    return bytes(out), n


def unpack(data: bytes | memoryview) -> Any:
    with collector_paused():  # a frozen state is millions of containers, all kept
        return json.loads(gzip.decompress(bytes(data)))


def sha256(data: bytes | memoryview) -> str:
    return hashlib.sha256(bytes(data)).hexdigest()
