"""Accelerator registry: peaks by precision (dense / sparse), memory, links, power.

``get(id)`` returns an :class:`Accelerator` from ``data/hardware.json``;
``load(path)`` reads a user's device file in the same schema (one device
object, or ``{"devices": [...]}``). All rates are per second in base units
(FLOP/s, bytes/s); TFLOPS and GB/s in the JSON are decimal (10^12, 10^9).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Optional

from .errors import CalcError

__all__ = ["Accelerator", "HardwareError", "UnknownHardware", "get", "all", "ids", "load",
           "from_dict", "PRECISION_ALIASES", "DATA_FILE"]

DATA_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "hardware.json")

# Vendors quote the same FP16 and BF16 tensor peak on every listed part, so an
# fp16 lookup falls back to the bf16 entry when no fp16 entry is given.
PRECISION_ALIASES = {"fp16": "bf16"}


class HardwareError(CalcError):
    """A user-facing problem with a device name, file or missing figure."""


class UnknownHardware(HardwareError):
    pass


def _num(x, what):
    if x is None:
        return None
    if isinstance(x, bool) or not isinstance(x, (int, float)) or x < 0:
        raise HardwareError(f"{what} must be a non-negative number, got {x!r}")
    return x


@dataclass(frozen=True)
class Accelerator:
    id: str
    name: str
    vendor: str = ""
    peaks: dict = field(default_factory=dict, compare=False, hash=False)   # {"bf16": {"dense": TFLOPS, "sparse": TFLOPS}}
    memory_gb: Optional[float] = None
    memory_gib: Optional[float] = None      # binary capacity when the vendor's "GB" is GiB
    memory_tb_s: Optional[float] = None
    memory_kind: str = "HBM"
    scaleup: Optional[dict] = field(default=None, compare=False, hash=False)
    tdp_w: Optional[float] = None
    notes: tuple = ()
    derived: dict = field(default_factory=dict, compare=False, hash=False)
    sources: dict = field(default_factory=dict, compare=False, hash=False)
    aliases: tuple = ()

    # -------------------------------------------------------------- compute
    def precisions(self) -> list:
        return sorted(self.peaks)

    def peak_tflops(self, precision: str = "bf16", sparse: bool = False) -> float:
        """Peak in TFLOPS (10^12 FLOP/s). Dense unless sparse=True; a sparse
        figure is never substituted for a dense one (or vice versa)."""
        p = precision.lower()
        key = p if p in self.peaks else PRECISION_ALIASES.get(p, p)
        entry = self.peaks.get(key)
        kind = "sparse" if sparse else "dense"
        if not entry or entry.get(kind) is None:
            have = ", ".join(f"{k}/{s}" for k, v in sorted(self.peaks.items()) for s in v if v[s] is not None) or "none"
            raise HardwareError(f"{self.id}: no {kind} {precision} peak recorded (available: {have})")
        return float(entry[kind])

    def peak_flops(self, precision: str = "bf16", sparse: bool = False) -> float:
        """Peak in FLOP/s."""
        return self.peak_tflops(precision, sparse) * 1e12

    def has_peak(self, precision: str, sparse: bool = False) -> bool:
        try:
            self.peak_tflops(precision, sparse)
            return True
        except HardwareError:
            return False

    # --------------------------------------------------------------- memory
    @property
    def hbm_bytes(self) -> int:
        """Device memory capacity in bytes: GiB x 2^30 when the capacity is binary
        (``memory_gib``), decimal GB x 10^9 otherwise."""
        if self.memory_gib is not None:
            return int(round(self.memory_gib * 2 ** 30))
        if self.memory_gb is None:
            raise HardwareError(f"{self.id}: memory capacity not published")
        return int(round(self.memory_gb * 10 ** 9))

    @property
    def hbm_bandwidth(self) -> float:
        """Memory bandwidth in bytes/s."""
        if self.memory_tb_s is None:
            raise HardwareError(f"{self.id}: memory bandwidth not published")
        return self.memory_tb_s * 1e12

    def ridge_point(self, precision: str = "bf16", sparse: bool = False) -> float:
        """Arithmetic intensity (FLOP/byte) where compute and memory time are equal."""
        return self.peak_flops(precision, sparse) / self.hbm_bandwidth

    # ---------------------------------------------------------------- links
    def _link(self, key):
        if not self.scaleup or self.scaleup.get(key) is None:
            raise HardwareError(f"{self.id}: no scale-up link bandwidth recorded")
        return self.scaleup[key] * 1e9

    @property
    def link_unidirectional(self) -> float:
        """Scale-up bandwidth per device, one direction, bytes/s (NVLink H100: 450e9)."""
        return self._link("unidirectional_gb_s")

    @property
    def link_bidirectional(self) -> float:
        """Scale-up bandwidth per device, both directions added, bytes/s (NVLink H100: 900e9)."""
        return self._link("bidirectional_gb_s")

    @property
    def link_name(self) -> str:
        return (self.scaleup or {}).get("name", "")

    def summary(self) -> dict:
        def pk(p, s=False):
            return self.peak_tflops(p, s) if self.has_peak(p, s) else None
        sc = self.scaleup or {}
        return {
            "id": self.id, "name": self.name, "vendor": self.vendor,
            "bf16_tflops": pk("bf16"), "bf16_sparse_tflops": pk("bf16", True),
            "fp8_tflops": pk("fp8"), "fp8_sparse_tflops": pk("fp8", True),
            "int8_tops": pk("int8"), "fp4_tflops": pk("fp4"),
            "memory_gb": self.memory_gb, "memory_gib": self.memory_gib, "memory_tb_s": self.memory_tb_s, "memory_kind": self.memory_kind,
            "scaleup": sc.get("name"), "link_uni_gb_s": sc.get("unidirectional_gb_s"),
            "link_bidi_gb_s": sc.get("bidirectional_gb_s"), "tdp_w": self.tdp_w,
            "ridge_bf16": round(self.ridge_point("bf16"), 1) if (pk("bf16") and self.memory_tb_s) else None,
        }


def from_dict(d: dict, where: str = "hardware config") -> Accelerator:
    """Build an Accelerator from one device object of the documented schema."""
    if not isinstance(d, dict):
        raise HardwareError(f"{where}: a device must be a JSON object")
    if not d.get("id"):
        raise HardwareError(f"{where}: device needs an 'id'")
    peaks = d.get("peak_tflops") or {}
    if not isinstance(peaks, dict):
        raise HardwareError(f"{where}: 'peak_tflops' must map precision -> {{'dense': TFLOPS, 'sparse': TFLOPS}}")
    clean = {}
    for prec, v in peaks.items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            v = {"dense": v}     # a bare number is a dense peak
        if not isinstance(v, dict) or set(v) - {"dense", "sparse"}:
            raise HardwareError(f"{where}: peak_tflops.{prec} must be a number or {{'dense': .., 'sparse': ..}}")
        clean[prec.lower()] = {k: _num(x, f"{where}: peak_tflops.{prec}.{k}") for k, x in v.items()}
    sc = d.get("scaleup")
    if sc is not None and not isinstance(sc, dict):
        raise HardwareError(f"{where}: 'scaleup' must be an object")
    if sc:
        for k in ("unidirectional_gb_s", "bidirectional_gb_s"):
            _num(sc.get(k), f"{where}: scaleup.{k}")
    gib = _num(d.get("memory_gib"), f"{where}: memory_gib")
    gb = _num(d.get("memory_gb"), f"{where}: memory_gb")
    if gib is not None and gb is not None and abs(gb * 1e9 - gib * 2 ** 30) > 0.01 * gib * 2 ** 30:
        raise HardwareError(f"{where}: memory_gb {gb} and memory_gib {gib} disagree "
                            f"({gib} GiB = {gib * 2 ** 30 / 1e9:.2f} GB); give one of them")
    if gib is not None and gb is None:
        gb = gib * 2 ** 30 / 1e9            # the decimal figure, for tables that list GB
    return Accelerator(
        id=str(d["id"]), name=d.get("name", d["id"]), vendor=d.get("vendor", ""), peaks=clean,
        memory_gb=gb, memory_gib=gib,
        memory_tb_s=_num(d.get("memory_tb_s"), f"{where}: memory_tb_s"),
        memory_kind=d.get("memory_kind", "HBM"), scaleup=sc, tdp_w=_num(d.get("tdp_w"), f"{where}: tdp_w"),
        notes=tuple(d.get("notes") or ()), derived=d.get("derived") or {}, sources=d.get("sources") or {},
        aliases=tuple(d.get("aliases") or ()),
    )


_DEVICES = None


def _all_raw() -> list:
    global _DEVICES
    if _DEVICES is None:
        with open(DATA_FILE, encoding="utf-8") as f:
            _DEVICES = [from_dict(d, DATA_FILE) for d in json.load(f)["devices"]]
    return _DEVICES


def ids() -> list:
    return [d.id for d in _all_raw()]


def all() -> list:  # noqa: A001 - documented API name
    return list(_all_raw())


def get(name) -> Accelerator:
    """A registered device by id, alias or full name (case-insensitive).
    An Accelerator passed in is returned unchanged."""
    if isinstance(name, Accelerator):
        return name
    key = str(name).strip().lower()
    for d in _all_raw():
        if key == d.id or key in d.aliases or key == d.name.lower():
            return d
    import difflib
    names = ids() + [a for d in _all_raw() for a in d.aliases]
    close = difflib.get_close_matches(key, names, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise UnknownHardware(f"unknown hardware {name!r}{hint} (known: {', '.join(ids())}; or pass --hardware-config PATH)")


def load(path: str) -> Accelerator:
    """Read a user's device JSON: one device object, or {"devices": [one device]}."""
    try:
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
    except FileNotFoundError:
        raise HardwareError(f"hardware config not found: {path}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise HardwareError(f"{path}: not valid JSON ({e})") from None
    if isinstance(d, dict) and "devices" in d:
        devs = d["devices"]
        if not isinstance(devs, list) or len(devs) != 1:
            raise HardwareError(f"{path}: 'devices' must hold exactly one device for --hardware-config")
        d = devs[0]
    return from_dict(d, path)
