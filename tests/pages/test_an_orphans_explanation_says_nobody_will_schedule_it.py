"""A pending pod nobody will schedule: its explanation says so, with the reason and field."""

from __future__ import annotations

from dashboard.explain import live
from tests.support.orphan_cluster import make_orphan_cluster

from .conftest import login_as


def test_an_orphans_explanation_says_nobody_will_schedule_it(db):
    live.forget()
    make_orphan_cluster()
    client = login_as("viewer")
    page = client.get("/clusters/orphans/pods/ml/held/explanation/").content.decode()
    section = page.split('id="nobody-schedules"')[1].split("</section>")[0]
    assert 'data-reason="GateNobodyRemoves"' in section and "example.com/hold" in section
    fine = client.get("/clusters/orphans/pods/ml/fine/explanation/").content.decode()
    assert 'id="nobody-schedules"' not in fine
    live.forget()
