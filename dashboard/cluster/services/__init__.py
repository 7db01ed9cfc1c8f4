"""Writes: every change to stored state goes through a function here."""
