"""What the engine leaves out of a configuration: its scheduler extenders.

kube-scheduler calls each extender of a ``KubeSchedulerConfiguration`` over
HTTP (its ``filterVerb``, ``prioritizeVerb``, ``preemptVerb``, ``bindVerb``,
for the pods that ask for one of its ``managedResources``).  The engine
accepts and validates them as upstream does but calls none: a dry-run, a live
pod's explanation or an apply shows what the plugins decide without them, and
says so in one line per extender (worded to be true in each of those places).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["extender_warnings"]

# the Extender fields naming an HTTP call, and the verb's name in the warning
_VERBS = (
    ("filterVerb", "filter"),
    ("prioritizeVerb", "prioritize"),
    ("preemptVerb", "preempt"),
    ("bindVerb", "bind"),
)


def extender_warnings(doc: Mapping[str, Any] | None) -> list[str]:
    """One line per extender of ``doc`` (a parsed KubeSchedulerConfiguration) it declares."""
    extenders = (doc or {}).get("extenders")
    if not isinstance(extenders, list):
        return []
    return [_warning(ext) for ext in extenders if isinstance(ext, Mapping)]


def _warning(ext: Mapping[str, Any]) -> str:
    calls = [name for field, name in _VERBS if ext.get(field)]
    managed = [
        str(r.get("name", "")) for r in ext.get("managedResources") or () if isinstance(r, Mapping)
    ]
    what = ", ".join(calls) or "no verbs"
    if managed:
        what += f"; managedResources {', '.join(managed)}"
    url = ext.get("urlPrefix") or "(no urlPrefix)"
    return (
        f"extender {url} ({what}) is not called: "
        "Schedlab's answer shows what the profile's plugins decide without it"
    )
