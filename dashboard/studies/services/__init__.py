"""The studies' services: ``traces`` reads uploaded traces, ``studies`` creates, cancels
and exports studies, ``runner`` runs one replay on a worker."""
