"""ImageLocality (upstream imagelocality/image_locality_test.go)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler_engine.framework.cycle_state import CycleState
from scheduler_engine.framework.snapshot import Snapshot
from scheduler_engine.objects import normalized_image_name
from scheduler_engine.plugins import imagelocality
from tests.engine.builders import make_node, make_pod

MB = 1024 * 1024


class _Handle:
    def __init__(self, snap: Snapshot) -> None:
        self._snap = snap

    def snapshot(self) -> Snapshot:
        return self._snap


def _node(name: str, *images: tuple[list[str], int]):
    b = make_node(name)
    b.set("status.images", [{"names": names, "sizeBytes": size} for names, size in images])
    return b.node()


def _pod(*images: str, init: tuple[str, ...] = (), volumes: tuple[str, ...] = ()):
    b = make_pod("p")
    b.set("spec.containers", [{"name": f"c{i}", "image": img} for i, img in enumerate(images)])
    if init:
        b.set(
            "spec.initContainers", [{"name": f"i{i}", "image": img} for i, img in enumerate(init)]
        )
    if volumes:
        b.set(
            "spec.volumes",
            [{"name": f"v{i}", "image": {"reference": ref}} for i, ref in enumerate(volumes)],
        )
    return b.pod()


NODE_40_300_2000 = (
    (["gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"], 40 * MB),
    (["gcr.io/300:latest", "gcr.io/300:v1"], 300 * MB),
    (["gcr.io/2000:latest"], 2000 * MB),
)
NODE_250_10 = ((["gcr.io/250:latest"], 250 * MB), (["gcr.io/10:latest", "gcr.io/10:v1"], 10 * MB))
NODE_600_40_900 = (
    (["gcr.io/600:latest"], 600 * MB),
    (["gcr.io/40:latest"], 40 * MB),
    (["gcr.io/900:latest"], 900 * MB),
)
NODE_300_600_900 = (
    (["gcr.io/300:latest"], 300 * MB),
    (["gcr.io/600:latest"], 600 * MB),
    (["gcr.io/900:latest"], 900 * MB),
)
NODE_4000_30 = ((["gcr.io/4000:latest"], 4000 * MB), (["gcr.io/30:latest"], 30 * MB))
NODE_20_30_40 = (
    (["gcr.io/20:latest"], 20 * MB),
    (["gcr.io/30:latest"], 30 * MB),
    (["gcr.io/40:latest"], 40 * MB),
)
NO_IMAGES: tuple = ()

CASES = [
    # node1: 40MB image on 1 of 2 nodes → 20MB < 23MB threshold → 0
    # node2: 250MB * 1/2 = 125MB → 100 * (125-23) / (2000-23) = 5
    (
        "two_images_spread_on_two_nodes_prefer_the_larger_one",
        _pod("gcr.io/40", "gcr.io/250"),
        {"node1": NODE_40_300_2000, "node2": NODE_250_10},
        {"node1": 0, "node2": 5},
    ),
    # node1: (40+300)/2 = 170MB → 100 * (170-23) / (2000-23) = 7
    (
        "two_images_on_one_node_prefer_it",
        _pod("gcr.io/40", "gcr.io/300"),
        {"node1": NODE_40_300_2000, "node2": NODE_250_10},
        {"node1": 7, "node2": 0},
    ),
    # node1: 4000MB/2 = 2000MB reaches the 2-container limit → 100; node2: 10MB/2 → 0
    (
        "exceeding_the_limit_uses_the_limit",
        _pod("gcr.io/10", "gcr.io/4000"),
        {"node1": NODE_4000_30, "node2": NODE_250_10},
        {"node1": 100, "node2": 0},
    ),
    # with a third node the spread is 1/3: 4000/3 = 1333MB → 100 * (1333-23) / 1977 = 66
    (
        "exceeding_the_limit_with_a_node_without_images",
        _pod("gcr.io/10", "gcr.io/4000"),
        {"node1": NODE_4000_30, "node2": NODE_250_10, "node3": NO_IMAGES},
        {"node1": 66, "node2": 0, "node3": 0},
    ),
    # 600MB and 900MB sit on 2 of 3 nodes, 300MB on 1: node1 400+600 = 1000MB →
    # 100 * 977 / 2977 = 32; node2 adds 100MB → 100 * 1077 / 2977 = 36
    (
        "multiple_large_images_prefer_the_node_with_all",
        _pod("gcr.io/300", "gcr.io/600", "gcr.io/900"),
        {"node1": NODE_600_40_900, "node2": NODE_300_600_900, "node3": NO_IMAGES},
        {"node1": 32, "node2": 36, "node3": 0},
    ),
    (
        "multiple_small_images",
        _pod("gcr.io/30", "gcr.io/40"),
        {"node1": NODE_20_30_40, "node2": NODE_4000_30},
        {"node1": 1, "node2": 0},
    ),
    (
        "image_volume_counts_but_not_as_a_container",
        _pod("gcr.io/30", volumes=("gcr.io/300",)),
        {"node1": NODE_300_600_900, "node2": NODE_4000_30},
        {"node1": 12, "node2": 0},
    ),
    (
        "init_containers_count",
        _pod("gcr.io/30", init=("gcr.io/300",)),
        {"node1": NODE_40_300_2000, "node2": NODE_20_30_40},
        {"node1": 6, "node2": 0},
    ),
]


@pytest.mark.parametrize(
    ("pod", "nodes", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_score(pod, nodes: dict[str, Any], want: dict[str, int]) -> None:
    snap = Snapshot([_node(n, *imgs) for n, imgs in nodes.items()])
    plugin = imagelocality.new({}, _Handle(snap))  # type: ignore[arg-type]
    state = CycleState()
    infos = snap.node_info_list
    got = {ni.name: plugin.score(state, pod, ni) for ni in infos}
    assert got == want
    assert plugin.score_batch(state, pod, infos).tolist() == [got[ni.name] for ni in infos]
    assert plugin.score_extensions() is None


@pytest.mark.parametrize(
    ("image", "want"),
    [
        ("root", "root:latest"),
        ("gcr.io:5000/root", "gcr.io:5000/root:latest"),
        ("root:tag", "root:tag"),
        ("root@sha256:abc", "root@sha256:abc"),
    ],
    ids=["add_latest", "add_latest_after_registry_port", "keep_tag", "keep_digest"],
)
def test_normalized_image_name(image: str, want: str) -> None:
    assert normalized_image_name(image) == want


@pytest.mark.parametrize(
    ("sum_scores", "containers", "want"),
    [
        (0, 1, 0),
        (23 * MB, 1, 0),
        (1000 * MB, 1, 100),
        (5000 * MB, 1, 100),
        (511 * MB, 1, 49),
        (1000 * MB, 2, 49),
    ],
    ids=["below_min", "at_min", "at_max", "above_max", "middle", "limit_grows_with_containers"],
)
def test_calculate_priority(sum_scores: int, containers: int, want: int) -> None:
    assert imagelocality.calculate_priority(sum_scores, containers) == want


# -- batch path == per-node path ------------------------------------------------------

IMAGES = ["img/a", "img/b:v1", "img/c", "reg:5000/d"]


@settings(max_examples=120, deadline=None)
@given(
    node_images=st.lists(
        st.dictionaries(
            st.sampled_from(IMAGES), st.integers(min_value=0, max_value=3000 * MB), max_size=4
        ),
        min_size=1,
        max_size=8,
    ),
    containers=st.lists(st.sampled_from([*IMAGES, "img/zzz"]), min_size=1, max_size=4),
    inits=st.lists(st.sampled_from(IMAGES), max_size=2),
)
def test_batch_equals_per_node(node_images, containers, inits) -> None:
    nodes = [
        _node(f"n{i}", *[([normalized_image_name(k)], v) for k, v in imgs.items()])
        for i, imgs in enumerate(node_images)
    ]
    snap = Snapshot(nodes)
    plugin = imagelocality.new({}, _Handle(snap))  # type: ignore[arg-type]
    pod = _pod(*containers, init=tuple(inits))
    state = CycleState()
    infos = snap.node_info_list
    want = [plugin.score(state, pod, ni) for ni in infos]
    assert plugin.score_batch(state, pod, infos).tolist() == want
    assert plugin.score_batch(state, pod, infos[::-1]).tolist() == want[::-1]


# -- many nodes, through simulate(): shared, tagged, untagged and digest-pinned images ----
IMAGES = (
    "nginx",  # untagged: the pod asks for nginx:latest
    "nginx:1.25",
    "docker.io/library/nginx:latest",  # fully qualified: a different name to the scheduler
    "gcr.io/team/model@sha256:0c3f",  # digest-pinned: kept as written
    "localhost:5000/app",  # a registry port is not a tag
    "app:v2",
    "base:1",
)


def _reference_scores(nodes: list[dict[str, Any]], images: list[str]) -> dict[str, int]:
    """Upstream's rules, written out: the cache keys images by the names nodes report
    (not normalized), keeps the size of the first node that reported a name, and counts
    the nodes holding it; the pod's names are normalized; each container's image adds
    ``int(size * holders / nodes)``; the sum is clamped and mapped to 0..100."""
    size: dict[str, int] = {}
    holders: dict[str, int] = {}
    for n in nodes:
        names = set()
        for img in n["status"]["images"]:
            for name in img["names"]:
                size.setdefault(name, img["sizeBytes"])
                names.add(name)
        for name in names:
            holders[name] = holders.get(name, 0) + 1
    out = {}
    for n in nodes:
        have = {name for img in n["status"]["images"] for name in img["names"]}
        total = 0
        for image in images:
            name = image + ":latest" if image.rfind(":") <= image.rfind("/") else image
            if name in have:
                total += int(float(size[name]) * (float(holders[name]) / float(len(nodes))))
        top = 1000 * MB * len(images)
        total = min(max(total, 23 * MB), top)
        out[n["metadata"]["name"]] = 100 * (total - 23 * MB) // (top - 23 * MB)
    return out


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_per_node_scores_match_upstreams_rules_over_many_nodes(seed: int) -> None:
    import random

    from scheduler_engine import build_cluster, load_config_text, simulate

    rng = random.Random(seed)
    nodes = []
    for i in range(rng.randint(2, 30)):
        listed = []
        for image in rng.sample(IMAGES, rng.randint(0, 4)):
            name = normalized_image_name(image) if rng.random() < 0.7 else image
            # the same name may have another size on another node (the first one counts)
            names = [name, f"{name.split(':')[0]}@sha256:{i:04x}"] if rng.random() < 0.3 else [name]
            listed.append({"names": names, "sizeBytes": rng.randint(1, 2500) * MB})
        nodes.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {
                    "name": f"node-{i}",
                    "labels": {"kubernetes.io/hostname": f"node-{i}"},
                },
                "status": {
                    "allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"},
                    "images": listed,
                },
            }
        )
    images = [rng.choice(IMAGES) for _ in range(rng.randint(1, 3))]
    pod = _pod(*images).raw
    weight = rng.choice((1, 3))
    config = load_config_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "profiles:\n- schedulerName: default-scheduler\n  plugins:\n    score:\n"
        f"      enabled:\n      - name: ImageLocality\n        weight: {weight}\n"
    )
    want = _reference_scores(nodes, images)
    for explain in (True, False):
        doc = simulate(build_cluster([*nodes, dict(pod)]), config, explain=explain, seed=1)
        r = doc.to_dict()["results"][0]
        if explain:
            got = {n: v["ImageLocality"]["weighted"] for n, v in r["pluginScores"].items()}
            assert got == {n: s * weight for n, s in want.items()}
        else:
            # the batch path picks among the best nodes by the same totals
            best = max(want.values())
            assert want[r["node"]] == best or len(nodes) == 1
