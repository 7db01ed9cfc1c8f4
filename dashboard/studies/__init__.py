"""Studies: sets of trace replays (traces x configurations x seeds x percentageOfNodesToScore)
fanned out as one Celery group over every worker; see ``docs/studies.md``."""
