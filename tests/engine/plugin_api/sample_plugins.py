"""Plugins the plugin-interface tests load by MODULE:CLASS."""

from __future__ import annotations

from dataclasses import dataclass

from scheduler_engine.plugin_api import ArgsProblem, PluginArgs, Status


@dataclass(frozen=True)
class PickyArgs(PluginArgs):
    reject_label: str = "picky/reject"
    max_pods: int = 10
    ratio: float = 0.5

    def validate(self) -> list[ArgsProblem]:
        if self.max_pods < 0:
            return [("maxPods", self.max_pods, "must be non-negative")]
        return []


class Picky:
    """Filter: rejects nodes labelled ``reject_label``."""

    NAME = "Picky"
    Args = PickyArgs
    EVENTS = frozenset()

    def __init__(self, args: PickyArgs, handle) -> None:
        self.args = args

    def filter(self, state, pod, node_info):
        if self.args.reject_label in node_info.node.labels:
            return Status.unschedulable("node(s) were picked against")
        return None


class Exploding:
    """Raises at whichever point the pod's name says (filter, score, normalize)."""

    NAME = "Exploding"

    def __init__(self, args, handle) -> None:
        pass

    def filter(self, state, pod, node_info):
        if pod.name.startswith("boom-filter"):
            raise RuntimeError("filter blew up")
        return None

    def score(self, state, pod, node_info):
        if pod.name.startswith("boom-score"):
            raise KeyError("score blew up")
        return 1

    def score_extensions(self):
        return self

    def normalize_score(self, state, pod, scores):
        if pod.name.startswith("boom-normalize"):
            raise ZeroDivisionError("normalize blew up")
        return None


class BrokenInit:
    NAME = "BrokenInit"

    def __init__(self, args, handle) -> None:
        raise RuntimeError("no GPU inventory service")

    def filter(self, state, pod, node_info):
        return None


class NoPoints:
    NAME = "NoPoints"


class Clash:
    NAME = "NodeResourcesFit"

    def filter(self, state, pod, node_info):
        return None
