"""Tests for bookkit.locale.numbers: the spec mini-language and per-edition formatting."""

import math
import sys
from decimal import Decimal
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bookkit.locale.numbers import FormatSpec, format_value, parse_spec, unit_scale  # noqa: E402

P = 70_553_706_496
LANGS = ("zh-Hans", "en", "zh-Hant")   # the columns of the expected values below


def fmt(value, spec, lang="en", **kw):
    return format_value(value, parse_spec(spec), lang, **kw)


# --- parse_spec ---------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("", FormatSpec("default")),
    ("   ", FormatSpec("default")),
    ("int", FormatSpec("int")),
    ("count sig=5", FormatSpec("count", None, 5, None)),
    ("si unit=GB digits=2", FormatSpec("si", 2, None, "GB")),
    ("si digits=2 unit=GB", FormatSpec("si", 2, None, "GB")),
    ("pct digits=1", FormatSpec("pct", 1, None, None)),
    ("pct", FormatSpec("pct", 1, None, None)),
    ("num sig=3", FormatSpec("num", None, 3, None)),
    ("num", FormatSpec("num", None, 3, None)),
    ("num digits=0", FormatSpec("num", 0, None, None)),
    ("sci sig=3", FormatSpec("sci", None, 3, None)),
    ("si unit=TB/s", FormatSpec("si", None, 3, "TB/s")),
])
def test_parse_spec_ok(text, expected):
    assert parse_spec(text) == expected


@pytest.mark.parametrize("text, needle", [
    ("float", "unknown number format 'float'"),
    ("default", "unknown number format"),
    ("count sigma=3", "unknown option 'sigma'"),
    ("count sig", "bad option 'sig'"),
    ("count sig=", "bad option"),
    ("count sig=x", "not a whole number"),
    ("count sig=0", "out of range"),
    ("count sig=-1", "not a whole number"),
    ("num digits=2 sig=3", "both digits and sig"),
    ("num sig=2 sig=3", "given twice"),
    ("int digits=2", "'int' takes no digits"),
    ("si digits=2", "needs unit"),
    ("si unit=furlongs", "unknown unit 'furlongs'"),
    ("num unit=GB", "only 'si' takes a unit"),
    ("sci digits=2", "'sci' takes sig"),
])
def test_parse_spec_errors(text, needle):
    with pytest.raises(ValueError) as err:
        parse_spec(text)
    assert needle in str(err.value)


def test_spec_is_frozen():
    spec = parse_spec("int")
    with pytest.raises(Exception):
        spec.kind = "num"  # type: ignore[misc]


# --- the CONTRIBUTING.md table ------------------------------------------------------------

@pytest.mark.parametrize("spec, value, zh, en, tw", [
    ("count sig=5", P, "705.54 亿", "70.554 billion", "705.54 億"),
    ("int", P, "70,553,706,496", "70,553,706,496", "70,553,706,496"),
    ("si unit=GB digits=2", 141.11e9, "141.11 GB", "141.11 GB", "141.11 GB"),
    ("pct digits=1", 0.125, "12.5%", "12.5%", "12.5%"),
    ("sci sig=3", 1.24e9, "1.24×10⁹", "1.24×10⁹", "1.24×10⁹"),
])
def test_contributing_table(spec, value, zh, en, tw):
    assert [fmt(value, spec, lang) for lang in LANGS] == [zh, en, tw]


# --- count: magnitude words ---------------------------------------------------------------

@pytest.mark.parametrize("value, spec, lang, expected", [
    (12_345, "count sig=3", "zh-Hans", "1.23 万"),
    (12_345, "count sig=3", "zh-Hant", "1.23 萬"),
    (12_345, "count sig=3", "en", "12.3 thousand"),
    (60_000_000, "count sig=1", "zh-Hans", "6,000 万"),
    (60_000_000, "count sig=2", "en", "60 million"),
    (1.5e12, "count sig=2", "zh-Hans", "1.5 万亿"),
    (1.5e12, "count sig=2", "zh-Hant", "1.5 兆"),
    (1.5e12, "count sig=2", "en", "1.5 trillion"),
    (3e8, "count sig=1", "zh-Hant", "3 億"),
    (3e8, "count sig=1", "en", "300 million"),
    (7e10, "count sig=2", "zh-Hans", "700 亿"),
    (7e10, "count sig=2", "en", "70 billion"),
    (1e17, "count sig=3", "zh-Hans", "100,000 万亿"),
    (2.5e15, "count sig=2", "en", "2,500 trillion"),
    (P, "count digits=1", "en", "70.6 billion"),
    (P, "count digits=1", "zh-Hans", "705.5 亿"),
    (-P, "count sig=5", "en", "-70.554 billion"),
])
def test_count_magnitudes(value, spec, lang, expected):
    assert fmt(value, spec, lang) == expected


@pytest.mark.parametrize("value, lang, expected", [
    (999_999, "en", "1.00 million"),          # carry moves up, never "1000 thousand"
    (999_999, "zh-Hans", "100 万"),            # 99.9999 万 -> 100 万 (still below 1 亿)
    (999_950_000, "en", "1.00 billion"),
    (99_995_000, "zh-Hans", "1.00 亿"),       # 9999.5 万 -> 1.00 亿, not "10,000 万"
    (99_995_000, "zh-Hant", "1.00 億"),
    (999_950_000_000, "zh-Hans", "1.00 万亿"),
    (999_950_000_000, "zh-Hant", "1.00 兆"),
    (9_999.7, "zh-Hans", "1.00 万"),          # below 万, but rounds up into it
    (999.7, "en", "1.00 thousand"),
])
def test_count_rounding_carry(value, lang, expected):
    assert fmt(value, "count sig=3", lang) == expected


@pytest.mark.parametrize("value, spec, lang, expected", [
    (128, "count sig=3", "en", "128"),
    (128, "count sig=3", "zh-Hans", "128"),
    (12, "count sig=3", "en", "12"),            # integral counts are never padded with .0
    (9_876, "count sig=2", "zh-Hans", "9,900"),
    (0, "count sig=3", "en", "0"),
    (2.5, "count sig=3", "en", "2.50"),
])
def test_count_below_smallest_magnitude(value, spec, lang, expected):
    assert fmt(value, spec, lang) == expected


# --- int / num / default ------------------------------------------------------------------

@pytest.mark.parametrize("value, spec, expected", [
    (P, "int", "70,553,706,496"),
    (2.5, "int", "3"),               # half away from zero, not banker's (round(2.5) == 2)
    (-2.5, "int", "-3"),
    (0.5, "int", "1"),
    (999.5, "int", "1,000"),
    (0, "int", "0"),
    (1234567.891, "num digits=2", "1,234,567.89"),
    (2.675, "num digits=2", "2.68"),  # shortest repr, then half up
    (0.125, "num digits=2", "0.13"),
    (2.0, "num sig=3", "2.00"),       # sig keeps the zeros it implies
    (9.995, "num sig=3", "10.0"),     # carry keeps 3 significant digits
    (0.000123456, "num sig=3", "0.000123"),
    (123456, "num sig=3", "123,000"),
    (-0.0001, "num digits=2", "0.00"),  # no negative zero
    (0, "num sig=3", "0.00"),
    (Decimal("1.005"), "num digits=2", "1.01"),
    (3.14159, "", "3.14"),
    (1.0, "", "1.00"),
    (42, "", "42"),
    (1_000_000, "", "1,000,000"),
    (10**30, "int", "1,000,000,000,000,000,000,000,000,000,000"),
])
def test_int_num_default(value, spec, expected):
    for lang in LANGS:
        assert fmt(value, spec, lang) == expected


def test_numpy_like_integral_uses_int_default():
    class MyInt(int):
        pass
    assert fmt(MyInt(1234), "") == "1,234"


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, Decimal("NaN")])
def test_nan_and_inf_raise(bad):
    with pytest.raises(ValueError):
        fmt(bad, "num sig=3")


def test_bool_and_strings_rejected():
    with pytest.raises(TypeError):
        fmt(True, "int")
    with pytest.raises(TypeError):
        fmt("12", "int")  # type: ignore[arg-type]


def test_unknown_lang():
    with pytest.raises(ValueError, match="unknown language"):
        fmt(1, "int", "fr")
    assert fmt(12345, "count sig=3", "zh-tw") == "1.23 萬"  # alias


# --- si -----------------------------------------------------------------------------------

@pytest.mark.parametrize("value, spec, expected", [
    (141.11e9, "si unit=GB digits=2", "141.11 GB"),
    (80 * 2**30, "si unit=GiB digits=0", "80 GiB"),
    (3.35e12, "si unit=TB/s digits=2", "3.35 TB/s"),
    (900e9, "si unit=GB/s digits=0", "900 GB/s"),
    (400e9, "si unit=Gbit/s digits=0", "400 Gbit/s"),
    (989.5e12, "si unit=TFLOPS sig=4", "989.5 TFLOPS"),
    (1.979e15, "si unit=PFLOPS digits=2", "1.98 PFLOPS"),
    (989e12, "si unit=TFLOP/s digits=0", "989 TFLOP/s"),
    (0.0125, "si unit=ms digits=1", "12.5 ms"),
    (3.2e-6, "si unit=μs digits=1", "3.2 μs"),
    (3.2e-6, "si unit=us digits=1", "3.2 us"),
    (700, "si unit=W digits=0", "700 W"),
    (10_200, "si unit=kW digits=1", "10.2 kW"),
    (1024, "si unit=B digits=0", "1,024 B"),
    (5e9, "si unit=FLOPS sig=2", "5,000,000,000 FLOPS"),
    (2048, "si unit=KiB digits=0", "2 KiB"),
    (1500, "si unit=tokens/s digits=0", "1,500 tokens/s"),
    (5e-9, "si unit=ns digits=0", "5 ns"),
])
def test_si(value, spec, expected):
    assert [fmt(value, spec, lang) for lang in LANGS] == [expected] * 3


def test_unit_scale():
    assert unit_scale("GiB/s") == (Decimal(2) ** 30, "Gi", "B/s")
    assert unit_scale("tokens/s")[0] == 1
    assert unit_scale("ms")[0] == Decimal("0.001")
    with pytest.raises(ValueError):
        unit_scale("Xs")


# --- pct / sci ----------------------------------------------------------------------------

@pytest.mark.parametrize("value, spec, expected", [
    (0.125, "pct digits=1", "12.5%"),
    (0.125, "pct digits=0", "13%"),
    (0.5, "pct", "50.0%"),
    (1.5, "pct digits=0", "150%"),
    (-0.031, "pct digits=1", "-3.1%"),
    (0.000123, "pct sig=2", "0.012%"),
])
def test_pct(value, spec, expected):
    assert fmt(value, spec, "zh-Hans") == expected


@pytest.mark.parametrize("value, spec, expected", [
    (1.24e9, "sci sig=3", "1.24×10⁹"),
    (1.2e9, "sci sig=2", "1.2×10⁹"),
    (0.00123, "sci sig=3", "1.23×10⁻³"),
    (9.999e9, "sci sig=3", "1.00×10¹⁰"),      # carry into the exponent
    (-4.5e-12, "sci sig=2", "-4.5×10⁻¹²"),
    (6.02214076e23, "sci sig=4", "6.022×10²³"),
    (5, "sci sig=1", "5×10⁰"),
])
def test_sci(value, spec, expected):
    assert fmt(value, spec, "en") == expected


# --- latex --------------------------------------------------------------------------------

@pytest.mark.parametrize("value, spec, lang, expected", [
    (P, "int", "en", "70{,}553{,}706{,}496"),
    (1.24e9, "sci sig=3", "en", "1.24 \\times 10^{9}"),
    (0.00123, "sci sig=3", "en", "1.23 \\times 10^{-3}"),
    (0.125, "pct digits=1", "zh-Hant", "12.5\\%"),
    (141.11e9, "si unit=GB digits=2", "en", "141.11\\,\\mathrm{GB}"),
    (3.35e12, "si unit=TB/s digits=2", "en", "3.35\\,\\mathrm{TB/s}"),
    (3.2e-6, "si unit=μs digits=1", "en", "3.2\\,\\mu\\mathrm{s}"),
    (P, "count sig=5", "zh-Hans", "705.54\\,\\text{亿}"),
    (P, "count sig=5", "zh-Hant", "705.54\\,\\text{億}"),
    (P, "count sig=5", "en", "70.554\\,\\text{billion}"),
    (1234567.891, "num digits=1", "en", "1{,}234{,}567.9"),
])
def test_latex(value, spec, lang, expected):
    assert fmt(value, spec, lang, latex=True) == expected
