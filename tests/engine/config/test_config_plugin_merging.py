"""User plugin sets merge with the defaults and expand multiPoint like upstream.

mergePlugins: pkg/scheduler/apis/config/v1/default_plugins.go; expansion and
ordering: expandMultiPointPlugins in pkg/scheduler/framework/runtime/framework.go
(the last block ports its TestNewFrameworkMultiPointExpansion cases).
"""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_engine.config import load_config
from scheduler_engine.errors import ConfigError

from .config_helpers import EXPECTED, EXPECTED_SCORE, ksc, names, weighted


def one(plugins: dict[str, Any], **fields: Any):
    return load_config(ksc(profiles=[{"plugins": plugins, **fields}])).profiles[0]


def test_disabling_a_default_plugin_in_multipoint_removes_it_everywhere() -> None:
    prof = one({"multiPoint": {"disabled": [{"name": "NodeAffinity"}]}})
    for point in ("preFilter", "filter", "preScore", "score"):
        assert "NodeAffinity" not in names(prof.enabled(point))
    assert names(prof.enabled("filter")) == [n for n in EXPECTED["filter"] if n != "NodeAffinity"]


def test_disabling_a_plugin_at_one_point_keeps_it_at_the_others() -> None:
    prof = one({"score": {"disabled": [{"name": "ImageLocality"}, {"name": "NodeResourcesFit"}]}})
    assert "NodeResourcesFit" not in names(prof.enabled("score"))
    assert "ImageLocality" not in names(prof.enabled("score"))
    assert "NodeResourcesFit" in names(prof.enabled("filter"))
    assert "NodeResourcesFit" in names(prof.enabled("preScore"))


def test_disabling_star_at_a_point_skips_multipoint_there() -> None:
    prof = one(
        {
            "score": {
                "disabled": [{"name": "*"}],
                "enabled": [{"name": "ImageLocality", "weight": 7}],
            }
        }
    )
    assert weighted(prof.enabled("score")) == [("ImageLocality", 7)]
    assert names(prof.enabled("filter")) == EXPECTED["filter"]


def test_a_custom_weight_in_score_overrides_the_multipoint_weight_and_moves_first() -> None:
    prof = one({"score": {"enabled": [{"name": "ImageLocality", "weight": 5}]}})
    # explicit entries that also come from multiPoint go first (part 1 of the reorder)
    assert weighted(prof.enabled("score")) == [("ImageLocality", 5)] + [
        nw for nw in EXPECTED_SCORE if nw[0] != "ImageLocality"
    ]


def test_a_custom_weight_in_multipoint_replaces_the_default_in_place() -> None:
    prof = one({"multiPoint": {"enabled": [{"name": "ImageLocality", "weight": 9}]}})
    assert weighted(prof.enabled("score")) == [
        (n, 9 if n == "ImageLocality" else w) for n, w in EXPECTED_SCORE
    ]


@pytest.mark.parametrize("weight", [None, 0])
def test_a_score_plugin_without_weight_scores_with_weight_one(weight: int | None) -> None:
    entry: dict[str, Any] = {"name": "TaintToleration"}
    if weight is not None:
        entry["weight"] = weight
    prof = one({"multiPoint": {"enabled": [entry]}})
    assert dict(weighted(prof.enabled("score")))["TaintToleration"] == 1


def test_upstream_accepts_negative_plugin_weights() -> None:
    # v1.36 has no range check for plugin weights (only the int32 decode and an overflow guard)
    prof = one({"score": {"enabled": [{"name": "ImageLocality", "weight": -3}]}})
    assert weighted(prof.enabled("score"))[0] == ("ImageLocality", -3)


def test_a_plugin_enabled_only_at_filter_is_appended_after_multipoint_plugins() -> None:
    prof = one(
        {
            "multiPoint": {"disabled": [{"name": "NodeName"}]},
            "filter": {"enabled": [{"name": "NodeName"}]},
        }
    )
    assert names(prof.enabled("filter")) == [n for n in EXPECTED["filter"] if n != "NodeName"] + [
        "NodeName"
    ]


def test_an_explicit_filter_list_of_multipoint_plugins_runs_first_in_its_own_order() -> None:
    prof = one(
        {"filter": {"enabled": [{"name": "TaintToleration"}, {"name": "NodeUnschedulable"}]}}
    )
    rest = [n for n in EXPECTED["filter"] if n not in ("TaintToleration", "NodeUnschedulable")]
    assert names(prof.enabled("filter")) == ["TaintToleration", "NodeUnschedulable", *rest]


def test_replacing_everything_with_star_in_multipoint() -> None:
    prof = one(
        {
            "multiPoint": {
                "disabled": [{"name": "*"}],
                "enabled": [
                    {"name": "PrioritySort"},
                    {"name": "NodeResourcesFit", "weight": 4},
                    {"name": "DefaultBinder"},
                ],
            }
        }
    )
    assert names(prof.enabled("filter")) == ["NodeResourcesFit"]
    assert weighted(prof.enabled("score")) == [("NodeResourcesFit", 4)]
    assert names(prof.enabled("postFilter")) == []
    assert names(prof.enabled("preEnqueue")) == []
    assert sorted(prof.plugin_args) == ["NodeResourcesFit"]


def test_multiple_profiles_resolve_independently() -> None:
    cfg = load_config(
        ksc(
            profiles=[
                {"schedulerName": "default-scheduler"},
                {
                    "schedulerName": "bin-packer",
                    "percentageOfNodesToScore": 50,
                    "plugins": {
                        "score": {"disabled": [{"name": "NodeResourcesBalancedAllocation"}]}
                    },
                    "pluginConfig": [
                        {
                            "name": "NodeResourcesFit",
                            "args": {"scoringStrategy": {"type": "MostAllocated"}},
                        }
                    ],
                },
            ]
        )
    )
    default, packer = cfg.profiles
    assert cfg.profile("bin-packer") is packer
    assert weighted(default.enabled("score")) == EXPECTED_SCORE
    assert "NodeResourcesBalancedAllocation" not in names(packer.enabled("score"))
    assert packer.percentage_of_nodes_to_score == 50
    assert packer.plugin_args["NodeResourcesFit"]["scoringStrategy"]["type"] == "MostAllocated"
    assert default.plugin_args["NodeResourcesFit"]["scoringStrategy"]["type"] == "LeastAllocated"


def test_capabilities_decide_where_a_multipoint_plugin_lands() -> None:
    caps = {
        "PrioritySort": frozenset({"queueSort"}),
        "DefaultBinder": frozenset({"bind"}),
        "Gpu": frozenset({"filter", "score", "reserve"}),
    }
    cfg = load_config(
        ksc(
            profiles=[
                {
                    "plugins": {
                        "multiPoint": {
                            "disabled": [{"name": "*"}],
                            "enabled": [
                                {"name": "PrioritySort"},
                                {"name": "Gpu", "weight": 6},
                                {"name": "DefaultBinder"},
                            ],
                        }
                    }
                }
            ]
        ),
        capabilities=caps,
    )
    prof = cfg.profiles[0]
    assert names(prof.enabled("filter")) == ["Gpu"]
    assert names(prof.enabled("reserve")) == ["Gpu"]
    assert weighted(prof.enabled("score")) == [("Gpu", 6)]
    assert names(prof.enabled("preFilter")) == []


# --- ported from upstream TestNewFrameworkMultiPointExpansion ------------------------

ALL_POINTS = frozenset(
    {
        "preEnqueue",
        "queueSort",
        "preFilter",
        "filter",
        "postFilter",
        "preScore",
        "score",
        "reserve",
        "permit",
        "preBind",
        "bind",
        "postBind",
        "placementGenerate",
        "placementScore",
    }
)
TEST_CAPS = {
    # upstream's TestPlugin implements everything but PreEnqueue
    "test": ALL_POINTS - {"preEnqueue"},
    "score1": frozenset({"preScore", "score"}),
    "score2": frozenset({"preScore", "score"}),
    "scoreNorm": frozenset({"score"}),
    "placement1": frozenset({"placementScore"}),
    "queueSort": frozenset({"queueSort"}),
    "bind": frozenset({"bind"}),
}


def expand(plugins: dict[str, Any]):
    mp = plugins.setdefault("multiPoint", {})
    mp.setdefault("disabled", [{"name": "*"}])  # no defaults, like the framework test
    return load_config(ksc(profiles=[{"plugins": plugins}]), capabilities=TEST_CAPS).profiles[0]


def P(*items: str | tuple[str, int]) -> list[dict[str, Any]]:
    return [{"name": i} if isinstance(i, str) else {"name": i[0], "weight": i[1]} for i in items]


@pytest.mark.parametrize(
    ("plugins", "want"),
    [
        pytest.param(
            {"multiPoint": {"enabled": P(("test", 5))}},
            {
                "filter": ["test"],
                "score": [("test", 5)],
                "placementScore": [("test", 5)],
                "preScore": ["test"],
            },
            id="plugin-expansion",
        ),
        pytest.param(
            {
                "multiPoint": {"enabled": P("test")},
                "preScore": {"disabled": P("test")},
                "score": {"disabled": P("test")},
                "placementScore": {"disabled": P("test")},
            },
            {"filter": ["test"], "score": [], "preScore": [], "placementScore": []},
            id="disable-multipoint-plugin-at-some-points",
        ),
        pytest.param(
            {"multiPoint": {"enabled": P("test", "score1", "placement1")}},
            {
                "preScore": ["test", "score1"],
                "score": [("test", 1), ("score1", 1)],
                "placementScore": [("test", 1), ("placement1", 1)],
            },
            id="multiple-multipoint-plugins",
        ),
        pytest.param(
            {"multiPoint": {"enabled": P("test", "score1")}, "preScore": {"disabled": P("*")}},
            {"preScore": [], "score": [("test", 1), ("score1", 1)]},
            id="disable-multipoint-extension",
        ),
        pytest.param(
            {
                "multiPoint": {"enabled": P("scoreNorm", "test", "score1")},
                "score": {"enabled": P("score1", "test")},
            },
            {
                "preScore": ["test", "score1"],
                "score": [("score1", 1), ("test", 1), ("scoreNorm", 1)],
            },
            id="reorder-specified-extension-takes-precedence",
        ),
        pytest.param(
            {
                "multiPoint": {"enabled": P("test", "score1")},
                "score": {"enabled": P("scoreNorm", "score1", "test")},
            },
            {"score": [("score1", 1), ("test", 1), ("scoreNorm", 1)]},
            id="reorder-only-when-in-multipoint",
        ),
        pytest.param(
            {
                "multiPoint": {"enabled": P("test", "score1")},
                "score": {"enabled": P(("score1", 5), ("test", 3))},
                "placementScore": {"enabled": P(("test", 2))},
            },
            {"score": [("score1", 5), ("test", 3)], "placementScore": [("test", 2)]},
            id="override-multipoint-weights",
        ),
        pytest.param(
            {
                "multiPoint": {"enabled": P("test", "score1", "placement1")},
                "score": {"enabled": P(("score1", 5), ("score2", 5), ("test", 3))},
                "placementScore": {"enabled": P(("test", 2), ("placement1", 6))},
            },
            {
                "score": [("score1", 5), ("test", 3), ("score2", 5)],
                "placementScore": [("test", 2), ("placement1", 6)],
            },
            id="override-weights-without-loading-twice",
        ),
        pytest.param(
            {"multiPoint": {"enabled": P("queueSort", "bind", "score1", "placement1")}},
            {"queueSort": ["queueSort"], "bind": ["bind"], "preScore": ["score1"], "filter": []},
            id="enable-with-star-disabled",
        ),
    ],
)
def test_multipoint_expansion_matches_upstream(
    plugins: dict[str, Any], want: dict[str, list[Any]]
) -> None:
    prof = expand(plugins)
    for point, expected in want.items():
        got = (
            weighted(prof.enabled(point))
            if point in ("score", "placementScore")
            else names(prof.enabled(point))
        )
        assert got == expected, point


def test_multipoint_plugin_listed_twice_is_already_registered() -> None:
    with pytest.raises(ConfigError) as exc:
        expand({"multiPoint": {"enabled": P("test", "test")}})
    assert exc.value.message == 'plugin "test" already registered as "PreFilterPlugin"'
    assert exc.value.field == "profiles[0].plugins.multiPoint.enabled[1]"
