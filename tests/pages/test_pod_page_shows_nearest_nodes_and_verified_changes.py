"""The pod page names the untolerated taint, the toleration to add, and verified changes that
start a dry-run with the change applied (demo cluster: ml-inference/no-toleration-gpu)."""

from __future__ import annotations

from dashboard.dryruns import codec
from dashboard.dryruns.models import DryRun

POD = "/clusters/demo/pods/ml-inference/no-toleration-gpu/"
TOLERATION = {
    "key": "nvidia.com/gpu",
    "operator": "Equal",
    "value": "present",
    "effect": "NoSchedule",
}


def test_the_verdict_comes_first_and_what_would_make_it_fit_in_a_second_request(demo, viewer):
    verdict = viewer.get(POD + "explanation/").content.decode()
    assert "0/20 nodes are available" in verdict and "What would make it fit" in verdict
    assert f'data-live-fragment="{POD}explanation/fit/"' in verdict
    assert 'id="nearest"' not in verdict and 'id="fixes"' not in verdict
    fit = viewer.get(POD + "explanation/fit/").content.decode()
    assert 'id="nearest"' in fit and 'id="fixes"' in fit
    # a pod that fits asks for nothing more
    fits = viewer.get("/clusters/demo/pods/web/frontend-6/explanation/").content.decode()
    assert "explanation/fit/" not in fits


def test_the_taint_the_toleration_and_a_verified_change_are_named(demo, viewer):
    fragment = viewer.get(POD + "explanation/fit/").content.decode()
    assert 'id="nearest"' in fragment and 'id="fixes"' in fragment
    assert "nvidia.com/gpu=present:NoSchedule" in fragment
    assert "&quot;operator&quot;: &quot;Equal&quot;" in fragment
    assert "Add the toleration(s) nvidia.com/gpu=present:NoSchedule" in fragment
    # the old resource-only hint, which pointed GPU pods at CPU nodes, is gone
    assert 'id="nearest-fit"' not in fragment
    # viewers see the changes but no button to dry-run them
    assert "Dry-run with this change" not in fragment


def test_an_operator_dry_runs_the_pod_with_the_toleration_added(
    demo, operator, django_capture_on_commit_callbacks
):
    fragment = operator.get(POD + "explanation/fit/").content.decode()
    assert "Dry-run with this change" in fragment
    with django_capture_on_commit_callbacks(execute=False):
        response = operator.post(POD + "dry-run/", {"fix": "0"})
    run = DryRun.objects.get()
    assert response.status_code == 302 and str(run.pk) in response["Location"]
    pods = [o for o in codec.unpack(run.snapshot) if o.get("kind") == "Pod"]
    (pod,) = [p for p in pods if p["metadata"]["name"] == "no-toleration-gpu"]
    assert TOLERATION in pod["spec"]["tolerations"]


def test_a_fix_number_the_engine_does_not_give_is_refused_naming_the_field(demo, operator):
    for raw in ("9", "x", "-1", "123456789"):
        response = operator.post(POD + "dry-run/", {"fix": raw}, follow=True)
        assert response.status_code == 200, raw
        assert "Could not start the dry-run: fix:" in response.content.decode(), raw
    assert not DryRun.objects.exists()
