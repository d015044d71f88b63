"""Distributed inference (chapter 9): parallel layouts for serving, prefill/decode disaggregation, expert imbalance, cold start and recovery.

Standard library only. `add_commands` registers this module's `calc.py` subcommands.
"""
from __future__ import annotations


def add_commands(sub, common) -> None:
    """Register subcommands on calc.py's subparsers; `common(sp, model=..., hw=...)` adds the
    shared --format/--model/--hardware options."""
