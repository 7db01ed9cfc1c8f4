"""The project's ASGI application, loaded only once the file SCHEDLAB_TEST_GATE exists: a
web process held while it loads its application, for as long as a test needs. On reaching
the gate it creates ``<gate>.<pid>`` so the test knows it waits there."""

from __future__ import annotations

import os
import time
from pathlib import Path

_gate = Path(os.environ["SCHEDLAB_TEST_GATE"])
Path(f"{_gate}.{os.getpid()}").touch()
while not _gate.exists():
    time.sleep(0.1)

from schedlab.asgi import application  # noqa: E402

__all__ = ["application"]
