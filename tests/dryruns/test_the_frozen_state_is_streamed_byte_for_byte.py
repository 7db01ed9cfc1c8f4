"""The mirrored state is frozen row by row into the same bytes as the whole list packed at once.

Freezing 150,000 pods built every object, the whole JSON text and its bytes in
the web process; now rows stream from the database into the compressor. The
stored document must not change by a byte: its sha256 identifies the state.
"""

from __future__ import annotations

import pytest

from dashboard.cluster.services.snapshots import export_snapshot, import_objects
from dashboard.dryruns import codec
from dashboard.dryruns.models import DryRun
from dashboard.dryruns.services.dryruns import create_dry_run
from dashboard.dryruns.services.errors import BadInput
from dashboard.dryruns.services.workload import expand_workload
from tests.support.synthetic import fleet, job, pod

WORKLOAD = [job("train", 4)]


def _odd_pod() -> dict:
    """Text JSON escapes (non-ASCII, a line separator, quotes) and a float."""
    p = pod(9001, node_name="a100-c-2")
    p["metadata"]["annotations"] = {"owner": 'Zoë ☃ \u2028 "quoted"', "ratio": 0.1}
    return p


@pytest.mark.parametrize(
    "items",
    [[], [{}], fleet(3, running=5, pending=2), [_odd_pod(), [1.5e300, None, True, "é"]]],
    ids=["empty", "one-empty-object", "fleet", "escapes"],
)
def test_packing_item_by_item_gives_the_bytes_of_packing_the_list(items, monkeypatch):
    assert codec.pack_items(iter(items)) == (codec.pack(items), len(items))
    monkeypatch.setattr(codec, "_CHUNK", 7)  # many small pieces into the compressor
    assert codec.pack_items(iter(items)) == (codec.pack(items), len(items))


def test_a_mirror_dry_run_freezes_the_bytes_it_froze_before(demo_cluster):
    import_objects(demo_cluster, [*export_snapshot(demo_cluster)["items"], _odd_pod()])
    run = create_dry_run(demo_cluster, source=DryRun.Source.MIRROR, workload=WORKLOAD)
    # what the freeze was: every object in one list, then the workload, packed at once
    objects = export_snapshot(demo_cluster)["items"] + expand_workload(WORKLOAD)
    expected = codec.pack(objects)
    stored = bytes(DryRun.objects.get(pk=run.pk).snapshot)
    assert stored == expected
    assert run.snapshot_sha256 == codec.sha256(expected)
    assert run.snapshot_objects == len(objects) and run.workload_pods == 4


def test_moves_are_checked_against_the_streamed_state(demo_cluster):
    running = next(
        o
        for o in export_snapshot(demo_cluster)["items"]
        if o["kind"] == "Pod" and o["spec"].get("nodeName")
    )
    name = f"{running['metadata']['namespace']}/{running['metadata']['name']}"
    source = running["spec"]["nodeName"]
    target = next(
        o["metadata"]["name"]
        for o in export_snapshot(demo_cluster)["items"]
        if o["kind"] == "Node" and o["metadata"]["name"] != source
    )
    move = {"pod": name, "from": source, "to": target}
    run = create_dry_run(demo_cluster, source=DryRun.Source.MIRROR, moves=[move])
    assert run.moves == [move]
    with pytest.raises(BadInput) as exc:
        create_dry_run(demo_cluster, source=DryRun.Source.MIRROR, moves=[{**move, "to": "nope"}])
    assert list(exc.value.errors) == ["moves[0].to"]
    with pytest.raises(BadInput) as exc:
        create_dry_run(demo_cluster, source=DryRun.Source.MIRROR, moves=[{**move, "pod": "x/y"}])
    assert list(exc.value.errors) == ["moves[0].pod"]
    assert DryRun.objects.count() == 1  # nothing of the refused ones stored
