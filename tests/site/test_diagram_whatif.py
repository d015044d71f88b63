"""A diagram inside a what-if region follows the reader's choice: one drawing per combination
that changes its INPUTS, made at build time, named in the chapter's what-if data (a file name
and a description: a few bytes), fetched only when the reader picks the combination."""
from __future__ import annotations

import gzip
import json
import re

import pytest

from calculations import training as tr

FIG = "fig-training-systems-1f1b"
EDITIONS = {"zh": ("", "zh-Hans"), "en": ("en/", "en"), "zh-tw": ("zh-tw/", "zh-Hant")}


@pytest.fixture
def page_factory(context_factory):
    return lambda **kwargs: context_factory(**kwargs).new_page()


def _data(built_site, prefix: str) -> dict:
    text = (built_site / prefix / "training-systems.whatif.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("]=") + 2:].rstrip().rstrip(";"))


@pytest.mark.parametrize("edition", list(EDITIONS))
def test_every_combination_has_its_own_drawing(built_site, edition):
    prefix, lang = EDITIONS[edition]
    data = _data(built_site, prefix)
    pipeline = data["scenarios"]["pipeline"]
    assert pipeline["keys"] == ["stages", "microbatches"]
    srcs = set()
    for combo, entry in pipeline["variants"].items():
        p, m = (int(x) for x in combo.split(","))
        [(fid, src, desc)] = entry["f"]
        src, desc = data["strings"][src], data["strings"][desc]
        assert fid == FIG and src.endswith(f".{lang}.svg")
        svg = (built_site / prefix / src).read_bytes()
        assert svg.startswith(b"<?xml") and b'class="bk-fig"' in svg     # themed like the book's
        bubble = tr.pipeline_bubble_fraction(p, m)
        assert f"{bubble * 100:.1f}%" in desc and str(m) in desc
        srcs.add(src)
    assert len(srcs) == len(pipeline["variants"]) == 5           # 2 x 3 choices, less the book's
    # only names travel in the data: far below the chapter's budget
    size = len(gzip.compress((built_site / prefix / "training-systems.whatif.js").read_bytes()))
    assert size < 4 * 1024


def test_picking_a_combination_redraws_the_diagram(page_factory, built_site, site_url):
    page = page_factory()
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(f"{site_url}en/training-systems.html#wi-pipeline")
    desc = page.locator(f"#{FIG}-desc")
    assert "4 stages" in desc.text_content()
    assert not [u for u in requested if ".v" in u and FIG in u]       # variants not loaded yet
    page.select_option("#wi-pipeline select[data-whatif='stages']", "8")
    page.wait_for_function(f"() => document.querySelector('#{FIG} svg[data-whatif-variant]')")
    page.wait_for_function(
        f"() => document.querySelector('#{FIG}-desc').textContent.includes('8 stages')")
    assert [u for u in requested if ".v" in u and FIG in u]
    page.click(f"#{FIG} svg[data-whatif-variant]")      # the new drawing opens full-screen too
    page.wait_for_selector("dialog.figure-zoom[open] svg[data-whatif-variant]")
    page.keyboard.press("Escape")
    page.wait_for_selector("dialog.figure-zoom", state="hidden")
    page.click("#wi-pipeline .whatif-reset")
    page.wait_for_function(
        f"() => document.querySelector('#{FIG}-desc').textContent.includes('4 stages')")
    assert page.locator(f"#{FIG} svg[data-whatif-variant]").count() == 0
