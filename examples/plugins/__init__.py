"""Scheduler plugins of one's own (see docs/plugins.md)."""
