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

# --policy name → score plugin
POLICIES: dict[str, str] = {
    "random": "RandomScore",
    "dot-product": "DotProductScore",
    "gpu-clustering": "GpuClusteringScore",
    "gpu-packing": "GpuPackingScore",
    "best-fit": "BestFitScore",
    "fgd": "FGDScore",
}
# how the simulator's experiments choose each policy's GPU (OpenGpuShare gpuSelMethod)
GPU_SEL_METHOD: dict[str, str] = {
    "RandomScore": "random",
    "DotProductScore": "best",
    "GpuClusteringScore": "best",
    "GpuPackingScore": "best",
    "BestFitScore": "best",
    "FGDScore": "FGDScore",
}
# and the plugin's own arguments
POLICY_ARGS: dict[str, dict[str, str]] = {
    "DotProductScore": {"dimExtMethod": "merge", "normMethod": "max"},
}
