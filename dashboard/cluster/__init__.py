"""Mirrored cluster state (app label ``dashboard``): models, kinds, kube boundary, mirror.

The lowest of the Django apps: it imports ``scheduler_engine`` and nothing of
the other apps (``dryruns``, ``explain``, ``api``, ``pages``).
"""
