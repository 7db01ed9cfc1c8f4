"""Fixtures of the cluster app's tests: the kube server, running mirrors, a Celery worker."""

from tests.support.fixtures import worker  # noqa: F401
from tests.support.mirror import kube, kubeconfig, live_cluster, start_mirror  # noqa: F401
