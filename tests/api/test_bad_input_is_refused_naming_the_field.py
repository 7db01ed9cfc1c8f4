"""400 naming the field for bad configs, clusters, snapshots, workloads; nothing written."""

from __future__ import annotations

from django.test import override_settings

from dashboard.dryruns.models import DryRun, Profile, ProfileVersion

BAD_CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 150
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      enabled:
      - name: NoSuchPlugin
"""

BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
    f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
    f"*{chr(97 + i)}]\n"
    for i in range(20)
)


def test_validate_lists_every_problem_with_its_field(operator, db):
    r = operator.post("/api/v1/profiles/validate/", {"document": BAD_CONFIG}, format="json")
    assert r.status_code == 200
    body = r.json()
    assert body["valid"] is False
    fields = [e["field"] for e in body["errors"]]
    assert "document.percentageOfNodesToScore" in fields, body


def test_saving_an_invalid_profile_writes_nothing(operator, db):
    r = operator.post("/api/v1/profiles/", {"name": "bad", "document": BAD_CONFIG}, format="json")
    assert r.status_code == 400
    assert "document.percentageOfNodesToScore" in r.json()
    assert not Profile.objects.exists() and not ProfileVersion.objects.exists()


def test_a_yaml_bomb_is_refused(operator, db):
    r = operator.post("/api/v1/profiles/validate/", {"document": BOMB}, format="json")
    assert r.json()["valid"] is False and "alias" in r.json()["errors"][0]["message"]


def test_an_unknown_cluster_is_named(operator, db):
    r = operator.post("/api/v1/dry-runs/", {"cluster": 999999}, format="json")
    assert r.status_code == 400 and "cluster" in r.json()


def test_a_snapshot_that_does_not_parse_is_named(operator, demo_cluster):
    r = operator.post(
        "/api/v1/dry-runs/",
        {"cluster": demo_cluster.pk, "source": "snapshot", "snapshot": "items: [unclosed"},
        format="json",
    )
    assert r.status_code == 400 and "snapshot" in r.json()
    assert not DryRun.objects.exists()


def test_a_bad_object_in_a_snapshot_names_object_and_field(operator, demo_cluster):
    snapshot = [
        {
            "kind": "PriorityClass",
            "apiVersion": "scheduling.k8s.io/v1",
            "metadata": {"name": "x"},
            "value": "high",
        }
    ]
    r = operator.post(
        "/api/v1/dry-runs/",
        {"cluster": demo_cluster.pk, "source": "snapshot", "snapshot": snapshot},
        format="json",
    )
    assert r.status_code == 400 and "value" in r.json()["snapshot"][0]


def test_an_invalid_inline_config_names_its_field(operator, demo_cluster):
    r = operator.post(
        "/api/v1/dry-runs/",
        {"cluster": demo_cluster.pk, "inline_config": BAD_CONFIG},
        format="json",
    )
    assert r.status_code == 400
    assert "inline_config.percentageOfNodesToScore" in r.json()


def test_a_bad_workload_template_names_the_item(operator, demo_cluster):
    r = operator.post(
        "/api/v1/dry-runs/",
        {
            "cluster": demo_cluster.pk,
            "workload": [
                {"kind": "Job", "name": "train", "replicas": -1, "podTemplate": {"spec": {}}}
            ],
        },
        format="json",
    )
    assert r.status_code == 400 and "workload[0].replicas" in r.json()


def test_a_workload_item_that_is_not_an_object_is_named_by_its_index(operator, demo_cluster):
    r = operator.post(
        "/api/v1/dry-runs/",
        {"cluster": demo_cluster.pk, "workload": [{"kind": "Pod"}, 7]},
        format="json",
    )
    assert r.status_code == 400
    assert r.json()["workload[1]"] == ["expected an object"]
    assert not DryRun.objects.exists()


@override_settings(SCHEDLAB_MAX_SNAPSHOT_BYTES=1000)
def test_an_oversized_upload_is_refused(operator, demo_cluster):
    r = operator.post(
        "/api/v1/dry-runs/",
        {"cluster": demo_cluster.pk, "source": "snapshot", "snapshot": "x" * 2000},
        format="json",
    )
    assert r.status_code == 400 and "SCHEDLAB_MAX_SNAPSHOT_BYTES" in r.json()["snapshot"][0]
    assert not DryRun.objects.exists()


def test_compare_with_an_unknown_run_is_404(operator, db):
    assert operator.get("/api/v1/dry-runs/1/compare/?other=2").status_code == 404
    assert operator.get("/api/v1/dry-runs/1/compare/?other=x").status_code == 400


def test_negative_quantities_in_a_workload_are_named_like_the_api_server(operator, demo_cluster):
    template = {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "-1"}}}]}}
    r = operator.post(
        "/api/v1/dry-runs/",
        {
            "cluster": demo_cluster.pk,
            "workload": [{"kind": "Job", "name": "j", "replicas": 2, "podTemplate": template}],
        },
        format="json",
    )
    assert r.status_code == 400
    field = "workload[0].podTemplate.spec.containers[0].resources.requests[cpu]"
    assert r.json() == {field: ['Invalid value: "-1": must be greater than or equal to 0']}
    assert not DryRun.objects.exists()


def test_a_negative_gpu_in_a_snapshot_is_named(operator, demo_cluster):
    resources = {"requests": {"nvidia.com/gpu": "-1"}, "limits": {"nvidia.com/gpu": "-1"}}
    snapshot = [
        {"kind": "Node", "metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "4"}}},
        {
            "kind": "Pod",
            "metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "resources": resources}]},
        },
    ]
    r = operator.post(
        "/api/v1/dry-runs/",
        {"cluster": demo_cluster.pk, "source": "snapshot", "snapshot": snapshot},
        format="json",
    )
    assert r.status_code == 400
    assert r.json() == {
        # both, as the API server lists both
        "snapshot[1].spec.containers[0].resources.limits[nvidia.com/gpu]": [
            'Invalid value: "-1": must be greater than or equal to 0'
        ],
        "snapshot[1].spec.containers[0].resources.requests[nvidia.com/gpu]": [
            'Invalid value: "-1": must be greater than or equal to 0'
        ],
    }
    assert not DryRun.objects.exists()


def test_many_bad_objects_list_the_first_twenty_and_count_them_all(operator, demo_cluster):
    bad = {"requests": {"gpu": "1"}}  # not a standard resource for containers: 2 problems each
    snapshot = [
        {
            "kind": "Pod",
            "metadata": {"name": f"p{i}", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "resources": bad}]},
        }
        for i in range(15)
    ]
    r = operator.post(
        "/api/v1/dry-runs/",
        {"cluster": demo_cluster.pk, "source": "snapshot", "snapshot": snapshot},
        format="json",
    )
    assert r.status_code == 400
    body = r.json()
    assert body.pop("non_field_errors") == ["30 problems in all; the first 20 are listed"]
    assert sum(map(len, body.values())) == 20
    assert body["snapshot[0].spec.containers[0].resources.requests[gpu]"] == [
        'Invalid value: "gpu": must be a standard resource type or fully qualified',
        'Invalid value: "gpu": must be a standard resource for containers',
    ]
    assert not DryRun.objects.exists()


def test_bad_taints_and_tolerations_are_named(operator, demo_cluster):
    snapshot = [
        {
            "kind": "Node",
            "metadata": {"name": "n"},
            "spec": {
                "taints": [
                    {"key": "gpu", "effect": "NoSchedule"},
                    {"key": "gpu", "effect": "NoSchedule"},
                    {"key": "bad key", "effect": "Sometimes"},
                ]
            },
        },
        {
            "kind": "Pod",
            "metadata": {"generateName": "Web-", "namespace": "default", "name": "w"},
            "spec": {
                "containers": [{"name": "c"}],
                "tolerations": [
                    {"operator": "Equal", "value": "x"},
                    {"key": "k", "operator": "Exists", "value": "v"},
                    {"key": "k", "tolerationSeconds": 5, "effect": "NoSchedule"},
                ],
            },
        },
    ]
    r = operator.post(
        "/api/v1/dry-runs/",
        {"cluster": demo_cluster.pk, "source": "snapshot", "snapshot": snapshot},
        format="json",
    )
    assert r.status_code == 400
    body = r.json()
    assert body["snapshot[0].spec.taints[1]"] == [
        "Duplicate value: taints must be unique by key and effect pair"
    ]
    assert body["snapshot[0].spec.taints[2].effect"] == [
        'Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", '
        '"NoExecute"'
    ]
    assert "snapshot[0].spec.taints[2].key" in body
    assert body["snapshot[1].metadata.generateName"][0].startswith('Invalid value: "Web-": ')
    assert body["snapshot[1].spec.tolerations[0].operator"] == [
        'Invalid value: "Equal": operator must be Exists when `key` is empty, which means '
        '"match all values and all keys"'
    ]
    assert body["snapshot[1].spec.tolerations[1].operator"] == [
        "Invalid value: \"v\": value must be empty when `operator` is 'Exists'"
    ]
    assert body["snapshot[1].spec.tolerations[2].effect"] == [
        "Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set"
    ]
    assert not DryRun.objects.exists()


def test_a_gpu_request_without_a_limit_is_named(operator, demo_cluster):
    pod = {
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "resources": {"requests": {"nvidia.com/gpu": 1}}}]},
    }
    r = operator.post(
        "/api/v1/dry-runs/", {"cluster": demo_cluster.pk, "workload": [pod]}, format="json"
    )
    assert r.status_code == 400
    assert r.json() == {
        "workload[0].spec.containers[0].resources.limits": [
            "Required value: Limit must be set for non overcommitable resources"
        ]
    }


def test_numbers_and_booleans_are_not_taken_for_text(operator, demo_cluster):
    # DRF's own CharField and SlugField would turn 7 into "7" and True into "True"
    r = operator.post("/api/v1/profiles/", {"name": 7, "document": True}, format="json")
    assert r.status_code == 400 and {"name", "document"} <= set(r.json()), r.content
    r = operator.post(
        "/api/v1/dry-runs/", {"cluster": demo_cluster.pk, "inline_config": 1}, format="json"
    )
    assert r.status_code == 400 and "inline_config" in r.json(), r.content
    assert not Profile.objects.filter(name="7").exists()
