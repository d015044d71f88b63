"""Comparison of an original chapter with its translation: :func:`check_pair` and the
:class:`Difference` objects it returns.

Why one module of this size: pairing numbers inside aligned paragraphs, the structural
parity checks and the severity ranking share one model of a difference and are tuned together
against the seeded-fault corpus (precision and recall in tests/translation).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from fractions import Fraction

from bookkit.check.align import (_heading_name, _merged, _without_heading, align_blocks,
                                  align_sections)
from bookkit.check.chapter import Block, Document, Section, parse_document
from bookkit.check.extract import (READERS, SOFT_UNITS, TRANSLATION_LANGS, Num, normalize_lang,
                                    value_text)

KINDS = ("missing", "extra", "changed", "precision", "paragraph", "label", "structure", "leftover")
SEVERITIES = ("high", "medium", "low")


@dataclass(frozen=True)
class Difference:
    """One difference between an original and its translation (the number check's own record;
    a check run reports it as a `bookkit.model.Finding` at the translation's line, see
    `bookkit.check.report.pair_finding`).

    ``kind``: ``missing`` / ``extra`` / ``changed`` (numbers and bound references),
    ``precision`` (the same number rounded), ``paragraph`` (a paragraph on one side only),
    ``structure`` (sections, figures, tables, equations, footnotes), ``leftover`` (Han
    characters in English prose). ``value`` is the exact value as text (``"70554000000"``,
    ``"1/3"``), a ``{{ name }}`` reference, or the structural label concerned. Lines are 1-based;
    ``None`` when not applicable.
    """

    kind: str
    value: str | None
    unit: str | None
    original_line: int | None
    translation_line: int | None
    message: str
    #: ``high`` (a value a reader would act on is wrong or gone), ``medium`` (a plain count,
    #: a structural or wording difference), ``low`` (only the precision differs)
    severity: str = "medium"
    #: the original's heading of the section concerned (its title text), for the summary
    section: str | None = None

    def to_dict(self) -> dict:
        """The fields as a JSON-ready dict."""
        return asdict(self)



# --------------------------------------------------------------------------------------------
# Comparison

def _describe(n: Num) -> str:
    shown = value_text(n.value) + (f" {n.unit}" if n.unit and n.unit != "%" else n.unit or "")
    return f"{n.text!r} (= {shown})" if n.text else shown


def _pair_score(a: Num, b: Num, pa: float, pb: float) -> tuple:
    # the same value with another unit is a unit change where it stands (141.11 GB -> GiB);
    # far away it is a coincidence, and a number of the same unit is the better partner
    if a.value == b.value and (a.key[1] == b.key[1] or abs(pa - pb) <= 0.1):
        cls = 0
    elif a.key[1] == b.key[1]:
        cls = 1
    else:
        cls = 2
    try:
        ratio = abs(math.log10(abs(float(a.value)) + 1e-300) - math.log10(abs(float(b.value)) + 1e-300))
    except (ValueError, OverflowError):
        ratio = 99.0
    # positions are compared coarsely (a tenth of the section): a translation that drops or
    # adds a number shifts the others a little, and then the closer value decides
    return (cls, round(abs(pa - pb) * 10), ratio, round(abs(pa - pb), 6))


def _decimals(n: Num) -> int | None:
    """Decimal places as written (``2,795.66`` -> 2); ``None`` for words and exponents."""
    m = re.match(r"\s*[~约約≈]?\s*(\d[\d,]*)(?:\.(\d+))?", n.text)
    if not m or re.search(r"[eE×x^⁰¹²³⁴⁵⁶⁷⁸⁹]", n.text):
        return None
    return len(m.group(2) or "")


def _same_at_precision(a: Num, b: Num) -> bool:
    """True when one number is the other rounded: 约 2,796 and about 2,795.66; 705.54 亿 and
    70.55 billion. The coarser one (the larger last written place, magnitude included) lies
    within half of that place of the finer one."""
    if a.key[1] != b.key[1] and a.unit is not None and b.unit is not None:
        return False
    da, db = _decimals(a), _decimals(b)
    if da is None or db is None or a.value == 0:
        return False
    step_a = Fraction(1, 10**da) * (a.mag or 1)
    step_b = Fraction(1, 10**db) * (b.mag or 1)
    if step_a == step_b:
        return False
    coarse, step = (a, step_a) if step_a > step_b else (b, step_b)
    fine = b if coarse is a else a
    diff = abs(coarse.value - fine.value)
    return diff * 2 <= step and diff * 20 < abs(coarse.value)


def _rel_line(n: Num, sec: Section) -> float:
    """Where in its section a number's line is (0 at the heading, 1 at the end): translations
    keep paragraphs in order, so this says which numbers can be the same one."""
    return (n.line - sec.line) / max(len(sec.lines), 1)


def _count_word(n: Num) -> bool:
    """A count without unit, other than one: 两, "three", 7, "twenty" (digits only below 20:
    "90 days" paraphrased as "three months" is a number gone, not a count changed)."""
    if n.unit is not None or n.mag is not None or n.value.denominator != 1 or not 1 < n.value < 100:
        return False
    return n.soft or n.value < 20 or not n.text[:1].isdigit()


def _number_severity(n: Num) -> str:
    """A value a reader would act on (with a unit, a magnitude, a fraction, 100 or more) is high;
    a plain small count is medium."""
    if n.soft:
        return "medium"
    if n.unit or n.mag or n.value.denominator != 1 or abs(n.value) >= 100:
        return "high"
    return "medium"


class _Stated:
    """Every number one edition states anywhere in the chapter, by value (with its units), so
    that a number a paragraph re-cites ("回到前面 512 卡的例子" / "the earlier example") or a
    table header repeats is not reported where the other edition leaves it out."""

    def __init__(self, doc: Document):
        #: numbers of paragraphs on this side only, reported so far (the reader was told them
        #: in that finding: a later restatement of one is not a finding of its own)
        self.told: set = set()
        #: value -> (unit, first line) of each of its units
        self.first: dict[Fraction, dict] = {}
        for sec in [*doc.sections, *doc.notes.values()]:
            for n in sec.nums:
                units = self.first.setdefault(n.value, {})
                units[n.key[1]] = min(units.get(n.key[1], n.line), n.line)

    def before(self, n: Num, line: int) -> bool:
        """The edition states ``n`` (its value in its unit) before ``line``."""
        units = self.first.get(n.value, {})
        return units.get(n.key[1], line) < line


def _restated(n: Num, own: _Stated | None, other: _Stated | None, other_line: int) -> bool:
    """A number both editions stated earlier: a paragraph that re-cites it ("回到前面 512
    卡的例子") may be rendered without it ("the earlier example"), a table header may repeat
    it. Small plain counts (2, 8) are too common to say that about."""
    if own is None or other is None:
        return False
    if n.unit is None and n.mag is None and n.value.denominator == 1 and n.value < 10:
        return False
    told = n.key in own.told or n.key in other.told
    return (own.before(n, n.line) or told) and (other.before(n, other_line) or told)


def _compare_numbers(osec: Section, tsec: Section, where: str = "",
                     stated: tuple[_Stated, _Stated] | None = None) -> list[Difference]:
    """The numbers of two aligned stretches of text (a paragraph and its rendering; a
    footnote): pairs of equal numbers are silent, the rest are findings. ``stated``: the numbers
    each edition states anywhere (a number missing here but stated elsewhere on the other side
    is a restatement, not a finding)."""
    findings: list[Difference] = []
    where = where or osec.id
    title = osec.title or None
    tpool = list(tsec.nums)
    no = max(len(osec.nums) - 1, 1)
    nt = max(len(tsec.nums) - 1, 1)
    # Equal numbers pair up by closest relative position in the section (exact keys first,
    # then a number with a unit against the same value with none: a unit written once for a
    # range, or a counter word such as 次 between number and unit, leaves one side bare; then
    # a percentage against the same ratio written as a fraction: 一成 = a tenth.
    # Two different explicit units never pair here: 141.11 GB vs 141.11 GiB stays a finding.)
    exact = []
    by_key: dict[tuple, list[int]] = {}
    for ti, tn in enumerate(tpool):
        by_key.setdefault(tn.key, []).append(ti)
        by_key.setdefault(("value", tn.value), []).append(ti)
        if tn.unit == "%":
            by_key.setdefault(("ratio", tn.value / 100), []).append(ti)
        elif tn.unit is None:
            by_key.setdefault(("pct", tn.value * 100), []).append(ti)
    # A counting word matches a digit only when no digit is left for it ("twice" and a 2 in
    # the same section: the digits pair first).
    def entry(tier: int, oi: int, ti: int) -> tuple:
        return (tier, osec.nums[oi].soft != tpool[ti].soft, abs(oi / no - ti / nt), oi, ti)

    for oi, on in enumerate(osec.nums):
        for ti in by_key.get(on.key, []):
            exact.append(entry(0, oi, ti))
        for ti in by_key.get(("value", on.value), []):
            tn = tpool[ti]
            if tn.key != on.key and (on.unit is None or tn.unit is None
                                     or {tn.unit, on.unit} <= (SOFT_UNITS | {None})):
                exact.append(entry(1, oi, ti))
        if on.unit == "%":
            exact.extend(entry(2, oi, ti) for ti in by_key.get(("pct", on.value), [])
                         if tpool[ti].unit is None and tpool[ti].value < 1)
        elif on.unit is None and on.value < 1:
            exact.extend(entry(2, oi, ti) for ti in by_key.get(("ratio", on.value), []))
    exact.sort()
    used = [False] * len(tpool)
    oused = [False] * len(osec.nums)
    for *_, oi, ti in exact:
        if not used[ti] and not oused[oi]:
            used[ti] = oused[oi] = True
    for n in osec.nums + tpool:
        n.status = "paired"
    missing: list[tuple[int, Num]] = [(oi, on) for oi, on in enumerate(osec.nums) if not oused[oi]]
    extra = [(ti, tn) for ti, tn in enumerate(tpool) if not used[ti]]
    mdone: set[int] = set()
    edone: set[int] = set()
    # the same value at another precision: its own, low-severity kind
    prec = sorted((abs(oi / no - ti / nt), mi, ei) for mi, (oi, on) in enumerate(missing)
                  for ei, (ti, tn) in enumerate(extra) if _same_at_precision(on, tn))
    for _, mi, ei in prec:
        if mi in mdone or ei in edone:
            continue
        mdone.add(mi)
        edone.add(ei)
        on, tn = missing[mi][1], extra[ei][1]
        findings.append(Difference(
            "precision", value_text(on.value), on.unit, on.line, tn.line,
            f"same number at another precision in section {where}: original {_describe(on)} "
            f"(line {on.line}), translation {_describe(tn)}", "low", title))
    cands = []
    for mi, (oi, on) in enumerate(missing):
        if mi in mdone:
            continue
        for ei, (ti, tn) in enumerate(extra):
            if ei in edone:
                continue
            score = _pair_score(on, tn, (oi / no + _rel_line(on, osec)) / 2,
                                (ti / nt + _rel_line(tn, tsec)) / 2)
            if on.soft or tn.soft:
                # a counting word pairs only with another count close by ("two" -> "three"),
                # or with a number of the same unit (2 TB -> 1 TB); "a", "one", "single" alone
                # never do
                same_unit = on.unit is not None and on.unit == tn.unit
                if ((_count_word(on) and _count_word(tn)) or same_unit) and score[3] <= 0.25:
                    cands.append((score, mi, ei))
            elif on.unit and tn.unit and on.key[1] != tn.key[1] and on.value != tn.value:
                continue   # 12 ms and 80 GB are two numbers, not one changed
            elif score[0] <= 1 or score[3] <= 0.25:
                cands.append((score, mi, ei))
    cands.sort()
    pairs = []
    for _, mi, ei in cands:
        if mi in mdone or ei in edone:
            continue
        mdone.add(mi)
        edone.add(ei)
        pairs.append((missing[mi][1], extra[ei][1]))
    so, st = stated if stated else (None, None)
    for on, tn in pairs:
        if _restated(on, so, st, tn.line) and _restated(tn, st, so, on.line):
            continue   # both numbers are stated elsewhere on the other side: restatements
        on.status = tn.status = "changed"
        what = "unit" if on.value == tn.value else "value"
        sev = "medium" if (on.soft and tn.soft) else "high"
        findings.append(Difference(
            "changed", value_text(on.value), on.unit, on.line, tn.line,
            f"number {what} changed in section {where}: original {_describe(on)} "
            f"(line {on.line}), translation {_describe(tn)}", sev, title))
    for mi, (_, on) in enumerate(missing):
        if mi not in mdone and not on.soft and not _restated(on, so, st, tsec.line):
            on.status = "unpaired"
            findings.append(Difference(
                "missing", value_text(on.value), on.unit, on.line, tsec.line,
                f"number missing from section {where}: original {_describe(on)} (line {on.line}) "
                f"has no counterpart in the translation", _number_severity(on), title))
    for ei, (_, tn) in enumerate(extra):
        if ei not in edone and not tn.soft and not _restated(tn, st, so, osec.line):
            tn.status = "unpaired"
            findings.append(Difference(
                "extra", value_text(tn.value), tn.unit, osec.line if stated else None, tn.line,
                f"extra number in section {where}: translation {_describe(tn)} is not in the original",
                _number_severity(tn), title))
    return findings


def _compare_xlabels(osec: Section, tsec: Section, where: str) -> list[Difference]:
    """Typed labels (图 7-2 / Figure 7-2) of one kind are compared with each other only. A label
    one side leaves out is not reported (translations often write "the figure below"); a label
    that names another number where the other side has one of the same kind is."""
    out: list[Difference] = []
    tleft = list(tsec.xlabels)
    oleft = []
    for lab in osec.xlabels:
        hit = next((t for t in tleft if t[:2] == lab[:2]), None)
        if hit:
            tleft.remove(hit)
        else:
            oleft.append(lab)
    for kind, num, line, text in oleft:
        hit = next((t for t in tleft if t[0] == kind), None)
        if hit is None:
            continue
        tleft.remove(hit)
        out.append(Difference("changed", num, None, line, hit[2],
                           f"label changed in section {where}: original {text!r} (line {line}), "
                           f"translation {hit[3]!r}", "medium", osec.title or None))
    return out


def _compare_refs(osec: Section, tsec: Section, where: str = "") -> list[Difference]:
    where = where or osec.id
    title = osec.title or None
    oc = Counter(n for n, _ in osec.refs)
    tc = Counter(n for n, _ in tsec.refs)
    miss = list((oc - tc).elements())
    extra = list((tc - oc).elements())
    out: list[Difference] = []
    oline = {n: ln for n, ln in reversed(osec.refs)}
    tline = {n: ln for n, ln in reversed(tsec.refs)}
    while miss and extra:
        a, b = miss.pop(0), extra.pop(0)
        out.append(Difference("changed", f"{{{{ {a} }}}}", None, oline[a], tline[b],
                           f"bound number renamed in section {where}: {{{{ {a} }}}} became {{{{ {b} }}}}",
                           "high", title))
    for a in miss:
        out.append(Difference("missing", f"{{{{ {a} }}}}", None, oline[a], tsec.line,
                           f"bound number {{{{ {a} }}}} of section {where} is missing from the translation",
                           "high", title))
    for b in extra:
        out.append(Difference("extra", f"{{{{ {b} }}}}", None, None, tline[b],
                           f"bound number {{{{ {b} }}}} is not in section {where} of the original",
                           "high", title))
    return out


def _compare_labels(kind: str, orig: list[tuple[str, int]], trans: list[tuple[str, int]]) -> list[Difference]:
    out: list[Difference] = []
    oc = Counter(x for x, _ in orig)
    tc = Counter(x for x, _ in trans)
    oline = {x: ln for x, ln in reversed(orig)}
    tline = {x: ln for x, ln in reversed(trans)}
    for x in (oc - tc):
        out.append(Difference("structure", x, None, oline[x], None,
                           f"{kind} {x} is in the original but not in the translation"))
    for x in (tc - oc):
        out.append(Difference("structure", x, None, None, tline[x],
                           f"{kind} {x} is in the translation but not in the original"))
    return out



@dataclass
class Unit:
    """Aligned paragraphs: blocks of the original and of the translation that render each
    other (one side empty: a paragraph on one side only), and the findings placed at them."""

    section: str
    original: list[Block]
    translation: list[Block]
    findings: list[Difference] = field(default_factory=list)


@dataclass
class PairResult:
    """What :func:`compare_pair` finds: the findings (differences of precision included, as
    kind ``precision``), the aligned paragraphs, and the paragraphs found on one side only."""

    findings: list[Difference]
    units: list[Unit]
    only_original: int = 0
    only_translation: int = 0
    aligned: int = 0
    original_lang: str = "zh-Hans"      # the number readers the two sides were read with
    translation_lang: str = "en"

    @property
    def skewed(self) -> bool:
        """Many paragraphs on one side only: the translation likely follows another revision
        of the original (at least 3, and at least one in ten of the aligned ones)."""
        one_sided = self.only_original + self.only_translation
        return one_sided >= 3 and one_sided * 10 >= self.aligned


def _unit_section(sec: Section, blocks: list[Block]) -> Section:
    """A stretch of aligned blocks as a section of its own (what the comparison reads)."""
    first, last = blocks[0].line, blocks[-1].end
    out = Section(id=sec.id, line=first, title=sec.title, lines=[""] * (last - first + 1),
                  lines_from=first)
    for b in blocks:
        out.nums.extend(b.nums)
        out.refs.extend(b.refs)
        out.xlabels.extend(b.xlabels)
        out.images.extend(b.images)
    return out


def _worth_reporting(blocks: list[Block]) -> bool:
    """A heading is the section alignment's; an image without numbers the image count's; a
    stray mark (a rule, a lone emphasis) is not a paragraph."""
    if all(b.kind == "heading" for b in blocks):
        return False
    has_data = any(b.nums or b.refs or b.xlabels for b in blocks)
    if all(b.orphan for b in blocks) and not has_data:
        return False   # the text of a section the other side lacks: its heading is the finding
    if all(b.kind in ("image", "caption") for b in blocks) and not any(b.nums or b.refs for b in blocks):
        return False   # a caption written once instead of twice (alt text and a line below)
    return has_data or sum(b.size for b in blocks) >= 3


def _paragraph_finding(blocks: list[Block], side: str, other_line: int | None,
                       where: str, title: str | None) -> Difference:
    first = blocks[0]
    nums = [n for b in blocks for n in b.nums if not n.soft]
    shown = ", ".join(dict.fromkeys(n.text for n in nums)) or "no numbers"
    what = {"row": "table row", "item": "list item", "caption": "caption"}.get(first.kind, "paragraph")
    if len(blocks) > 1:
        what += "s"
    there = "the translation" if side == "translation" else "the original"
    high = any(_number_severity(n) == "high" for n in nums) or any(b.refs for b in blocks)
    message = (f"{what} only in {there} (section {where}, line {first.line}): "
               f"“{first.first_words()}” ({shown})")
    oline, tline = (first.line, other_line) if side == "original" else (other_line, first.line)
    value = ", ".join(value_text(n.value) for n in nums) or None
    return Difference("paragraph", value, None, oline, tline, message,
                   "high" if high else "medium", title)


def _compare_section(o: Section, t: Section, where: str, stated: tuple[_Stated, _Stated],
                     units_out: list[Unit], counts: Counter) -> list[Difference]:
    """One section of each edition: paragraphs aligned first, then numbers, labels and bound
    references compared inside each aligned pair only; a paragraph on one side only is one
    finding, at its line."""
    findings: list[Difference] = []
    title = o.title or None
    ob, tb = o.blocks, t.blocks
    units = align_blocks(ob, tb)
    # the other side's line for a one-sided paragraph: the paragraph before it there (the
    # place it would be), the next one when it comes first
    last_o: int | None = None
    last_t: int | None = None
    pending: list[Unit] = []
    made: list[Unit] = []
    for oi, ti in units:
        unit = Unit(where, [ob[i] for i in oi], [tb[j] for j in ti])
        made.append(unit)
        if oi and ti:
            if not all(b.kind == "heading" for b in unit.original + unit.translation):
                # a one-sided paragraph is placed by paragraphs, never by the heading
                last_o, last_t = unit.original[0].line, unit.translation[0].line
                for p in pending:
                    _place(p, last_o, last_t)
                pending = []
            osub, tsub = _unit_section(o, unit.original), _unit_section(t, unit.translation)
            found = _compare_numbers(osub, tsub, where, stated)
            found += _compare_refs(osub, tsub, where)
            found += _compare_xlabels(osub, tsub, where)
            unit.findings = [_fill_lines(f, osub.line, tsub.line) for f in found]
            counts["aligned"] += 1
        else:
            unit.findings = []
            if _worth_reporting(unit.original or unit.translation):
                side = "original" if oi else "translation"
                counts[side] += 1
                unit.findings = [_paragraph_finding(unit.original or unit.translation, side,
                                                    last_t if oi else last_o, where, title)]
                stated[0 if oi else 1].told.update(
                    n.key for b in unit.original or unit.translation for n in b.nums)
                if (last_t if oi else last_o) is None:
                    pending.append(unit)
    _merge_rows(made)
    for unit in made:
        findings.extend(unit.findings)
    units_out.extend(made)
    return findings


def _place(unit: Unit, oline: int, tline: int) -> None:
    """Gives a one-sided paragraph at the start of a section the other side's line of the
    first aligned paragraph (never the heading)."""
    unit.findings = [f if (f.original_line and f.translation_line) else
                     _fill_lines(f, oline, tline) for f in unit.findings]


def _fill_lines(f: Difference, oline: int, tline: int) -> Difference:
    """A finding of aligned paragraphs names both paragraphs' lines."""
    if f.original_line is None or f.translation_line is None:
        return replace(f, original_line=f.original_line if f.original_line is not None else oline,
                       translation_line=f.translation_line if f.translation_line is not None else tline)
    return f


def _merge_rows(units: list[Unit]) -> None:
    """Consecutive one-sided table rows (or list items) of one side are one finding: a table
    the other edition lacks is one difference, not one per row."""
    prev: Unit | None = None
    for unit in units:
        blocks = unit.original or unit.translation
        side = "original" if unit.original else "translation"
        if (prev is not None and prev.findings and unit.findings and not (unit.original and unit.translation)
                and not (prev.original and prev.translation)
                and (prev.original and "original" or "translation") == side
                and (prev.original or prev.translation)[-1].kind == blocks[0].kind
                and blocks[0].kind in ("row", "item")
                and prev.findings[0].kind == unit.findings[0].kind == "paragraph"):
            pblocks = (prev.original or prev.translation) + blocks
            f = prev.findings[0]
            other = f.translation_line if side == "original" else f.original_line
            prev.findings = [_paragraph_finding(pblocks, side, other, unit.section, f.section)]
            if side == "original":
                prev.original = pblocks
            else:
                prev.translation = pblocks
            unit.findings = []
            unit.original, unit.translation = [], []
            continue
        prev = unit


def check_documents(orig: Document, trans: Document) -> list[Difference]:
    """Compare two parsed documents (see :func:`check_pair`)."""
    return compare_documents(orig, trans).findings


def compare_documents(orig: Document, trans: Document) -> PairResult:
    """Compare two parsed documents: the findings and the aligned paragraphs."""
    findings: list[Difference] = []
    all_units: list[Unit] = []
    counts: Counter = Counter()
    stated = (_Stated(orig), _Stated(trans))
    pairs = align_sections(orig.sections, trans.sections)
    # A heading with no counterpart is one finding; its text is compared as part of the section
    # before it (a translator who drops a heading usually keeps its paragraphs).
    groups: list[tuple[list[Section], list[Section]]] = []
    pending_o: list[Section] = []
    pending_t: list[Section] = []
    for oi, ti in pairs:
        if oi is not None and ti is not None:
            o, t = orig.sections[oi], trans.sections[ti]
            groups.append(([o], [t]))
            if o.id == "_preamble" and t.id != "_preamble":
                findings.append(Difference("structure", t.id, None, None, t.line,
                                        f"section {_heading_name(t)} is not in the original "
                                        f"(its text is there, before the first heading)", "high",
                                        t.title or None))
            elif t.id == "_preamble" and o.id != "_preamble":
                findings.append(Difference("structure", o.id, None, o.line, None,
                                        f"section {_heading_name(o)} is missing from the translation "
                                        f"(its text is there, before the first heading)", "high",
                                        o.title or None))
            continue
        if oi is not None:
            s = orig.sections[oi]
            findings.append(Difference("structure", s.id, None, s.line, None,
                                    f"section {_heading_name(s)} is missing from the translation "
                                    f"(no heading corresponds to it)", "high", s.title or None))
            (groups[-1][0] if groups else pending_o).append(_without_heading(s))
        else:
            s = trans.sections[ti]
            findings.append(Difference("structure", s.id, None, None, s.line,
                                    f"section {_heading_name(s)} is not in the original "
                                    f"(no heading corresponds to it)", "high", s.title or None))
            (groups[-1][1] if groups else pending_t).append(_without_heading(s))
    if groups:
        groups[0] = (pending_o + groups[0][0], pending_t + groups[0][1])
    elif pending_o or pending_t:
        groups.append((pending_o, pending_t))
    for osecs, tsecs in groups:
        if not osecs or not tsecs:
            continue
        o, t = _merged(osecs), _merged(tsecs)
        where = _heading_name(osecs[0])
        findings.extend(_compare_section(o, t, where, stated, all_units, counts))
        if not orig.labels and not trans.labels and len(o.images) != len(t.images):
            findings.append(Difference(
                "structure", f"{len(o.images)} images", None, (o.images or [o.line])[0],
                (t.images or [t.line])[0],
                f"section {where} has {len(o.images)} image(s) in the original and "
                f"{len(t.images)} in the translation", "medium", o.title or None))
    for label, onote in orig.notes.items():
        tnote = trans.notes.get(label)
        if tnote is not None:
            where = f"footnote [^{label}]"
            findings.extend(_compare_numbers(onote, tnote, where))
            findings.extend(_compare_refs(onote, tnote, where))
            findings.extend(_compare_xlabels(onote, tnote, where))
    for prefix, name in (("fig-", "figure"), ("tbl-", "table"), ("eq-", "equation")):
        findings.extend(_compare_labels(
            name, [x for x in orig.labels if x[0].startswith(prefix)],
            [x for x in trans.labels if x[0].startswith(prefix)]))
    findings.extend(_compare_labels("footnote", orig.footnote_defs, trans.footnote_defs))
    oref = Counter(x for x, _ in orig.footnote_refs)
    tref = Counter(x for x, _ in trans.footnote_refs)
    for label in sorted(set(oref) | set(tref)):
        if oref[label] != tref[label] and label in {x for x, _ in orig.footnote_defs} & {
                x for x, _ in trans.footnote_defs}:
            tl = next((ln for x, ln in trans.footnote_refs if x == label), None)
            ol = next((ln for x, ln in orig.footnote_refs if x == label), None)
            findings.extend([Difference("structure", f"[^{label}]", None, ol, tl,
                                     f"footnote [^{label}] is referenced {oref[label]} time(s) in the "
                                     f"original and {tref[label]} in the translation")])
    for snippet, line in trans.han:
        findings.append(Difference("leftover", snippet, None, None, line,
                                f"untranslated Chinese text {snippet!r}"))
    findings.sort(key=lambda f: (f.translation_line or 0, f.original_line or 0, f.kind, str(f.value)))
    all_units = [u for u in all_units if u.original or u.translation]
    return PairResult(findings, all_units, counts["original"], counts["translation"],
                      counts["aligned"])


def check_pair(original_text: str, translation_text: str, lang: str,
               original_path: str = "", translation_path: str = "",
               original_lang: str = "zh-Hans") -> list[Difference]:
    """Compare an original chapter with its translation into ``lang`` (``en`` or ``zh-tw``).
    ``original_lang``: the number reader of the original's language (the registry's
    ``original.number_lang``; the book's original is zh-Hans).

    Returns the findings sorted by translation line. The paths are only used in messages of
    callers; the texts are what is read.
    """
    return compare_pair(original_text, translation_text, lang, original_lang).findings


def compare_pair(original_text: str, translation_text: str, lang: str,
                 original_lang: str = "zh-Hans") -> PairResult:
    """:func:`check_pair` with the aligned paragraphs and the revision-skew counts (for the
    reports)."""
    tlang, olang = normalize_lang(lang), normalize_lang(original_lang)
    if tlang not in TRANSLATION_LANGS:
        raise ValueError(f"translation language must be en or zh-tw, not {lang!r}")
    if olang not in READERS:
        raise ValueError(f"the number check cannot read an original in {original_lang!r}")
    orig = parse_document(original_text, olang)
    trans = parse_document(translation_text, tlang)
    return replace(compare_documents(orig, trans), original_lang=olang, translation_lang=tlang)


