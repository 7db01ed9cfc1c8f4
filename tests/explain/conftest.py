"""Fixtures of the explanation tests: the demo snapshot's path."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "scheduler_engine" / "demo" / "gpu-cluster.yaml"
