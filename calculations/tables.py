"""Output formats: text (aligned), md (GitHub pipe table), csv, json.

A table is a list of row dicts plus a list of columns ``(key, header, kind)``
where kind picks the human formatting used by text/md ("int", "si", "bytes",
"float", "sec", "str"). csv and json always carry the raw, exact values.
"""
from __future__ import annotations

import json

__all__ = ["FORMATS", "render", "render_kv", "dumps", "si", "human_bytes", "fmt_value"]

FORMATS = ("text", "md", "csv", "json")
_SI = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def si(x, digits: int = 4) -> str:
    """9896812609536 -> '9.897 T' (decimal prefixes)."""
    if x is None:
        return "n/a"
    ax = abs(x)
    for f, p in _SI:
        if ax >= f:
            return f"{x / f:.{digits}g} {p}"
    return f"{x:.{digits}g}" if isinstance(x, float) else str(x)


def human_bytes(x) -> str:
    """Decimal units (GB = 10^9 bytes)."""
    if x is None:
        return "n/a"
    s = si(x)
    return s + "B" if s[-1].isalpha() else s + " B"


def _sec(x) -> str:
    if x is None:
        return "n/a"
    for f, u in ((1, "s"), (1e-3, "ms"), (1e-6, "us")):
        if abs(x) >= f:
            return f"{x / f:.4g} {u}"
    return f"{x / 1e-9:.4g} ns"


def fmt_value(v, kind: str = "str") -> str:
    if v is None:
        return "n/a"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if kind == "int" and isinstance(v, int):
        return f"{v:,}"
    if kind == "si" and isinstance(v, (int, float)):
        return si(v)
    if kind == "bytes" and isinstance(v, (int, float)):
        return human_bytes(v)
    if kind == "sec" and isinstance(v, (int, float)):
        return _sec(v)
    if kind == "float" and isinstance(v, (int, float)):
        return f"{v:.4g}"
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def _md_escape(s: str) -> str:
    return s.replace("|", "\\|")


def dumps(obj) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False)


def render(rows: list, columns: list, fmt: str = "text", raw=None, title: str = "") -> str:
    """Render rows. For json, `raw` (if given) is dumped instead of the rows."""
    if fmt == "json":
        return dumps(raw if raw is not None else rows)
    if fmt == "csv":
        import csv
        import io
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow([c[0] for c in columns])
        for r in rows:
            w.writerow(["" if r.get(c[0]) is None else r.get(c[0]) for c in columns])
        return buf.getvalue().rstrip("\n")
    cells = [[fmt_value(r.get(k), kind) for k, _, kind in columns] for r in rows]
    heads = [h for _, h, _ in columns]
    numeric = [kind in ("int", "si", "bytes", "float", "sec") for _, _, kind in columns]
    if fmt == "md":
        out = []
        if title:
            out.append(f"**{_md_escape(title)}**\n")
        out.append("| " + " | ".join(_md_escape(h) for h in heads) + " |")
        out.append("|" + "|".join("---:" if n else "---" for n in numeric) + "|")
        for c in cells:
            out.append("| " + " | ".join(_md_escape(x) for x in c) + " |")
        return "\n".join(out)
    if fmt != "text":
        raise ValueError(f"unknown format {fmt!r}")
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(heads)]
    def line(vals):
        return "  ".join(v.rjust(w) if n else v.ljust(w) for v, w, n in zip(vals, widths, numeric)).rstrip()
    out = [title] if title else []
    out.append(line(heads))
    out.append("  ".join("-" * w for w in widths))
    out.extend(line(c) for c in cells)
    return "\n".join(out)


def render_kv(items: list, fmt: str = "text", raw=None, title: str = "") -> str:
    """A single result as a two-column 'quantity | value' table.
    items: (key, label, value, kind). csv is one header row + one value row."""
    if fmt == "json":
        return dumps(raw if raw is not None else {k: v for k, _, v, _ in items})
    if fmt == "csv":
        row = {k: v for k, _, v, _ in items}
        return render([row], [(k, k, kind) for k, _, _, kind in items], "csv")
    rows = [{"q": label, "v": fmt_value(v, kind), "exact": (f"{v:,}" if isinstance(v, int) and not isinstance(v, bool)
                                                             and kind in ("bytes", "si") else "")}
            for _, label, v, kind in items]
    cols = [("q", "quantity", "str"), ("v", "value", "str")]
    if any(r["exact"] for r in rows):
        cols.append(("exact", "exact", "str"))
    return render(rows, cols, fmt, title=title)
