"""Checkpoint bytes per parameter with the optimizer's own precisions (chapters 10 and 11).

Standard library only. `training.checkpoint_bytes_per_param` fixes the book's default
(BF16 weights, FP32 master weights, FP32 AdamW moments: 14 B); a model trained with other
precisions keeps the same accounting (what a restart needs, no gradients) with other sizes.
"""
from __future__ import annotations

from . import formulas
from .errors import CalcError

__all__ = ["CheckpointError", "DEEPSEEK_V3_OPTIMIZER", "checkpoint_bytes_per_param"]


class CheckpointError(CalcError):
    """Bad argument to a checkpoint formula."""


# DeepSeek-V3 Technical Report (arXiv:2412.19437), section 3.3.3 "Low-Precision Storage and
# Communication": the AdamW first and second moments are tracked in BF16 instead of FP32; the
# master weights and the gradients stay in FP32.
DEEPSEEK_V3_OPTIMIZER = {"weights": "bf16", "master": "fp32", "moments": "bf16"}


def checkpoint_bytes_per_param(weights: str = "bf16", master: str = "fp32", moments: str = "fp32") -> int:
    """Bytes per parameter a restartable checkpoint holds: the working weights, the master
    weights and AdamW's two moments (gradients are recomputed after a restart, so they are not
    saved, as in chapter 10). The defaults give the book's 14 B; DeepSeek-V3's BF16 moments 10 B."""
    try:
        return (formulas.nbytes(1, weights) + formulas.nbytes(1, master)
                + 2 * formulas.nbytes(1, moments))
    except (KeyError, ValueError, CalcError) as e:
        raise CheckpointError(f"unknown precision in weights={weights!r}, master={master!r}, "
                              f"moments={moments!r}: {e}") from None
