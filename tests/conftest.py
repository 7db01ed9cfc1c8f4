"""Shared by the whole suite. Django's settings come from pytest's ini options
(schedlab.settings.test); the dashboard's fixtures live in tests/dashboard."""
