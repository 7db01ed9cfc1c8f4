"""Fixtures of the REST API's tests: token clients per role, the demo cluster, a worker."""

from tests.support.fixtures import (  # noqa: F401
    admin,
    demo_cluster,
    operator,
    viewer,
    worker,
)
