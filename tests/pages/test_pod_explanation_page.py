from __future__ import annotations

from dashboard.dryruns.models import DryRun


def test_explanation_groups_rejected_nodes_and_suggests_a_fit(demo, viewer):
    page = viewer.get("/clusters/demo/pods/ml-training/bad-request-16gpu/").content.decode()
    assert 'id="explanation"' in page and "plotly.min.js" in page
    fragment = viewer.get(
        "/clusters/demo/pods/ml-training/bad-request-16gpu/explanation/"
    ).content.decode()
    assert "0/20 nodes are available" in fragment
    assert "<details" in fragment and "NodeResourcesFit: Insufficient nvidia.com/gpu" in fragment
    assert "What would make it fit" in fragment


def test_a_schedulable_pod_gets_a_ranked_chart(demo, viewer):
    fragment = viewer.get("/clusters/demo/pods/web/frontend-6/explanation/").content.decode()
    assert 'id="score-chart"' in fragment and 'id="score-data"' in fragment
    assert "NodeResourcesFit" in fragment


def test_preemption_lists_the_victims(demo, viewer):
    fragment = viewer.get(
        "/clusters/demo/pods/ml-training/gpt-finetune-worker-0/explanation/"
    ).content.decode()
    assert "ml-training/experiment-7-worker-0" in fragment and "h100-a-1" in fragment


def test_viewers_see_no_dry_run_form_and_cannot_post_one(demo, viewer):
    url = "/clusters/demo/pods/ml-training/bad-request-16gpu/"
    assert "Start dry-run" not in viewer.get(url).content.decode()
    response = viewer.post(url + "dry-run/", {})
    assert response.status_code == 302 and not DryRun.objects.exists()


def test_operators_start_a_dry_run_of_just_this_pod(
    demo, operator, django_capture_on_commit_callbacks
):
    url = "/clusters/demo/pods/ml-training/bad-request-16gpu/"
    assert "Start dry-run" in operator.get(url).content.decode()
    with django_capture_on_commit_callbacks(execute=False):
        response = operator.post(url + "dry-run/", {"profile_version": ""})
    run = DryRun.objects.get()
    assert response.status_code == 302 and str(run.pk) in response["Location"]
    assert run.source == DryRun.Source.SNAPSHOT and run.explain


def test_unknown_pod_is_404(demo, viewer):
    assert viewer.get("/clusters/demo/pods/x/y/").status_code == 404


def test_a_bad_profile_version_is_a_form_error_not_a_500(demo, operator):
    url = "/clusters/demo/pods/ml-training/bad-request-16gpu/"
    for raw in ("abc", "18446744073709551617", "-1", "999999"):
        response = operator.post(url + "dry-run/", {"profile_version": raw}, follow=True)
        assert response.status_code == 200, raw
        page = response.content.decode()
        assert "Could not start the dry-run: profile_version" in page, raw
    assert not DryRun.objects.exists()


def test_a_repeated_event_says_how_often_and_when_last(demo, viewer):
    from datetime import timedelta

    from django.utils import timezone

    from dashboard.cluster.models import Event

    Event.objects.filter(cluster=demo).delete()
    Event.objects.create(
        cluster=demo,
        namespace="ml-training",
        name="bad-request-16gpu.1",
        obj={},
        reason="FailedScheduling",
        message="0/20 nodes are available: 20 Insufficient nvidia.com/gpu.",
        involved_kind="Pod",
        involved_namespace="ml-training",
        involved_name="bad-request-16gpu",
        count=15,
        last_seen=timezone.now() - timedelta(minutes=3),
    )
    page = viewer.get("/clusters/demo/pods/ml-training/bad-request-16gpu/").content.decode()
    assert "seen 15 times, last 3\xa0minutes ago" in page


def test_a_preempting_pod_shows_why_no_node_fit_before_its_victims_left(demo, viewer):
    fragment = viewer.get(
        "/clusters/demo/pods/ml-training/gpt-finetune-worker-0/explanation/"
    ).content.decode()
    assert 'id="before-preemption"' in fragment
    assert "Before preemption: rejected nodes (20)" in fragment
    assert "0/20 nodes are available: " in fragment
    assert "<details" in fragment and "Insufficient nvidia.com/gpu" in fragment
    assert "ml-training/experiment-7-worker-0" in fragment
