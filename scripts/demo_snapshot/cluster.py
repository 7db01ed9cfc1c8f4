"""Namespaces, priority classes and nodes: a CPU pool and A100 and H100 pools."""

from __future__ import annotations

from .objects import (
    GPU_TAINT,
    PYTORCH_IMAGE,
    ZONES,
    gfd_labels,
    namespace,
    node,
    priority_class,
)

# Nodes whose device plugin (nvidia.com/gpu allocatable) and GPU Feature Discovery
# (nvidia.com/gpu.count) disagree: (device-plugin count, GFD count).
GPU_FAULTS = {
    # four GPUs fell off the bus; the device plugin was not restarted and still
    # advertises eight, so the scheduler places pods on GPUs that do not exist
    "a100-c-1": (8, 4),
    # the device plugin marked one GPU unhealthy (Xid 79)
    "a100-c-2": (7, 8),
    # an NVSwitch fault: four GPUs unhealthy, yet a running pod holds six
    "h100-b-1": (4, 8),
}
NVLINK_CLUSTER = "7c1b3a2e-5d4f-4e8a-9b6c-0d1e2f3a4b5c"


def app_image() -> dict:
    """The application image, cached on the CPU nodes (and one A100 node)."""
    return {"names": ["registry.example.com/app:1.0"], "sizeBytes": 250_000_000}


def build() -> None:
    for ns, team in [
        ("ml-training", "research"),
        ("ml-inference", "serving"),
        ("data", "platform"),
        ("web", "product"),
        ("batch", "platform"),
    ]:
        namespace(ns, team)
    priority_class("inference-critical", 1_000_000, "Online inference; may preempt training.")
    priority_class("training-high", 100_000, "Foundation-model training runs.")
    priority_class("training-low", 1_000, "Preemptible experiments and sweeps.")
    priority_class("batch-no-preempt", 50_000, "Batch work that never preempts.", never=True)
    cpu_pool()
    a100_pool()
    h100_pool()


def cpu_pool() -> None:
    """Three nodes per zone, one cordoned for maintenance."""
    for z, zone in enumerate(ZONES):
        for i in range(1, 4):
            node(
                f"cpu-{zone[-1]}-{i}",
                zone,
                "32",
                "128Gi",
                labels={"pool": "cpu"},
                cordoned=(z == 2 and i == 3),
                images=[app_image()],
            )


def a100_pool() -> None:
    """Two 8-GPU nodes per zone; two of them disagree with their hardware (GPU_FAULTS)."""
    for zone in ZONES:
        for i in range(1, 3):
            name = f"a100-{zone[-1]}-{i}"
            plugin_count, gfd_count = GPU_FAULTS.get(name, (8, 8))
            # a100-c-1 is a p4d with 40 GB A100s that has the notebook image cached:
            # the default profile prefers it, GPUMemoryScore does not (docs/plugins.md)
            small = name == "a100-c-1"
            images = [{"names": [PYTORCH_IMAGE], "sizeBytes": 9_800_000_000}]
            if small:
                images.append(app_image())
            node(
                name,
                zone,
                "96",
                "1000Gi",
                instance="p4d.24xlarge",
                labels={
                    "pool": "a100",
                    **gfd_labels(
                        "NVIDIA-A100-SXM4-40GB" if small else "NVIDIA-A100-SXM4-80GB",
                        gfd_count,
                        40960 if small else 81920,
                        "ampere",
                        (8, 0),
                    ),
                },
                resources={"nvidia.com/gpu": str(plugin_count)},
                taints=[dict(GPU_TAINT)],
                images=images,
            )


def h100_pool() -> None:
    """Three 8-GPU nodes in two zones, reserved for training, in two NVLink domains."""
    for name, zone in [("h100-a-1", ZONES[0]), ("h100-a-2", ZONES[0]), ("h100-b-1", ZONES[1])]:
        plugin_count, gfd_count = GPU_FAULTS.get(name, (8, 8))
        node(
            name,
            zone,
            "192",
            "2000Gi",
            instance="p5.48xlarge",
            labels={
                "pool": "h100",
                **gfd_labels("NVIDIA-H100-80GB-HBM3", gfd_count, 81559, "hopper", (9, 0)),
                # an NVLink Switch System joins nodes into NVLink domains (cliques)
                "nvidia.com/gpu.clique": f"{NVLINK_CLUSTER}.{1 if zone == ZONES[0] else 2}",
            },
            resources={"nvidia.com/gpu": str(plugin_count)},
            taints=[dict(GPU_TAINT), {"key": "pool", "value": "h100", "effect": "NoSchedule"}],
            images=[{"names": [PYTORCH_IMAGE], "sizeBytes": 9_800_000_000}],
        )
