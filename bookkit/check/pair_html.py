"""The side-by-side view of a translation check (``check_translation.py --format html``).

One self-contained page: the original and the translation aligned paragraph by paragraph (the
alignment :func:`bookkit.check.compare.compare_pair` made), every number highlighted as paired,
changed or unpaired, each finding beside its paragraph, a filter by kind and severity, keyboard
navigation from finding to finding (j / n next, k / p previous) and light and dark colours.

The translation is untrusted text: every piece of it goes through :func:`html.escape`; the
page loads nothing (inline CSS and a small inline script, no network).
"""
from __future__ import annotations

import html
import re
from collections import Counter

from bookkit.check.compare import Difference, PairResult, Unit
from bookkit.check.extract import Num
from bookkit.check.pair_report import SEVERITIES, rank

_KIND_LABEL = {"changed": "changed", "missing": "missing", "extra": "extra", "precision": "precision",
               "paragraph": "one-sided paragraph", "structure": "structure", "leftover": "leftover",
               "terminology": "terminology", "label": "label"}

_CSS = """
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1b1b1b; --muted: #555555; --line: #d0d0d0;
  --paired: #dff0d8; --changed: #fde2b8; --unpaired: #f8d0d0; --row: #fffbe6; --focus: #0b57d0;
  --high: #a30000; --medium: #7a4b00; --low: #3d5a80; }
@media (prefers-color-scheme: dark) { :root { --bg: #161616; --fg: #ececec; --muted: #b8b8b8;
  --line: #444444; --paired: #1f3d24; --changed: #4d3500; --unpaired: #5c1f1f; --row: #2a2612;
  --focus: #8ab4f8; --high: #ff9b9b; --medium: #f3c56b; --low: #a9c7ee; } }
body { margin: 0; font: 15px/1.55 system-ui, -apple-system, "Segoe UI", "Noto Sans", "PingFang SC",
  "Microsoft YaHei", sans-serif; background: var(--bg); color: var(--fg); }
header { padding: 1rem 1.25rem; border-bottom: 1px solid var(--line); position: sticky; top: 0;
  background: var(--bg); z-index: 1; }
h1 { font-size: 1.2rem; margin: 0 0 .3rem; }
.meta, .help { color: var(--muted); margin: .2rem 0; font-size: .9rem; }
.note { margin: .2rem 0; }
fieldset { display: inline-block; border: 1px solid var(--line); margin: .3rem .5rem .3rem 0;
  padding: .2rem .6rem; }
legend { font-size: .85rem; }
label { margin-right: .6rem; white-space: nowrap; }
main { padding: 0 1.25rem 2rem; }
table { border-collapse: collapse; width: 100%; table-layout: fixed; }
th, td { border-bottom: 1px solid var(--line); vertical-align: top; padding: .45rem .5rem;
  text-align: left; overflow-wrap: anywhere; }
th { font-size: .9rem; }
th.findings-col { width: 30%; }
tr.has-findings { background: var(--row); }
.ln { display: block; color: var(--muted); font-size: .8rem; }
.empty { color: var(--muted); font-style: italic; }
mark { color: inherit; border-radius: 3px; padding: 0 2px; }
mark.paired { background: var(--paired); }
mark.changed { background: var(--changed); outline: 1px solid var(--medium); }
mark.unpaired { background: var(--unpaired); outline: 1px solid var(--high); }
ul.findings { list-style: none; margin: 0; padding: 0; }
li.finding { margin: 0 0 .4rem; padding: .2rem .35rem; border-left: 4px solid var(--line); }
li.finding:focus { outline: 3px solid var(--focus); outline-offset: 1px; }
li.sev-high { border-left-color: var(--high); }
li.sev-medium { border-left-color: var(--medium); }
li.sev-low { border-left-color: var(--low); }
.badge { font-weight: 600; font-size: .8rem; }
.sev-high .badge { color: var(--high); }
.sev-medium .badge { color: var(--medium); }
.sev-low .badge { color: var(--low); }
.legend mark { margin-right: .4rem; }
"""

# Keyboard navigation and the filter. Reads only the page's own elements; no network.
_JS = """
(function () {
  var boxes = document.querySelectorAll('input[data-filter]');
  var status = document.getElementById('shown');
  function visible() {
    return Array.prototype.filter.call(document.querySelectorAll('li.finding'),
      function (li) { return !li.hidden; });
  }
  function apply() {
    var off = {};
    boxes.forEach(function (b) { if (!b.checked) off[b.dataset.filter + ':' + b.value] = true; });
    document.querySelectorAll('li.finding').forEach(function (li) {
      li.hidden = !!(off['kind:' + li.dataset.kind] || off['severity:' + li.dataset.severity]);
    });
    status.textContent = visible().length + ' finding(s) shown';
  }
  boxes.forEach(function (b) { b.addEventListener('change', apply); });
  function move(step) {
    var list = visible();
    if (!list.length) return;
    var at = list.indexOf(document.activeElement);
    var next = at < 0 ? (step > 0 ? 0 : list.length - 1) : Math.min(Math.max(at + step, 0), list.length - 1);
    list[next].focus();
    list[next].scrollIntoView({block: 'center'});
  }
  document.addEventListener('keydown', function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    var t = e.target;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.isContentEditable)) return;
    if (e.key === 'j' || e.key === 'n') { move(1); e.preventDefault(); }
    else if (e.key === 'k' || e.key === 'p') { move(-1); e.preventDefault(); }
  });
  apply();
})();
"""


def _highlight(text: str, nums: list[Num]) -> str:
    """The block's text, escaped, with each number's source text marked by its status."""
    out: list[str] = []
    pos = 0
    for n in sorted(nums, key=lambda n: n.line):
        needle = n.text.strip()
        if not needle:
            continue
        # the number itself, not a digit inside another number or a label (the 1 of 图 7-1)
        m = re.compile(r"(?<![0-9A-Za-z.\-–])" + re.escape(needle) + r"(?![\d])").search(text, pos)
        if m is None:
            continue
        at = m.start()
        status = n.status or "unpaired"
        out.append(html.escape(text[pos:at]))
        out.append(f'<mark class="{status}" title="{status}">{html.escape(needle)}</mark>')
        pos = at + len(needle)
    out.append(html.escape(text[pos:]))
    return "".join(out)


def _cell(blocks, lang: str, side: str) -> str:
    if not blocks:
        return f'<td lang="{lang}" class="empty">(nothing in the {side})</td>'
    parts = []
    for b in blocks:
        where = f"line {b.line}" if b.end == b.line else f"lines {b.line}–{b.end}"
        parts.append(f'<span class="ln">{where}</span>{_highlight(b.text, b.nums)}')
    return f'<td lang="{lang}">' + "<br>".join(parts) + "</td>"


def _finding_item(f: Difference, n: int) -> str:
    where = []
    if f.original_line:
        where.append(f"original line {f.original_line}")
    if f.translation_line:
        where.append(f"translation line {f.translation_line}")
    return (f'<li class="finding sev-{html.escape(f.severity)}" id="f{n}" tabindex="-1" '
            f'data-kind="{html.escape(f.kind)}" data-severity="{html.escape(f.severity)}" '
            f'data-original-line="{f.original_line or ""}" data-translation-line="{f.translation_line or ""}">'
            f'<span class="badge">{html.escape(f.severity)} · {html.escape(_KIND_LABEL.get(f.kind, f.kind))}'
            f'</span> <span class="where">({html.escape(", ".join(where))})</span><br>'
            f'{html.escape(f.message)}</li>')


def _unit_of(f: Difference, units: list[Unit]) -> int | None:
    """The aligned paragraphs a finding is about: the unit holding its translation line, else
    its original line."""
    order = (("translation_line", "translation"), ("original_line", "original"))
    if f.kind == "paragraph" and "only in the original" in f.message:
        order = order[::-1]   # the paragraph's own side first
    for attr, side in order:
        line = getattr(f, attr)
        if line is None:
            continue
        for k, u in enumerate(units):
            if any(b.line <= line <= b.end for b in getattr(u, side)):
                return k
    return None


def format_html(result: PairResult, findings: list[Difference], original_path: str,
                translation_path: str, lang: str, notes: list[str] = ()) -> str:
    """The page, as text. ``findings``: what the report lists (``result.findings`` filtered,
    with terminology and script findings added); ``notes``: summary lines shown at the top
    (revision skew, precision, glossary)."""
    units = result.units
    per_unit: dict[int | None, list[Difference]] = {}
    for f in rank(findings):
        per_unit.setdefault(_unit_of(f, units), []).append(f)
    counter = iter(range(1, 10**9))
    rows = []
    for k, u in enumerate(units):
        fs = per_unit.get(k, [])
        items = "".join(_finding_item(f, next(counter)) for f in fs)
        cls = "unit has-findings" if fs else "unit"
        rows.append(f'<tr class="{cls}" id="u{k}">{_cell(u.original, result.original_lang, "original")}'
                    f'{_cell(u.translation, lang, "translation")}'
                    f'<td><ul class="findings">{items}</ul></td></tr>')
    loose = per_unit.get(None, [])
    loose_html = ""
    if loose:
        loose_html = ('<section aria-labelledby="whole"><h2 id="whole">Findings for the whole chapter</h2>'
                      '<ul class="findings">' + "".join(_finding_item(f, next(counter)) for f in loose)
                      + "</ul></section>")
    kinds = Counter(f.kind for f in findings)
    sev = Counter(f.severity for f in findings)
    kind_boxes = "".join(
        f'<label><input type="checkbox" data-filter="kind" value="{html.escape(k)}" checked> '
        f'{html.escape(_KIND_LABEL.get(k, k))} ({kinds[k]})</label>' for k in sorted(kinds))
    sev_boxes = "".join(
        f'<label><input type="checkbox" data-filter="severity" value="{s}" checked> {s} ({sev[s]})</label>'
        for s in SEVERITIES)
    note_html = "".join(f'<p class="note">{html.escape(n)}</p>' for n in notes if n)
    title = f"Translation check: {translation_path}"
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<style>{_CSS}</style>
</head>
<body>
<header>
<h1>{html.escape(title)}</h1>
<p class="meta">Original: <code>{html.escape(original_path)}</code> · translation (<span>{html.escape(lang)}</span>):
<code>{html.escape(translation_path)}</code> · {len(findings)} finding(s): {sev['high']} high, {sev['medium']} medium,
{sev['low']} low · {len(units)} aligned rows</p>
{note_html}
<form aria-label="Filter findings" onsubmit="return false">
<fieldset><legend>Kind</legend>{kind_boxes or '<span class="empty">none</span>'}</fieldset>
<fieldset><legend>Severity</legend>{sev_boxes}</fieldset>
</form>
<p class="help"><span id="shown" role="status">{len(findings)} finding(s) shown</span> ·
keys: <kbd>j</kbd> or <kbd>n</kbd> next finding, <kbd>k</kbd> or <kbd>p</kbd> previous ·
<span class="legend">numbers: <mark class="paired">paired</mark><mark class="changed">changed</mark><mark class="unpaired">unpaired</mark></span></p>
</header>
<main>
{loose_html}
<table>
<caption class="meta">The two texts aligned paragraph by paragraph; each finding beside its paragraph.</caption>
<thead><tr><th scope="col">Original ({html.escape(result.original_lang)})</th><th scope="col">Translation ({html.escape(lang)})</th>
<th scope="col" class="findings-col">Findings</th></tr></thead>
<tbody>
{chr(10).join(rows)}
</tbody>
</table>
</main>
<script>{_JS}</script>
</body>
</html>
"""
