"""Numbers in one line of text, in a language-neutral form: an exact value, a unit, the text.

Part of the translation number check (:mod:`bookkit.check.pair`): Arabic digits with
grouping, magnitudes (亿, billion, K), scientific notation, Chinese numerals, English number
words, fractions, percentages and ranges; the words in which numerals are not numbers.

Why one module of this size: one left-to-right scanner (`_Parser`) whose rules depend on each
other (a magnitude after a digit, a unit after a range, a numeral inside a word), measured as
a whole on the real-world corpus (tests/translation); the rules are in CONTRIBUTING ("How the
number check reads numbers").
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from fractions import Fraction

from bookkit.locale.languages import LANGUAGES, find

#: The readers this module implements for a translation; a language record names the one that
#: reads its numbers (`Language.number_reader`). An original is read with its own record's
#: reader (`READERS`: these and zh-Hans, the book's original).
TRANSLATION_LANGS = ("en", "zh-Hant")
READERS = ("zh-Hans", *TRANSLATION_LANGS)


def normalize_lang(lang: str) -> str:
    """The reader of numbers written in ``lang`` (a tag or alias: ``zh-tw`` -> ``zh-Hant``), from
    its language record; a ValueError when there is none."""
    record = find(lang)
    if record is None or record.number_reader is None:
        readable = ", ".join(t for t, r in LANGUAGES.items() if r.number_reader)
        raise ValueError(f"unknown language {lang!r} for the number check (it reads "
                         f"{readable}; a language's record names its reader)")
    return record.number_reader



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
    #: what the comparison made of it, for the side-by-side view: "paired", "changed",
    #: "unpaired" (reported missing or extra), "" (not compared: a paragraph on one side only)
    status: str = field(default="", compare=False, repr=False)

    @property
    def key(self) -> tuple[Fraction, str | None]:
        return (self.value, None if self.unit in SOFT_UNITS else self.unit)



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
    # durations (issue 29: "14 minutes" against 14 秒 is a changed unit, not the same number)
    "seconds", "second", "minutes", "minute", "min", "hours", "hour", "h",
    "秒", "分钟", "分鐘", "小时", "小時",
]
#: spellings of one unit (Gb/s, Gbit/s and Gbps are the same bit rate)
_UNIT_CANON = {"µs": "μs", "bits": "bit", "tokens": "token", "us": "μs",
               "Tb/s": "Tbit/s", "Tbps": "Tbit/s", "Gb/s": "Gbit/s", "Gbps": "Gbit/s",
               "Mb/s": "Mbit/s", "Mbps": "Mbit/s", "千瓦时": "kWh", "千瓦時": "kWh", "千瓦": "kW",
               "兆瓦": "MW", "千克": "kg", "千米": "km", "公里": "km",
               "seconds": "s", "second": "s", "秒": "s", "minutes": "min", "minute": "min",
               "分钟": "min", "分鐘": "min", "hours": "h", "hour": "h", "小时": "h", "小時": "h"}
#: a month of the calendar (July, 7 月): pairs only with another month, and a month that one
#: side names and the other does not is never reported alone (a translation may date an event
#: more or less exactly)
MONTH = "month"
_ZH_MONTH_RE = re.compile(r"[ \t]*月(?![份]?[数數]|度|薪|费|費|活|球|光|饼|餅|台|臺|底价)")
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
                "thousandth": 1000, "thousandths": 1000, "millionth": 10**6, "millionths": 10**6,
                "billionth": 10**9, "billionths": 10**9, "trillionth": 10**12,
                "trillionths": 10**12}
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
    "十六进制 十六進制 十进位 十進位 二进位 二進位 百分位 一概 一律 二话 二話 两难 兩難 两全 兩全 一半 两半 兩半 "
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
        month = self.zh and mag is None and value.denominator == 1 and 1 <= value <= 12 \
            and _ZH_MONTH_RE.match(s, j)
        if month:
            j = month.end()
            return (Num(value, MONTH, line, s[i:j].strip(), soft=True), j)
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
        if (run[0] in "百千万萬亿億兆" or (len(run) > 1 and all(c in "十百千万萬亿億兆" for c in run))) \
                and (mv := _zh_mag_value(run, self.lang)):
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
        if j < len(s) and s[j] == "成" and value < 10 and not _ZH_CHENG_WORD_RE.match(s, j):
            # 一成 = 10%, 一成半 = 15%, 三成五 = 35%
            if s.startswith("半", j + 1):
                return (Num(Fraction(value * 10 + 5), "%", line, s[i:j + 2]), j + 2)
            if j + 1 < len(s) and s[j + 1] in _ZH_DIGITS and _ZH_DIGITS[s[j + 1]] > 0 and not (
                    j + 2 < len(s) and s[j + 2] in "十百千万萬亿億个個"):
                return (Num(Fraction(value * 10 + _ZH_DIGITS[s[j + 1]]), "%", line, s[i:j + 2]), j + 2)
            return (Num(Fraction(value * 10), "%", line, s[i:j + 1]), j + 1)
        mag = None
        tail = re.search(r"[十百千]*[万萬亿億兆]+$", run)
        if tail and (mv := _zh_mag_value(tail.group(0), self.lang)):
            # 三百万: the magnitude is 百万 (a million), so that 一到三百万 is 1–3 million
            mag = Fraction(mv)
        num = Num(Fraction(value), None, line, run, mag, weak=(run == "一"),
                  soft=(mag is None and value < 20))
        if mag is None and 1 <= value <= 12 and (mm := _ZH_MONTH_RE.match(s, j)):
            num.unit, num.soft = MONTH, True
            return ([num], mm.end())
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
                return (Num(Fraction(v), MONTH, line, word, soft=True), m.end())
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


#: 成 beginning a word (三成员 three members, 这一成本 this cost, 一成不变) is not "tenths"
_ZH_CHENG_WORD_RE = re.compile(r"成(?:员|員|本|立|为|為|功|熟|果|长|長|绩|績|就|交|品|型|分|套|批|对|對|千|百|万|萬|不变|不變|形|熟|像|年|人|效|败|敗|真|因)")

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


