"""A small, clean, hand-written two-edition site (zh-Hans at /, en at en/) for the site checks."""

from __future__ import annotations

from pathlib import Path

from bookkit.lunr.index import SearchDoc, build_search_assets

SITE_URL = "https://example.org/book/"
EDITIONS = (("", "zh-Hans", "第一章"), ("en/", "en", "Chapter 1"))


def _alternates(slug: str) -> str:
    url = f"{slug}.html" if slug != "index" else ""
    lines = [f'<link rel="alternate" hreflang="{lang}" href="{SITE_URL}{prefix}{url}">' for prefix, lang, _ in EDITIONS]
    lines.append(f'<link rel="alternate" hreflang="x-default" href="{SITE_URL}{url}">')
    return "\n".join(lines)


def _page(prefix: str, lang: str, slug: str, body: str) -> str:
    up = "../" if prefix else ""
    canonical = f"{SITE_URL}{prefix}{slug}.html" if slug != "index" else f"{SITE_URL}{prefix}"
    return f"""<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<title>{slug}</title>
<link rel="stylesheet" href="{up}static/style.css?v=1">
<link rel="canonical" href="{canonical}">
{_alternates(slug)}
</head>
<body>
<a class="skip" href="#content">skip</a>
<nav id="sidebar"><a href="./index.html">home</a> <a href="./chapter.html#sec-intro">ch</a></nav>
<main id="content">
{body}
</main>
<script src="{up}static/app.js?v=1"></script>
</body>
</html>
"""


def _chapter(prefix: str, title: str) -> str:
    return f"""<h1 id="sec-intro">{title}</h1>
<p>See <a class="xref" href="#sec-method">the method</a> and <a href="#tbl-one">the table</a>.<sup class="footnote-ref"><a href="#fn1" id="fnref1">[1]</a></sup></p>
<h2 id="sec-method">Method</h2>
<figure id="fig-roof"><img src="figures/roof.svg" alt="A roofline" width="10" height="10"></figure>
<div class="table-wrap" id="tbl-one"><table><tr><td>1</td></tr></table></div>
<p>Again.<sup class="footnote-ref"><a href="#fn2" id="fnref2">[2]</a></sup> Home: <a href="index.html#sec-home">home</a>.
External: <a href="https://example.com/paper">paper</a>, <a href="mailto:a@example.org">mail</a>.</p>
<hr class="footnotes-sep" />
<section class="footnotes">
<ol class="footnotes-list">
<li id="fn1" class="footnote-item"><p>First. <a href="#fnref1" class="footnote-backref">↩︎</a></p>
</li>
<li id="fn2" class="footnote-item"><p>Second. <a href="#fnref2" class="footnote-backref">↩︎</a></p>
</li>
</ol>
</section>"""


def _index(prefix: str, title: str) -> str:
    other = "en/" if not prefix else "../"
    return f"""<h1 id="sec-home">{title}</h1>
<p><a href="chapter.html">{title}</a> <a href="{other}">other edition</a> <a href="{other}chapter.html#sec-method">other method</a></p>"""


def make_site(out: Path) -> Path:
    """Write the clean fixture site into ``out`` and return it."""
    out = Path(out)
    (out / "static").mkdir(parents=True, exist_ok=True)
    (out / "static" / "style.css").write_text("body{}\n", encoding="utf-8")
    (out / "static" / "app.js").write_text("//\n", encoding="utf-8")
    locs = []
    for prefix, lang, title in EDITIONS:
        d = out / prefix
        (d / "figures").mkdir(parents=True, exist_ok=True)
        (d / "figures" / "roof.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>\n', encoding="utf-8")
        (d / "index.html").write_text(_page(prefix, lang, "index", _index(prefix, title)), encoding="utf-8")
        (d / "chapter.html").write_text(_page(prefix, lang, "chapter", _chapter(prefix, title)), encoding="utf-8")
        (d / "404.html").write_text(_page(prefix, lang, "404", '<h1 id="sec-404">404</h1>'), encoding="utf-8")
        docs = [
            SearchDoc("chapter.html", title, title, "intro text"),
            SearchDoc("chapter.html#sec-method", title, "Method", "method text kv cache"),
            SearchDoc("index.html", "home", "home", "welcome"),
        ]
        for name, data in build_search_assets(docs, lang).items():
            (d / name).write_bytes(data)
        locs += [f"{SITE_URL}{prefix}", f"{SITE_URL}{prefix}chapter.html"]
    urls = "\n".join(f"  <url><loc>{u}</loc></url>" for u in locs)
    (out / "sitemap.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{urls}\n</urlset>\n', encoding="utf-8")
    (out / "robots.txt").write_text(f"User-agent: *\nSitemap: {SITE_URL}sitemap.xml\n", encoding="utf-8")
    return out


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    """Replace ``old`` by ``new`` in a file, insisting that ``old`` is there."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, count), encoding="utf-8")
