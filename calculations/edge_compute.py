"""One convention for device compute, and decoding a model split between GPU and CPU (chapter 12).

Standard library only.

Convention for a device's prefill peak (`data/edge_devices.json`, `prefill_tops`): dense (no 2:4
sparsity), at the precision the runtime actually multiplies in (4-bit weights are dequantized
inside the kernel and multiplied with FP16 activations), on the engine that runs the model (the
GPU for the llama.cpp / MLC style runtimes the chapter assumes; a Jetson's DLAs and a phone's
NPU are not used by them). Vendor headline TOPS are often sparse INT8 summed over several engines;
`dense_fp16_from_sparse_int8` undoes the two factors of two.

A model that does not fit in GPU memory is commonly split by layers: the GPU runs the layers it
holds and the CPU runs the rest from host memory (llama.cpp's `--n-gpu-layers`). At batch 1 each
part is bound by its own memory bandwidth and the parts run one after the other, so a decode step
is the sum of the two read times. Streaming the host-held layers over PCIe to the GPU every step
is the other option; it is bound by the link instead of host memory.
"""
from __future__ import annotations

from .errors import CalcError

__all__ = ["EdgeComputeError", "dense_fp16_from_sparse_int8", "ddr_bandwidth", "split_decode_step", "headline_tops"]


class EdgeComputeError(CalcError):
    """Bad argument to an edge-compute formula."""


def _pos(v, name, zero_ok=False):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0 or (v == 0 and not zero_ok):
        raise EdgeComputeError(f"{name} must be a {'non-negative' if zero_ok else 'positive'} number, got {v!r}")
    return v


def dense_fp16_from_sparse_int8(sparse_int8_ops: float) -> float:
    """Dense FP16 tensor rate from a 2:4-sparse INT8 headline: / 2 for sparsity, / 2 because an
    Ampere tensor core does half as many FP16 as INT8 operations per clock (A100: 312 vs 624)."""
    return _pos(sparse_int8_ops, "sparse_int8_ops") / 4


def ddr_bandwidth(mt_s: float, channels: int, bus_bits: int = 64) -> float:
    """Peak DRAM bandwidth in B/s: transfers per second x bus width in bytes x channels
    (a desktop DDR5 channel is 64 bits wide, split in two 32-bit subchannels)."""
    _pos(mt_s, "mt_s")
    if isinstance(channels, bool) or not isinstance(channels, int) or channels < 1:
        raise EdgeComputeError(f"channels must be a positive integer, got {channels!r}")
    if isinstance(bus_bits, bool) or not isinstance(bus_bits, int) or bus_bits < 8 or bus_bits % 8:
        raise EdgeComputeError(f"bus_bits must be a positive multiple of 8, got {bus_bits!r}")
    return mt_s * 1e6 * bus_bits / 8 * channels


def split_decode_step(gpu_bytes: float, gpu_bw: float, host_bytes: float, host_bw: float) -> dict:
    """One batch-1 decode step when `gpu_bytes` are read by the GPU from its memory and
    `host_bytes` by whatever runs the rest (the CPU from host memory, or the GPU over PCIe) at
    `host_bw`: the parts run in sequence, so the step is the sum of the two read times."""
    g = _pos(gpu_bytes, "gpu_bytes", zero_ok=True) / _pos(gpu_bw, "gpu_bw")
    h = _pos(host_bytes, "host_bytes", zero_ok=True) / _pos(host_bw, "host_bw")
    step = g + h
    if step == 0:
        raise EdgeComputeError("a step must read some bytes")
    return {"gpu_s": g, "host_s": h, "step_s": step, "tokens_per_s": 1 / step, "host_share": h / step}


def headline_tops(device_id: str) -> dict:
    """The vendor headline figures kept beside a device's prefill peak in edge_devices.json:
    `npu_tops_headline` (what the vendor advertises) and `gpu_sparse_int8_tops` (the GPU's share
    of it, where the headline also counts other engines), both in 10^12 ops/s."""
    from . import device
    for d in device._load()["devices"]:            # the registry keeps only the fields it models
        if d["id"] == device.get(device_id).id:
            return {"npu_tops_headline": d.get("npu_tops_headline"),
                    "gpu_sparse_int8_tops": d.get("gpu_sparse_int8_tops")}
    raise EdgeComputeError(f"no edge device {device_id!r}")
