"""Feature gates of a run, as kube-scheduler's ``--feature-gates`` flag takes them.

Only the gates that change what the engine does are known; their v1.36
defaults are :data:`scheduler_engine.config.FEATURE_GATES`.  A gate that
needs another (upstream's feature dependencies) cannot be on without it, and
a gate upstream locks to its default cannot be set to anything else.
"""

from __future__ import annotations

from collections.abc import Mapping

from .config.defaults import FEATURE_GATES
from .errors import InputError

__all__ = [
    "DEPENDENCIES",
    "LOCKED",
    "parse_feature_gate_overrides",
    "parse_feature_gates",
    "resolve_feature_gates",
]

# gate → the gates it needs (pkg/features/kube_features.go, defaultKubernetesFeatureGateDependencies)
DEPENDENCIES: Mapping[str, tuple[str, ...]] = {
    "GangScheduling": ("GenericWorkload",),
    "TopologyAwareWorkloadScheduling": ("GenericWorkload",),
    "WorkloadAwarePreemption": ("GangScheduling",),
}

# the gates locked to their v1.36 default (pkg/features/kube_features.go, LockToDefault: true)
LOCKED: frozenset[str] = frozenset({"DynamicResourceAllocation"})


def parse_feature_gates(text: str, *, field: str = "--feature-gates") -> dict[str, bool]:
    """``Name=true,Other=false`` into every gate's value; unknown names and bad values are errors."""
    return resolve_feature_gates(parse_feature_gate_overrides(text, field=field), field=field)


def parse_feature_gate_overrides(text: str, *, field: str = "--feature-gates") -> dict[str, bool]:
    """Only the gates ``Name=true,Other=false`` names; dependencies are not checked here."""
    out: dict[str, bool] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, sep, value = part.partition("=")
        name, value = name.strip(), value.strip().lower()
        if not sep:
            raise InputError(f"missing bool value for {name}", field=field)
        if name not in FEATURE_GATES:
            raise InputError(f"unrecognized feature gate: {name}", field=field)
        if value not in ("true", "false"):
            raise InputError(f"invalid value of {name}={value}, err: invalid syntax", field=field)
        out[name] = value == "true"
    return out


def resolve_feature_gates(
    gates: Mapping[str, bool] | None, *, field: str = "featureGates"
) -> dict[str, bool]:
    """Every known gate's value: the defaults overridden by ``gates``, locks and dependencies
    checked."""
    out = dict(FEATURE_GATES)
    for name, on in (gates or {}).items():
        if name not in FEATURE_GATES:
            raise InputError(f"unrecognized feature gate: {name}", field=field)
        if not isinstance(on, bool):
            raise InputError(f"invalid value of {name}: must be true or false", field=field)
        if name in LOCKED and on != FEATURE_GATES[name]:
            raise InputError(
                # Go's %v of a bool
                f"cannot set feature gate {name} to {str(on).lower()}, "
                f"feature is locked to {str(FEATURE_GATES[name]).lower()}",
                field=field,
            )
        out[name] = on
    for name, needs in DEPENDENCIES.items():
        if out[name]:
            for dep in needs:
                if not out[dep]:
                    raise InputError(
                        f"feature gate {name} is enabled but depends on {dep}, which is disabled",
                        field=field,
                    )
    return out
