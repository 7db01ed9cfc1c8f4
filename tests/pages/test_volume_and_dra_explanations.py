"""The explanation fragment of pods with PVCs and DRA claims reads the mirrored claims."""

from __future__ import annotations

from html import unescape


def _fragment(client, ns: str, name: str) -> str:
    return unescape(client.get(f"/clusters/demo/pods/{ns}/{name}/explanation/").content.decode())


def test_a_pod_without_a_volume_names_its_unbound_claim(demo, viewer):
    fragment = _fragment(viewer, "ml-training", "dataset-prep-huge")
    assert "8 node(s) didn't find available persistent volumes to bind" in fragment
    assert "not found" not in fragment
    assert "PersistentVolumeClaim ml-training/dataset-cache-huge is unbound" in fragment


def test_a_pod_whose_devices_are_taken_names_its_claim(demo, viewer):
    fragment = _fragment(viewer, "ml-training", "finetune-l40s-0")
    assert "2 cannot allocate all claims" in fragment
    assert "ResourceSlices have free" in fragment


def test_a_dra_pod_is_scheduled(demo, viewer):
    fragment = _fragment(viewer, "ml-inference", "render-preview-0")
    assert "dra-gpu-1" in fragment and "DynamicResources" in fragment
