"""Scheduling (chapter 11): Little's law, M/M/c and Erlang C, sizing for a tail-latency SLO, GPU sharing and KV holding costs.

Standard library only. `add_commands` registers this module's `calc.py` subcommands.
"""
from __future__ import annotations


def add_commands(sub, common) -> None:
    """Register subcommands on calc.py's subparsers; `common(sp, model=..., hw=...)` adds the
    shared --format/--model/--hardware options."""
