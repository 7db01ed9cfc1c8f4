"""The GPU fleet, node topology and inconsistency views as pages (demo cluster)."""

from __future__ import annotations

import re

import pytest

from dashboard.cluster.services.clusters import ensure_snapshot_cluster
from dashboard.cluster.services.snapshots import import_objects
from dashboard.explain import live
from tests.support import gpus, objects


@pytest.fixture
def fresh():
    live.forget()


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_a_dra_node_draws_its_gpus_by_pcie_root_with_holders(demo, viewer, fresh):
    page = viewer.get("/clusters/demo/gpus/dra-gpu-1/").content.decode()
    assert page.count('data-state="used"') == 6 and page.count('data-state="free"') == 2
    assert "PCIe root <code>pci0000:10</code>" in page
    # each used cell links to its pod's page and to its claim
    assert (
        page.count('href="/clusters/demo/pods/ml-inference/viz-stream-0/"') == 7
    )  # 6 cells + table
    assert page.count('href="#claim-ml-inferenceviz-stream-gpus"') == 6
    assert 'id="claim-ml-inferenceviz-stream-gpus"' in page
    assert "None: <code>nvidia.com/gpu</code> allocatable" in page  # consistent node


def test_mig_partitions_sit_inside_their_parent_and_orphans_are_flagged(demo, viewer, fresh):
    page = viewer.get("/clusters/demo/gpus/dra-gpu-2/").content.decode()
    parent = page[
        page.index('data-gpu="gpu-6"') : page.index("</ul>", page.index('data-gpu="gpu-6"'))
    ]
    assert parent.count("MIG 2g.12gb") == 2
    text = _text(page)
    assert "claim batch/transcode-3-gpus holds gpu-4, gpu-5 for batch/transcode-3" in text
    assert "pod batch/transcode-3 (gone)" in text
    assert 'data-kind="gfd-vs-devices"' in page


def test_a_count_only_node_says_so_and_shows_the_count(viewer, fresh, db):
    cluster = ensure_snapshot_cluster("count-only", "test")
    objs = [
        gpus.gpu_node("n1", gpus=7, gfd_count=8),
        gpus.nrt("n1", [(4, 2), (4, 4)]),
        objects.pod("p1", node="n1", gpus=2),
    ]
    import_objects(cluster, objs)
    page = viewer.get("/clusters/count-only/gpus/n1/").content.decode()
    text = _text(page)
    assert "publishes only a device-plugin count" in text
    assert "allocatable 7 , GPU Feature Discovery counts 8" in text
    assert page.count('class="gpu gpu-') == 8  # the hardware's eight, holders inferred
    assert page.count('data-state="used"') == 2 and page.count("(inferred)") == 2
    assert "NUMA node 0" in text and "NUMA node 1" in text
    assert 'data-kind="allocatable-vs-gfd"' in page


def test_the_overview_and_fleet_flag_the_inconsistent_nodes(demo, viewer, fresh):
    overview = viewer.get("/clusters/demo/").content.decode()
    # the list reads every GPU node: the overview loads it right after the page
    assert 'data-live-fragment="/clusters/demo/gpus/inconsistencies/"' in overview
    fragment = viewer.get("/clusters/demo/gpus/inconsistencies/").content.decode()
    flagged = set(re.findall(r'href="/clusters/demo/gpus/([^/]+)/"', fragment))
    assert flagged == {"a100-c-1", "a100-c-2", "h100-b-1", "dra-gpu-2"}
    for kind in ("allocatable-vs-gfd", "requests-above-allocatable", "claim-of-missing-pod"):
        assert f'data-kind="{kind}"' in fragment
    fleet = viewer.get("/clusters/demo/gpus/").content.decode()
    assert fleet.count('class="fleet-node') == 11
    assert fleet.count("fleet-inconsistent") == 4


def test_node_names_on_the_nodes_page_open_the_topology(demo, viewer, fresh):
    rows = viewer.get("/clusters/demo/nodes/rows/?q=gpu").content.decode()
    assert 'href="/clusters/demo/gpus/dra-gpu-1/"' in rows
    assert 'href="/clusters/demo/gpus/a100-a-1/"' not in rows  # not matched by q
    assert viewer.get("/clusters/demo/gpus/dra-gpu-1/body/").status_code == 200


def test_a_node_without_gpus_is_404(demo, viewer, fresh):
    assert viewer.get("/clusters/demo/gpus/nope/").status_code == 404
