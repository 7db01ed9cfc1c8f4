"""Uploaded traces: written to a private temporary directory and read by the engine's reader.

The engine's reader picks the format by the file's extension, so a Schedlab
JSON-lines trace is written as ``pods.jsonl`` and an openb trace as
``nodes.csv`` and ``pods.csv``; errors name the upload's field, not the
temporary file.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from scheduler_engine.errors import InputError
from scheduler_engine.replay import Trace, read_trace

__all__ = ["load_trace"]


def load_trace(fmt: str, nodes_text: str, pods_text: str) -> Trace:
    """The trace of one upload; :class:`InputError` whose ``file`` is the upload's field."""
    with tempfile.TemporaryDirectory(prefix="schedlab-trace-") as tmp:
        root = Path(tmp)
        if fmt == "openb":
            names = {root / "nodes.csv": "nodes_csv", root / "pods.csv": "pods_csv"}
            (root / "nodes.csv").write_text(nodes_text, encoding="utf-8")
            (root / "pods.csv").write_text(pods_text, encoding="utf-8")
            nodes_path: str | None = str(root / "nodes.csv")
            pods_path = str(root / "pods.csv")
        else:
            names = {root / "pods.jsonl": "jsonl"}
            (root / "pods.jsonl").write_text(pods_text, encoding="utf-8")
            nodes_path, pods_path = None, str(root / "pods.jsonl")
        try:
            return read_trace(nodes_path, pods_path)
        except InputError as exc:
            label = names.get(Path(exc.file), "jsonl") if exc.file else None
            raise InputError(exc.message, file=label, obj=exc.obj, field=exc.field) from None
