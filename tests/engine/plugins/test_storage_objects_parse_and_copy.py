"""Claims and volumes: the fields both carry, their copies, and the errors they name."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_engine.errors import InputError
from scheduler_engine.storage import ClaimInfo, VolumeInfo

from .storage_objects import pv, pvc


def _fields(obj: ClaimInfo | VolumeInfo) -> dict[str, Any]:
    return {s: getattr(obj, s) for cls in type(obj).__mro__ for s in getattr(cls, "__slots__", ())}


def test_a_claim_and_a_volume_read_their_shared_fields_alike():
    for parse, doc in ((ClaimInfo, pvc("c", "sc")), (VolumeInfo, pv("v", "sc"))):
        doc["metadata"]["annotations"] = {"a": "1"}
        doc["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z"
        doc["spec"]["volumeAttributesClassName"] = "gold"
        obj = parse(doc)
        assert (obj.raw, obj.name, obj.annotations, obj.deleting) == (
            doc,
            doc["metadata"]["name"],
            {"a": "1"},
            True,
        )
        assert (obj.storage_class, obj.access_modes, obj.volume_mode, obj.vac) == (
            "sc",
            ("ReadWriteOnce",),
            "Filesystem",
            "gold",
        )


def test_a_copy_keeps_every_field_and_owns_its_annotations():
    for obj in (
        ClaimInfo(pvc("c", "sc", volume="v")),
        VolumeInfo(pv("v", "sc", claim=("ns", "c"))),
    ):
        twin = obj.copy()
        assert type(twin) is type(obj)
        assert _fields(twin) == _fields(obj)
        twin.annotations["changed"] = "yes"
        assert "changed" not in obj.annotations


def test_a_bad_claim_request_names_the_claim_and_the_field():
    with pytest.raises(InputError) as err:
        ClaimInfo(pvc("c", ns="team", request="lots"), "cluster.yaml")
    assert (err.value.file, err.value.obj, err.value.field) == (
        "cluster.yaml",
        "PersistentVolumeClaim team/c",
        "spec.resources.requests.storage",
    )


def test_a_bad_volume_capacity_names_the_volume_and_the_field():
    with pytest.raises(InputError) as err:
        VolumeInfo(pv("v", capacity="lots"), "cluster.yaml")
    assert (err.value.obj, err.value.field) == ("PersistentVolume v", "spec.capacity.storage")


def test_a_bad_claim_selector_names_the_claim():
    doc = pvc("c")
    doc["spec"]["selector"] = {"matchExpressions": [{"key": "k", "operator": "Bogus"}]}
    with pytest.raises(InputError) as err:
        ClaimInfo(doc, "cluster.yaml")
    assert err.value.obj == "PersistentVolumeClaim default/c"
    assert err.value.field.startswith("spec.selector")
