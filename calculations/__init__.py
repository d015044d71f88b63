"""calculations: standard-library-only LLM arithmetic for the book.

    from calculations import models, hardware, formulas
    m = models.get("qwen3-8b")
    formulas.kv_bytes_per_token(m, "bf16")   # 147456

Submodules load lazily (``models``, ``hardware``, ``formulas``, ``tables``).
"""
import importlib

__all__ = ["models", "hardware", "formulas", "tables"]
__version__ = "1.0.0"


def __getattr__(name):
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
