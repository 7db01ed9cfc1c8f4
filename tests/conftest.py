"""Shared by the whole suite. Django's settings come from pytest's ini options
(schedlab.settings.test). The test packages follow the apps (cluster, dryruns,
explain, api, pages; engine for scheduler_engine); what several of them use
(fixtures, test doubles, builders) lives in tests/support."""
