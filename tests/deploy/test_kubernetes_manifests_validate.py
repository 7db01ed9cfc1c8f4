"""Every manifest under deploy/kubernetes/, as kustomize renders it, is valid Kubernetes v1.36."""

from __future__ import annotations

import copy

import kubernetes_validate
import pytest
from kubernetes_validate.utils import all_versions

from .kubernetes import KUSTOMIZATIONS, MANIFESTS, find, render

VERSION = "1.36.0"


def test_the_validator_has_the_v1_36_schemas():
    assert VERSION in all_versions()


@pytest.mark.parametrize("directory", KUSTOMIZATIONS, ids=lambda p: str(p.relative_to(MANIFESTS)))
def test_every_rendered_object_validates_strictly(directory):
    objects = render(directory)
    assert objects
    for obj in objects:
        where = f"{directory.relative_to(MANIFESTS)}: {obj['kind']} {obj['metadata']['name']}"
        try:
            kubernetes_validate.validate(obj, VERSION, strict=True)
        except kubernetes_validate.ValidationError as exc:
            pytest.fail(f"{where}: {exc.message} at {'.'.join(map(str, exc.path))}")


def test_every_file_is_rendered_by_some_kustomization():
    import yaml

    rendered = set()
    for directory in KUSTOMIZATIONS:
        kustomization = yaml.safe_load((directory / "kustomization.yaml").read_text())
        rendered |= {(directory / r).resolve() for r in kustomization.get("resources", [])}
    files = {p.resolve() for p in MANIFESTS.rglob("*.yaml") if p.name != "kustomization.yaml"}
    assert files - rendered == set(), "manifests no kustomization renders (so none is checked)"


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("spec", "replica"), 2),  # a misspelt field
        (("spec", "template", "spec", "containers", 0, "ports", 0, "containerPort"), "http"),
        (("spec", "strategy", "type"), 7),
    ],
)
def test_the_validation_catches_broken_manifests(path, value):
    web = copy.deepcopy(find(render(MANIFESTS / "base"), "Deployment", "schedlab-web"))
    node = web
    for key in path[:-1]:
        node = node.setdefault(key, {}) if isinstance(key, str) else node[key]
    node[path[-1]] = value
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(web, VERSION, strict=True)
