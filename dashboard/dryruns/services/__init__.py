"""Writes for profiles and dry-runs; every change to their state goes through here.

Their errors, which the API and the pages turn into 400/409/502, are in ``errors``.
"""
