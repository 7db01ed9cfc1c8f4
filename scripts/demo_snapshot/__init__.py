"""The bundled demo cluster, built object by object (``scripts/make_demo_snapshot.py``).

One module a concern: ``objects`` (the list being built and the builders of
common kinds), ``cluster`` (namespaces, priority classes, nodes),
``workloads`` (running and pending pods), ``storage``, ``dra``, ``topology``
(NodeResourceTopologies) and ``gangs``.  ``build()`` calls them in the order
their objects appear in the file.
"""

from __future__ import annotations

from typing import Any

from . import cluster, dra, gangs, storage, topology, workloads
from .objects import objects

__all__ = ["build"]


def build() -> list[dict[str, Any]]:
    """Every object of the demo cluster, in the order the snapshot lists them."""
    objects.clear()
    cluster.build()
    workloads.running()
    workloads.pending()
    storage.build()
    dra.build()
    topology.build()
    gangs.build()
    return list(objects)
