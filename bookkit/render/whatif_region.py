"""A what-if region as each output shows it (the scenarios themselves are computed by
`bookkit.resolve.scenarios`).

On the site: the control above the region (one native select per choice, a reset button) and
the record of every bound number and formula inside it (`Slot`), which `whatif.py` turns into
the chapter's data file. In the PDF and EPUB: one line saying that the web edition can recompute
the example.

Apart from `whatif.py` because `html.py` calls this while rendering, and `whatif.py` formats
through `html.py`: one module would make the two import each other.
"""
from __future__ import annotations

import html
from dataclasses import dataclass

from bookkit.locale.numbers import format_value, parse_spec
from bookkit.source.markdown import div_name
from bookkit.model import BuildError, Choice, Scenario

# The data file's digest is known only after KaTeX ran; the page leaves a slot for it
# (`whatif.fill_version`).
DATA_VERSION_SLOT = "\x00whatif\x00"


def option_label(choice: Choice, i: int, lang: str) -> str:
    label = choice.labels[i]
    if label is not None:
        return label
    value = choice.options[i]
    if isinstance(value, (int, float)):
        return format_value(value, parse_spec("int" if float(value).is_integer() else "num"),
                            lang)
    return str(value)


def controls_html(ctx, scenario: Scenario, slug: str) -> str:
    """The control above a region: one labelled native select per choice and a reset button.
    Hidden until whatif.js runs: without JavaScript the page shows the book's values."""
    s = ctx.edition.strings
    missing = [k for k in ("whatif_label", "whatif_reset", "whatif_updated") if k not in s]
    if missing:
        raise BuildError(ctx.edition.folder / "edition.yml", None,
                         f"missing interface strings for what-if scenarios: {', '.join(missing)}",
                         "copy them from manuscripts/edition.yml and translate")
    names = s.get("whatif_choices", {})
    ident = f"wi-{scenario.name}"
    out = [f'<div class="whatif-controls" role="group" aria-label="{html.escape(s["whatif_label"])}"'
           f' hidden><span class="whatif-title" aria-hidden="true">{html.escape(s["whatif_label"])}'
           "</span>"]
    combos = scenario.combinations()
    for n, choice in enumerate(scenario.choices):
        offered = {combo[n] for combo in combos}      # an option excluded everywhere is not shown
        sid = f"{ident}-{choice.key}"
        out.append(f'<label for="{sid}">{html.escape(names.get(choice.key, choice.key))}</label>'
                   f'<select id="{sid}" data-whatif="{choice.key}">')
        for i, option in enumerate(choice.options):
            if option not in offered:
                continue
            selected = " selected" if option == choice.default else ""
            out.append(f'<option value="{html.escape(str(option))}"{selected}>'
                       f"{html.escape(option_label(choice, i, ctx.edition.spec.number_lang))}</option>")
        out.append("</select>")
    out.append(f'<button type="button" class="whatif-reset">{html.escape(s["whatif_reset"])}'
               f'</button><span class="whatif-status" role="status" '
               f'data-done="{html.escape(s["whatif_updated"])}"></span></div>')
    return "".join(out)


def open_html(ctx, tok, scenario: Scenario | None) -> str:
    name = div_name(tok.info) or ""
    if scenario is None:       # `regions` and `check_declared` report it for the original
        ctx.fail(tok, f"what-if region #wi-{name} has no scenario declared in the original",
                 "use the id of the original's region")
        return "<div>"
    book = ",".join(str(v) for v in scenario.book)
    return (f'<div class="whatif" id="wi-{name}" data-whatif-scenario="{name}" '
            f'data-whatif-book="{html.escape(book)}" '
            f'data-whatif-src="{ctx.chapter.slug}.whatif.js?v={DATA_VERSION_SLOT}">'
            + controls_html(ctx, scenario, ctx.chapter.slug))


@dataclass
class Slot:
    kind: str            # "num" or "math"
    tok: object
    name: str = ""
    spec: str = ""
    display: bool = False
    tag: str | None = None


def export_note(tok, strings: dict) -> list[str]:
    """PDF and EPUB: the region's opening line becomes one line saying that the web edition
    can recompute the example (the numbers are the book's); the closing line is dropped."""
    note = strings.get("whatif_note")
    if not note:
        raise BuildError(None, tok.map[0] + 1 if tok.map else None,
                         "missing interface string `whatif_note` in the edition's edition.yml",
                         "copy it from manuscripts/edition.yml and translate")
    return [f"*{note}*", ""]
