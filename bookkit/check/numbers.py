"""Translation number check: extract, normalise and compare the numbers of two editions.

:func:`check_pair` reads an original chapter (``zh-Hans``) and its translation (``en`` or
``zh-Hant``), splits both into sections and aligns them by their headings (``{#sec-…}`` IDs, or,
in books without IDs, a sequence alignment of heading levels, typed heading numbers and the
numbers inside), extracts every number a reader sees in each section (prose, tables, captions,
footnotes, math) in a language-neutral form (an exact value plus a unit), and reports the
differences as :class:`Finding` objects ranked by severity. What is not data is set aside first:
typed labels (图 7-2, Section 7.4) are compared only with labels, a caption written twice is
read once, counting words (两, "both", "half") are matched but never reported alone, a rounded
number is a ``precision`` finding. The same run checks structural parity (sections, figures,
tables, equations, footnotes, bound-number references) and, for English, leftover Han
characters. The rules are written out in CONTRIBUTING.md ("How the number check reads
numbers"); ``tests/fixtures/translation/corpus/`` measures them on real-style chapters.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from fractions import Fraction

TRANSLATION_LANGS = ("en", "zh-Hant")
_LANG_ALIASES = {"en": "en", "zh-tw": "zh-Hant", "zh-hant": "zh-Hant", "zh_tw": "zh-Hant",
                 "zh-hans": "zh-Hans", "zh": "zh-Hans", "zh-cn": "zh-Hans"}

KINDS = ("missing", "extra", "changed", "precision", "label", "structure", "leftover")
SEVERITIES = ("high", "medium", "low")


def normalize_lang(lang: str) -> str:
    """``en`` / ``zh-tw`` / ``zh-Hant`` / ``zh-Hans`` -> ``en``, ``zh-Hant``, ``zh-Hans``."""
    key = (lang or "").strip().lower()
    if key not in _LANG_ALIASES:
        raise ValueError(f"unknown language {lang!r} (expected en or zh-tw)")
    return _LANG_ALIASES[key]


# --------------------------------------------------------------------------------------------
# Data

@dataclass(frozen=True)
class Finding:
    """One difference between an original and its translation.

    ``kind``: ``missing`` / ``extra`` / ``changed`` (numbers and bound references),
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


@dataclass
class Num:
    """A number as read from one line: exact value, unit (``None`` if none) and source text."""

    value: Fraction
    unit: str | None
    line: int
    text: str
    mag: Fraction | None = None  # magnitude applied (for range inheritance)
    weak: bool = False  # "one"/一: counts only inside a range with another number
    #: a counting word (两, "two", "both" paraphrases it) or a bare magnitude word (千亿, 万卡):
    #: matched when the other side has it, never reported alone
    soft: bool = False

    @property
    def key(self) -> tuple[Fraction, str | None]:
        return (self.value, None if self.unit in SOFT_UNITS else self.unit)


@dataclass
class Section:
    """A stretch of a document from one heading to the next."""

    id: str
    line: int  # heading line (1 for a preamble)
    nums: list[Num] = field(default_factory=list)
    refs: list[tuple[str, int]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)  # raw text, for staleness hashes
    title: str = ""  # heading text without attributes
    level: int = 0  # heading level (0 for a preamble)
    heading_number: str | None = None  # a typed number such as 3.1.2 or 第 3 章 -> "3"
    has_id: bool = False
    #: typed cross-reference labels (图 7-2, Section 7.4) as (kind, number, line, text)
    xlabels: list[tuple[str, str, int, str]] = field(default_factory=list)
    images: list[int] = field(default_factory=list)  # lines of images (figures)


@dataclass
class Document:
    """A parsed chapter: sections plus document-wide structure."""

    sections: list[Section]
    labels: list[tuple[str, int]]  # fig/tbl/eq ids with lines
    footnote_defs: list[tuple[str, int]]
    footnote_refs: list[tuple[str, int]]
    han: list[tuple[str, int]]  # Han snippets in prose (for the leftover check)
    #: footnote definitions by label: their numbers are compared note with note, wherever a
    #: translation puts the definition (after the paragraph, or at the end of the chapter)
    notes: dict[str, Section] = field(default_factory=dict)


# --------------------------------------------------------------------------------------------
# Units and words

#: Units recognised after a number. Listed longest first where one is a prefix of another.
UNITS = [
    "TFLOP/s", "PFLOP/s", "GFLOP/s", "EFLOP/s", "FLOP/s",
    "TiB/s", "GiB/s", "MiB/s", "TB/s", "GB/s", "MB/s", "KB/s", "kB/s",
    "Tbit/s", "Gbit/s", "Mbit/s", "Tb/s", "Gb/s", "Mb/s", "Tbps", "Gbps", "Mbps",
    "TFLOPS", "PFLOPS", "GFLOPS", "EFLOPS", "TFLOPs", "PFLOPs", "GFLOPs", "FLOPS", "FLOPs", "FLOP",
    "TOPS", "POPS",
    "TiB", "GiB", "MiB", "KiB", "PiB", "PB", "TB", "GB", "MB", "KB", "kB", "EB",
    "Gbit", "Mbit", "Tbit", "bits", "bit",
    "GHz", "MHz", "kHz", "Hz", "kWh", "MWh", "Wh", "kW", "MW", "GW", "mW",
    "ms", "μs", "µs", "us", "ns", "ps", "s", "W", "V", "nm", "mm", "km", "kg", "°C",
    "tokens", "token", "B",
    "千瓦时", "千瓦時", "千瓦", "兆瓦", "千克", "千米", "公里",
]
#: spellings of one unit (Gb/s, Gbit/s and Gbps are the same bit rate)
_UNIT_CANON = {"µs": "μs", "bits": "bit", "tokens": "token", "us": "μs",
               "Tb/s": "Tbit/s", "Tbps": "Tbit/s", "Gb/s": "Gbit/s", "Gbps": "Gbit/s",
               "Mb/s": "Mbit/s", "Mbps": "Mbit/s", "千瓦时": "kWh", "千瓦時": "kWh", "千瓦": "kW",
               "兆瓦": "MW", "千克": "kg", "千米": "km", "公里": "km"}
#: A number with a soft unit also matches the same value with no unit (translators may add
#: or drop the word "token"); a soft unit never matches a different unit.
SOFT_UNITS = frozenset({"token"})

_UNIT_RE = re.compile(
    r"[ \t]?(?:(?:个|個)[ \t]?(?=tokens?\b|词元|詞元))?("
    + "|".join(re.escape(u) for u in UNITS) + r"|词元|詞元)(?![A-Za-z0-9])"
)

_MONTHS = {m: i for i, m in enumerate(
    ["January", "February", "March", "April", "May", "June", "July", "August", "September",
     "October", "November", "December"], 1)}
_MONTH_ABBR = {"Jan": 1, "Feb": 2, "Mar": 3, "Apr": 4, "Jun": 6, "Jul": 7, "Aug": 8,
               "Sep": 9, "Sept": 9, "Oct": 10, "Nov": 11, "Dec": 12}

_EN_SMALL = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen".split())}
_EN_TENS = {w: 10 * i for i, w in enumerate(
    "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if w != "_"}
_EN_MAG = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_EN_FRACTION = {"half": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4,
                "fourth": 4, "fourths": 4, "fifth": 5, "fifths": 5, "sixth": 6, "sixths": 6,
                "seventh": 7, "sevenths": 7, "eighth": 8, "eighths": 8, "ninth": 9, "ninths": 9,
                "tenth": 10, "tenths": 10, "hundredth": 100, "hundredths": 100,
                "thousandth": 1000, "thousandths": 1000}
#: fraction words that are also ordinals: "a fourth scheme" is another scheme, "a fourth of
#: the cost" a quarter; after "a" they are fractions only before "of" or punctuation
_EN_ORDINAL_FRACTION = frozenset(w for w in _EN_FRACTION if w not in ("half", "quarter", "quarters"))
_EN_SPECIAL = {"twice": 2, "thrice": 3, "double": 2, "doubled": 2, "doubles": 2, "triple": 3,
               "tripled": 3, "triples": 3, "quadruple": 4, "quadrupled": 4, "quadruples": 4,
               "dozen": 12, "half": Fraction(1, 2), "halved": Fraction(1, 2)}
#: words with 半 (half) that are not a half
_ZH_HALF_NOT = ("半导体", "半導體", "半径", "半徑", "多半", "大半", "上半年", "下半年", "半岛", "半島")

_ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5,
              "六": 6, "七": 7, "八": 8, "九": 9}
_ZH_SMALL = {"十": 10, "百": 100, "千": 1000}
_ZH_BIG = {"万": 10**4, "萬": 10**4, "亿": 10**8, "億": 10**8}
_ZH_BIG_HANT = {**_ZH_BIG, "兆": 10**12}

#: Words in which Chinese numeral characters are not numbers. A numeral run lying entirely
#: inside one of these words is ignored.
ZH_NOT_NUMBERS = (
    "二进制 二進制 二分 二次方 三次方 二次函数 二次函數 二次型 二者 两者 兩者 两边 兩邊 两端 兩端 "
    "两侧 兩側 两头 兩頭 两极 兩極 三角 四舍五入 四捨五入 四处 四處 四周 四方 八方 十分 十足 "
    "十字 万一 萬一 千万 千萬 万万 萬萬 再三 三思 五花八门 五花八門 乱七八糟 亂七八糟 七上八下 "
    "一五一十 三番五次 千方百计 千方百計 成千上万 成千上萬 千差万别 千差萬別 万事 萬事 万物 萬物 "
    "万维网 萬維網 三明治 二手 百科 百度 千兆 百分比 百分点 百分點 一一 独一无二 獨一無二 "
    "说三道四 說三道四 不三不四 三心二意 九九 "
    # terms and enumerations that contain numerals but no quantity
    "二叉 二項 二项 二阶 二階 一阶 一階 三阶 三階 高阶 二元 一元 二维码 二維碼 其一 其二 其三 "
    "一是 二是 三是 一来 二来 一來 二來 一则 二则 一則 二則 十进制 十進制 八进制 八進制 "
    "十六进制 十六進制 百分位 一概 一律 二话 二話 两难 兩難 两全 兩全 一半 两半 兩半 "
    "十全十美 一举两得 一舉兩得 三言两语 三言兩語 一心一意 千篇一律 百花齐放 百花齊放 "
    "千里 万里 萬里 九成九"
).split()
#: words that would otherwise be blocked above but are quantities: 十分钟 is ten minutes
ZH_NUMBERS_AFTER_ALL = ("十分钟", "十分鐘", "十分之")

#: English phrases whose numbers name a number system, like 十进制 / 二进制 in Chinese
_EN_NOT_NUMBERS = re.compile(r"\b(?:one another|no one|some one|any one|(?:in )?powers? of (?:two|ten|2|10)"
                             r"|base[- ](?:two|ten|2|10|16)|two's complement)\b", re.I)

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HAN_RE = re.compile(f"[{_HAN}]+(?:[\\s，。、：；（）“”]*[{_HAN}]+)*")

_DASHES = "-‐‑‒–—―−~～〜"
_CONNECTOR_RE = re.compile(rf"\s*(?:[{_DASHES}]{{1,2}}|to\b|至|到|or\b)\s*")
_ZH_ALT_RE = re.compile(r"\s*(?:或|或者)\s*")

_FULLWIDTH = str.maketrans("０１２３４５６７８９％", "0123456789%")
_SUPER = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")


# --------------------------------------------------------------------------------------------
# Value helpers

def value_text(v: Fraction) -> str:
    """Exact value as text: a plain decimal when finite (``1.5``, ``70554000000``), else ``a/b``."""
    if v.denominator == 1:
        return str(v.numerator)
    d = v.denominator
    twos = fives = 0
    while d % 2 == 0:
        d //= 2
        twos += 1
    while d % 5 == 0:
        d //= 5
        fives += 1
    if d != 1:
        return f"{v.numerator}/{v.denominator}"
    places = max(twos, fives)
    scaled = v * 10**places
    sign = "-" if scaled < 0 else ""
    digits = str(abs(scaled.numerator)).rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}".rstrip("0").rstrip(".")


def _dec(text: str) -> Fraction:
    return Fraction(text.replace(",", ""))


# --------------------------------------------------------------------------------------------
# Extraction from one cleaned line

_ARABIC_RE = re.compile(r"(?<![A-Za-z0-9_.\\])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)")
_VERSION_RE = re.compile(r"\d+(?:\.\d+){2,}")
_SCI_E_RE = re.compile(r"[eE]([+-]?\d+)(?![A-Za-z0-9])")
_SCI_TIMES_RE = re.compile(r"\s*(?:×|\*|·|x)\s*10(?:\s*\^\s*\{?\s*([+\-−]?\d+)(?:\s*\})?|([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+))")
_POW10_RE = re.compile(r"(?:\s*\^\s*\{?\s*([+\-−]?\d+)(?:\s*\})?|([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+))")
_EN_MAG_RE = re.compile(r"[ \t]*-?[ \t]*(thousand|million|billion|trillion)\b")
_SUFFIX_MAG_RE = re.compile(r"([KkMBT])(?![A-Za-z0-9])")
_PCT_RE = re.compile(r"\s*(?:%|percent\b|per cent\b)")
_MULT_RE = re.compile(r"\s*[×x](?![A-Za-z0-9])")
_ORD_RE = re.compile(r"(?:st|nd|rd|th|D|s)(?![A-Za-z0-9])")
_ZH_MAG_RE_HANS = re.compile(r"[ \t]*([十百千万萬亿億]+)")
_ZH_MAG_RE_HANT = re.compile(r"[ \t]*([十百千万萬亿億兆]+)")
_SUFFIX_MAG = {"K": 10**3, "k": 10**3, "M": 10**6, "B": 10**9, "T": 10**12}


def _zh_mag_value(chars: str, lang: str) -> int | None:
    big = _ZH_BIG_HANT if lang == "zh-Hant" else _ZH_BIG
    value = 1
    for ch in chars:
        value *= _ZH_SMALL.get(ch) or big.get(ch) or 0
    return value or None


def parse_zh_numeral(run: str, lang: str) -> int | None:
    """Value of a Chinese numeral such as 六千万, 一百零八, 三万亿; ``None`` if not well formed.

    Every 百/千/万/亿 needs a digit before it; only a leading 十 may stand alone (十二 = 12).
    """
    big = _ZH_BIG_HANT if lang == "zh-Hant" else _ZH_BIG
    parts: list[int] = []
    cur = 0
    num: int | None = None
    prev_digit = False
    for i, ch in enumerate(run):
        if ch in _ZH_DIGITS:
            if prev_digit and not (run[i - 1] in "零〇"):
                return None
            num = _ZH_DIGITS[ch]
            prev_digit = True
            continue
        prev_digit = False
        if ch in _ZH_SMALL:
            if num is None or num == 0:
                if ch == "十" and cur == 0 and (num is None):
                    num = 1
                else:
                    return None
            cur += num * _ZH_SMALL[ch]
            num = None
        elif ch in big:
            unit = big[ch]
            acc = cur + (num or 0)
            while parts and parts[-1] < unit:
                acc += parts.pop()
            if acc == 0:
                return None
            parts.append(acc * unit)
            cur, num = 0, None
        else:
            return None
    return sum(parts) + cur + (num or 0)


def _fold_base(word: str) -> str | None:
    """``fourfold`` -> ``four``, ``thousandfold`` -> ``thousand``; else ``None``."""
    if word.endswith("fold") and (base := word[:-4]) and (
            base in _EN_SMALL or base in _EN_TENS or base in _EN_MAG or base == "hundred"):
        return base
    return None


_EN_WORD_RE = re.compile(r"([A-Za-z]+)")
#: what may follow "a third" used as a fraction; any other word makes it an ordinal ("a fourth
#: scheme", "a third party")
_AFTER_FRACTION = re.compile(
    r"\s*(?:(?:of|with|as|in|on|at|for|to|and|or|less|more|than|per|by|from|the|that|which|"
    r"again|each|only)\b|[.,;:)!?—–-]|$)", re.I)
_EN_ORDINAL_UNITS = {"second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
                     "eighth": 8, "ninth": 9}
_EN_ORDINAL_TEENS = {w + "th": v for w, v in _EN_SMALL.items() if 13 <= v <= 19}
_EN_ORDINAL_TEENS.update({"tenth": 10, "eleventh": 11, "twelfth": 12})
_EN_ORDINAL_TENS = {w[:-1] + "ieth": v for w, v in _EN_TENS.items()}


def _en_denominator(s: str, i: int) -> tuple[int, int] | None:
    """The denominator written after a numerator at ``i``: "-eighth", " thirds", " thirty-second"
    (one thirty-second = 1/32); ``None`` if there is none. "halves" is not one: two halves are
    two parts."""
    m = re.compile(r"[ \t-]+([A-Za-z]+)(?:-([A-Za-z]+))?\b").match(s, i)
    if not m:
        return None
    w = m.group(1).lower()
    if w in _EN_TENS and m.group(2):
        unit = m.group(2).lower().removesuffix("s")
        if unit in _EN_ORDINAL_UNITS:
            return _EN_TENS[w] + _EN_ORDINAL_UNITS[unit], m.end()
        return None
    w = w.removesuffix("s") if w not in _EN_FRACTION else w
    if w in _EN_FRACTION and w != "half":
        return _EN_FRACTION[w], m.end(1)
    for table in (_EN_ORDINAL_TEENS, _EN_ORDINAL_TENS):
        if w in table:
            return table[w], m.end(1)
    return None
_EN_SEP_RE = re.compile(r"[ \t]+and[ \t]+|[ \t]*-[ \t]*|[ \t]+")


def _en_number_words(s: str, i: int) -> list[tuple[str, int, int]]:
    """The words of one English numeral starting at ``i``, as (word, start, end).

    A numeral is well formed: "and" only joins a smaller number to a hundred or a magnitude
    ("one hundred and twenty-eight", "two thousand and five"), never two numbers ("two and
    three" is two numbers, "two hundred million and one billion" too); a units word never
    follows another units word; ``-fold`` ends the numeral.
    """
    words: list[tuple[str, int, int]] = []
    pos = i
    after_and = False
    while True:
        wm = _EN_WORD_RE.match(s, pos)
        if not wm:
            break
        w = wm.group(1).lower()
        base = _fold_base(w)
        if base is not None:
            w = base
        if not (w in _EN_SMALL or w in _EN_TENS or w in _EN_MAG or w == "hundred"
                or (not words and w in ("a", "an"))):
            break
        prev = words[-1][0] if words else None
        if prev is not None and prev not in ("a", "an"):
            if w in _EN_SMALL and (prev in _EN_SMALL or (prev in _EN_TENS and _EN_SMALL[w] >= 10)):
                break
            if w in _EN_TENS and (prev in _EN_SMALL or prev in _EN_TENS):
                break
            if after_and and (w == "hundred" or w in _EN_MAG):
                break
            if (w in _EN_MAG and prev in _EN_MAG and _EN_MAG[w] >= _EN_MAG[prev]):
                break
        words.append((w, wm.start(), wm.end()))
        if base is not None:
            break
        sp = _EN_SEP_RE.match(s, wm.end())
        if not sp:
            break
        if "and" in sp.group(0):
            if not (w == "hundred" or w in _EN_MAG):
                break
            nxt = _EN_WORD_RE.match(s, sp.end())
            if not nxt or not (nxt.group(1).lower() in _EN_SMALL or nxt.group(1).lower() in _EN_TENS):
                break
            # the part after "and" must not carry a magnitude of its own
            tail = _EN_WORD_RE.match(s, _EN_SEP_RE.match(s, nxt.end()).end()) \
                if _EN_SEP_RE.match(s, nxt.end()) else None
            if tail and (tail.group(1).lower() in _EN_MAG or tail.group(1).lower() == "hundred"):
                break
            after_and = True
        pos = sp.end()
    return words


class _Extractor:
    """Reads the numbers of one cleaned line of prose or math."""

    def __init__(self, lang: str):
        self.lang = lang
        self.zh = lang in ("zh-Hans", "zh-Hant")
        chars = "〇零一二两兩三四五六七八九十百千万萬亿億" + ("兆" if lang == "zh-Hant" else "")
        self.zh_run_re = re.compile(f"[{chars}]+")
        self.zh_mag_re = _ZH_MAG_RE_HANT if lang == "zh-Hant" else _ZH_MAG_RE_HANS
        self.start_re = re.compile(f"[0-9A-Za-z{chars + '半' if self.zh else ''}]")

    # Each reader returns (Num or None, end) when it matches at position i, else None.

    def _arabic(self, s: str, i: int, line: int):
        m = _ARABIC_RE.match(s, i)
        if not m:
            return None
        v = _VERSION_RE.match(s, i)
        if v and v.end() > m.end():
            return (None, v.end())
        raw = m.group(1)
        j = m.end()
        value = _dec(raw)
        unit = None
        mag = None
        if raw.count(",") and not re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", raw):
            return (None, j)
        e = _SCI_E_RE.match(s, j) if re.fullmatch(r"\d+(?:\.\d+)?", raw) else None
        t = _SCI_TIMES_RE.match(s, j)
        p = _POW10_RE.match(s, j) if raw == "10" else None
        if e:
            value *= Fraction(10) ** int(e.group(1))
            j = e.end()
        elif t:
            exp = t.group(1) or t.group(2).translate(_SUPER)
            value *= Fraction(10) ** int(exp.replace("−", "-"))
            j = t.end()
        elif p:
            exp = p.group(1) or p.group(2).translate(_SUPER)
            value = Fraction(10) ** int(exp.replace("−", "-"))
            j = p.end()
        else:
            zm = self.zh_mag_re.match(s, j) if self.zh else None
            em = _EN_MAG_RE.match(s, j)
            sm = _SUFFIX_MAG_RE.match(s, j)
            zmag, zend = (zm.group(1), zm.end()) if zm else ("", j)
            if zmag and zmag[-1] in "千兆" and s[zend:zend + 1] in ("瓦", "克", "米"):
                zmag, zend = zmag[:-1], zend - 1   # 530 万千瓦时: 万 is the magnitude, 千瓦时 the unit
            if zmag and (mv := _zh_mag_value(zmag, self.lang)) and not _blocked_zh(
                    s, zm.start(1), zend):
                mag = Fraction(mv)
                j = zend
            elif em:
                mag = Fraction(_EN_MAG[em.group(1)])
                j = em.end()
            elif sm and (not (um0 := _UNIT_RE.match(s, j)) or (um0.group(1) == "B" and um0.start(1) == j)):
                mag = Fraction(_SUFFIX_MAG[sm.group(1)])
                j = sm.end()
            if mag:
                value *= mag
        if self.zh and mag is None and value.denominator == 1 and value < 100 and value % 10 == 0 \
                and re.match(r"\s*年代", s[j:]):
            # 90 年代 = the 1990s, 20 年代 (after 2000) = the 2020s
            value += 1900 if value >= 30 else 2000
        pm = _PCT_RE.match(s, j)
        um = _UNIT_RE.match(s, j)
        if pm:
            unit = "%"
            j = pm.end()
        elif um and not (um.group(1) == "s" and value.denominator == 1 and 1000 <= value <= 2999
                         and um.start(1) == j):
            u = um.group(1)
            unit = "token" if u in ("词元", "詞元") else _UNIT_CANON.get(u, u)
            j = um.end()
        elif (mm := _MULT_RE.match(s, j)):
            j = mm.end()
        elif (om := _ORD_RE.match(s, j)):
            j = om.end()
        if j < len(s) and (s[j].isascii() and s[j].isalpha()):
            # glued to letters we do not understand (e.g. "8xH100", "3rdparty"): not a number
            while j < len(s) and (s[j].isalnum() or s[j] in "_-"):
                j += 1
            return (None, j)
        return (Num(value, unit, line, s[i:j].strip(), mag), j)

    def _zh_numeral(self, s: str, i: int, line: int):
        if not self.zh:
            return None
        # 百分之 N -> percent; X 分之 Y -> fraction; N 成 -> N*10 percent
        if s.startswith("百分之", i):
            k = i + 3
            sub = self._zh_numeral_value(s, k) or self._arabic_plain(s, k)
            if sub:
                v, j = sub
                return (Num(v, "%", line, s[i:j]), j)
        m = self.zh_run_re.match(s, i)
        if not m:
            return None
        run, j = m.group(0), m.end()
        if s.startswith("分之", j):
            den = parse_zh_numeral(run, self.lang)
            sub = self._zh_numeral_value(s, j + 2) or self._arabic_plain(s, j + 2)
            if den and sub:
                v, k = sub
                return (Num(v / den, None, line, s[i:k]), k)
        if i > 0 and s[i - 1] in "第":
            return (None, j)
        if _blocked_zh(s, i, j):
            return (None, j)
        if i > 0 and s[i - 1] in "数數几幾上近" and run[0] in "十百千万萬亿億":
            return (None, j)
        if j < len(s) and s[j] in "几幾":
            return (None, j)
        if run[0] in "百千万萬亿億兆" and (mv := _zh_mag_value(run, self.lang)):
            # a bare magnitude word: 千亿参数 (10^11 parameters), 万卡集群 (10,000 GPUs)
            return (Num(Fraction(mv), None, line, run, Fraction(mv), soft=True), j)
        nums: list[Num] = []
        if len(run) == 2 and run[0] in _ZH_DIGITS and run[1] in _ZH_DIGITS and \
                _ZH_DIGITS[run[1]] == _ZH_DIGITS[run[0]] + 1 and _ZH_DIGITS[run[0]] > 0:
            # approximations: 三四个 = three or four, 一两个 = one or two
            return ([Num(Fraction(_ZH_DIGITS[run[0]]), None, line, run[0], soft=True),
                     Num(Fraction(_ZH_DIGITS[run[1]]), None, line, run[1], soft=True)], j)
        value = parse_zh_numeral(run, self.lang)
        if value is None or value == 0:
            return (None, j)
        if re.search(r"翻了?$", s[:i]) and s.startswith("番", j) and value < 10:
            # 翻一番 doubles, 翻两番 quadruples
            return (Num(Fraction(2 ** value), None, line, s[i:j + 1], soft=True), j + 1)
        hm = re.compile(r"(?:[个個]|[年天周週倍])半").match(s, j)
        if hm and value < 100:
            # 一个半小时 = 1.5 hours, 两年半 = 2.5 years: a counting phrase, like "an hour and a half"
            return (Num(Fraction(value) + Fraction(1, 2), None, line, s[i:hm.end()], soft=True), hm.end())
        if j < len(s) and s[j] == "成" and value < 10:
            # 一成 = 10%, 一成半 = 15%, 三成五 = 35%
            if s.startswith("半", j + 1):
                return (Num(Fraction(value * 10 + 5), "%", line, s[i:j + 2]), j + 2)
            if j + 1 < len(s) and s[j + 1] in _ZH_DIGITS and _ZH_DIGITS[s[j + 1]] > 0 and not (
                    j + 2 < len(s) and s[j + 2] in "十百千万萬亿億个個"):
                return (Num(Fraction(value * 10 + _ZH_DIGITS[s[j + 1]]), "%", line, s[i:j + 2]), j + 2)
            return (Num(Fraction(value * 10), "%", line, s[i:j + 1]), j + 1)
        mag = None
        for ch in reversed(run):
            if ch in _ZH_BIG or ch in _ZH_BIG_HANT:
                mag = Fraction(_zh_mag_value(ch, self.lang) or 1)
                break
        num = Num(Fraction(value), None, line, run, mag, weak=(run == "一"),
                  soft=(mag is None and value < 20))
        pm = _PCT_RE.match(s, j)
        um = _UNIT_RE.match(s, j)
        if um and um.group(1) in ("tokens", "token", "词元", "詞元"):
            num.unit = "token"
            j = um.end()
        elif pm:
            num.unit = "%"
            j = pm.end()
        nums.append(num)
        return (nums, j)

    def _zh_numeral_value(self, s: str, i: int):
        m = self.zh_run_re.match(s, i)
        if m:
            v = parse_zh_numeral(m.group(0), self.lang)
            if v:
                return (Fraction(v), m.end())
        return None

    def _arabic_plain(self, s: str, i: int):
        m = re.compile(r"\s*(\d+(?:\.\d+)?)").match(s, i)
        if m:
            return (_dec(m.group(1)), m.end())
        return None

    def _en_words(self, s: str, i: int, line: int):
        if i > 0 and (s[i - 1].isalnum() or s[i - 1] == "_"):
            return None
        m = re.compile(r"[A-Za-z]+").match(s, i)
        if not m:
            return None
        word = m.group(0)
        low = word.lower()
        if word in _MONTHS or word in _MONTH_ABBR:
            near = re.compile(r"\.?,?\s+\d").match(s, m.end()) is not None
            before = re.search(r"\d,?\s+$", s[:i]) is not None
            always = word in _MONTHS and word != "May"
            if always or near or before:
                v = _MONTHS.get(word) or _MONTH_ABBR[word]
                return (Num(Fraction(v), None, line, word), m.end())
            return (None, m.end())
        if low in _EN_SPECIAL:
            return (Num(Fraction(_EN_SPECIAL[low]), None, line, word, soft=True), m.end())
        # "dozens", "halves" (two halves are two parts): not numbers
        if _fold_base(low) is None and low not in _EN_SMALL and low not in _EN_TENS \
                and low not in _EN_MAG and low not in ("a", "an", "hundred"):
            if low == "another":
                den = _en_denominator(s, m.end())
                if den and re.match(r"\s*(?:of\b|or so\b|[.,;:)!?]|$)", s[den[1]:]):
                    return (Num(Fraction(1, den[0]), None, line, s[i:den[1]]), den[1])
            return (None, m.end())
        words = _en_number_words(s, i)
        if not words:
            return (None, m.end())
        article = words[0][0] in ("a", "an")
        body = words[1:] if article else words
        if not body:
            # "a" alone; maybe "a third" (but "a fourth scheme" is an ordinal)
            den = _en_denominator(s, words[0][2])
            if den and not s[words[0][2]:words[0][2] + 1] == "-":
                word = s[words[0][2]:den[1]].strip().lower()
                if word in ("quarter", "quarters") or re.match(_AFTER_FRACTION, s[den[1]:]):
                    return (Num(Fraction(1, den[0]), None, line, s[i:den[1]]), den[1])
            return (None, words[0][2])
        if article and body[0][0] not in ("hundred", *_EN_MAG):
            return (None, words[0][2])
        if "zero" in (w for w, _, _ in body):
            return (None, body[-1][2])
        total = 0
        cur = 0
        mag = None
        for w, _, _ in body:
            if w in _EN_SMALL:
                cur += _EN_SMALL[w]
            elif w in _EN_TENS:
                cur += _EN_TENS[w]
            elif w == "hundred":
                cur = (cur or 1) * 100
            else:
                total += (cur or 1) * _EN_MAG[w]
                mag = Fraction(_EN_MAG[w])
                cur = 0
        total += cur
        end = body[-1][2]
        text = s[i:end]
        folded = _fold_base(s[body[-1][1]:end].lower()) is not None
        if not article and body[0][0] in ("hundred", *_EN_MAG) and not folded:
            return (None, end)  # bare "million": not a number
        # fractions: "two thirds", "one-third", "three quarters", "one-eighth"
        den = None if folded or total >= 20 else _en_denominator(s, end)
        if den:
            return (Num(Fraction(total, den[0]), None, line, s[i:den[1]]), den[1])
        weak = len(body) == 1 and body[0][0] == "one"
        num = Num(Fraction(total), None, line, text, mag, weak=weak,
                  soft=(mag is None and total < 20 and not folded))
        j = end
        pm = _PCT_RE.match(s, j)
        if pm:
            num.unit = "%"
            j = pm.end()
        return (num, j)

    def extract(self, s: str, line: int) -> list[Num]:
        """All numbers in ``s`` (already cleaned of code, links, attributes)."""
        atoms: list[object] = []  # Num or "conn" or "gap"
        i = 0
        n = len(s)
        if not self.zh:
            s = _EN_NOT_NUMBERS.sub(lambda m: " " * len(m.group(0)), s)
        while i < n:
            if atoms and atoms[-1] is not None and isinstance(atoms[-1], Num):
                c = _CONNECTOR_RE.match(s, i) or (self.zh and _ZH_ALT_RE.match(s, i))
                if c and c.end() > i:
                    atoms.append("conn")
                    i = c.end()
                    continue
            got = None
            ch = s[i]
            if ch.isdigit() and ch.isascii():
                got = self._arabic(s, i, line)
            elif self.zh and ch in "〇零一二两兩三四五六七八九十百千万萬亿億兆":
                got = self._zh_numeral(s, i, line)
            elif self.zh and ch == "半":
                blocked = any(s.startswith(w, i - w.index("半")) for w in _ZH_HALF_NOT if i >= w.index("半"))
                got = (None if blocked else Num(Fraction(1, 2), None, line, ch, soft=True), i + 1)
            elif ch.isascii() and ch.isalpha():
                got = self._en_words(s, i, line)
            if got is None:
                if ch.isspace():
                    i += 1
                    continue
                if not atoms or atoms[-1] != "gap":
                    atoms.append("gap")
                # nothing between here and the next digit, letter or numeral can start a number
                # or join a range (a gap ends one), so skip to it
                nxt = self.start_re.search(s, i + 1)
                i = nxt.start() if nxt else n
                continue
            val, j = got
            if val is None:
                atoms.append("gap")
            elif isinstance(val, list):
                atoms.extend(val)
            else:
                atoms.append(val)
            i = max(j, i + 1)
        return _resolve_ranges(atoms)


def _resolve_ranges(atoms: list[object]) -> list[Num]:
    """Apply range rules: A–B where only B carries a magnitude or unit gives it to A too;
    weak numbers (one/一) survive only inside a range."""
    out: list[Num] = []
    groups: list[list[Num]] = []
    current: list[Num] = []
    expect_num = False
    for a in atoms:
        if isinstance(a, Num):
            if current and not expect_num:
                groups.append(current)
                current = []
            current.append(a)
            expect_num = False
        elif a == "conn" and current:
            expect_num = True
        else:
            if current:
                groups.append(current)
            current = []
            expect_num = False
    if current:
        groups.append(current)
    for g in groups:
        if len(g) > 1:
            last = g[-1]
            for a in g[:-1]:
                if a.text.lower() in _EN_SPECIAL or a.text == "半":
                    continue   # "doubled to 1.8 TB/s", "半到 1 ms": a word, not a range end
                if a.mag is None and last.mag is not None and a.value < last.value / last.mag * 1000:
                    a.value *= last.mag
                    a.mag = last.mag
                if a.unit is None and last.unit is not None:
                    a.unit = last.unit
                    a.soft = False   # a range end with a unit is a quantity, not a count
                    if last.text.endswith("成") and a.value < 10:
                        a.value *= 10   # 一到两成 = 10%–20%
            out.extend(g)
        else:
            out.extend(x for x in g if not x.weak)
    for x in out:
        # one of something is "a", "one", "a single", "per": matched when both sides have it
        if x.value == 1 and x.unit != "%" and x.mag is None:
            x.soft = True
    return out


_ZH_BLOCK_MAX = max(len(w) for w in ZH_NOT_NUMBERS)
#: the longest listed word starting at a position (it covers whatever a shorter one there would)
_ZH_BLOCK_RE = re.compile("(" + "|".join(
    re.escape(w) for w in sorted(set(ZH_NOT_NUMBERS), key=len, reverse=True)) + ")")


def _blocked_zh(s: str, start: int, end: int) -> bool:
    """True when s[start:end] lies entirely inside a word of ZH_NOT_NUMBERS."""
    if any(s.startswith(w, start) for w in ZH_NUMBERS_AFTER_ALL):
        return False
    for k in range(max(0, end - _ZH_BLOCK_MAX), start + 1):
        m = _ZH_BLOCK_RE.match(s, k)
        if m and end <= k + len(m.group(1)):
            return True
    return False


# --------------------------------------------------------------------------------------------
# Markdown -> sections

_FENCE_RE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_HEADING_RE = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*$")
_ATTR_RE = re.compile(r"\{\s*([#.][^{}]*|[\w-]+\s*=[^{}]*)\}")
_ID_RE = re.compile(r"\{#((?:sec|fig|tbl|eq)-[^\s}]+)[^}]*\}")
_BOUND_RE = re.compile(r"\{\{\s*([A-Za-z_][\w.]*)\s*(?:\|[^{}]*)?\}\}")
_INLINE_CODE_RE = re.compile(r"(`+)(.+?)\1")
_INLINE_MATH_RE = re.compile(r"(?<![\\$])\$(?!\s)([^$]+?)(?<![\s\\])\$(?!\d)")
_IMAGE_LINK_RE = re.compile(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\((?:[^()\s]|\([^()]*\))*(?:\s+\"[^\"]*\")?\)")
_REF_LINK_RE = re.compile(r"\[([^\[\]^]+)\]\[[^\]]*\]")
_LINK_DEF_RE = re.compile(r"^\s{0,3}\[(?!\^)[^\]]+\]:\s+\S+")
_AUTOLINK_RE = re.compile(r"<(?:https?|ftp|mailto):[^>\s]*>")
_URL_RE = re.compile(r"(?:https?://|www\.)[^\s<>()\[\]，。]+")
_HTML_COMMENT_RE = re.compile(r"<!--.*?-->")
_HTML_TAG_RE = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s+[^<>]*)?/?>")
_ZH_SPAN_RE = re.compile(r"<span\s+[^>]*lang=[\"']?zh[^>]*>.*?</span>", re.I)
_FOOTREF_RE = re.compile(r"\[\^([^\]\s]+)\]")
_FOOTDEF_RE = re.compile(r"^\s{0,3}\[\^([^\]\s]+)\]:")
_XREF_RE = re.compile(r"@(?:sec|fig|tbl|eq)-[\w-]+")
_TABLE_SEP_RE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")

# Typed labels: "图 7-2", "7.4 节", "第 6 章", "Figure 7-2", "Section 7.4". Their numbers name a
# place in the book, not a quantity; they are compared with labels of the same kind only.
_LABEL_KIND = {
    "图": "figure", "圖": "figure", "figure": "figure", "figures": "figure", "fig.": "figure",
    "figs.": "figure", "表": "table", "table": "table", "tables": "table",
    "章": "chapter", "chapter": "chapter", "chapters": "chapter", "ch.": "chapter",
    "chap.": "chapter", "节": "section", "節": "section", "小节": "section", "小節": "section",
    "section": "section", "sections": "section", "sec.": "section", "§": "section",
    "练习": "exercise", "練習": "exercise", "习题": "exercise", "習題": "exercise",
    "题": "exercise", "題": "exercise", "例题": "example", "例題": "example", "式": "equation",
    "exercise": "exercise", "exercises": "exercise", "实验": "lab", "實驗": "lab",
    "experiment": "lab", "experiments": "lab", "lab": "lab", "labs": "lab",
    "例": "example", "示例": "example", "範例": "example", "example": "example",
    "examples": "example", "代码清单": "listing", "程式碼清單": "listing", "清单": "listing",
    "清單": "listing", "listing": "listing", "listings": "listing", "公式": "equation",
    "equation": "equation", "equations": "equation", "eq.": "equation", "eqs.": "equation",
    "附录": "appendix", "附錄": "appendix", "appendix": "appendix", "appendices": "appendix",
    "篇": "part", "部分": "part", "part": "part", "parts": "part", "算法": "algorithm",
    "演算法": "algorithm", "algorithm": "algorithm", "algorithms": "algorithm",
    "讲": "lecture", "講": "lecture", "lecture": "lecture", "lectures": "lecture",
    "lesson": "lecture", "lessons": "lecture",
}
_LNUM = r"\d+(?:\s*[.\-–—‐‑]\s*\d+)*"
_ZH_LIST = rf"(?:\s*(?:[、,，和与與及或至到~～]|以及)\s*{_LNUM})*"
_EN_LIST = rf"(?:\s*(?:,|and|or|to|through)\s*{_LNUM})*"
_ZH_LABEL_RE = re.compile(
    rf"(?P<k>代码清单|程式碼清單|练习|練習|习题|習題|例题|例題|实验|實驗|示例|範例|清单|清單|公式|附录|附錄|"
    rf"(?<=[其见見由按如据據和与與及或、，（(\s])式|"
    rf"算法|演算法|(?<![意试試企地构構])图|(?<![意試企地構])圖|(?<![代列发發外])表"
    rf"|(?<![比举舉实實案示范範条條惯慣特用])例)\s*[(（]?\s*(?P<n>{_LNUM}{_ZH_LIST})(?![\d.,]*\d)\s*[)）]?"
    rf"|第\s*(?P<n2>{_LNUM}{_ZH_LIST})\s*(?P<k2>章|小节|小節|节|節|篇|部分|讲|講|题|題)"
    rf"|(?P<n3>\d+(?:\.\d+)+|\d+)\s*(?P<k3>小节|小節|节|節)(?!省|点|點|约|約|课|課)"
    rf"|(?P<k4>§)\s*(?P<n4>{_LNUM})")
_EN_LABEL_RE = re.compile(
    rf"\b(?P<k>[Ff]igures?|Figs?\.|[Tt]ables?|[Cc]hapters?|Chaps?\.|Ch\.|[Ss]ections?|Secs?\.|"
    rf"[Ee]xercises?|Experiments?|Labs?|(?<![Ff]or )[Ee]xamples?|[Ll]istings?|[Ee]quations?|Eqs?\.|"
    rf"[Aa]ppendix|[Aa]ppendices|Parts?|"
    rf"Algorithms?|Lectures?|Lessons?)\s*(?:(?P<n>{_LNUM}{_EN_LIST})(?![\d.,]*\d|\s*(?:%|percent))"
    rf"|\((?P<np>{_LNUM})\))"
    rf"|(?P<k4>§)\s*(?P<n4>{_LNUM})")


def _label_number(text: str) -> str:
    """"2—5" -> "2-5"; "3-3、3-4" / "3-3 and 3-4" / "3-1 to 3-4" -> "3-3,3-4" (each end of a
    worded range is a label of its own: 练习 3-1 到练习 3-4 = Exercises 3-1 to 3-4)."""
    t = re.sub(r"\s*(?:[、,，和与與及或至到]|以及|\band\b|\bor\b|\bto\b|\bthrough\b)\s*", ",", text)
    t = re.sub(r"\s*[\-–—‐‑~～]\s*", "-", t)
    return re.sub(r"\s+", "", t)


def _take_labels(s: str, zh: bool, lineno: int, out: list) -> str:
    """Records the typed labels of ``s`` in ``out`` and returns ``s`` with them blanked."""
    def repl(m: re.Match) -> str:
        k = m.group("k") or m.group("k4") or (m.groupdict().get("k2")) or m.groupdict().get("k3")
        n = m.group("n") or m.group("n4") or m.groupdict().get("n2") or m.groupdict().get("n3") \
            or m.groupdict().get("np")
        for one in _label_number(n).split(","):   # "算法 0 与算法 1" = "Algorithms 0 and 1"
            out.append((_LABEL_KIND[k.lower()], one, lineno, m.group(0).strip()))
        return " " * len(m.group(0))
    return (_ZH_LABEL_RE if zh else _EN_LABEL_RE).sub(repl, s)


#: file paths (with an extension, or starting ./ ../) are names, not data
_PATH_RE = re.compile(r"(?<![\w/])(?:\.{1,2}/[\w./-]+|(?:[\w.-]+/)+[\w.-]*\.[A-Za-z]\w{0,5}(?![\w/]))")
_PATHLIKE_TEXT_RE = re.compile(r"\s*`?(?:[\w.-]+/)*[\w.-]+(?:/|\.[A-Za-z]\w{0,5})`?\s*")
_SUP_RE = re.compile(r"<sup>\s*([+\-−]?\d+)\s*</sup>")

# Figures without IDs: a static image, and a caption line below it
_IMAGE_ONLY_RE = re.compile(r"^\s*!\[[^\]]*\]\([^)]*\)\s*(?:\{[^}]*\})?\s*$")
_CAPTION_LINE_RE = re.compile(
    r"^\s*(?:(?P<i>\*{1,2}|_{1,2})(?!\s)(?:(?!(?P=i)).)+(?P=i)\s*$"
    r"|(?:图|圖|Figure|Fig\.)\s*\d)")

# Typed heading numbers: "第 3 章 …", "3.1.2 …", "Chapter 3: …", "Section 3.1 …"
_HEADING_NUMBER_RE = re.compile(
    r"^\s*(?:第\s*(?P<a>\d+|[一二三四五六七八九十百零〇两]+)\s*[章节節篇部讲講]\s*[:：.、]?"
    r"|(?:Chapter|Section|Part|Lecture|Lesson)\s+(?P<b>\d+(?:\.\d+)*)\s*[:：.]?"
    r"|(?P<c>\d{1,2}(?:\.\d{1,3})*)(?:\.|\s)\s*(?=\S))", re.I)


def _heading_number(title: str) -> tuple[str | None, str]:
    """The typed number of a heading ("3.1.2", "3" for 第三章) and the title without it."""
    m = _HEADING_NUMBER_RE.match(title)
    if not m:
        return None, title
    rest = title[m.end():]
    if m.group("c") and (_UNIT_RE.match(" " + rest) or re.match(r"\s*(?:[年月日号%]|\d)", rest)):
        return None, title   # "2024 年…", "80 GB …": a quantity, not a number of the heading
    n = m.group("a") or m.group("b") or m.group("c")
    if n and not n[0].isdigit():
        v = parse_zh_numeral(n, "zh-Hans")
        n = str(v) if v else None
    return n, rest


def _clean_math(tex: str) -> str:
    tex = re.sub(r"\\(?:text|mathrm|textrm|mathit|operatorname|textbf|mathbf)\s*\{([^{}]*)\}", r" \1 ", tex)
    tex = tex.replace("{,}", ",").replace("\\%", "%").replace("\\times", "×").replace("\\cdot", "·")
    tex = tex.replace("\\mu", "μ")
    tex = re.sub(r"\\[,;:! ]", " ", tex)
    tex = re.sub(r"\^\s*\{\s*(-?\d+)\s*\}", r"^\1", tex)
    tex = re.sub(r"\\[A-Za-z]+", " ", tex)
    tex = tex.replace("{", " ").replace("}", " ").replace("~", " ")
    tex = re.sub(r"(?<=μ)\s+(?=s\b)", "", tex)
    return tex


def _link_text(m: re.Match, drop_alt: bool) -> str:
    """The text of a link or image; nothing for the alt text of a figure captioned below, or a
    link text that is a file path."""
    text = m.group(1)
    if (drop_alt and m.group(0).startswith("!")) or _PATHLIKE_TEXT_RE.fullmatch(text):
        return ""
    return text


def _normalise_chars(s: str) -> str:
    s = re.sub(r"(?<=[０-９])，(?=[０-９]{3}(?![０-９]))", ",", s)  # full-width digit grouping
    s = s.translate(_FULLWIDTH)
    s = re.sub(r"(?<=\d)．(?=\d)", ".", s)
    return s.replace("\u00a0", " ").replace("\u2009", " ").replace("\u202f", " ").replace("\u3000", " ")


class _Parser:
    def __init__(self, text: str, lang: str):
        self.lang = lang
        self.ex = _Extractor(lang)
        self.text = text

    def parse(self) -> Document:
        lines = self.text.splitlines()
        sections = [Section(id="_preamble", line=1)]
        labels: list[tuple[str, int]] = []
        fdefs: list[tuple[str, int]] = []
        frefs: list[tuple[str, int]] = []
        han: list[tuple[str, int]] = []
        fence: str | None = None
        in_math = False
        in_comment = False
        heading_index = 0
        start = 0
        notes: dict[str, Section] = {}
        note: Section | None = None
        note_blank = False
        # a figure whose caption is written twice (alt text, then an italic line below the
        # image) is read once: from the caption line
        drop_alt: set[int] = set()
        for k, text in enumerate(lines):
            if _IMAGE_ONLY_RE.match(text):
                nxt = next((x for x in lines[k + 1:k + 3] if x.strip()), "")
                if _CAPTION_LINE_RE.match(nxt):
                    drop_alt.add(k)
        if lines and lines[0].strip() == "---":  # YAML front matter
            for k in range(1, len(lines)):
                if lines[k].strip() in ("---", "..."):
                    start = k + 1
                    break
        for idx in range(start, len(lines)):
            raw = lines[idx]
            lineno = idx + 1
            if fence is not None:
                sections[-1].lines.append(raw)
                if re.match(rf"^\s{{0,3}}{fence[0]}{{{len(fence)},}}\s*$", raw):
                    fence = None
                continue
            fm = _FENCE_RE.match(raw)
            if fm and not in_math:
                fence = fm.group(1)
                sections[-1].lines.append(raw)
                continue
            if in_comment:
                sections[-1].lines.append(raw)
                if "-->" in raw:
                    in_comment = False
                continue
            hm = _HEADING_RE.match(raw) if not in_math else None
            if hm:
                heading_index += 1
                note = None
                title = hm.group(2)
                idm = re.search(r"\{#(sec-[^\s}]+)[^}]*\}\s*$", title)
                sid = idm.group(1) if idm else f"_h{heading_index}"
                plain = _ATTR_RE.sub("", title).strip()
                number, body = _heading_number(plain)
                sections.append(Section(id=sid, line=lineno, lines=[raw], title=plain,
                                        level=len(hm.group(1)), heading_number=number,
                                        has_id=idm is not None))
                body = title if number is None else body  # numbers in titles count like prose
                self._scan(body, lineno, sections[-1], labels, frefs, han, math_mode=False)
                continue
            sections[-1].lines.append(raw)
            stripped = raw.strip()
            if stripped.startswith("<!--") and "-->" not in stripped:
                in_comment = True
                continue
            if stripped.startswith("$$"):
                rest = stripped[2:]
                if in_math:
                    in_math = False
                    self._scan_attrs(rest, lineno, labels)
                    continue
                if "$$" in rest:  # one-line display math
                    inner, _, after = rest.partition("$$")
                    self._math(inner, lineno, sections[-1], han)
                    self._scan_attrs(after, lineno, labels)
                    continue
                in_math = True
                self._math(rest, lineno, sections[-1], han)
                continue
            if in_math:
                if stripped.endswith("$$") or "$$" in stripped:
                    inner, _, after = stripped.partition("$$")
                    self._math(inner, lineno, sections[-1], han)
                    self._scan_attrs(after, lineno, labels)
                    in_math = False
                else:
                    self._math(raw, lineno, sections[-1], han)
                continue
            if _LINK_DEF_RE.match(raw) or _TABLE_SEP_RE.match(raw):
                continue
            dm = _FOOTDEF_RE.match(raw)
            target = sections[-1]
            if dm:
                fdefs.append((dm.group(1), lineno))
                raw = raw[dm.end():]
                note = Section(id=f"[^{dm.group(1)}]", line=lineno, title=f"footnote [^{dm.group(1)}]")
                notes.setdefault(dm.group(1), note)
                note_blank = False
                target = note
            elif note is not None and not stripped:
                note_blank = True
            elif note is not None and (not note_blank or raw.startswith(("    ", "\t"))):
                target = note   # the note's lazy continuation, or an indented paragraph of it
            else:
                note = None
            self._scan(raw, lineno, target, labels, frefs, han, math_mode=False,
                       drop_alt=idx in drop_alt)
        if not sections[0].lines or all(not x.strip() for x in sections[0].lines):
            if not sections[0].nums and not sections[0].refs:
                sections.pop(0)
        return Document(sections, labels, fdefs, frefs, han, notes)

    def _scan_attrs(self, s: str, lineno: int, labels: list) -> None:
        for m in _ID_RE.finditer(s):
            if not m.group(1).startswith("sec-"):
                labels.append((m.group(1), lineno))

    def _math(self, tex: str, lineno: int, sec: Section, han: list) -> None:
        for m in _BOUND_RE.finditer(tex):
            sec.refs.append((m.group(1), lineno))
        tex = _BOUND_RE.sub(" ", tex)
        if self.lang == "en":
            for hm in _HAN_RE.finditer(tex):
                han.append((hm.group(0), lineno))
        sec.nums.extend(self.ex.extract(_normalise_chars(_clean_math(tex)), lineno))

    def _scan(self, s: str, lineno: int, sec: Section, labels: list, frefs: list, han: list,
              *, math_mode: bool, drop_alt: bool = False) -> None:
        s = _HTML_COMMENT_RE.sub(" ", s)
        sec.images.extend(lineno for _ in re.finditer(r"!\[[^\]]*\]\(|<img\b", s))
        s = _INLINE_CODE_RE.sub(" ", s)
        self._scan_attrs(s, lineno, labels)
        for m in _FOOTREF_RE.finditer(s):
            frefs.append((m.group(1), lineno))
        s = _FOOTREF_RE.sub(" ", s)
        # math segments first (they may hold bound refs and braces)
        pieces: list[tuple[bool, str]] = []
        pos = 0
        for m in _INLINE_MATH_RE.finditer(s):
            pieces.append((False, s[pos:m.start()]))
            pieces.append((True, m.group(1)))
            pos = m.end()
        pieces.append((False, s[pos:]))
        for is_math, piece in pieces:
            if is_math:
                self._math(piece, lineno, sec, han)
                continue
            for m in _BOUND_RE.finditer(piece):
                sec.refs.append((m.group(1), lineno))
            piece = _BOUND_RE.sub(" ", piece)
            piece = _ATTR_RE.sub(" ", piece)
            piece = _AUTOLINK_RE.sub(" ", piece)
            piece = _IMAGE_LINK_RE.sub(lambda m: " " + _link_text(m, drop_alt) + " ", piece)
            piece = _REF_LINK_RE.sub(lambda m: " " + _link_text(m, False) + " ", piece)
            piece = _URL_RE.sub(" ", piece)
            piece = _PATH_RE.sub(lambda m: " " * len(m.group(0)), piece)
            piece = _SUP_RE.sub(r"^\1", piece)
            piece = _ZH_SPAN_RE.sub(" ", piece) if self.lang == "en" else piece
            piece = _HTML_TAG_RE.sub(" ", piece)
            piece = _XREF_RE.sub(" ", piece)
            piece = _take_labels(_normalise_chars(piece), self.ex.zh, lineno, sec.xlabels)
            piece = piece.replace("\\$", " ")
            if piece.lstrip().startswith(": "):
                piece = piece.lstrip()[2:]
            if self.lang == "en":
                for hm in _HAN_RE.finditer(piece):
                    han.append((hm.group(0), lineno))
            sec.nums.extend(self.ex.extract(piece, lineno))  # normalised above


def parse_document(text: str, lang: str) -> Document:
    """Split a Markdown chapter into sections and read its numbers and structure."""
    lang = normalize_lang(lang)
    return _Parser(text, lang).parse()


def extract_numbers(text: str, lang: str) -> list[Num]:
    """All numbers of a Markdown text, in order (a convenience for tests and tools)."""
    doc = parse_document(text, lang)
    return [n for s in doc.sections for n in s.nums]


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


def _compare_numbers(osec: Section, tsec: Section, where: str = "") -> list[Finding]:
    findings: list[Finding] = []
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
        findings.append(Finding(
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
    for on, tn in pairs:
        what = "unit" if on.value == tn.value else "value"
        sev = "medium" if (on.soft and tn.soft) else "high"
        findings.append(Finding(
            "changed", value_text(on.value), on.unit, on.line, tn.line,
            f"number {what} changed in section {where}: original {_describe(on)} "
            f"(line {on.line}), translation {_describe(tn)}", sev, title))
    for mi, (_, on) in enumerate(missing):
        if mi not in mdone and not on.soft:
            findings.append(Finding(
                "missing", value_text(on.value), on.unit, on.line, tsec.line,
                f"number missing from section {where}: original {_describe(on)} (line {on.line}) "
                f"has no counterpart in the translation", _number_severity(on), title))
    for ei, (_, tn) in enumerate(extra):
        if ei not in edone and not tn.soft:
            findings.append(Finding(
                "extra", value_text(tn.value), tn.unit, None, tn.line,
                f"extra number in section {where}: translation {_describe(tn)} is not in the original",
                _number_severity(tn), title))
    return findings


def _compare_xlabels(osec: Section, tsec: Section, where: str) -> list[Finding]:
    """Typed labels (图 7-2 / Figure 7-2) of one kind are compared with each other only. A label
    one side leaves out is not reported (translations often write "the figure below"); a label
    that names another number where the other side has one of the same kind is."""
    out: list[Finding] = []
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
        out.append(Finding("changed", num, None, line, hit[2],
                           f"label changed in section {where}: original {text!r} (line {line}), "
                           f"translation {hit[3]!r}", "medium", osec.title or None))
    return out


def _compare_refs(osec: Section, tsec: Section, where: str = "") -> list[Finding]:
    where = where or osec.id
    title = osec.title or None
    oc = Counter(n for n, _ in osec.refs)
    tc = Counter(n for n, _ in tsec.refs)
    miss = list((oc - tc).elements())
    extra = list((tc - oc).elements())
    out: list[Finding] = []
    oline = {n: ln for n, ln in reversed(osec.refs)}
    tline = {n: ln for n, ln in reversed(tsec.refs)}
    while miss and extra:
        a, b = miss.pop(0), extra.pop(0)
        out.append(Finding("changed", f"{{{{ {a} }}}}", None, oline[a], tline[b],
                           f"bound number renamed in section {where}: {{{{ {a} }}}} became {{{{ {b} }}}}",
                           "high", title))
    for a in miss:
        out.append(Finding("missing", f"{{{{ {a} }}}}", None, oline[a], tsec.line,
                           f"bound number {{{{ {a} }}}} of section {where} is missing from the translation",
                           "high", title))
    for b in extra:
        out.append(Finding("extra", f"{{{{ {b} }}}}", None, None, tline[b],
                           f"bound number {{{{ {b} }}}} is not in section {where} of the original",
                           "high", title))
    return out


def _compare_labels(kind: str, orig: list[tuple[str, int]], trans: list[tuple[str, int]]) -> list[Finding]:
    out: list[Finding] = []
    oc = Counter(x for x, _ in orig)
    tc = Counter(x for x, _ in trans)
    oline = {x: ln for x, ln in reversed(orig)}
    tline = {x: ln for x, ln in reversed(trans)}
    for x in (oc - tc):
        out.append(Finding("structure", x, None, oline[x], None,
                           f"{kind} {x} is in the original but not in the translation"))
    for x in (tc - oc):
        out.append(Finding("structure", x, None, None, tline[x],
                           f"{kind} {x} is in the translation but not in the original"))
    return out


# --- section alignment ------------------------------------------------------------------------

_NO_MATCH = -1e9
_GAP = -1.5


def _section_similarity(o: Section, t: Section, okeys: Counter, tkeys: Counter) -> float:
    """How well two headings correspond: the same ID decides; else the level, the typed heading
    number (3.1.2) and the numbers inside the section."""
    total = max(sum(okeys.values()), sum(tkeys.values()))
    overlap = sum((okeys & tkeys).values()) / total if total else 0.0
    if (o.id == "_preamble") != (t.id == "_preamble"):
        # the text before the first heading on one side, a headed section on the other: the
        # first heading was dropped (or added); the numbers decide
        return 4.0 * overlap - 1.0
    if o.id == "_preamble":
        return 5.0
    if o.has_id and t.has_id:
        return 10.0 if o.id == t.id else _NO_MATCH
    score = 1.0 if o.level == t.level else -1.0
    if o.heading_number and t.heading_number:
        score += 3.0 if o.heading_number == t.heading_number else -4.0
    if total:
        score += 4.0 * overlap - 1.0
    return score


def align_sections(orig: list[Section], trans: list[Section]) -> list[tuple[int | None, int | None]]:
    """Pairs of section indexes (original, translation), ``None`` where a heading has no
    counterpart: a global sequence alignment (Needleman-Wunsch) of the two heading lists, so
    one heading missing on one side leaves every other pair in place. Written out because the
    standard library's difflib matches equal items only, and headings of two languages are
    never equal: they are scored by :func:`_section_similarity`."""
    okeys = [Counter(n.key for n in s.nums if not n.soft) for s in orig]
    tkeys = [Counter(n.key for n in s.nums if not n.soft) for s in trans]
    n, m = len(orig), len(trans)
    score = [[0.0] * (m + 1) for _ in range(n + 1)]
    move = [[0] * (m + 1) for _ in range(n + 1)]  # 0 diagonal, 1 gap in translation, 2 gap in original
    for i in range(1, n + 1):
        score[i][0], move[i][0] = score[i - 1][0] + _GAP, 1
    for j in range(1, m + 1):
        score[0][j], move[0][j] = score[0][j - 1] + _GAP, 2
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            sim = _section_similarity(orig[i - 1], trans[j - 1], okeys[i - 1], tkeys[j - 1])
            options = (score[i - 1][j - 1] + sim, score[i - 1][j] + _GAP, score[i][j - 1] + _GAP)
            best = max(range(3), key=lambda k: (options[k], -k))
            score[i][j], move[i][j] = options[best], best
    pairs: list[tuple[int | None, int | None]] = []
    i, j = n, m
    while i or j:
        mv = move[i][j]
        if mv == 0:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif mv == 1:
            pairs.append((i - 1, None))
            i -= 1
        else:
            pairs.append((None, j - 1))
            j -= 1
    return pairs[::-1]


def _merged(sections: list[Section]) -> Section:
    first = sections[0]
    if len(sections) == 1:
        return first
    out = Section(id=first.id, line=first.line, title=first.title, level=first.level,
                  heading_number=first.heading_number, has_id=first.has_id,
                  lines=[x for s in sections for x in s.lines])
    for s in sections:
        out.nums.extend(s.nums)
        out.refs.extend(s.refs)
        out.xlabels.extend(s.xlabels)
        out.images.extend(s.images)
    return out


def _without_heading(s: Section) -> Section:
    """A section whose heading has no counterpart, without the heading's own numbers (the
    heading is the finding; its paragraphs are still compared)."""
    out = _merged([s, Section(id=s.id, line=s.line)])
    out.nums = [n for n in s.nums if n.line != s.line]
    out.xlabels = [x for x in s.xlabels if x[2] != s.line]
    out.lines = list(s.lines)
    return out


def _heading_name(s: Section) -> str:
    return s.id if s.has_id or s.id == "_preamble" else f"“{s.title}”"


def check_documents(orig: Document, trans: Document) -> list[Finding]:
    """Compare two parsed documents (see :func:`check_pair`)."""
    findings: list[Finding] = []
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
                findings.append(Finding("structure", t.id, None, None, t.line,
                                        f"section {_heading_name(t)} is not in the original "
                                        f"(its text is there, before the first heading)", "high",
                                        t.title or None))
            elif t.id == "_preamble" and o.id != "_preamble":
                findings.append(Finding("structure", o.id, None, o.line, None,
                                        f"section {_heading_name(o)} is missing from the translation "
                                        f"(its text is there, before the first heading)", "high",
                                        o.title or None))
            continue
        if oi is not None:
            s = orig.sections[oi]
            findings.append(Finding("structure", s.id, None, s.line, None,
                                    f"section {_heading_name(s)} is missing from the translation "
                                    f"(no heading corresponds to it)", "high", s.title or None))
            (groups[-1][0] if groups else pending_o).append(_without_heading(s))
        else:
            s = trans.sections[ti]
            findings.append(Finding("structure", s.id, None, None, s.line,
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
        findings.extend(_compare_numbers(o, t, where))
        findings.extend(_compare_refs(o, t, where))
        findings.extend(_compare_xlabels(o, t, where))
        if not orig.labels and not trans.labels and len(o.images) != len(t.images):
            findings.append(Finding(
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
            findings.extend([Finding("structure", f"[^{label}]", None, ol, tl,
                                     f"footnote [^{label}] is referenced {oref[label]} time(s) in the "
                                     f"original and {tref[label]} in the translation")])
    for snippet, line in trans.han:
        findings.append(Finding("leftover", snippet, None, None, line,
                                f"untranslated Chinese text {snippet!r}"))
    findings.sort(key=lambda f: (f.translation_line or 0, f.original_line or 0, f.kind, str(f.value)))
    return findings


def check_pair(original_text: str, translation_text: str, lang: str,
               original_path: str = "", translation_path: str = "") -> list[Finding]:
    """Compare an original chapter with its translation into ``lang`` (``en`` or ``zh-tw``).

    Returns the findings sorted by translation line. The paths are only used in messages of
    callers; the texts are what is read.
    """
    tlang = normalize_lang(lang)
    if tlang not in TRANSLATION_LANGS:
        raise ValueError(f"translation language must be en or zh-tw, not {lang!r}")
    orig = parse_document(original_text, "zh-Hans")
    trans = parse_document(translation_text, tlang)
    return check_documents(orig, trans)


_SEVERITY_RANK = {"high": 0, "medium": 1, "low": 2}


def rank(findings: list[Finding]) -> list[Finding]:
    """Most severe first; within one severity, in the order of the translation."""
    return sorted(findings, key=lambda f: (_SEVERITY_RANK.get(f.severity, 1), f.translation_line or 0,
                                           f.original_line or 0, f.kind))


def format_text(findings: list[Finding], translation_path: str) -> str:
    """One line per finding, most severe first: ``TRANSLATION.md:LINE: kind [severity]: message``."""
    out = []
    for f in rank(findings):
        line = f.translation_line if f.translation_line is not None else 1
        out.append(f"{translation_path}:{line}: {f.kind} [{f.severity}]: {f.message}")
    return "\n".join(out)


def format_summary(findings: list[Finding]) -> str:
    """A per-section count by severity, sections in the order of the translation, so a reader
    sees first where the important findings are."""
    if not findings:
        return ""
    per: dict[str, Counter] = {}
    first: dict[str, tuple[int, str]] = {}
    for f in findings:
        name = f.section or "(whole chapter)"
        per.setdefault(name, Counter())[f.severity] += 1
        # the translation's line where there is one (a section the translation lacks has only
        # the original's)
        where = (f.translation_line, "line") if f.translation_line else (f.original_line or 0, "original line")
        first[name] = min(first.get(name, (10**9, "")), where)
    total = Counter(f.severity for f in findings)
    head = (f"{len(findings)} finding(s): " + ", ".join(f"{total[s]} {s}" for s in SEVERITIES)
            + f", in {len(per)} section(s)")
    rows = []
    for name in sorted(per, key=lambda n: first[n]):
        counts = ", ".join(f"{per[name][s]} {s}" for s in SEVERITIES if per[name][s])
        rows.append(f"  {name} ({first[name][1]} {first[name][0]}): {counts}")
    return "\n".join([head, *rows])
