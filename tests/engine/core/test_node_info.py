from __future__ import annotations

import random

import pytest

from scheduler_engine.framework import HostPortInfo, NodeInfo, Snapshot
from scheduler_engine.objects import parse_node, parse_pod


def _node(name, zone=None, images=()):
    labels = {"topology.kubernetes.io/zone": zone} if zone else {}
    return parse_node(
        {
            "metadata": {"name": name, "labels": labels},
            "status": {
                "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                "images": list(images),
            },
        }
    )


def _pod(name, node=None, cpu="1", port=None):
    c = {"name": "c", "resources": {"requests": {"cpu": cpu}}}
    if port:
        c["ports"] = [{"containerPort": port, "hostPort": port}]
    return parse_pod(
        {
            "metadata": {"name": name, "namespace": "d"},
            "spec": {"nodeName": node, "containers": [c]},
        }
    )


def test_add_and_remove_keep_totals():
    ni = NodeInfo(_node("n"))
    a, b = _pod("a", cpu="1", port=80), _pod("b", cpu="500m")
    ni.add_pod(a)
    ni.add_pod(b)
    assert ni.requested.milli_cpu == 1500
    assert ni.non_zero_requested.memory == 2 * 200 * 2**20
    assert ni.used_ports.check_conflict("", "TCP", 80)
    assert ni.remove_pod(a)
    assert ni.requested.milli_cpu == 500
    assert not ni.used_ports.check_conflict("", "TCP", 80)
    assert not ni.remove_pod(a)


def test_host_port_wildcards():
    hp = HostPortInfo()
    hp.add("127.0.0.1", "TCP", 8080)
    assert hp.check_conflict("0.0.0.0", "TCP", 8080)
    assert hp.check_conflict("127.0.0.1", "", 8080)
    assert not hp.check_conflict("10.0.0.1", "TCP", 8080)
    assert not hp.check_conflict("127.0.0.1", "UDP", 8080)
    hp.add("", "UDP", 53)
    assert hp.check_conflict("10.0.0.1", "UDP", 53)


def test_snapshot_lists_nodes_round_robin_across_zones():
    nodes = [
        _node("a1", "a"),
        _node("a2", "a"),
        _node("a3", "a"),
        _node("b1", "b"),
        _node("c1", "c"),
        _node("b2", "b"),
    ]
    snap = Snapshot(nodes)
    assert [ni.name for ni in snap.node_info_list] == ["a1", "b1", "c1", "a2", "b2", "a3"]
    assert [ni.index for ni in snap.node_info_list] == list(range(6))


def test_snapshot_places_running_pods_and_counts_images():
    img = {"names": ["repo/x:1"], "sizeBytes": 10}
    snap = Snapshot(
        [_node("n1", images=[img]), _node("n2", images=[img]), _node("n3")],
        [_pod("p", "n2"), _pod("q", "gone")],
    )
    assert [p.name for p in snap.get("n2").pods] == ["p"]
    assert snap.get("n1").image_states["repo/x:1"].num_nodes == 2
    seen = []
    snap.listeners.append(lambda ni: seen.append(ni.name))
    snap.add_pod(_pod("r"), "n3")
    assert seen == ["n3"] and snap.get("n3").requested.milli_cpu == 1000


def test_image_states_use_reported_names_and_the_first_size_seen():
    n1 = _node("n1", images=[{"names": ["repo/x:1", "repo/y"], "sizeBytes": 10}])
    n2 = _node("n2", images=[{"names": ["repo/x:1"], "sizeBytes": 99}])
    snap = Snapshot([n1, n2])
    x = snap.get("n2").image_states["repo/x:1"]
    assert (x.size, x.num_nodes) == (10, 2)
    # untagged names are kept as reported; the plugin normalises the pod's side only
    assert "repo/y" in snap.get("n1").image_states
    assert "repo/y:latest" not in snap.get("n1").image_states


def test_removing_one_pod_frees_a_shared_host_port_like_upstream():
    ni = NodeInfo(_node("n"))
    a, b = _pod("a", port=80), _pod("b", port=80)
    ni.add_pod(a)
    ni.add_pod(b)
    ni.remove_pod(a)
    assert not ni.used_ports.check_conflict("", "TCP", 80)


def _state(ni: NodeInfo) -> tuple:
    return (
        [id(p) for p in ni.pods],
        [id(p) for p in ni.pods_with_affinity],
        [id(p) for p in ni.pods_with_required_anti_affinity],
        ni.requested.as_dict(),
        ni.non_zero_requested.as_dict(),
        sorted((ip, sorted(b)) for ip, b in ni.used_ports._ports.items()),
        list(ni.pvc_ref_counts.items()),
        ni.generation,
    )


def _rich_pod(rng, name: str) -> object:
    c = {"name": "c", "resources": {"requests": {"cpu": f"{rng.randint(1, 9)}00m"}}}
    if rng.random() < 0.4:
        c["ports"] = [{"containerPort": 80, "hostPort": rng.choice((80, 81, 82))}]
    spec = {"nodeName": "n", "containers": [c]}
    if rng.random() < 0.3:
        term = {"labelSelector": {"matchLabels": {"a": "b"}}, "topologyKey": "zone"}
        spec["affinity"] = {
            "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
        }
    if rng.random() < 0.4:
        claim = rng.choice(("data", "logs"))
        spec["volumes"] = [{"name": "v", "persistentVolumeClaim": {"claimName": claim}}]
    return parse_pod({"metadata": {"name": name, "namespace": "d"}, "spec": spec})


@pytest.mark.parametrize("seed", range(30))
def test_removing_pods_at_once_leaves_what_removing_them_one_by_one_does(seed: int) -> None:
    """Ports, claims, affinity lists, totals, generation; pods sharing a key or not held."""
    rng = random.Random(seed)
    names = [f"p{i}" for i in range(rng.randint(1, 9))]
    held = [_rich_pod(rng, rng.choice(names) if rng.random() < 0.1 else n) for n in names]
    gone = rng.sample(held, rng.randint(0, len(held)))
    gone += [_rich_pod(rng, rng.choice(names + ["absent"])) for _ in range(rng.randint(0, 2))]
    one_by_one, at_once = NodeInfo(_node("n")), NodeInfo(_node("n"))
    for p in held:
        one_by_one.add_pod(p)
        at_once.add_pod(p)
    for p in gone:
        one_by_one.remove_pod(p)
    at_once.remove_pods(gone)
    assert _state(at_once) == _state(one_by_one)
