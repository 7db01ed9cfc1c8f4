"""Fixtures of the cluster app's tests: the kube server and running mirrors."""

from tests.support.mirror import kube, kubeconfig, live_cluster, start_mirror  # noqa: F401
