"""Dry-runs that move running pods first (a defragmentation plan), then schedule.

The request checks each move against the frozen objects (:func:`check_moves`,
400 naming ``moves[i].field``); the worker applies them with the engine
(:func:`apply_moves`: each pod evicted from its node and bound to the target)
before the pending pods are scheduled.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from scheduler_engine.cluster import ClusterState
from scheduler_engine.whatif.moves import Move, with_moves

from .errors import BadInput

__all__ = ["MAX_MOVES", "Placements", "apply_moves", "check_moves"]

MAX_MOVES = 100


def _pod_key(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name')}"


class Placements:
    """The node names and where each pod runs, gathered as the frozen objects go by."""

    __slots__ = ("nodes", "where")

    def __init__(self) -> None:
        self.nodes: set[str] = set()
        self.where: dict[str, str] = {}

    def tap(self, objects: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        """``objects`` unchanged, each one noted on the way."""
        for o in objects:
            if o.get("kind") == "Node":
                self.nodes.add((o.get("metadata") or {}).get("name"))
            elif o.get("kind") == "Pod":
                self.where[_pod_key(o)] = (o.get("spec") or {}).get("nodeName") or ""
            yield o


def check_moves(moves: Any, seen: Placements) -> list[dict[str, str]]:
    """The moves as stored (``[{"pod", "from", "to"}]``); BadInput naming the first bad field.

    ``seen`` has gone over the frozen objects.
    """
    if moves is None:
        return []
    if not isinstance(moves, list):
        raise BadInput.one(
            "moves", 'must be a list of {"pod": "ns/name", "from": node, "to": node}'
        )
    if len(moves) > MAX_MOVES:
        raise BadInput.one("moves", f"at most {MAX_MOVES} moves")
    nodes, where = seen.nodes, seen.where
    out: list[dict[str, str]] = []
    moved: set[str] = set()
    for i, m in enumerate(moves):
        field = f"moves[{i}]"
        if not isinstance(m, dict):
            raise BadInput.one(field, 'must be {"pod": "ns/name", "from": node, "to": node}')
        for part in ("pod", "from", "to"):
            if not isinstance(m.get(part), str) or not m[part]:
                raise BadInput.one(f"{field}.{part}", "is required (a string)")
        extra = sorted(set(m) - {"pod", "from", "to"})
        if extra:
            raise BadInput.one(f"{field}.{extra[0]}", "unknown field")
        pod, source, target = m["pod"], m["from"], m["to"]
        if pod not in where:
            raise BadInput.one(f"{field}.pod", f"no pod {pod} in the cluster state")
        if pod in moved:
            raise BadInput.one(f"{field}.pod", f"{pod} is moved twice")
        if not where[pod]:
            raise BadInput.one(f"{field}.pod", f"{pod} is pending: only running pods move")
        if where[pod] != source:
            raise BadInput.one(f"{field}.from", f"{pod} runs on {where[pod]}, not {source}")
        if target not in nodes:
            raise BadInput.one(f"{field}.to", f"no node {target} in the cluster state")
        if target == source:
            raise BadInput.one(f"{field}.to", "is the node the pod runs on")
        moved.add(pod)
        out.append({"pod": pod, "from": source, "to": target})
    return out


def apply_moves(state: ClusterState, moves: list[dict[str, str]]) -> ClusterState:
    """The state with each moved pod running on its target node."""
    if not moves:
        return state
    try:
        return with_moves(state, [Move(m["pod"], m["from"], m["to"], 0) for m in moves])
    except KeyError as exc:
        raise BadInput.one("moves", str(exc.args[0])) from None
