"""A Markdown chapter as the number check reads it: sections, their paragraphs (blocks) and
the numbers, typed labels, bound references and images of each (:func:`parse_document`).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

# The parser's bound-number grammar: refs are its matches, and every `{{ … }}` is blanked.
from bookkit.source.markdown import BOUND_RE as _BOUND_RE, BOUND_SPAN_RE as _BOUND_SPAN_RE
from bookkit.check.extract import (_HAN, _HAN_RE, _UNIT_RE, Num, _Extractor, _FULLWIDTH,
                                    normalize_lang, parse_zh_numeral)


@dataclass
class Block:
    """One paragraph, list item, table row, caption, image or heading of a section: the unit
    the paragraphs of two editions are aligned by (:func:`bookkit.check.align.align_blocks`)."""

    line: int          # its first line
    end: int           # its last line
    kind: str          # "heading", "para", "item", "row", "caption", "image", "math"
    text: str = ""     # its raw text, lines joined by spaces
    nums: list[Num] = field(default_factory=list)
    refs: list[tuple[str, int]] = field(default_factory=list)
    xlabels: list[tuple[str, str, int, str]] = field(default_factory=list)
    images: list[int] = field(default_factory=list)
    #: in a section whose heading has no counterpart (that heading is the finding)
    orphan: bool = False

    @property
    def size(self) -> float:
        """Length in language-neutral units: a Han character is one, about 2.6 other
        characters are one (an English sentence runs some 2.6 times the characters of its
        Chinese original)."""
        text = _BLOCK_NOISE_RE.sub(" ", self.text)
        han = len(re.findall(f"[{_HAN}]", text))
        other = len(re.sub(rf"[\s{_HAN}]", "", text))
        return han + other / 2.6

    def first_words(self, n: int = 8) -> str:
        """The opening of the text, as a reader finds it (Markdown marks left out)."""
        text = _BLOCK_NOISE_RE.sub(" ", self.text)
        text = re.sub(r"^[\s>*_#|:-]+|[*_`]+", "", text).strip()
        text = re.sub(r"\s+", " ", text)
        if re.search(f"[{_HAN}]", text[:12]):
            return text[:24] + ("…" if len(text) > 24 else "")
        words = text.split(" ")
        return " ".join(words[:n]) + ("…" if len(words) > n else "")


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
    lines_from: int = 0  # the line of lines[0] (the heading; a preamble's first line)
    #: the paragraphs, list items, table rows, captions (see :func:`_blocks`)
    blocks: list[Block] = field(default_factory=list)


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
# Markdown -> sections

_FENCE_RE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_HEADING_RE = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*$")
_ATTR_RE = re.compile(r"\{\s*([#.][^{}]*|[\w-]+\s*=[^{}]*)\}")
_ID_RE = re.compile(r"\{#((?:sec|fig|tbl|eq)-[^\s}]+)[^}]*\}")
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
#: 第 8 至第 10 章, 第 2、3 节: the list of a 第 … 章 label may repeat 第
_ZH_LIST_DI = rf"(?:\s*(?:[、,，和与與及或至到~～]|以及)\s*第?\s*{_LNUM})*"
#: a list item is never a quantity: "Example 7.4 to 50 μs" ends at 7.4
_NOT_QTY = rf"(?![\d.,]*\d|\s*(?:%|percent\b)|{_UNIT_RE.pattern})"
_EN_LIST = rf"(?:\s*(?:,\s*(?:and|or)\b|,|and\b|or\b|to\b|through\b)\s*{_LNUM}{_NOT_QTY})*"
_ZH_LABEL_RE = re.compile(
    rf"(?P<k>代码清单|程式碼清單|练习|練習|习题|習題|例题|例題|实验|實驗|示例|範例|清单|清單|公式|附录|附錄|"
    rf"(?<=[其见見由按如据據和与與及或、，（(\s])式|式(?=\s*[(（]\s*\d+(?:\.\d+)*\s*[)）])|"
    rf"算法|演算法|(?<![意试試企地构構])图|(?<![意試企地構])圖|(?<![代列发發外])表"
    rf"|(?<![比举舉实實案示范範条條惯慣特用])例)\s*[(（]?\s*(?P<n>{_LNUM}{_ZH_LIST})(?![\d.,]*\d)\s*[)）]?"
    rf"|第\s*(?P<n2>{_LNUM}{_ZH_LIST_DI})\s*(?P<k2>章|小节|小節|节|節|篇|部分|讲|講|题|題)"
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
    t = re.sub(r"\s*(?:,\s*(?:and|or)\b|[、,，和与與及或至到]|以及|\band\b|\bor\b|\bto\b|\bthrough\b)\s*第?\s*",
               ",", text)
    t = re.sub(r"\s*[\-–—‐‑~～]\s*", "-", t)
    return re.sub(r"\s+", "", t)


def _take_labels(s: str, zh: bool, lineno: int, out: list) -> str:
    """Records the typed labels of ``s`` in ``out`` and returns ``s`` with them blanked."""
    def repl(m: re.Match) -> str:
        k = m.group("k") or m.group("k4") or (m.groupdict().get("k2")) or m.groupdict().get("k3")
        n = m.group("n") or m.group("n4") or m.groupdict().get("n2") or m.groupdict().get("n3") \
            or m.groupdict().get("np")
        kind = _LABEL_KIND[k.lower()]
        for one in _label_number(n).split(","):   # "算法 0 与算法 1" = "Algorithms 0 and 1"
            ends = re.fullmatch(r"(\d+)-(\d+)", one) if kind in _RANGE_KINDS else None
            if ends and int(ends.group(1)) < int(ends.group(2)):
                # Chapters 8–9 = 第 8、9 章, Chapters 8–10 = 第 8 至第 10 章: the ends of a
                # range of chapters are labels of their own, as in the worded forms
                out.extend((kind, e, lineno, m.group(0).strip()) for e in ends.groups())
            else:
                out.append((kind, one, lineno, m.group(0).strip()))
        return " " * len(m.group(0))
    return (_ZH_LABEL_RE if zh else _EN_LABEL_RE).sub(repl, s)


#: kinds whose numbers are never written with a dash, so that "8–10" is a range of them
_RANGE_KINDS = frozenset({"chapter", "section", "part", "lecture"})

#: file paths (with an extension, or starting ./ ../) are names, not data
_PATH_RE = re.compile(r"(?<![\w/])(?:\.{1,2}/[\w./-]+|(?:[\w.-]+/)+[\w.-]*\.[A-Za-z]\w{0,5}(?![\w/]))")
_PATHLIKE_TEXT_RE = re.compile(r"\s*`?(?:(?:[\w.-]+/)*[\w.-]+(?:/|\.[A-Za-z]\w{0,5})"
                               # a link text that is a path of three or more parts (the
                               # experiments/ch07/07-03 folder): a name, even without an extension
                               r"|(?=[^/\s]*[A-Za-z])[\w.-]+(?:/[\w.-]+){2,}/?)`?\s*")
_SUP_RE = re.compile(r"<sup>\s*([+\-−]?\d+)\s*</sup>")

# Figures without IDs: a static image, and a caption line below it
_IMAGE_START = r"!\[(?:[^\[\]]|\[[^\]]*\])*\]\("   # alt text may hold [brackets]
_IMAGE_ONLY_RE = re.compile(rf"^\s*{_IMAGE_START}[^)]*\)\s*(?:\{{[^}}]*\}})?\s*$")
_IMAGE_ALT_RE = re.compile(r"!\[((?:[^\[\]]|\[[^\]]*\])*)\]\(")
_DIGITS_RE = re.compile(r"\d+(?:[.,]\d+)*")
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
        note_lines: set[int] = set()   # footnote definitions: no paragraph of the section
        for k, text in enumerate(lines):
            if _IMAGE_ONLY_RE.match(text):
                nxt = next((x for x in lines[k + 1:k + 3] if x.strip()), "")
                if _CAPTION_LINE_RE.match(nxt) and _repeats_alt(text, nxt):
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
                sections.append(Section(id=sid, line=lineno, lines=[raw], title=plain, lines_from=lineno,
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
            if target is not sections[-1]:
                note_lines.add(lineno)
            self._scan(raw, lineno, target, labels, frefs, han, math_mode=False,
                       drop_alt=idx in drop_alt)
        sections[0].lines_from = start + 1
        if not sections[0].lines or all(not x.strip() for x in sections[0].lines):
            if not sections[0].nums and not sections[0].refs:
                sections.pop(0)
        for sec in sections:
            sec.blocks = _blocks(sec, note_lines)
        for note in notes.values():
            note.blocks = [Block(note.line, note.line, "note", note.title, list(note.nums),
                                 list(note.refs), list(note.xlabels), list(note.images))]
        return Document(sections, labels, fdefs, frefs, han, notes)

    def _scan_attrs(self, s: str, lineno: int, labels: list) -> None:
        for m in _ID_RE.finditer(s):
            if not m.group(1).startswith("sec-"):
                labels.append((m.group(1), lineno))

    def _math(self, tex: str, lineno: int, sec: Section, han: list) -> None:
        for m in _BOUND_RE.finditer(tex):
            sec.refs.append((m.group(1), lineno))
        tex = _BOUND_SPAN_RE.sub(" ", tex)
        if self.lang == "en":
            for hm in _HAN_RE.finditer(tex):
                han.append((hm.group(0), lineno))
        sec.nums.extend(self.ex.extract(_normalise_chars(_clean_math(tex)), lineno))

    def _scan(self, s: str, lineno: int, sec: Section, labels: list, frefs: list, han: list,
              *, math_mode: bool, drop_alt: bool = False) -> None:
        s = _HTML_COMMENT_RE.sub(" ", s)
        sec.images.extend(lineno for _ in re.finditer(rf"{_IMAGE_START}|<img\b", s))
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
            piece = _BOUND_SPAN_RE.sub(" ", piece)
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


def _repeats_alt(image_line: str, caption_line: str) -> bool:
    """True when the line below an image repeats its alt text: an italic caption line always
    does; a line that starts with the figure's label ("Figure 10-2 shows …", 图 10-2 显示 …)
    only when it holds every number of the alt text (else it is prose and the alt text is the
    caption)."""
    if not re.match(r"^\s*(?:图|圖|Figure|Fig\.)\s*\d", caption_line):
        return True
    m = _IMAGE_ALT_RE.search(image_line)
    alt = _DIGITS_RE.findall(m.group(1)) if m else []
    below = _DIGITS_RE.findall(caption_line)
    return all(alt.count(d) <= below.count(d) for d in set(alt))


_LIST_ITEM_RE = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,3}[.)])\s+")
_BLOCK_NOISE_RE = re.compile(r"\]\([^)]*\)|\{[#.][^}]*\}|https?://\S+|<[^>]+>")


def _block_kind(raw: str) -> str:
    s = raw.strip()
    if s.startswith("|"):
        return "row"
    if _IMAGE_ONLY_RE.match(raw):
        return "image"
    if s.startswith(": ") or _CAPTION_LINE_RE.match(raw) and not s[:1].isalpha() \
            or re.match(r"^(?:Table|表)\s*\d+[-.]\d+[:：]", s):
        return "caption"
    if _LIST_ITEM_RE.match(raw):
        return "item"
    if s.startswith("$$"):
        return "math"
    return "para"


def _blocks(sec: Section, skip: set[int] = frozenset()) -> list[Block]:
    """The blocks of a section from its raw lines: a heading, then paragraphs (lines up to a
    blank line), each list item, table row, caption line and image line on its own. Code
    blocks, comments and table rules are no block. Each number, label, bound reference and
    image of the section is given to the block of its line."""
    blocks: list[Block] = []
    cur: Block | None = None
    fence: str | None = None
    in_math = False
    in_comment = False
    for k, raw in enumerate(sec.lines):
        line = sec.lines_from + k
        s = raw.strip()
        if fence is not None:
            if re.match(rf"^\s{{0,3}}{fence[0]}{{{len(fence)},}}\s*$", raw):
                fence = None
            continue
        if (fm := _FENCE_RE.match(raw)) and not in_math:
            fence, cur = fm.group(1), None
            continue
        if in_comment or (s.startswith("<!--") and "-->" not in s):
            in_comment = "-->" not in s
            continue
        if k == 0 and sec.level:
            blocks.append(Block(line, line, "heading", raw))
            continue
        if not s or _TABLE_SEP_RE.match(raw) or _LINK_DEF_RE.match(raw) or line in skip:
            cur = None if not in_math else cur
            continue
        if s.startswith("$$"):
            in_math = not in_math if s == "$$" or s.count("$$") == 1 else in_math
        kind = _block_kind(raw)
        joins = cur is not None and kind in ("para", "math") and cur.kind in ("para", "item", "math")
        if joins:
            cur.end = line
            cur.text += " " + s
        else:
            cur = Block(line, line, kind, s)
            blocks.append(cur)
        if kind in ("row", "image", "caption"):
            cur = None
    starts = [b.line for b in blocks]

    def owner(line: int) -> Block | None:
        i = bisect.bisect_right(starts, line) - 1
        return blocks[i] if i >= 0 else (blocks[0] if blocks else None)

    for n in sec.nums:
        if (b := owner(n.line)) is not None:
            b.nums.append(n)
    for r in sec.refs:
        if (b := owner(r[1])) is not None:
            b.refs.append(r)
    for x in sec.xlabels:
        if (b := owner(x[2])) is not None:
            b.xlabels.append(x)
    for line in sec.images:
        if (b := owner(line)) is not None:
            b.images.append(line)
    return blocks


def parse_document(text: str, lang: str) -> Document:
    """Split a Markdown chapter into sections and read its numbers and structure."""
    lang = normalize_lang(lang)
    return _Parser(text, lang).parse()


def extract_numbers(text: str, lang: str) -> list[Num]:
    """All numbers of a Markdown text, in order (a convenience for tests and tools)."""
    doc = parse_document(text, lang)
    return [n for s in doc.sections for n in s.nums]


