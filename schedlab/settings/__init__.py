"""Settings split by environment: ``dev`` (make run), ``test`` and ``production``.

Everything that differs between deployments is read from the environment in
``base`` through the typed helpers in ``env``; the modules only pick defaults.
"""
