"""Device, edge and cloud (chapter 12): what fits on a device, bandwidth-bound decode, energy per token, cascades and cost per token.

Standard library only. `add_commands` registers this module's `calc.py` subcommands.
"""
from __future__ import annotations


def add_commands(sub, common) -> None:
    """Register subcommands on calc.py's subparsers; `common(sp, model=..., hw=...)` adds the
    shared --format/--model/--hardware options."""
