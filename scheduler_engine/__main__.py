"""``python -m scheduler_engine``: see :mod:`scheduler_engine.cli`."""

from __future__ import annotations

from .cli import main

raise SystemExit(main())
