"""Kernels and the runtime (chapter 5): per-operator rooflines, fusion savings, attention IO (naive vs tiled), launch overhead, wave quantization.

Standard library only. `add_commands` registers this module's `calc.py` subcommands.
"""
from __future__ import annotations


def add_commands(sub, common) -> None:
    """Register subcommands on calc.py's subparsers; `common(sp, model=..., hw=...)` adds the
    shared --format/--model/--hardware options."""
