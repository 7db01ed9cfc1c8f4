"""Test doubles and builders shared by the test-suite and the benchmarks.

``kubeserver`` is a Kubernetes API server speaking the real wire protocol;
``objects`` builds named Kubernetes objects, ``synthetic`` numbered GPU fleets.
"""
