"""The reader's what-if: a worked example recomputed in the page for another model or accelerator.

Expected values come from `calculations/` (the same API the chapters call) and are formatted with
the edition's rules here, in the test; nothing is hard-coded. Every scenario of the book is
exercised generically (each control changes the example, the rest of the page stays, reload
keeps the choice, reset restores) and checked number by number against the calculator
(EXPECTED; a test fails if a scenario of the book has no entry there).
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


def _matmul(choice: dict) -> dict:
    from calculations import formulas, hardware
    hw, n = hardware.get(choice["accelerator"]), int(choice["size"])
    flops, nbytes = 2 * n ** 3, 3 * n * n * 2
    time_s, bound = formulas.roofline_time(flops, nbytes, hw, dtype="bf16")
    return {"n": (n, "int"), "mm_hw_name": (hw.name, None),
            "mm_intensity": (flops / nbytes, "num digits=0"),
            "mm_time_s": (time_s, "si unit=μs digits=1"),
            "mm_bound": (("phrase", bound), None)}


def _phases(choice: dict) -> dict:
    from calculations import formulas, hardware, models
    m, gpu = models.get("qwen3-8b"), hardware.get("h100")
    prompt, output = int(choice["prompt"]), int(choice["output"])
    prefill = formulas.forward(m, prompt, hw=gpu).totals
    step = formulas.decode_step(m, batch=1, context=prompt, hw=gpu)
    return {"prefill_intensity": (prefill.intensity, "num digits=0"),
            "prefill_time": (prefill.roofline_time_s, "si unit=ms digits=1"),
            "decode_time_b1": (output * step.time_s, "si unit=s digits=2"),
            "prefill_bound": (("phrase", prefill.bound), None)}


def _kvlong(choice: dict) -> dict:
    from calculations import formulas, hardware, models
    hw = hardware.get(choice["accelerator"])
    llama, ds = models.get("llama-3.1-70b"), models.get("deepseek-v3")
    ctx = 131072                                   # the chapter's long context (128K)
    llama_kv, ds_kv = (formulas.kv_cache_bytes(m, tokens=ctx) for m in (llama, ds))
    plan = formulas.memory_plan(llama, choice["accelerator"], devices=8, context=ctx,
                                dtype="bf16")
    fits = formulas.nbytes(llama.params_total, "bf16") <= hw.hbm_bytes
    return {"ex_hw_name": (hw.name, None), "ex_bw": (hw.hbm_bandwidth, "si unit=TB/s digits=1"),
            "llama_long_share": (llama_kv / hw.hbm_bytes, "pct digits=1"),
            "ds_long_share": (ds_kv / hw.hbm_bytes, "pct digits=1"),
            "llama_kv_read_time": (llama_kv / hw.hbm_bandwidth, "si unit=ms digits=2"),
            "node_hbm": (plan.capacity_bytes, "si unit=GB digits=0"),
            "llama_fit": (("phrase", "weights-fit-card" if fits else "weights-exceed-card"), None)}


def _kvhold(choice: dict) -> dict:
    from calculations import hardware, models, queueing
    qwen, h100 = models.get("qwen3-8b"), hardware.get("h100")
    tool = int(choice["tool"])
    k = queueing.kv_hold(qwen, h100, 32768, tool, compute_eff=queueing.h100_prefill_eff())
    side = "past-breakeven" if tool > k.break_even_s else "before-breakeven"
    return {"tool_s": (tool, "int"), "hold_gpu_s": (k.hold_gpu_s, "num digits=2"),
            "breakeven": (k.break_even_s, "si unit=s digits=1"),
            "rec_gpu_s": (k.recompute_gpu_s, "num digits=2"),
            "tool_side": (("phrase", side), None)}


def _edge(choice: dict) -> dict:
    from calculations import device, formulas, hardware, models
    m = models.get(choice["model"])
    ctx, bits, group = 2048, 4, 128                # the chapter's 4-bit example, 2K context
    read = device.decode_bytes_per_token(m, ctx, bits, group)
    tps = {d.id: device.decode_tokens_per_s(d.bandwidth, read["total"]) for d in device.devices()}
    h100 = formulas.decode_step(m, 1, ctx, hardware.get("h100"), dtype="bf16")
    return {"m_name": (m.name, None), "read_w": (read["weights"], "si unit=GB digits=2"),
            "read_total": (read["total"], "si unit=GB digits=2"),
            "mac_tps": (tps["m4-max"], "num digits=0"),
            "phone_tps": (tps["a17-pro"], "num digits=1"),
            "h100_b1_tps": (h100.tokens_per_s, "num digits=0")}


#: (page slug, scenario) -> the bound names to check and how the calculator gives them.
def _pipeline(choice: dict) -> dict:
    from calculations import training as tr
    p, m = int(choice["stages"]), int(choice["microbatches"])
    return {"pipe_p": (p, "int"), "pipe_m": (m, "int"),
            "pipe_bubble": (tr.pipeline_bubble_fraction(p, m), "pct digits=1")}


def _ppdecode(choice: dict) -> dict:
    from calculations import formulas, hardware, models
    llama, h100 = models.get("llama-3.1-70b"), hardware.get("h100")
    one = formulas.decode_step(llama, batch=1, context=4096, hw=h100).time_s   # the chapter's dec_ctx
    n = int(choice["stages"])
    hop = llama.hidden_size * 2 / h100.link_unidirectional     # one token's BF16 hidden state
    latency = n * (one / n) + (n - 1) * hop
    return {"pp_n": (n, "int"), "pp_token_latency": (latency, "si unit=ms digits=1"),
            "pp_rate_gain": (n * one / latency, "num digits=2")}


def _linkfail(choice: dict) -> dict:
    from calculations import models
    # the slowdown also depends on the chapter's NCCL latency terms; the model is what changes
    return {"fail_model": (models.get(choice["model"]).name, None)}


def _cow(choice: dict) -> dict:
    from calculations import sampling
    c = sampling.cow_fork(int(choice["prompt"]), 4, 16)     # 4 samples, the chapter's 16-token blocks
    return {"cow_prompt": (int(choice["prompt"]), "int"), "cow_blocks": (c["prompt_blocks"], "int"),
            "cow_copies": (c["copies"], "int"), "cow_saving": (c["saving"], "pct digits=0")}


def _transport(choice: dict) -> dict:
    from calculations import formulas, hardware, models, transport
    rate = formulas.decode_step(models.get("qwen3-8b"), 64, 2048, hardware.get("h100"),
                                dtype="bf16").tokens_per_s_per_sequence
    rtt = int(choice["rtt"]) / 1000
    return {"tp_rtt_ms": (int(choice["rtt"]), "int"),
            "tp_fast": (transport.stall_s(rate, rtt)["stall_s"], "si unit=ms digits=0"),
            "tp_rto": (transport.stall_s(rate, rtt, segments_after=1)["stall_s"],
                       "si unit=ms digits=0")}


# ch05
def _tiles(choice: dict) -> dict:
    from calculations import hardware, kernels, models
    m = int(choice["tokens"])
    tm, tn = (int(x) for x in choice["tile"].split("x"))
    n = models.get("qwen3-8b").hidden_size
    w = kernels.waves(m, n, tm, tn)
    time_s = w["waves"] * 2 * tm * tn * n / (hardware.get("h100").peak_flops("bf16") / w["sms"])
    fill = w["last_wave_tiles"] / w["slots"]
    return {"wt_m": (m, "int"), "wt_tm": (tm, "int"), "wt_tn": (tn, "int"),
            "wt_tiles": (w["tiles"], "int"), "wt_waves": (w["waves"], "int"),
            "wt_last": (w["last_wave_tiles"], "int"),
            "wt_idle": (w["slots"] - w["last_wave_tiles"], "int"),
            "wt_eff": (w["efficiency"], "pct digits=0"),
            "wt_time_s": (time_s, "si unit=μs digits=1"),
            "wt_verdict": (("phrase", "wave-full" if fill >= 0.75 else "wave-idle"), None)}
# ch09
def _pools(choice: dict) -> dict:
    import math
    from calculations import pool_shift as PS
    scale = float(choice["outscale"])
    pre, dec = 608e9 / 86400 / 73.7e3, 168e9 / 86400 / 14.8e3   # DeepSeek's day, the chapter's pools
    fleet = math.ceil(pre / 4) * 4 + math.ceil(dec / 18) * 18
    s = PS.best_split(fleet, pre, dec * scale, 4, 18)
    return {"pools_scale": (scale, "num digits=1"), "pools_dec_need": (dec * scale, "num digits=1"),
            "pools_p": (s["prefill_units"], "int"), "pools_d": (s["decode_units"], "int"),
            "pools_idle": (s["idle_nodes"], "int"), "pools_served": (s["served"], "pct digits=1"),
            "pools_served_cont": (min(1.0, fleet / (pre + dec * scale)), "pct digits=1"),
            "pools_dir": (("phrase", "pools-to-decode" if s["decode_units"] > 8 else "pools-release"),
                          None)}


EXPECTED = {("getting-started", "decode"): _decode, ("supernodes", "ppdecode"): _ppdecode,
            ("datacenter-networks", "linkfail"): _linkfail,
            ("inference-optimization", "cow"): _cow, ("device-edge-cloud", "transport"): _transport, ("accelerators", "matmul"): _matmul,
            ("workloads", "phases"): _phases, ("model-architecture", "kvlong"): _kvlong,
            ("scheduling-environments", "kvhold"): _kvhold,
            ("device-edge-cloud", "edge"): _edge,
            ("training-systems", "pipeline"): _pipeline,
            # ch05
            ("operators-runtime", "tiles"): _tiles,
            # ch09
            ("distributed-inference", "pools"): _pools}


def _phrases(lang: str) -> dict:
    import yaml
    folder = {"zh-Hans": "manuscripts", "en": "book-en", "zh-Hant": "book-zh-tw"}[lang]
    return yaml.safe_load((ROOT / folder / "edition.yml").read_text())["strings"]["phrases"]


def _text(value, spec, lang):
    if isinstance(value, tuple) and value[0] == "phrase":     # a conclusion, in the edition's words
        return _phrases(lang)[value[1]]
    return value if spec is None else format_value(value, parse_spec(spec), lang)


@pytest.fixture
def page_factory(context_factory):
    return lambda **kwargs: context_factory(**kwargs).new_page()


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
    """Bound name -> (text shown, provenance) inside the region (figures' descriptions
    included: `_select` waits for their drawings)."""
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
        return (r.dataset.whatifCurrent || '').split(',').includes(value)
            && !r.querySelector('[data-whatif-pending]');     // its figures' drawings are in
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
    unchecked = sorted(set(per_edition["zh"]) - set(EXPECTED))
    assert not unchecked, f"scenarios with no expected values from the calculator: {unchecked}"


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
                # The provenance popovers follow: the values a changed number was computed
                # from are shown for the reader's choice.
                changed = [b for b in numbers if numbers[b][0] != book_numbers[b][0]]
                assert any(numbers[b][1] != book_numbers[b][1] for b in changed), (
                    f"{url}: {key}={value}: no provenance followed")
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
    page.wait_for_function("name => { const r = document.getElementById('wi-' + name); "
                           "return r.dataset.whatifCurrent && "
                           "!r.querySelector('[data-whatif-pending]'); }", arg=name)
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
    page.wait_for_function("name => { const r = document.getElementById('wi-' + name); "
                           "return r.dataset.whatifCurrent && "
                           "!r.querySelector('[data-whatif-pending]'); }", arg=name)
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
    page = page_factory(color_scheme=scheme, bypass_csp=True)   # axe is injected inline
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


def _build(root: Path, cache: Path, out: Path):
    from bookkit.pipeline.build import BuildOptions, Builder
    return Builder(BuildOptions(root=root, out=out, editions=["zh"], quiet=True,
                                cache_dir=cache)).build()


def test_a_variant_that_fails_an_assert_breaks_the_build(book_copy, warm_cache, tmp_path):
    """The cells' asserts run for every variant: one that fails is a build error naming the
    scenario, the variant and file:line; excluding it explicitly makes the build pass."""
    from bookkit.model import BuildError
    chapter = book_copy / "manuscripts" / "01-getting-started.md"
    text = chapter.read_text()
    anchor = "decode_hw = hardware.get(decode_hw_id)\n"
    choices = 'decode_context = choose("decode", "context", [8192, 2048, 32768])\n'
    assert anchor in text and choices in text
    # True for the book's H100, false for the MI300X (192 GB) the reader may choose.
    broken = text.replace(anchor, anchor + "assert decode_hw.hbm_bytes < 150e9\n")
    chapter.write_text(broken)
    line = broken[:broken.index("assert decode_hw.hbm_bytes")].count("\n") + 1
    out = tmp_path / "site"
    with pytest.raises(BuildError) as err:
        _build(book_copy, warm_cache, out)
    message = err.value.render()
    assert f"01-getting-started.md:{line}:" in message, message
    assert "what-if scenario `decode`" in message and "accelerator=mi300x" in message, message
    assert "exclude('decode'" in message, message
    assert not out.exists()                       # a failed build writes nothing

    chapter.write_text(broken.replace(choices, choices + 'exclude("decode", accelerator="h100")\n'))
    with pytest.raises(BuildError) as err:
        _build(book_copy, warm_cache, out)
    assert "excludes the book's own values" in err.value.render()

    chapter.write_text(broken.replace(choices, choices + 'exclude("decode", accelerator="mi300x")\n'))
    _build(book_copy, warm_cache, out)
    assert "mi300x" not in (out / "getting-started.whatif.js").read_text()
    page = (out / "getting-started.html").read_text()
    assert 'value="h200"' in page and 'value="mi300x"' not in page


def test_regions_and_declarations_must_match(book_copy, warm_cache, tmp_path):
    from bookkit.model import BuildError
    chapter = book_copy / "manuscripts" / "03-workloads.md"
    text = chapter.read_text()
    chapter.write_text(text.replace("::: {.whatif #wi-phases}", "::: {.whatif #wi-phase}"))
    with pytest.raises(BuildError) as err:
        _build(book_copy, warm_cache, tmp_path / "a")
    assert "03-workloads.md:" in err.value.render() and "phases" in err.value.render()
    lines = text.split("\n")
    close = max(i for i, l in enumerate(lines) if l.strip() == ":::")
    chapter.write_text("\n".join(lines[:close] + lines[close + 1:]))
    with pytest.raises(BuildError) as err:
        _build(book_copy, warm_cache, tmp_path / "b")
    assert "never closed" in err.value.render(), err.value.render()


@pytest.mark.parametrize("edition", list(EDITIONS))
def test_pdf_and_epub_sources_show_the_book_values_and_one_line(edition):
    """The Pandoc sources (PDF, EPUB) keep the book's values and say in one line that the web
    edition can change them; no `:::` of a what-if region is left for Pandoc."""
    import yaml
    from bookkit.pipeline.build import BuildOptions, Builder
    from bookkit.load.config import load_book
    from bookkit.render.pandoc.sources import export_chapter
    from bookkit.render.site.renderer import chapter_context
    builder = Builder(BuildOptions(root=ROOT, out=ROOT / "build" / "site", quiet=True))
    book = load_book(ROOT, [edition])
    ed = book.editions[edition]
    resolved = builder.resolve(book, figures=())     # numbers headings and equations
    edition_r = resolved.editions[edition]
    chapter = next(c for c in edition_r.chapters if c.source.slug == "getting-started")
    text = export_chapter(chapter.tokens, chapter_context(resolved, edition_r, chapter, {}), "x")
    note = ed.info.strings["whatif_note"]
    assert text.count(note) == 1
    assert not [line for line in text.splitlines() if line.strip().startswith(":::")]
    lang = EDITIONS[edition][1]
    book_values = _decode({"model": "qwen3-8b", "accelerator": "h100", "context": "8192"})
    # a short value's spaces are no-break in the Pandoc sources (`sources.unbreakable`)
    assert _text(*book_values["decode_time"], lang) in text.replace("\u00a0", " ")
    assert yaml.safe_load((ed.info.folder / "edition.yml").read_text())["strings"]["whatif_note"]
