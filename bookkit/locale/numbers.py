"""Formatting computed numbers in each edition's conventions.

A bound number ``{{ name | spec }}`` is rendered by :func:`format_value` with the
:class:`FormatSpec` that :func:`parse_spec` reads from the text after the ``|``.

The spec mini-language (one kind, then ``key=value`` options, in any order)::

    (empty)                 default: ``int`` for integers, ``num sig=3`` for floats
    int                     rounded integer with thousands separators: 70,553,706,496
    num digits=N            N fixed decimals                         1,234.50
    num sig=N               N significant digits (``num`` alone: sig=3)
    count sig=N             magnitude words: 705.54 亿 / 70.554 billion / 705.54 億
    count digits=N          same, N fixed decimals on the mantissa
    si unit=U digits=N      value in base units, scaled by U's prefix: 141.11 GB
    si unit=U sig=N         (``si unit=U`` alone: sig=3)
    pct digits=N            a fraction as a percentage: 0.125 -> 12.5% (default digits=1)
    pct sig=N
    sci sig=N               1.24×10⁹ (default sig=3)

Rules shared by every kind:

* Rounding is *half away from zero* (``decimal.ROUND_HALF_UP``), never Python's banker's
  rounding. A float is first converted through its shortest ``repr`` (so ``2.675`` rounds to
  ``2.68``, as a reader expects, not to the binary neighbour ``2.67``).
* Significant digits keep the trailing zeros they imply: ``2.0`` with ``sig=3`` is ``2.00``;
  ``999999`` with ``count sig=3`` in English is ``1.00 million`` (the carry moves up a magnitude).
* The integer part of every plain number gets ``,`` thousands separators, in all three editions
  (``{,}`` in LaTeX). The minus sign is ASCII ``-``. A value that rounds to zero prints without
  a sign.
* NaN and infinities raise ``ValueError``; ``bool`` raises ``TypeError``.
* Between a number and a magnitude word or unit there is one space (``705.54 亿``,
  ``141.11 GB``); in LaTeX a thin space ``\\,`` (``705.54\\,\\text{亿}``,
  ``141.11\\,\\mathrm{GB}``). Percent has no space (``12.5%``, LaTeX ``12.5\\%``).
* ``count`` below the smallest magnitude (10^4 in Chinese, 10^3 in English) prints the plain
  number: an integral value as an integer (rounded to ``sig`` digits if it has more, never
  padded with ``.0``), anything else with ``sig`` significant digits.
* ``si``: the prefix is read from the unit: SI ``k M G T P E`` and ``m μ`` (also ``µ``/``u``)
  ``n``; IEC ``Ki Mi Gi Ti Pi Ei``. The unit is printed verbatim and is identical in every
  edition. Only the part before a ``/`` is scaled (``TB/s``: value in B/s, divided by 10^12).
  A unit without a known prefix (``B``, ``FLOPS``, ``tokens/s``) means no scaling.
"""

from __future__ import annotations

import math
import numbers as _numbers
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, localcontext

from bookkit.locale.languages import lookup

KINDS = ("default", "int", "num", "count", "si", "pct", "sci")

#: SI and IEC prefixes -> scale factor (exact).
_PREFIXES: dict[str, Decimal] = {
    "Ki": Decimal(2) ** 10, "Mi": Decimal(2) ** 20, "Gi": Decimal(2) ** 30,
    "Ti": Decimal(2) ** 40, "Pi": Decimal(2) ** 50, "Ei": Decimal(2) ** 60,
    "k": Decimal(10) ** 3, "K": Decimal(10) ** 3, "M": Decimal(10) ** 6, "G": Decimal(10) ** 9,
    "T": Decimal(10) ** 12, "P": Decimal(10) ** 15, "E": Decimal(10) ** 18,
    "m": Decimal(10) ** -3, "μ": Decimal(10) ** -6, "µ": Decimal(10) ** -6,
    "u": Decimal(10) ** -6, "n": Decimal(10) ** -9,
}

#: Units that may carry a prefix. A unit equal to one of these is unscaled.
BASE_UNITS = frozenset({
    "B", "bit", "bps", "s", "W", "Wh", "J", "Hz", "V", "A",
    "FLOPS", "FLOP", "OPS", "OP", "IOPS", "token", "tokens", "param", "params",
})

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


@dataclass(frozen=True)
class FormatSpec:
    """A parsed format spec. ``kind`` is one of :data:`KINDS`; unused fields are ``None``."""

    kind: str
    digits: int | None = None
    sig: int | None = None
    unit: str | None = None


def parse_spec(text: str) -> FormatSpec:
    """Parse the text after ``|`` in ``{{ name | spec }}``.

    >>> parse_spec("count sig=5")
    FormatSpec(kind='count', digits=None, sig=5, unit=None)
    >>> parse_spec("")
    FormatSpec(kind='default', digits=None, sig=None, unit=None)

    Raises ``ValueError`` naming the offending part on an unknown kind or option, a repeated
    option, a bad number, ``digits`` together with ``sig``, or a missing/unknown ``unit``.
    """
    if not isinstance(text, str):
        raise TypeError(f"format spec must be a string, not {type(text).__name__}")
    parts = text.split()
    if not parts:
        return FormatSpec("default")
    kind, options = parts[0], parts[1:]
    if kind not in KINDS or kind == "default":
        allowed = ", ".join(k for k in KINDS if k != "default")
        raise ValueError(f"unknown number format {kind!r} in {text!r} (expected one of {allowed})")
    seen: dict[str, str] = {}
    for opt in options:
        key, eq, val = opt.partition("=")
        if not eq or not val:
            raise ValueError(f"bad option {opt!r} in format {text!r} (expected key=value)")
        if key not in ("digits", "sig", "unit"):
            raise ValueError(f"unknown option {key!r} in format {text!r} (expected digits, sig or unit)")
        if key in seen:
            raise ValueError(f"option {key!r} given twice in format {text!r}")
        seen[key] = val
    digits = _int_option(seen, "digits", text, minimum=0)
    sig = _int_option(seen, "sig", text, minimum=1)
    unit = seen.get("unit")
    if digits is not None and sig is not None:
        raise ValueError(f"format {text!r} gives both digits and sig; choose one")
    if kind == "int" and (digits is not None or sig is not None):
        raise ValueError(f"format {text!r}: 'int' takes no digits or sig (use 'num')")
    if kind == "sci" and digits is not None:
        raise ValueError(f"format {text!r}: 'sci' takes sig=N, not digits")
    if kind == "si":
        if unit is None:
            raise ValueError(f"format {text!r}: 'si' needs unit=U (for example unit=GB)")
        unit_scale(unit)  # validates
    elif unit is not None:
        raise ValueError(f"format {text!r}: only 'si' takes a unit")
    if kind in ("num", "count", "si", "sci") and digits is None and sig is None:
        sig = 3
    if kind == "pct" and digits is None and sig is None:
        digits = 1
    return FormatSpec(kind, digits, sig, unit)


def _int_option(options: dict[str, str], key: str, text: str, *, minimum: int) -> int | None:
    if key not in options:
        return None
    raw = options[key]
    if not raw.isdigit() or not raw.isascii():
        raise ValueError(f"option {key}={raw!r} in format {text!r} is not a whole number")
    value = int(raw)
    if value < minimum or value > 30:
        raise ValueError(f"option {key}={value} in format {text!r} is out of range ({minimum}..30)")
    return value


def unit_scale(unit: str) -> tuple[Decimal, str, str]:
    """Split ``unit`` into (scale factor, prefix, rest).

    Only the numerator (before the first ``/``) may carry a prefix. ``GB`` -> (10^9, "G", "B"),
    ``GiB/s`` -> (2^30, "Gi", "B/s"), ``tokens/s`` -> (1, "", "tokens/s"). Raises ``ValueError``
    for a numerator that is neither a base unit nor a prefix plus a base unit.
    """
    if not unit or any(c.isspace() for c in unit):
        raise ValueError(f"bad unit {unit!r}")
    num, slash, den = unit.partition("/")
    tail = slash + den
    if num in BASE_UNITS:
        return Decimal(1), "", unit
    for length in (2, 1):
        prefix, base = num[:length], num[length:]
        if prefix in _PREFIXES and base in BASE_UNITS:
            return _PREFIXES[prefix], prefix, base + tail
    known = ", ".join(sorted(BASE_UNITS))
    raise ValueError(
        f"unknown unit {unit!r}: expected an SI/IEC prefix (k M G T P E m μ n Ki Mi Gi Ti Pi Ei) "
        f"followed by one of {known}"
    )


def _to_decimal(value: object) -> Decimal:
    if isinstance(value, bool):
        raise TypeError("a bool is not a number to format")
    if isinstance(value, Decimal):
        d = value
    elif isinstance(value, _numbers.Integral):
        d = Decimal(int(value))
    elif isinstance(value, _numbers.Real):
        f = float(value)
        if math.isnan(f) or math.isinf(f):
            raise ValueError(f"cannot format {f!r}")
        d = Decimal(repr(f))
    else:
        raise TypeError(f"cannot format a {type(value).__name__}")
    if not d.is_finite():
        raise ValueError(f"cannot format {value!r}")
    return d


def _round_digits(d: Decimal, digits: int) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = max(60, d.adjusted() + digits + 5)
        return d.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)


def _round_sig(d: Decimal, sig: int) -> Decimal:
    """Round to ``sig`` significant digits, keeping the zeros they imply (2 -> 2.00 for sig=3)."""
    if d.is_zero():
        return _round_digits(Decimal(0), max(sig - 1, 0))
    exp = d.adjusted()
    with localcontext() as ctx:
        ctx.prec = max(60, abs(exp) + sig + 5)
        r = d.quantize(Decimal(1).scaleb(exp - sig + 1), rounding=ROUND_HALF_UP)
        if r.adjusted() > exp:  # carry: 9.995 -> 10.00 -> 10.0
            r = r.quantize(Decimal(1).scaleb(exp - sig + 2), rounding=ROUND_HALF_UP)
    return r


def _round(d: Decimal, spec: FormatSpec) -> Decimal:
    if spec.digits is not None:
        return _round_digits(d, spec.digits)
    return _round_sig(d, spec.sig if spec.sig is not None else 3)


def _plain(d: Decimal, latex: bool) -> str:
    """A rounded Decimal as text with thousands separators, no exponent."""
    if d.is_zero():
        d = abs(d)
    text = format(d, ",f")
    if latex:
        text = text.replace(",", "{,}")
    return text


def _format_count(d: Decimal, spec: FormatSpec, lang: str, latex: bool) -> str:
    mags = lookup(lang).magnitudes
    smallest = mags[-1][0]
    # Choose the largest magnitude <= |value|, then fix a rounding carry by moving up.
    index = next((i for i, (p, _) in enumerate(mags) if abs(d) >= Decimal(10) ** p), None)
    while True:
        if index is None:
            if spec.digits is None and d == d.to_integral_value():
                sig = spec.sig if spec.sig is not None else 3
                r = _round_sig(d, sig) if len(str(abs(int(d)))) > sig else d
                r = r.quantize(Decimal(1), rounding=ROUND_HALF_UP)
            else:
                r = _round(d, spec)
            if abs(r) >= Decimal(10) ** smallest:
                index = len(mags) - 1
                continue
            return _plain(r, latex)
        power, word = mags[index]
        mantissa = _round(d.scaleb(-power), spec)
        if index > 0 and abs(mantissa) >= Decimal(10) ** (mags[index - 1][0] - power):
            index -= 1
            continue
        number = _plain(mantissa, latex)
        return f"{number}\\,\\text{{{word}}}" if latex else f"{number} {word}"


def _format_si(d: Decimal, spec: FormatSpec, latex: bool) -> str:
    assert spec.unit is not None
    scale, prefix, rest = unit_scale(spec.unit)
    with localcontext() as ctx:
        ctx.prec = 80
        scaled = d / scale
    number = _plain(_round(scaled, spec), latex)
    if not latex:
        return f"{number} {spec.unit}"
    if prefix in ("μ", "µ", "u"):
        return f"{number}\\,\\mu\\mathrm{{{rest}}}"
    return f"{number}\\,\\mathrm{{{prefix}{rest}}}"


def _format_sci(d: Decimal, spec: FormatSpec, latex: bool) -> str:
    sig = spec.sig if spec.sig is not None else 3
    if d.is_zero():
        mantissa, exp = _round_sig(Decimal(0), sig), 0
    else:
        r = _round_sig(d, sig)
        exp = r.adjusted()
        mantissa = r.scaleb(-exp)
    number = _plain(mantissa, latex)
    if latex:
        return f"{number} \\times 10^{{{exp}}}"
    return f"{number}×10{str(exp).translate(_SUPERSCRIPT)}"


def format_value(value: float | int, spec: FormatSpec, lang: str, *, latex: bool = False) -> str:
    """Format ``value`` per ``spec`` in the conventions of language ``lang`` (a BCP 47 tag with a
    record in :mod:`bookkit.locale.languages`: ``zh-Hans``, ``en``, ``zh-Hant``, ``ja``…).

    ``latex=True`` gives the form used when the bound number sits inside ``$…$`` math:
    ``70{,}553{,}706{,}496``, ``1.24 \\times 10^{9}``, ``12.5\\%``, ``141.11\\,\\mathrm{GB}``,
    ``705.54\\,\\text{亿}``.

    >>> format_value(70553706496, parse_spec("count sig=5"), "zh-Hans")
    '705.54 亿'
    >>> format_value(70553706496, parse_spec("count sig=5"), "en")
    '70.554 billion'
    """
    lang = lookup(lang).tag     # a ValueError for a language without a record
    d = _to_decimal(value)
    kind = spec.kind
    if kind == "default":
        if isinstance(value, _numbers.Integral) or (isinstance(value, Decimal) and d == d.to_integral_value()):
            kind, spec = "int", FormatSpec("int")
        else:
            kind, spec = "num", FormatSpec("num", sig=3)
    if kind == "int":
        return _plain(_round_digits(d, 0), latex)
    if kind == "num":
        return _plain(_round(d, spec), latex)
    if kind == "count":
        return _format_count(d, spec, lang, latex)
    if kind == "si":
        return _format_si(d, spec, latex)
    if kind == "pct":
        text = _plain(_round(d.scaleb(2), spec), latex)
        return text + ("\\%" if latex else "%")
    if kind == "sci":
        return _format_sci(d, spec, latex)
    raise ValueError(f"unknown number format kind {spec.kind!r}")
