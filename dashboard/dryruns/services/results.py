"""A finished dry-run's stored results and compact indexes: write once, read by page.

Results and indexes are gzip JSON in fixed-size pages (``DryRunResultPage``,
``DryRunIndexPage``), so reading one page of the UI inflates one row.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from .. import codec
from ..indexes import INDEX_VERSION, Indexes, build_indexes
from ..models import DryRun, DryRunIndexPage, DryRunResultPage

__all__ = ["ensure_indexes", "index_fields", "read_index", "read_results", "store_indexes"]


def index_fields(indexes: Indexes) -> dict[str, int]:
    return {
        "index_version": INDEX_VERSION,
        "pending_count": len(indexes.pending),
        "preemptor_count": indexes.preemptions["preemptorCount"],
        "victim_count": indexes.preemptions["victimCount"],
    }


def store_indexes(run_id: int, indexes: Indexes) -> None:
    """One row per page of each index (see ``DryRunIndexPage``); replaces older ones."""
    rows = []
    for kind, entries in (("placements", indexes.placements), ("pending", indexes.pending)):
        size = DryRunIndexPage.SIZES[kind]
        rows += [
            DryRunIndexPage(
                dry_run_id=run_id, kind=kind, index=i, data=codec.pack(entries[s : s + size])
            )
            for i, s in enumerate(range(0, len(entries), size))
        ]
    for kind, value in (("preemptions", indexes.preemptions), ("rejections", indexes.rejections)):
        rows.append(DryRunIndexPage(dry_run_id=run_id, kind=kind, index=0, data=codec.pack(value)))
    DryRunIndexPage.objects.filter(dry_run_id=run_id).delete()
    DryRunIndexPage.objects.bulk_create(rows)


def ensure_indexes(run: DryRun) -> DryRun:
    """Build, once, the indexes of a succeeded run stored without them or with older ones.

    Inflates every result page and the frozen state; a run stores its indexes
    as it finishes, so only runs stored by an older ``INDEX_VERSION`` get here.
    """
    if run.status != DryRun.Status.SUCCEEDED or run.index_version >= INDEX_VERSION:
        return run
    objects = codec.unpack(DryRun.objects.values_list("snapshot", flat=True).get(pk=run.pk))
    results = read_results(run, 0, run.result_count)
    indexes = build_indexes(objects, results)
    fields = index_fields(indexes)
    with transaction.atomic():
        store_indexes(run.pk, indexes)
        DryRun.objects.filter(pk=run.pk).update(**fields)
    for name, value in fields.items():
        setattr(run, name, value)
    return run


def read_index(run: DryRun, kind: str, offset: int = 0, limit: int | None = None) -> Any:
    """Entries ``offset``..``offset+limit`` of a paged index (the value of a one-page one).

    Inflates only the index pages they lie on; never a result page or the state.
    """
    size = DryRunIndexPage.SIZES[kind]
    if limit is None:
        data = (
            DryRunIndexPage.objects.filter(dry_run=run, kind=kind, index=0)
            .values_list("data", flat=True)
            .first()
        )
        return codec.unpack(data) if data is not None else None
    if limit <= 0:
        return []
    first, last = offset // size, (offset + limit - 1) // size
    out: list[dict[str, Any]] = []
    pages = (
        DryRunIndexPage.objects.filter(dry_run=run, kind=kind, index__range=(first, last))
        .order_by("index")
        .values_list("data", flat=True)
    )
    for data in pages:
        out.extend(codec.unpack(data))
    skip = offset - first * size
    return out[skip : skip + limit]


def read_results(run: DryRun, offset: int, limit: int) -> list[dict[str, Any]]:
    """Results ``offset`` .. ``offset+limit`` inflating only the pages they lie on."""
    size = run.result_page_size or 1
    end = min(offset + limit, run.result_count)
    if offset >= end:
        return []
    first, last = offset // size, (end - 1) // size
    out: list[dict[str, Any]] = []
    pages = DryRunResultPage.objects.filter(dry_run=run, index__range=(first, last)).order_by(
        "index"
    )
    for page in pages:
        out.extend(codec.unpack(page.data))
    skip = offset - first * size
    return out[skip : skip + (end - offset)]
