"""Strategic-merge patches of a pod, as ``kubectl patch --type strategic`` applies those we write.

Maps merge key by key, ``None`` deletes a key; the lists of containers merge
by ``name`` (their patch merge key); every other list a patch carries
replaces the pod's.  The fixes only write patches of that shape.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

__all__ = ["apply_patch"]

_MERGE_BY_NAME = frozenset({"containers", "initContainers"})


def _merge(base: Any, patch: Any, key: str = "") -> Any:
    if isinstance(patch, Mapping) and isinstance(base, Mapping):
        out = dict(base)
        for k, v in patch.items():
            if v is None:
                out.pop(k, None)
            else:
                out[k] = _merge(base.get(k), v, k)
        return out
    if key in _MERGE_BY_NAME and isinstance(patch, list) and isinstance(base, list):
        out_list = [copy.deepcopy(c) for c in base]
        index = {c.get("name"): i for i, c in enumerate(out_list) if isinstance(c, Mapping)}
        for c in patch:
            i = index.get(c.get("name"))
            if i is None:
                out_list.append(copy.deepcopy(c))
            else:
                out_list[i] = _merge(out_list[i], c)
        return out_list
    return copy.deepcopy(patch)


def apply_patch(obj: Mapping[str, Any], patch: Mapping[str, Any] | None) -> dict[str, Any]:
    """A new object: ``obj`` with ``patch`` applied (``obj`` is not changed)."""
    return _merge(dict(obj), patch or {})
