"""Scale-up domains (chapter 6): links and switches in one domain, tensor- and expert-parallel communication per layer, which models fit in a domain.

Standard library only. `add_commands` registers this module's `calc.py` subcommands.
"""
from __future__ import annotations


def add_commands(sub, common) -> None:
    """Register subcommands on calc.py's subparsers; `common(sp, model=..., hw=...)` adds the
    shared --format/--model/--hardware options."""
