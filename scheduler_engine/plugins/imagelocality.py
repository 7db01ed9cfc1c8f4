"""ImageLocality: a Score plugin (upstream ``plugins/imagelocality``).

Favours nodes that already hold the pod's images (init containers, containers
and image volumes).  Each present image scores its size scaled by the share of
nodes that hold it (to avoid piling pods on the few nodes with an image); the
sum is clamped to [23 MiB, 1000 MiB x number of containers] and mapped
linearly to 0..100.  No NormalizeScore.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..framework.cycle_state import CycleState
from ..framework.interfaces import MAX_NODE_SCORE
from ..framework.node_info import ImageStateSummary, NodeInfo
from ..framework.signers import IMAGE_NAMES, Fragments
from ..framework.status import Status
from ..gocompat import go_div
from ..objects import Pod, normalized_image_name
from .helper import HandlePlugin, signatures_for

__all__ = [
    "MAX_CONTAINER_THRESHOLD",
    "MIN_THRESHOLD",
    "NAME",
    "PLUGIN",
    "ImageLocality",
    "calculate_priority",
    "new",
    "scaled_image_score",
]

NAME = "ImageLocality"
MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB


def scaled_image_score(state: ImageStateSummary, total_num_nodes: int) -> int:
    # float64 arithmetic and truncation, as upstream
    spread = float(state.num_nodes) / float(total_num_nodes)
    return int(float(state.size) * spread)


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    if sum_scores < MIN_THRESHOLD:
        sum_scores = MIN_THRESHOLD
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    return go_div(MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD), max_threshold - MIN_THRESHOLD)


def pod_images(pod: Pod) -> tuple[tuple[str, ...], int]:
    """Normalized image names (init containers, containers, image volumes) and the container count."""
    cached = pod.cache.get(NAME)
    if cached is None:
        spec = pod.spec
        inits = spec.get("initContainers") or []
        containers = spec.get("containers") or []
        names = [normalized_image_name(str(c.get("image") or "")) for c in inits]
        names += [normalized_image_name(str(c.get("image") or "")) for c in containers]
        for v in spec.get("volumes") or []:
            img = v.get("image") if isinstance(v, Mapping) else None
            if isinstance(img, Mapping):
                names.append(normalized_image_name(str(img.get("reference") or "")))
        cached = pod.cache[NAME] = (tuple(names), len(inits) + len(containers))
    return cached


class ImageLocality(HandlePlugin):
    NAME = NAME
    # answers from the pod's spec and that one node alone (framework/node_memo.py)
    node_local_score = True

    __slots__ = ("handle",)

    def _total_nodes(self) -> int:
        return len(self.handle.snapshot().node_info_list)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int | Status:
        images, num_containers = pod_images(pod)
        total = self._total_nodes()
        states = node_info.image_states
        total_score = 0
        for name in images:
            st = states.get(name)
            if st is not None:
                total_score += scaled_image_score(st, total)
        return calculate_priority(total_score, num_containers)

    def score_batch(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> np.ndarray:
        images, num_containers = pod_images(pod)
        total = self._total_nodes()
        tab, rows = signatures_for(self.handle, nodes)
        sums = np.zeros(len(nodes), dtype=np.int64)
        for name in images:
            sums += tab.image_scores(name, total, scaled_image_score)[rows]
        max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
        if max_threshold <= MIN_THRESHOLD:
            # degenerate (no containers): keep the scalar formula's exact arithmetic
            return np.fromiter(
                (calculate_priority(int(s), num_containers) for s in sums.tolist()),
                dtype=np.int64,
                count=len(nodes),
            )
        clamped = np.clip(sums, MIN_THRESHOLD, max_threshold)
        # non-negative operands: floor division equals Go's truncation
        return (MAX_NODE_SCORE * (clamped - MIN_THRESHOLD)) // (max_threshold - MIN_THRESHOLD)

    def sign_pod(self, pod: Pod) -> tuple[Fragments, Status | None]:
        """Its score depends on the images of the containers and init containers."""
        spec = pod.spec
        containers = [*(spec.get("containers") or ()), *(spec.get("initContainers") or ())]
        names = sorted({normalized_image_name(str(c.get("image") or "")) for c in containers})
        return [(IMAGE_NAMES, names)], None


PLUGIN = ImageLocality
new = ImageLocality.new
