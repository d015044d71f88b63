"""Alignment of two chapters: sections by their headings, then, inside a section, paragraphs
(list items, table rows, captions) by the numbers, labels and length they share.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from bookkit.check.chapter import _BLOCK_NOISE_RE, Block, Section
from bookkit.check.extract import _HAN


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
        out.blocks.extend(s.blocks)
    return out


def _without_heading(s: Section) -> Section:
    """A section whose heading has no counterpart, without the heading's own numbers (the
    heading is the finding; its paragraphs are still compared)."""
    out = _merged([s, Section(id=s.id, line=s.line)])
    out.nums = [n for n in s.nums if n.line != s.line]
    out.xlabels = [x for x in s.xlabels if x[2] != s.line]
    out.lines = list(s.lines)
    out.blocks = [b for b in s.blocks if b.kind != "heading"]
    for b in out.blocks:
        b.orphan = True
    return out


def _heading_name(s: Section) -> str:
    return s.id if s.has_id or s.id == "_preamble" else f"“{s.title}”"




# --- paragraph alignment ----------------------------------------------------------------------

#: a paragraph on one side only (revision skew, a sentence the translator left out)
_BLOCK_GAP = -1.6
#: two paragraphs of one side against one of the other (a translator joined or split them)
_MERGE_COST = -1.2


def _block_keys(b: Block) -> Counter:
    """What two renderings of one paragraph share whatever the language: its numbers (value
    and unit; counting words left out), typed labels and bound references."""
    # values as (numerator, denominator): hashing a Fraction costs ten times more, and the
    # alignment compares these some 10^4 times in a long chapter
    keys: Counter = Counter((n.value.numerator, n.value.denominator, n.key[1])
                            for n in b.nums if not n.soft)
    keys.update(("label", k, n) for k, n, _, _ in b.xlabels)
    keys.update(("ref", r) for r, _ in b.refs)
    return keys


_LATIN_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9+/-]+")
_HAN_RUN_RE = re.compile(f"[{_HAN}]+")


def _block_words(b: Block) -> frozenset:
    """Words two renderings share: Latin terms (GPU, NVMe, TTFT) a Chinese text keeps, and,
    between two Chinese texts, pairs of characters (Simplified and Traditional share most)."""
    text = _BLOCK_NOISE_RE.sub(" ", b.text)
    words = {w.lower() for w in _LATIN_WORD_RE.findall(text)}
    for run in _HAN_RUN_RE.findall(text):
        words.update(run[k:k + 2] for k in range(len(run) - 1))
    return frozenset(words)


def _block_similarity(okeys: Counter, tkeys: Counter, osize: float, tsize: float,
                      okind: str, tkind: str, owords: frozenset = frozenset(),
                      twords: frozenset = frozenset(), no: int | None = None,
                      nt: int | None = None) -> float:
    """How likely two stretches of text render each other: shared numbers decide when there
    are any; shared words, the length (in language-neutral units) and the kind of block
    otherwise. ``no``/``nt``: the number of keys on each side, when already counted."""
    score = 1.0
    no = sum(okeys.values()) if no is None else no
    nt = sum(tkeys.values()) if nt is None else nt
    if owords and twords:
        score += 3.0 * len(owords & twords) / min(len(owords), len(twords)) - 0.5
    if no and nt:
        small, large = (okeys, tkeys) if len(okeys) <= len(tkeys) else (tkeys, okeys)
        shared = sum(min(v, large[k]) for k, v in small.items() if k in large)
        score += 4.0 * shared / max(no, nt) - 1.5
        if not shared and min(no, nt) >= 2:
            score -= 3.5   # several numbers each and none in common: two different paragraphs
    elif no or nt:
        score -= 0.7
    ratio = abs(math.log(max(osize, 4.0) / max(tsize, 4.0)))
    score -= min(1.6 * ratio, 3.0)
    if okind == tkind:
        score += 0.5
    elif {okind, tkind} <= {"para", "item", "math"}:
        score -= 0.3
    elif {okind, tkind} <= {"image", "caption"}:
        score -= 0.5    # a caption written in the alt text on one side, below it on the other
    else:
        score -= 4.0    # a table row, a figure or a heading is not a paragraph
    return score


def _joinable(a: Block, b: Block) -> bool:
    prose = ("para", "math")
    return (a.kind in prose and b.kind in prose) or (a.kind == b.kind == "item") \
        or (a.kind, b.kind) == ("image", "caption")


def align_blocks(orig: list[Block], trans: list[Block]) -> list[tuple[list[int], list[int]]]:
    """The paragraphs of one section of each edition, aligned in order: a list of units
    (original block indexes, translation block indexes), each one to one, two to one, one to
    two, or one-sided (an empty list on the other side: a paragraph only there).

    A sequence alignment like :func:`align_sections` (written out for the same reason: blocks
    of two languages are never equal, they are scored by :func:`_block_similarity`), with the
    two-to-one moves of sentence aligners, in a band around the diagonal so that a long
    section costs time in proportion to its length, not its square.
    """
    n, m = len(orig), len(trans)
    ok = [_block_keys(b) for b in orig]
    tk = [_block_keys(b) for b in trans]
    osz = [b.size for b in orig]
    tsz = [b.size for b in trans]
    ow = [_block_words(b) for b in orig]
    tw = [_block_words(b) for b in trans]
    # two consecutive blocks as one (the 2:1 moves), computed once each
    ok2 = [ok[i] + ok[i + 1] for i in range(n - 1)]
    tk2 = [tk[j] + tk[j + 1] for j in range(m - 1)]
    on1 = [sum(c.values()) for c in ok]
    tn1 = [sum(c.values()) for c in tk]
    on2 = [on1[i] + on1[i + 1] for i in range(n - 1)]
    tn2 = [tn1[j] + tn1[j + 1] for j in range(m - 1)]
    oszs2 = [osz[i] + osz[i + 1] for i in range(n - 1)]
    tszs2 = [tsz[j] + tsz[j + 1] for j in range(m - 1)]
    # only prose joins prose: a paragraph and a list item (or a table row) are never one
    ojoin = [_joinable(orig[i], orig[i + 1]) for i in range(n - 1)]
    tjoin = [_joinable(trans[j], trans[j + 1]) for j in range(m - 1)]
    ow2 = [ow[i] | ow[i + 1] for i in range(n - 1)]
    tw2 = [tw[j] | tw[j + 1] for j in range(m - 1)]
    band = max(10, abs(n - m) + 6)
    NEG = -1e18
    score = [[NEG] * (m + 1) for _ in range(n + 1)]
    move: list[list[tuple[int, int]]] = [[(0, 0)] * (m + 1) for _ in range(n + 1)]
    score[0][0] = 0.0

    def sim(i0: int, i1: int, j0: int, j1: int) -> float:
        if i1 - i0 == 1:
            okeys, owords, osize, no = ok[i0], ow[i0], osz[i0], on1[i0]
        else:
            okeys, owords, osize, no = ok2[i0], ow2[i0], oszs2[i0], on2[i0]
        if j1 - j0 == 1:
            tkeys, twords, tsize, nt = tk[j0], tw[j0], tsz[j0], tn1[j0]
        else:
            tkeys, twords, tsize, nt = tk2[j0], tw2[j0], tszs2[j0], tn2[j0]
        return _block_similarity(okeys, tkeys, osize, tsize, orig[i0].kind, trans[j0].kind,
                                 owords, twords, no, nt)

    for i in range(n + 1):
        centre = i * m / n if n else 0
        lo, hi = max(0, int(centre) - band), min(m, int(centre) + band + 1)
        for j in range(lo, hi + 1):
            if i == 0 and j == 0:
                continue
            best, how = NEG, (0, 0)
            if i and score[i - 1][j] > NEG:
                best, how = score[i - 1][j] + _BLOCK_GAP, (1, 0)
            if j and score[i][j - 1] > NEG and score[i][j - 1] + _BLOCK_GAP > best:
                best, how = score[i][j - 1] + _BLOCK_GAP, (0, 1)
            if i and j and score[i - 1][j - 1] > NEG:
                v = score[i - 1][j - 1] + sim(i - 1, i, j - 1, j)
                if v > best:
                    best, how = v, (1, 1)
            if i >= 2 and j and ojoin[i - 2] and score[i - 2][j - 1] > NEG:
                v = score[i - 2][j - 1] + sim(i - 2, i, j - 1, j) + _MERGE_COST
                if v > best:
                    best, how = v, (2, 1)
            if i and j >= 2 and tjoin[j - 2] and score[i - 1][j - 2] > NEG:
                v = score[i - 1][j - 2] + sim(i - 1, i, j - 2, j) + _MERGE_COST
                if v > best:
                    best, how = v, (1, 2)
            score[i][j], move[i][j] = best, how
    units: list[tuple[list[int], list[int]]] = []
    i, j = n, m
    while i or j:
        di, dj = move[i][j]
        if (di, dj) == (0, 0):   # outside the band (cannot happen with the band above)
            di, dj = (1, 0) if i else (0, 1)
        units.append((list(range(i - di, i)), list(range(j - dj, j))))
        i, j = i - di, j - dj
    return units[::-1]
