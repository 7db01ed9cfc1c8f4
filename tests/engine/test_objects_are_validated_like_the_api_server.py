"""Pods and nodes the API server would refuse are refused, in its words, naming the field.

Messages are upstream's ``field.Error`` text (pkg/apis/core/validation and
apimachinery's name/label rules, v1.36); what it accepts must still load.
"""

from __future__ import annotations

import copy
import random

import pytest

from scheduler_engine import build_cluster
from scheduler_engine.cluster import validate_objects
from scheduler_engine.errors import InputError
from scheduler_engine.objects.validation import (
    format_quantity,
    pod_errors,
    validate_node,
    validate_pod,
)
from tests.engine.randomgen import random_cluster
from tests.engine.test_cli import cli

SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
    "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL_VALUE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
NAME_PART = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
    "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
GPU = "nvidia.com/gpu"


def pod(requests=None, limits=None, *, name="p", labels=None, ns="default") -> dict:
    resources = {}
    if requests is not None:
        resources["requests"] = requests
    if limits is not None:
        resources["limits"] = limits
    meta = {"name": name, "namespace": ns}
    if labels is not None:
        meta["labels"] = labels
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": {"containers": [{"name": "c", "image": "x", "resources": resources}]},
    }


def node(allocatable=None, *, name="n", labels=None) -> dict:
    meta = {"name": name}
    if labels is not None:
        meta["labels"] = labels
    alloc = {"cpu": "4", "memory": "8Gi", "pods": "110", **(allocatable or {})}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": meta,
        "status": {"capacity": dict(alloc), "allocatable": alloc},
    }


C0 = "spec.containers[0].resources"

REFUSED_PODS = [
    (
        pod({"cpu": "-1"}),
        f'{C0}.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0',
    ),
    (
        pod({"cpu": -1}),
        f'{C0}.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0',
    ),
    (
        pod({"memory": "-0.5Gi"}),
        f'{C0}.requests[memory]: Invalid value: "-512Mi": must be greater than or equal to 0',
    ),
    (
        pod(limits={GPU: "-1"}),
        f'{C0}.limits[nvidia.com/gpu]: Invalid value: "-1": must be greater than or equal to 0',
    ),
    (
        pod({GPU: "-1"}, {GPU: "-1"}),
        f'{C0}.limits[nvidia.com/gpu]: Invalid value: "-1": must be greater than or equal to 0',
    ),
    (
        pod({"cpu": "2"}, {"cpu": "1500m"}),
        f'{C0}.requests: Invalid value: "2": must be less than or equal to cpu limit of 1500m',
    ),
    (
        pod({"memory": "2Gi"}, {"memory": "1024Mi"}),
        f'{C0}.requests: Invalid value: "2Gi": must be less than or equal to memory limit of 1Gi',
    ),
    (
        pod({GPU: "1"}),
        f"{C0}.limits: Required value: Limit must be set for non overcommitable resources",
    ),
    (
        pod({GPU: "1"}, {GPU: "2"}),
        f'{C0}.requests: Invalid value: "1": must be equal to nvidia.com/gpu limit of 2',
    ),
    (
        pod(limits={GPU: "0.5"}),
        f'{C0}.limits[nvidia.com/gpu]: Invalid value: "500m": must be an integer',
    ),
    (
        pod(limits={"example.com/foo": "1500m"}),
        f'{C0}.limits[example.com/foo]: Invalid value: "1500m": must be an integer',
    ),
    (
        pod({"hugepages-2Mi": "2Mi"}, {"hugepages-2Mi": "4Mi", "memory": "1Gi"}),
        f'{C0}.requests: Invalid value: "2Mi": must be equal to hugepages-2Mi limit of 4Mi',
    ),
    (pod(name="Bad_Name"), f'metadata.name: Invalid value: "Bad_Name": {SUBDOMAIN}'),
    (
        pod(name="x" * 254),
        'metadata.name: Invalid value: "' + "x" * 254 + '": must be no more than 253 characters',
    ),
    (pod(ns="my.ns"), 'metadata.namespace: Invalid value: "my.ns": must not contain dots'),
    (pod(labels={"app": "-bad"}), f'metadata.labels: Invalid value: "-bad": {LABEL_VALUE}'),
    (pod(labels={"bad key": "x"}), f'metadata.labels: Invalid value: "bad key": {NAME_PART}'),
    (
        pod(labels={"/x": "y"}),
        'metadata.labels: Invalid value: "/x": prefix part must be non-empty',
    ),
    (
        pod(labels={"a/b/c": "y"}),
        "metadata.labels: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ),
    (
        pod(labels={"k": "v" * 64}),
        # api/validate/content's MaxLenError says bytes; util/validation's (names) characters
        'metadata.labels: Invalid value: "' + "v" * 64 + '": must be no more than 63 bytes',
    ),
    (
        pod(labels={"k" * 64: "v"}),
        'metadata.labels: Invalid value: "'
        + "k" * 64
        + '": name part must be no more than 63 bytes',
    ),
]

REFUSED_NODES = [
    (
        node({"cpu": "-4"}),
        'status.capacity.cpu: Invalid value: "-4": must be greater than or equal to 0',
    ),
    (
        node({GPU: "1.5"}),
        'status.capacity.nvidia.com/gpu: Invalid value: "1500m": must be an integer',
    ),
    (node(name="Node_1"), f'metadata.name: Invalid value: "Node_1": {SUBDOMAIN}'),
    (node(labels={"zone": "a b"}), f'metadata.labels: Invalid value: "a b": {LABEL_VALUE}'),
]

ACCEPTED_PODS = [
    pod({"cpu": "0"}),
    pod({"cpu": "1"}, {"cpu": "2"}),
    pod({"cpu": "500m", "memory": "1Gi"}, {"memory": "1Gi"}),
    pod(limits={GPU: "2"}),
    pod({GPU: "2"}, {GPU: "2"}),
    pod({GPU: "2"}, {GPU: 2}),
    pod({"example.com/foo": "1"}, {"example.com/foo": "1000m"}),
    pod({"ephemeral-storage": "1Gi"}),
    pod(name="a.b-c.d", labels={"app.kubernetes.io/name": "x", "k": "", "A_b.c": "V_1"}),
]


@pytest.mark.parametrize(("obj", "message"), REFUSED_PODS)
def test_refused_pods_are_named_in_the_api_servers_words(obj, message):
    error = validate_pod(obj)
    assert error is not None and f"{error.field}: {error.message}" == message
    with pytest.raises(InputError) as caught:
        validate_objects([obj], source="snap.yaml")
    # the first problem named, the others counted (both a negative limit and request)
    more = len(pod_errors(obj)) - 1
    assert caught.value.one_line() == (
        f"snap.yaml: Pod {obj['metadata']['namespace']}/{obj['metadata']['name']}: {message}"
        + (f" (and {more} more)" if more else "")
    )


@pytest.mark.parametrize(("obj", "message"), REFUSED_NODES)
def test_refused_nodes_are_named_in_the_api_servers_words(obj, message):
    error = validate_node(obj)
    assert error is not None and f"{error.field}: {error.message}" == message
    with pytest.raises(InputError, match="^snap.yaml: Node "):
        validate_objects([obj], source="snap.yaml")


@pytest.mark.parametrize("obj", ACCEPTED_PODS)
def test_what_the_api_server_accepts_still_loads(obj):
    assert validate_pod(obj) is None
    validate_objects([node(), obj])
    build_cluster([node(), obj])


def test_init_containers_pod_resources_and_overhead_are_checked():
    p = pod({"cpu": "1"})
    p["spec"]["initContainers"] = [{"name": "i", "resources": {"requests": {"cpu": "-2"}}}]
    assert validate_pod(p).field == "spec.initContainers[0].resources.requests[cpu]"
    p = pod({"cpu": "1"})
    p["spec"]["resources"] = {"requests": {"memory": "2Gi"}, "limits": {"memory": "1Gi"}}
    assert validate_pod(p).field == "spec.resources.requests"
    p = pod({"cpu": "1"})
    p["spec"]["overhead"] = {"cpu": "-100m"}
    assert validate_pod(p).field == "spec.overhead.limits[cpu]"


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        ("-1", "-1"),
        (-1, "-1"),
        ("0.5", "500m"),
        (0.5, "500m"),
        ("1500m", "1500m"),
        (2000, "2k"),
        ("10", "10"),
        ("1Gi", "1Gi"),
        ("1024Mi", "1Gi"),
        ("1536", "1536"),
        ("1.5Ki", "1536"),
        ("2.5Gi", "2560Mi"),
        ("1e3", "1e3"),
        ("1.5e3", "1500"),
        ("1000000000", "1G"),
        ("0", "0"),
        ("100Mi", "100Mi"),
        ("0.0000000001", "1n"),
        ("-0.5Gi", "-512Mi"),
        ("12e6", "12e6"),
    ],
)
def test_quantities_are_shown_in_their_canonical_form(raw, text):
    assert format_quantity(raw) == text


@pytest.mark.parametrize("seed", range(30))
def test_random_clusters_the_api_server_accepts_pass_validation(seed):
    objects = random_cluster(random.Random(seed))
    for o in objects:
        check = {"Pod": validate_pod, "Node": validate_node}.get(o.get("kind"))
        assert check is None or check(o) is None, o


@pytest.mark.parametrize("seed", range(20))
def test_random_negative_or_uneven_quantities_are_refused(seed):
    rng = random.Random(seed)
    resource = rng.choice(["cpu", "memory", "ephemeral-storage", GPU, "example.com/nic"])
    value = -rng.randint(1, 64)
    obj = pod({resource: str(value)}, {resource: str(value)} if "/" in resource else None)
    error = validate_pod(obj)
    assert error is not None and "must be greater than or equal to 0" in error.message
    if "/" in resource:
        n = rng.randint(1, 8)
        uneven = pod({resource: str(n)}, {resource: str(n + rng.randint(1, 4))})
        assert "must be equal to" in validate_pod(uneven).message
        frac = pod(limits={resource: f"{n}.5"})
        assert validate_pod(frac).message.endswith("must be an integer")


def test_the_cli_names_file_object_and_field(tmp_path):
    import yaml

    path = tmp_path / "neg.yaml"
    objs = [node(), pod({"cpu": "-1"}, name="neg")]
    path.write_text(yaml.safe_dump_all(copy.deepcopy(objs)))
    out = cli("simulate", "--snapshot", str(path))
    assert out.returncode == 2
    assert out.stderr.strip() == (
        f'{path}: Pod default/neg: {C0}.requests[cpu]: Invalid value: "-1": '
        "must be greater than or equal to 0"
    ), out.stderr


def test_the_cli_names_the_first_problem_and_counts_the_rest(tmp_path):
    import yaml

    path = tmp_path / "many.yaml"
    bad_node = node()
    bad_node["spec"] = {"taints": [{"key": "k", "effect": "Never"}]}
    objs = [
        bad_node,
        pod({"cpu": "-1"}, name="neg"),
        pod({"gpu": "1"}, name="plain-gpu"),  # two problems: not standard, not for containers
    ]
    path.write_text(yaml.safe_dump_all(copy.deepcopy(objs)))
    out = cli("simulate", "--snapshot", str(path))
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0] == (
        f"{path}: Node {bad_node['metadata']['name']}: spec.taints[0].effect: Unsupported value: "
        '"Never": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute" (and 3 more)'
    )
    with pytest.raises(InputError) as caught:
        validate_objects(objs, source="many.yaml")
    assert caught.value.total == 4
    assert [f"{ref}: {e.field}" for ref, e in caught.value.errors] == [
        f"Node {bad_node['metadata']['name']}: spec.taints[0].effect",
        f"Pod default/neg: {C0}.requests[cpu]",
        f"Pod default/plain-gpu: {C0}.requests[gpu]",
        f"Pod default/plain-gpu: {C0}.requests[gpu]",
    ]


def test_resource_names_are_checked_like_the_api_server():
    cases = {
        "pods": ["must be a standard resource for containers"],
        "gpu": [
            "must be a standard resource type or fully qualified",
            "must be a standard resource for containers",
        ],
        "example.com/foo": [],
        "hugepages-2Mi": [],
        "kubernetes.io/foo": [],
        "example.com/a/b": None,  # not a qualified name: its own message
    }
    for name, details in cases.items():
        errors = pod_errors(pod(limits={name: "1"}))
        named = [e for e in errors if e.field == f"{C0}.limits[{name}]" and e.value == name]
        if details is None:
            assert named, name
        else:
            assert [e.detail for e in named] == details, name
