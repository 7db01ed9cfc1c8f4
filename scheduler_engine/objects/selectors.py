"""Label selectors and node selector terms, with apimachinery's semantics.

* A ``metav1.LabelSelector`` that is absent (None) selects nothing; an empty
  one selects everything.
* A ``NodeSelectorTerm`` with neither ``matchExpressions`` nor ``matchFields``
  selects nothing, and terms are ORed.
* ``Gt``/``Lt`` compare the label value as an integer; a non-integer label
  value does not match.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "EVERYTHING",
    "NOTHING",
    "LabelSelector",
    "NodeSelector",
    "NodeSelectorTerm",
    "Requirement",
    "SelectorError",
    "parse_label_selector",
    "parse_node_affinity",
    "parse_node_selector",
    "parse_node_selector_term",
]


class SelectorError(ValueError):
    """A selector that upstream would refuse to parse (names the field)."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")


_INT64 = re.compile(r"^[+-]?[0-9]+$")


def parse_go_int64(text: str) -> int | None:
    """``strconv.ParseInt(text, 10, 64)``: None where Go would fail."""
    if not _INT64.match(text):
        return None
    n = int(text)
    return n if -(2**63) <= n < 2**63 else None


_IN, _NOT_IN, _EXISTS, _DOES_NOT_EXIST, _GT, _LT = (
    "In",
    "NotIn",
    "Exists",
    "DoesNotExist",
    "Gt",
    "Lt",
)


@dataclass(frozen=True, slots=True)
class Requirement:
    key: str
    operator: str
    values: frozenset[str]
    # Gt/Lt bound, parsed once
    bound: int = 0

    def matches(self, labels: Mapping[str, str]) -> bool:
        op = self.operator
        if op == _IN:
            v = labels.get(self.key)
            return v is not None and v in self.values
        if op == _NOT_IN:
            v = labels.get(self.key)
            return v is None or v not in self.values
        if op == _EXISTS:
            return self.key in labels
        if op == _DOES_NOT_EXIST:
            return self.key not in labels
        v = labels.get(self.key)
        if v is None:
            return False
        n = parse_go_int64(v)
        if n is None:
            return False
        return n > self.bound if op == _GT else n < self.bound


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """A parsed selector: all requirements must match.  ``nothing`` never matches."""

    requirements: tuple[Requirement, ...] = ()
    nothing: bool = False

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self.nothing:
            return False
        for r in self.requirements:
            if not r.matches(labels):
                return False
        return True

    @property
    def empty(self) -> bool:
        """True when the selector matches every object."""
        return not self.nothing and not self.requirements

    def keys(self) -> frozenset[str]:
        return frozenset(r.key for r in self.requirements)


NOTHING = LabelSelector(nothing=True)
EVERYTHING = LabelSelector()


def _requirement(
    key: str, op: str, values: Sequence[Any], field: str, *, node: bool
) -> Requirement:
    if not isinstance(key, str) or not key:
        raise SelectorError(f"{field}.key", "must be a non-empty string")
    vals = [str(v) for v in (values or [])]
    if op in (_IN, _NOT_IN):
        if not vals:
            raise SelectorError(
                f"{field}.values", "for 'in', 'notin' operators, values set can't be empty"
            )
        return Requirement(key, op, frozenset(vals))
    if op in (_EXISTS, _DOES_NOT_EXIST):
        if vals:
            raise SelectorError(
                f"{field}.values", "values set must be empty for exists and does not exist"
            )
        return Requirement(key, op, frozenset())
    if node and op in (_GT, _LT):
        if len(vals) != 1:
            raise SelectorError(
                f"{field}.values", "for 'Gt', 'Lt' operators, exactly one value is required"
            )
        bound = parse_go_int64(vals[0])
        if bound is None:
            raise SelectorError(
                f"{field}.values[0]", "for 'Gt', 'Lt' operators, the value must be an integer"
            ) from None
        return Requirement(key, op, frozenset(vals), bound)
    allowed = (
        '"DoesNotExist", "Exists", "Gt", "In", "Lt", "NotIn"'
        if node
        else '"DoesNotExist", "Exists", "In", "NotIn"'
    )
    raise SelectorError(
        f"{field}.operator", f'Unsupported value: "{op}": supported values: {allowed}'
    )


def parse_label_selector(raw: Any, field: str = "labelSelector") -> LabelSelector:
    """``metav1.LabelSelector`` → selector; None selects nothing, {} everything."""
    if raw is None:
        return NOTHING
    if not isinstance(raw, Mapping):
        raise SelectorError(field, "must be an object")
    reqs: list[Requirement] = []
    match_labels = raw.get("matchLabels") or {}
    if not isinstance(match_labels, Mapping):
        raise SelectorError(f"{field}.matchLabels", "must be a map of strings")
    for k in sorted(match_labels):
        reqs.append(Requirement(str(k), _IN, frozenset([str(match_labels[k])])))
    exprs = raw.get("matchExpressions") or []
    if not isinstance(exprs, list):
        raise SelectorError(f"{field}.matchExpressions", "must be a list")
    reqs.extend(_expression_requirements(exprs, field, node=False))
    return LabelSelector(tuple(reqs))


def _expression_requirements(exprs: Sequence[Any], field: str, *, node: bool) -> list[Requirement]:
    """The requirements of ``matchExpressions`` (label or node selector operators)."""
    reqs = []
    for i, e in enumerate(exprs):
        if not isinstance(e, Mapping):
            raise SelectorError(f"{field}.matchExpressions[{i}]", "must be an object")
        reqs.append(
            _requirement(
                e.get("key"),
                e.get("operator"),
                e.get("values") or [],
                f"{field}.matchExpressions[{i}]",
                node=node,
            )
        )
    return reqs


def selector_from_set(labels: Mapping[str, str]) -> LabelSelector:
    """Equality selector for every pair (an empty map matches everything)."""
    return LabelSelector(
        tuple(Requirement(k, _IN, frozenset([str(v)])) for k, v in sorted(labels.items()))
    )


@dataclass(frozen=True, slots=True)
class NodeSelectorTerm:
    """One term: label expressions AND ``metadata.name`` field expressions."""

    expressions: LabelSelector | None
    # (operator, field, value) for matchFields; nodes only have metadata.name
    fields: tuple[tuple[str, str, str], ...] | None

    def matches(self, labels: Mapping[str, str], name: str) -> bool:
        if self.expressions is not None and not self.expressions.matches(labels):
            return False
        if self.fields is not None and name:
            for op, key, value in self.fields:
                actual = name if key == "metadata.name" else ""
                if (actual == value) != (op == _IN):
                    return False
        return True


@dataclass(frozen=True, slots=True)
class NodeSelector:
    """ORed terms; empty terms were dropped when parsing, so none matches nothing."""

    terms: tuple[NodeSelectorTerm, ...]

    def matches(self, labels: Mapping[str, str], name: str) -> bool:
        for t in self.terms:
            if t.matches(labels, name):
                return True
        return False


def parse_node_selector_term(raw: Any, field: str) -> NodeSelectorTerm | None:
    """None for an empty term (which upstream skips: it selects nothing)."""
    if not isinstance(raw, Mapping):
        raise SelectorError(field, "must be an object")
    exprs = raw.get("matchExpressions") or []
    flds = raw.get("matchFields") or []
    if not exprs and not flds:
        return None
    label_sel: LabelSelector | None = None
    if exprs:
        label_sel = LabelSelector(tuple(_expression_requirements(exprs, field, node=True)))
    field_sel: tuple[tuple[str, str, str], ...] | None = None
    if flds:
        pairs = []
        for i, e in enumerate(flds):
            f = f"{field}.matchFields[{i}]"
            if not isinstance(e, Mapping):
                raise SelectorError(f, "must be an object")
            op = e.get("operator")
            if op not in (_IN, _NOT_IN):
                raise SelectorError(
                    f"{f}.operator", f'Unsupported value: "{op}": supported values: "In", "NotIn"'
                )
            values = e.get("values") or []
            if len(values) != 1:
                raise SelectorError(f"{f}.values", "must have one element")
            pairs.append((op, str(e.get("key")), str(values[0])))
        field_sel = tuple(pairs)
    return NodeSelectorTerm(label_sel, field_sel)


def parse_node_selector(raw: Any, field: str) -> NodeSelector:
    if not isinstance(raw, Mapping):
        raise SelectorError(field, "must be an object")
    terms = raw.get("nodeSelectorTerms") or []
    if not isinstance(terms, list):
        raise SelectorError(f"{field}.nodeSelectorTerms", "must be a list")
    parsed = []
    for i, t in enumerate(terms):
        term = parse_node_selector_term(t, f"{field}.nodeSelectorTerms[{i}]")
        if term is not None:
            parsed.append(term)
    return NodeSelector(tuple(parsed))


def parse_node_affinity(
    raw: Mapping[str, Any], field: str
) -> tuple[NodeSelector | None, tuple[tuple[int, NodeSelectorTerm], ...], bool]:
    """A ``v1.NodeAffinity``: (required selector or None, scoring preferred terms,
    whether any preferred term was given at all).

    Zero-weight and empty preferred terms score nothing, as upstream skips them;
    the last value still tells that some were given (NodeAffinity's PreScore).
    """
    req_raw = raw.get("requiredDuringSchedulingIgnoredDuringExecution")
    required = (
        parse_node_selector(req_raw, f"{field}.requiredDuringSchedulingIgnoredDuringExecution")
        if req_raw is not None
        else None
    )
    preferred: list[tuple[int, NodeSelectorTerm]] = []
    raw_preferred = raw.get("preferredDuringSchedulingIgnoredDuringExecution") or []
    for i, p in enumerate(raw_preferred):
        f = f"{field}.preferredDuringSchedulingIgnoredDuringExecution[{i}]"
        if not isinstance(p, Mapping):
            raise SelectorError(f, "must be an object")
        weight = int(p.get("weight") or 0)
        term = parse_node_selector_term(p.get("preference") or {}, f"{f}.preference")
        if weight == 0 or term is None:
            continue
        preferred.append((weight, term))
    return required, tuple(preferred), bool(raw_preferred)
