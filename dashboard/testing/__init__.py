"""Test doubles that speak real protocols (used by the test-suite and the benchmark)."""
