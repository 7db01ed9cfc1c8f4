"""The Django app: mirrored cluster state, the mirror, websocket consumers, pages."""
