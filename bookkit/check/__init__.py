"""Checks: translation number parity and staleness."""
