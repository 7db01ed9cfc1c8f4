"""The REST API (``/api/v1/``): one router over clusters, nodes, pods, profiles and dry-runs."""
