"""Training systems (chapter 10): memory per parameter, parallel layouts, pipeline bubbles, MFU, checkpoint interval.

Standard library only. `add_commands` registers this module's `calc.py` subcommands.
"""
from __future__ import annotations


def add_commands(sub, common) -> None:
    """Register subcommands on calc.py's subparsers; `common(sp, model=..., hw=...)` adds the
    shared --format/--model/--hardware options."""
