"""The six GPU scheduling policies of the FGD paper as Score plugins.

``RandomScore``, ``BestFitScore``, ``DotProductScore``, ``GpuPackingScore``,
``GpuClusteringScore`` and ``FGDScore``, each the counterpart of the module of
the same name in ``hkust-adsl/kubernetes-scheduler-simulator``
(``pkg/simulator/plugin/``).  They read the GPU state that the
``OpenGpuShare`` plugin keeps (:mod:`..gpushare`), are registered with the
in-tree plugins (any profile can enable them), and :data:`POLICIES` maps the
``replay --policy`` names to them.
"""

from __future__ import annotations

__all__ = ["GPU_SEL_METHOD", "POLICIES", "POLICY_ARGS"]

# --policy name, its score plugin, and how the simulator's experiments choose
# that policy's GPU (OpenGpuShare gpuSelMethod)
_TABLE: tuple[tuple[str, str, str], ...] = (
    ("random", "RandomScore", "random"),
    ("dot-product", "DotProductScore", "best"),
    ("gpu-clustering", "GpuClusteringScore", "best"),
    ("gpu-packing", "GpuPackingScore", "best"),
    ("best-fit", "BestFitScore", "best"),
    ("fgd", "FGDScore", "FGDScore"),
)
# --policy name → score plugin
POLICIES: dict[str, str] = {policy: plugin for policy, plugin, _ in _TABLE}
# score plugin → gpuSelMethod
GPU_SEL_METHOD: dict[str, str] = {plugin: method for _, plugin, method in _TABLE}
# and the plugin's own arguments
POLICY_ARGS: dict[str, dict[str, str]] = {
    "DotProductScore": {"dimExtMethod": "merge", "normMethod": "max"},
}
