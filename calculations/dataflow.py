"""Data paths of chapter 1: operand traffic of a weight-stationary systolic array, and moving a
buffer off a server directly (GPUDirect RDMA) or staged through host memory.

Standard library only. Bytes and bytes per second are floats; times are seconds.
"""
from __future__ import annotations

import math

from .errors import CalcError

__all__ = ["DataflowError", "systolic_operand_traffic", "staged_copy_time"]


class DataflowError(CalcError):
    pass


def systolic_operand_traffic(rows: int, cols: int, clock_hz: float, operand_bytes: float = 1,
                             acc_bytes: float = 4) -> dict:
    """Operand traffic of a rows x cols weight-stationary systolic array at `clock_hz`.

    Weights are preloaded (one per cell); each cycle one activation enters every row at the
    left edge and is passed right, and one partial sum leaves every column at the bottom.
    `naive_bytes_per_s` is what the same number of MACs would read if each fetched both of its
    operands from a buffer every cycle; `reuse` is how many times fewer bytes enter the array.
    """
    if rows < 1 or cols < 1 or clock_hz <= 0 or operand_bytes <= 0 or acc_bytes <= 0:
        raise DataflowError("rows, cols, clock, operand and accumulator bytes must be positive")
    macs = rows * cols
    naive = macs * 2 * operand_bytes * clock_hz
    edge_in = rows * operand_bytes * clock_hz
    edge_out = cols * acc_bytes * clock_hz
    return {"macs": macs, "naive_bytes_per_s": naive, "edge_in_bytes_per_s": edge_in,
            "edge_out_bytes_per_s": edge_out, "reuse": naive / edge_in,
            "weight_tile_bytes": macs * operand_bytes}


def staged_copy_time(nbytes: float, pcie_bw: float, nic_bw: float,
                     chunk: float | None = None) -> dict:
    """Time to send `nbytes` from GPU memory out of the NIC.

    direct: GPUDirect RDMA, the NIC reads GPU memory at its line rate.
    staged: copied to host memory over PCIe first (all of it, or `chunk` bytes at a time with
    the two stages pipelined), then read by the NIC. host_bytes: the bytes host memory moves
    (written once, read once) on the sending side.
    """
    if nbytes <= 0 or pcie_bw <= 0 or nic_bw <= 0 or (chunk is not None and chunk <= 0):
        raise DataflowError("bytes, bandwidths and chunk must be positive")
    direct = nbytes / nic_bw
    whole = nbytes / pcie_bw + nbytes / nic_bw
    out = {"direct_s": direct, "staged_whole_s": whole, "host_bytes": 2 * nbytes}
    if chunk is not None:
        n = math.ceil(nbytes / chunk)
        c = nbytes / n
        out["chunks"] = n
        out["staged_chunked_s"] = c / pcie_bw + c / nic_bw + (n - 1) * max(c / pcie_bw, c / nic_bw)
    return out
