"""Explanations on the mirrored cluster: the warm engine state, and the pages' reading of it.

Above ``dryruns`` (it explains with the active profile), below ``api`` and ``pages``.
"""
