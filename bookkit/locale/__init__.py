"""Per-edition conventions: number formatting (see :mod:`bookkit.locale.numbers`)."""

from bookkit.locale.numbers import LANGS, FormatSpec, format_value, parse_spec

__all__ = ["LANGS", "FormatSpec", "format_value", "parse_spec"]
