"""Translation number check: extract, normalise and compare the numbers of two editions.

:func:`check_pair` reads an original chapter (``zh-Hans``) and its translation (``en`` or
``zh-Hant``), splits both into sections and aligns them by their headings (``{#sec-…}`` IDs, or,
in books without IDs, a sequence alignment of heading levels, typed heading numbers and the
numbers inside), aligns the paragraphs (list items, table rows, captions) of each pair of
sections, extracts every number a reader sees (prose, tables, captions, footnotes, math) in a
language-neutral form (an exact value plus a unit), compares them inside aligned paragraphs
only, and reports the differences as :class:`Difference` objects ranked by severity (a paragraph
on one side only is one finding). What is not data is set aside first:
typed labels (图 7-2, Section 7.4) are compared only with labels, a caption written twice is
read once, counting words (两, "both", "half") are matched but never reported alone, a rounded
number is a ``precision`` finding. The same run checks structural parity (sections, figures,
tables, equations, footnotes, bound-number references) and, for English, leftover Han
characters. The rules are written out in CONTRIBUTING.md ("How the number check reads
numbers"); ``tests/fixtures/translation/corpus/`` and ``…/workbench/`` measure them on
real-style chapters.

The check is split by stage: :mod:`bookkit.check.extract` (numbers in a line of text),
:mod:`bookkit.check.chapter` (Markdown -> sections and paragraphs), :mod:`bookkit.check.align`
(sections, then paragraphs), :mod:`bookkit.check.compare` (findings) and
:mod:`bookkit.check.pair_report` (text, GitHub annotations; :mod:`bookkit.check.pair_html`
the side-by-side page), run together by :mod:`bookkit.check.translation`. This module is the
one import for callers of the comparison.
"""

from __future__ import annotations

from bookkit.check.align import align_blocks, align_sections  # noqa: F401
from bookkit.check.chapter import Block, Document, Section, extract_numbers, parse_document  # noqa: F401
from bookkit.check.compare import (KINDS, SEVERITIES, Difference, PairResult, check_documents,
                                    check_pair, compare_pair)
from bookkit.check.extract import (SOFT_UNITS, TRANSLATION_LANGS, UNITS, Num, normalize_lang,
                                    parse_zh_numeral, value_text)
from bookkit.check.pair_report import format_summary, format_text, rank  # noqa: F401
