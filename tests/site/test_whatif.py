"""The reader's what-if: a worked example recomputed in the page for another model or accelerator.

Expected values come from `calculations/` (the same API the chapters call) and are formatted with
the edition's rules here, in the test; nothing is hard-coded. Every scenario of the book is
exercised generically (each control changes the example, the rest of the page stays, reload
keeps the choice, reset restores); the scenarios listed in EXPECTED are also checked number by
number against the calculator.
"""
from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from bookkit.locale.numbers import format_value, parse_spec

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "website" / "node_modules" / "axe-core" / "axe.min.js"
EDITIONS = {"zh": ("", "zh-Hans"), "en": ("en/", "en"), "zh-tw": ("zh-tw/", "zh-Hant")}


def _decode(choice: dict) -> dict:
    from calculations import formulas, hardware, models
    m, hw = models.get(choice["model"]), hardware.get(choice["accelerator"])
    step = formulas.decode_step(m, batch=1, context=int(choice["context"]), hw=hw)
    return {"decode_time": (step.time_s, "si unit=ms digits=2"),
            "decode_tps": (step.tokens_per_s, "num digits=0"),
            "decode_intensity": (step.intensity, "num digits=2"),
            "decode_kv_bytes": (step.kv_read_bytes, "si unit=GB digits=2"),
            "decode_ridge": (hw.ridge_point("bf16"), "num digits=0"),
            "decode_model": (m.name, None), "decode_hw_name": (hw.name, None)}


#: (page slug, scenario) -> the bound names to check and how the calculator gives them.
EXPECTED = {("getting-started", "decode"): _decode}


def _text(value, spec, lang):
    return value if spec is None else format_value(value, parse_spec(spec), lang)


@pytest.fixture
def page_factory(browser):
    contexts = []

    def make(**kwargs):
        ctx = browser.new_context(**kwargs)
        contexts.append(ctx)
        return ctx.new_page()
    yield make
    for ctx in contexts:
        ctx.close()


def _scenarios(built_site, prefix: str) -> list[tuple[str, str]]:
    """(page slug, scenario) for every what-if region the edition's pages hold."""
    found = []
    for page in sorted((built_site / prefix).glob("*.html")):
        for name in re.findall(r'data-whatif-scenario="([^"]+)"', page.read_text()):
            found.append((page.stem, name))
    return found


def _snapshot(page, name: str) -> dict:
    return page.evaluate("""name => {
        const region = document.getElementById('wi-' + name);
        const inside = [], outside = [];
        document.querySelectorAll('main .num, main .katex').forEach(el => {
            (region.contains(el) ? inside : outside).push(el.textContent);
        });
        return {inside, outside};
    }""", name)


def _numbers(page, name: str) -> dict:
    """Bound name -> (text shown, provenance) inside the region."""
    return page.evaluate("""name => {
        const out = {};
        document.querySelectorAll('#wi-' + name + ' .num[data-name]').forEach(el => {
            const t = [...el.childNodes].find(n => n.nodeType === 3);
            const p = el.querySelector('.prov');
            out[el.dataset.name] = [t ? t.data : '', el.dataset.prov || (p ? p.textContent : '')];
        });
        return out;
    }""", name)


def _select(page, name: str, key: str, value: str) -> None:
    page.select_option(f"#wi-{name} select[data-whatif='{key}']", value)
    page.wait_for_function("""([name, key, value]) => {
        const r = document.getElementById('wi-' + name);
        return (r.dataset.whatifCurrent || '').split(',').includes(value);
    }""", arg=[name, key, value])


def test_every_edition_has_the_book_scenarios(built_site):
    """Chapters 1-4 and at least two of 5-12 have a scenario, in all three editions, with the
    same scenarios in each."""
    per_edition = {key: _scenarios(built_site, prefix) for key, (prefix, _) in EDITIONS.items()}
    assert per_edition["zh"] == per_edition["en"] == per_edition["zh-tw"]
    slugs = {slug for slug, _ in per_edition["zh"]}
    import yaml
    plan = yaml.safe_load((ROOT / "manuscripts" / "book.yml").read_text())
    print("what-if scenarios:", per_edition["zh"])
    numbered = {}
    for entry in plan["chapters"]:
        number = int(re.match(r"(\d+)", entry["file"]).group(1))
        numbered[number] = entry["slug"]
    assert all(numbered[n] in slugs for n in (1, 2, 3, 4)), slugs
    assert len([n for n in range(5, 13) if numbered.get(n) in slugs]) >= 2, slugs


def test_data_files_stay_within_budget(built_site):
    """The what-if data of a chapter is at most 30 KB gzipped (the build enforces it; this
    reports the sizes)."""
    sizes = {}
    for key, (prefix, _) in EDITIONS.items():
        for data in sorted((built_site / prefix).glob("*.whatif.js")):
            sizes[f"{prefix}{data.name}"] = len(gzip.compress(data.read_bytes(), mtime=0))
    print("\nwhat-if data (gzipped bytes):", sizes)
    assert sizes and max(sizes.values()) <= 30 * 1024, sizes


@pytest.mark.parametrize("edition", list(EDITIONS))
def test_each_control_recomputes_the_example(page_factory, built_site, site_url, edition):
    prefix, lang = EDITIONS[edition]
    page = page_factory()
    for slug, name in _scenarios(built_site, prefix):
        url = f"{site_url}{prefix}{slug}.html"
        page.goto(url)
        region = page.locator(f"#wi-{name}")
        assert region.locator(".whatif-controls").is_visible()
        book = _snapshot(page, name)
        book_numbers = _numbers(page, name)
        keys = page.eval_on_selector_all(f"#wi-{name} select[data-whatif]",
                                         "els => els.map(e => e.dataset.whatif)")
        defaults = dict(zip(keys, region.get_attribute("data-whatif-book").split(",")))
        for key in keys:
            options = page.eval_on_selector_all(
                f"#wi-{name} select[data-whatif='{key}'] option", "els => els.map(e => e.value)")
            for value in [o for o in options if o != defaults[key]]:
                _select(page, name, key, value)
                now = _snapshot(page, name)
                assert now["outside"] == book["outside"], f"{url}: {key}={value} changed the page"
                assert now["inside"] != book["inside"], f"{url}: {key}={value} changed nothing"
                numbers = _numbers(page, name)
                expect = EXPECTED.get((slug, name))
                if expect:
                    for bound, (val, spec) in expect({**defaults, key: value}).items():
                        assert numbers[bound][0] == _text(val, spec, lang), (url, key, value, bound)
                        if spec is not None and numbers[bound][0] != book_numbers[bound][0]:
                            assert numbers[bound][1] != book_numbers[bound][1], (
                                f"{url}: {bound}'s provenance did not follow")
                # Back to the book's value for this control before trying the next one.
                _select(page, name, key, defaults[key])
                assert _snapshot(page, name) == book


@pytest.mark.parametrize("edition", list(EDITIONS))
def test_choice_survives_reload_and_reset_restores(page_factory, built_site, site_url, edition):
    prefix, _ = EDITIONS[edition]
    slug, name = _scenarios(built_site, prefix)[0]
    page = page_factory()
    page.goto(f"{site_url}{prefix}{slug}.html#wi-{name}")
    book = _snapshot(page, name)
    selects = page.locator(f"#wi-{name} select[data-whatif]")
    key = selects.first.get_attribute("data-whatif")
    value = selects.first.locator("option").nth(1).get_attribute("value")
    _select(page, name, key, value)
    changed = _snapshot(page, name)
    assert f"wi-{name}=" in page.url and page.url.endswith(f"#wi-{name}")
    page.reload()
    page.wait_for_function("name => document.getElementById('wi-' + name).dataset.whatifCurrent",
                           arg=name)
    assert selects.first.input_value() == value
    assert _snapshot(page, name) == changed
    page.click(f"#wi-{name} .whatif-reset")
    page.wait_for_function("name => !location.search.includes('wi-' + name)", arg=name)
    assert _snapshot(page, name) == book
    assert selects.first.input_value() != value


def test_keyboard_phone_width_and_no_server(page_factory, built_site):
    """From file:// (no server), at 360 px, by keyboard alone."""
    page = page_factory(viewport={"width": 360, "height": 740})
    slug, name = _scenarios(built_site, "en/")[0]
    page.goto((built_site / "en" / f"{slug}.html").as_uri())
    book = _snapshot(page, name)
    select = page.locator(f"#wi-{name} select[data-whatif]").first
    select.focus()
    page.keyboard.press("ArrowDown")
    page.wait_for_function("name => document.getElementById('wi-' + name).dataset.whatifCurrent",
                           arg=name)
    assert _snapshot(page, name)["inside"] != book["inside"]
    overflow = page.evaluate("""name => {
        const c = document.querySelector('#wi-' + name + ' .whatif-controls');
        return [c.scrollWidth - c.clientWidth,
                document.documentElement.scrollWidth - document.documentElement.clientWidth];
    }""", name)
    assert overflow[0] <= 0 and overflow[1] <= 0, overflow


def test_without_javascript_the_book_values_show(page_factory, site_url):
    """JavaScript off, even with a variant in the URL: the control is hidden and the example
    shows the book's values (as the calculator gives them)."""
    page = page_factory(java_script_enabled=False)
    page.goto(f"{site_url}getting-started.html?wi-decode=qwen3-32b,a100,32768")
    assert not page.locator("#wi-decode .whatif-controls").is_visible()
    numbers = _numbers(page, "decode")
    book = {"model": "qwen3-8b", "accelerator": "h100", "context": "8192"}
    for bound, (value, spec) in _decode(book).items():
        assert numbers[bound][0] == _text(value, spec, "zh-Hans"), bound


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_controls_are_accessible(page_factory, built_site, site_url, scheme):
    page = page_factory(color_scheme=scheme)
    problems = []
    for key, (prefix, _) in EDITIONS.items():
        slug, name = _scenarios(built_site, prefix)[0]
        page.goto(f"{site_url}{prefix}{slug}.html")
        select = page.locator(f"#wi-{name} select[data-whatif]").first
        _select(page, name, select.get_attribute("data-whatif"),
                select.locator("option").nth(1).get_attribute("value"))
        page.add_script_tag(path=str(AXE))
        result = page.evaluate("axe.run(document.getElementById('wi-" + name + "'), "
                               "{resultTypes: ['violations']})")
        problems += [f"{prefix}{slug} [{scheme}]: {v['id']}: {v['help']}"
                     for v in result["violations"] if v["impact"] in ("serious", "critical")]
    assert not problems, "\n".join(problems)
