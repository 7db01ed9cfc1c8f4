"""Fixtures of the study tests: token clients per role, the session's worker, tiny traces."""

from tests.support.fixtures import (  # noqa: F401
    admin,
    operator,
    viewer,
    worker,
)
