"""Fixtures of the explanation tests: the demo cluster, a viewer's client, the kube server."""

from tests.support.fixtures import demo_cluster, viewer  # noqa: F401
from tests.support.mirror import kube, kubeconfig, start_mirror  # noqa: F401
