"""HoldTheGIL: a test plugin whose PreScore holds the interpreter's GIL for ``seconds``, once.

A stand-in for a long C-level step (decoding a huge document, a collection of
millions of objects): no other thread of the process runs meanwhile. The
sleep is libc's, called through ``ctypes.PyDLL``, which keeps the GIL held
during the call.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scheduler_engine import plugin_api as api

SPEC = "tests.support.gil_holder:HoldTheGIL"


@dataclass(frozen=True)
class HoldTheGILArgs(api.PluginArgs):
    """``pluginConfig`` args: ``seconds`` (whole seconds) to hold the GIL for."""

    seconds: int = 0


class HoldTheGIL:
    """PreScore: the first call holds the GIL for ``seconds``; then nothing."""

    NAME = "HoldTheGIL"
    Args = HoldTheGILArgs
    EVENTS: frozenset[str] = frozenset()

    def __init__(self, args: HoldTheGILArgs, handle: api.Handle) -> None:
        self.args = args
        self.held = False

    def pre_score(
        self, state: api.CycleState, pod: Any, nodes: Sequence[api.NodeInfo]
    ) -> api.Status | None:
        if not self.held:
            self.held = True
            ctypes.PyDLL(None).sleep(ctypes.c_uint(self.args.seconds))
        return None


def worker_env(**settings: str) -> dict[str, str]:
    """A worker's environment: HoldTheGIL loadable, a heartbeat every 0.3 s, and ``settings``."""
    return {"SCHEDLAB_PLUGINS": SPEC, "SCHEDLAB_DRYRUN_HEARTBEAT_SECONDS": "0.3", **settings}


def profile(seconds: int) -> str:
    """A profile with the default plugins and HoldTheGIL at PreScore."""
    return f"""\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    preScore:
      enabled:
      - name: HoldTheGIL
  pluginConfig:
  - name: HoldTheGIL
    args: {{seconds: {seconds}}}
"""
