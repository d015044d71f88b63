"""The `llms.txt` output (`bookkit.render.llms`): per edition, an index in the llmstxt.org form,
each chapter's plain Markdown at its page's URL + `.md`, and the whole edition as one text,
checked against the built site (the same bound values, labels and figure descriptions)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from bookkit.load.config import chapter_plan, load_registry

ROOT = Path(__file__).resolve().parents[2]
CODE_RE = re.compile(r"```.*?```|`[^`\n]*`", re.S)
HTML_TAG_RE = re.compile(r"</?(script|span|div|a|p|figure|figcaption|img|details|summary|sup|"
                         r"br|table|td|tr|section|nav|style|iframe)\b", re.I)


def editions():
    return [(spec.id, spec.url_prefix) for spec in load_registry(ROOT)]


def read(site: Path, prefix: str, name: str) -> str:
    return (site / prefix / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("edition,prefix", editions())
def test_index_follows_the_convention_and_lists_every_chapter_in_order(built_site, edition,
                                                                         prefix):
    text = read(built_site, prefix, "llms.txt")
    lines = text.split("\n")
    assert lines[0].startswith("# ") and lines[1] == "" and lines[2].startswith("> ")
    assert text.count("\n# ") == 0                        # one H1, then H2 sections only
    sections = re.findall(r"^## (.+)$", text, re.M)
    assert sections[-1] == "Optional" and len(sections) == 2
    links = re.findall(r"^- \[[^\]]+\]\(([^)]+)\)$", text.split("## Optional")[0], re.M)
    slugs = [slug for _n, _file, slug in chapter_plan(ROOT)]
    assert [link.rsplit("/", 1)[1] for link in links] == [f"{s}.html.md" for s in slugs]
    for link in links:         # each one is a file of the site, where the link says
        assert link.split("/ai-infra-book/", 1)[1] == prefix + link.rsplit("/", 1)[1]
        assert (built_site / prefix / link.rsplit("/", 1)[1]).is_file()
    assert f"{prefix}llms-full.txt)" in text


@pytest.mark.parametrize("edition,prefix", editions())
def test_full_text_holds_every_chapter_in_order(built_site, edition, prefix):
    full = read(built_site, prefix, "llms-full.txt")
    at = [full.index(read(built_site, prefix, f"{slug}.html.md"))
          for _n, _f, slug in chapter_plan(ROOT)]
    assert at == sorted(at) and len(set(at)) == len(at)


@pytest.mark.parametrize("edition,prefix", editions())
def test_bound_numbers_and_references_read_as_the_page_shows_them(built_site, edition, prefix):
    slug = "getting-started"
    page = read(built_site, prefix, f"{slug}.html")
    text = read(built_site, prefix, f"{slug}.html.md")
    assert "{{" not in text and "@sec-" not in text and "@fig-" not in text
    shown = re.findall(r'<span class="num" data-name="[^"]+">([^<]+)<span class="prov">', page)
    assert len(shown) > 20
    for value in shown:
        assert html.unescape(value) in text, value
    # a cross-reference is its label, as on the page (`Figure 1-1`, `图 1-1`)
    labels = set(re.findall(r'<a class="xref"[^>]*>([^<]+)</a>', page))
    assert labels and all(html.unescape(label) in text for label in labels)


def test_a_figure_is_its_caption_and_text_alternative(built_site):
    page = read(built_site, "en/", "accelerators.html")
    text = read(built_site, "en/", "accelerators.html.md")
    described = re.findall(r'<p id="(fig-[^"]+)-desc">(.*?)</p>', page, re.S)
    assert described
    for fid, body in described:
        body = re.sub(r'<span class="prov">.*?</span>', "", body)
        assert html.unescape(re.sub(r"<[^>]+>", "", body)) in text, fid
    captions = re.findall(r'<span class="capno">(Figure [^<]+)</span>', page)
    assert captions and all(f"**{c}: " in text for c in captions)


@pytest.mark.parametrize("edition,prefix", editions())
def test_no_html_in_any_text(built_site, edition, prefix):
    names = ["llms.txt", "llms-full.txt"] + [f"{s}.html.md" for _n, _f, s in chapter_plan(ROOT)]
    for name in names:
        prose = CODE_RE.sub("", read(built_site, prefix, name))
        assert "<script" not in prose.lower(), name
        assert not HTML_TAG_RE.search(prose), (name, HTML_TAG_RE.search(prose))


def test_the_zh_tw_text_is_the_zh_tw_editions():
    from bookkit.pipeline.build import resolve_book
    from bookkit.render.llms import PlainWriter
    from bookkit.render.site.renderer import chapter_context

    resolved = resolve_book(ROOT, ["zh-tw"], figures=())
    tw, zh = resolved.editions["zh-tw"], resolved.editions["zh"]
    for edition, folder in ((tw, "book-zh-tw"), (zh, "manuscripts")):
        chapter = edition.chapters[1]
        text = PlainWriter(chapter_context(resolved, edition, chapter, {}),
                           chapter.source.slug).chapter(chapter.tokens)
        source = (ROOT / folder / chapter.source.path.name).read_text(encoding="utf-8")
        title = re.search(r"^# (.+?)(\s*\{#.*\})?$", source, re.M).group(1)
        assert text.startswith(f"# {edition.info.strings['chapter'].format(n=1)} {title}\n")
    assert "資源" in PlainWriter(chapter_context(resolved, tw, tw.chapters[1], {}),
                                "x").chapter(tw.chapters[1].tokens)
