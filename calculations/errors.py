"""Exception base for user-facing errors (bad names, numbers, configs).

The CLI prints these as one-line messages with exit status 2; anything else
is a bug and keeps its traceback.
"""

__all__ = ["CalcError"]


class CalcError(ValueError):
    """Base of ModelError, HardwareError and FormulaError."""
