"""A DRA resource pool as GatherPools starts it."""

from __future__ import annotations

from scheduler_engine.plugins.dynamicresources.pools import Pool


def test_a_new_pool_is_complete_valid_and_empty_with_lists_of_its_own():
    a, b = Pool("driver-a", "pool-1"), Pool("driver-a", "pool-1")
    assert a.pool_id == "driver-a/pool-1"
    assert (a.incomplete, a.invalid, a.invalid_reason) == (False, False, "")
    assert (a.slices, a.slices_not_targeting_node, a.counter_sets) == ([], [], {})
    a.slices.append({"spec": {}})
    a.slices_not_targeting_node.append({"spec": {}})
    a.counter_sets["set"] = {}
    assert (b.slices, b.slices_not_targeting_node, b.counter_sets) == ([], [], {})
    assert a != b
