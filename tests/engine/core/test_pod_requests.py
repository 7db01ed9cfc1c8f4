"""Effective pod requests follow upstream's PodRequests and calculateResource."""

from __future__ import annotations

import pytest

from scheduler_engine.errors import InputError
from scheduler_engine.objects import parse_pod

MI = 2**20


def _pod(containers=(), init=(), **spec):
    return {
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "ns"},
        "spec": {
            "containers": [
                {"name": f"c{i}", "resources": r} if r is not None else {"name": f"c{i}"}
                for i, r in enumerate(containers)
            ],
            "initContainers": list(init),
            **spec,
        },
    }


def req(**kw):
    return {"requests": {k.replace("_", "-"): v for k, v in kw.items()}}


@pytest.mark.parametrize(
    ("pod", "cpu", "mem", "non0_cpu", "non0_mem"),
    [
        (
            _pod([req(cpu="1", memory="1Gi"), req(cpu="500m")]),
            1500,
            1024 * MI,
            1500,
            1024 * MI + 200 * MI,
        ),
        (_pod([None]), 0, 0, 100, 200 * MI),
        (_pod([{"limits": {"cpu": "2", "memory": "2Gi"}}]), 2000, 2048 * MI, 2000, 2048 * MI),
        (
            _pod([req(cpu="1")], init=[{"name": "i", "resources": req(cpu="3", memory="10Mi")}]),
            3000,
            10 * MI,
            3000,
            200 * MI,
        ),
        (
            # sidecar (restartable init) adds to the containers and to later init containers
            _pod(
                [req(cpu="1")],
                init=[
                    {"name": "s", "restartPolicy": "Always", "resources": req(cpu="1")},
                    {"name": "i", "resources": req(cpu="1500m")},
                ],
            ),
            2500,
            0,
            2500,
            400 * MI,
        ),
        (
            _pod([req(cpu="1")], overhead={"cpu": "250m", "memory": "120Mi"}),
            1250,
            120 * MI,
            1250,
            320 * MI,
        ),
        (
            # pod-level requests replace the containers' sum for cpu and memory
            _pod([req(cpu="1", memory="1Gi")], resources={"requests": {"cpu": "4"}}),
            4000,
            1024 * MI,
            4000,
            1024 * MI,
        ),
    ],
    ids=[
        "sum-of-containers",
        "no-requests-get-defaults-for-scoring",
        "limits-copied-into-requests",
        "init-container-max",
        "sidecars",
        "overhead",
        "pod-level-resources",
    ],
)
def test_pod_requests(pod, cpu, mem, non0_cpu, non0_mem):
    p = parse_pod(pod)
    assert p.requests.milli_cpu == cpu
    assert p.requests.memory == mem
    assert (p.non0_cpu, p.non0_mem) == (non0_cpu, non0_mem)


def test_extended_resources_are_scalars():
    p = parse_pod(_pod([{"limits": {"nvidia.com/gpu": 8}}, req(hugepages_2Mi="4Mi")]))
    assert p.requests.scalar == {"nvidia.com/gpu": 8, "hugepages-2Mi": 4 * MI}


def test_priority_comes_from_the_priority_class():
    pcs = {
        "high": {"value": 1000, "preemptionPolicy": "Never"},
        "def": {"value": 7, "globalDefault": True},
    }
    p = parse_pod(_pod([None], priorityClassName="high"), pcs)
    assert (p.priority, p.preemption_policy) == (1000, "Never")
    assert parse_pod(_pod([None]), pcs).priority == 7
    assert parse_pod(_pod([None], priority=5, priorityClassName="high"), pcs).priority == 5
    assert parse_pod(_pod([None], priorityClassName="system-node-critical")).priority == 2000001000


def test_match_label_keys_are_merged_into_affinity_selectors():
    raw = _pod([None])
    raw["metadata"]["labels"] = {"app": "a", "rev": "7"}
    raw["spec"]["affinity"] = {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {
                    "labelSelector": {"matchLabels": {"app": "a"}},
                    "topologyKey": "h",
                    "matchLabelKeys": ["rev"],
                }
            ]
        }
    }
    term = parse_pod(raw).required_anti_affinity_terms[0]
    assert term.selector.matches({"app": "a", "rev": "7"})
    assert not term.selector.matches({"app": "a", "rev": "6"})
    assert term.namespaces == frozenset({"ns"})


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (
            lambda p: p["spec"]["containers"][0].update(resources=req(cpu="lots")),
            "spec.containers[0].resources.requests.cpu",
        ),
        (lambda p: p["spec"].update(tolerations="x"), "spec.tolerations"),
        (lambda p: p["metadata"].pop("name"), "metadata.name"),
        (lambda p: p["spec"].update(preemptionPolicy="Sometimes"), "spec.preemptionPolicy"),
        (
            lambda p: p["spec"].update(
                affinity={
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {"matchExpressions": [{"key": "a", "operator": "Near"}]}
                            ]
                        }
                    }
                }
            ),
            "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator",
        ),
    ],
    ids=[
        "bad-quantity",
        "bad-tolerations",
        "missing-name",
        "bad-preemption-policy",
        "bad-node-affinity-operator",
    ],
)
def test_bad_pods_name_the_field(mutate, field):
    raw = _pod([req(cpu="1")])
    mutate(raw)
    with pytest.raises(InputError) as exc:
        parse_pod(raw, source="snap.yaml")
    assert exc.value.field == field
    assert exc.value.file == "snap.yaml"
    assert "\n" not in exc.value.one_line()


def test_pod_level_hugepages_alone_count_as_pod_level_requests():
    # IsPodLevelRequestsSet: a hugepages-only pod-level request is "set", so the
    # scoring defaults apply only where a container and the pod both lack cpu/memory
    p = parse_pod(_pod([req(cpu="1")], resources={"requests": {"hugepages-2Mi": "4Mi"}}))
    assert (p.non0_cpu, p.non0_mem) == (1000, 200 * MI)
    q = parse_pod(_pod([req(cpu="1"), None], resources={"requests": {"hugepages-2Mi": "4Mi"}}))
    # without pod-level requests each container would get its own 100m default
    assert q.non0_cpu == 1000


def test_pods_parsed_alike_get_their_own_requests_and_a_change_is_seen() -> None:
    """Requests worked out once per distinct spec are handed out as copies."""
    a = parse_pod(_pod([req(cpu="1", memory="1Gi")]))
    b = parse_pod(_pod([req(cpu="1", memory="1Gi")]))
    assert (b.requests.milli_cpu, b.requests.memory, b.non0_cpu) == (1000, 1024 * MI, 1000)
    a.requests.milli_cpu = 7  # one pod's resources are its own
    assert b.requests.milli_cpu == 1000
    assert parse_pod(_pod([req(cpu="1", memory="1Gi")])).requests.milli_cpu == 1000
    changed = parse_pod(_pod([req(cpu="2", memory="1Gi")]))
    assert changed.requests.milli_cpu == 2000
    with pytest.raises(InputError):
        parse_pod(_pod([req(cpu="one", memory="1Gi")]))
    with pytest.raises(InputError):  # an error is never remembered as a result
        parse_pod(_pod([req(cpu="one", memory="1Gi")]))
