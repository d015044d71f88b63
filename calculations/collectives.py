"""Collectives and datacenter networks (chapter 7): alpha-beta time of ring, tree and hierarchical collectives; fat-tree sizing.

Standard library only. `add_commands` registers this module's `calc.py` subcommands.
"""
from __future__ import annotations


def add_commands(sub, common) -> None:
    """Register subcommands on calc.py's subparsers; `common(sp, model=..., hw=...)` adds the
    shared --format/--model/--hardware options."""
