"""Per-language conventions: one record per language (:mod:`bookkit.locale.languages`) and the
number formatting that reads it (:mod:`bookkit.locale.numbers`)."""

from bookkit.locale.languages import LANGUAGES, Language, lookup
from bookkit.locale.numbers import FormatSpec, format_value, parse_spec

__all__ = ["LANGUAGES", "Language", "lookup", "FormatSpec", "format_value", "parse_spec"]
