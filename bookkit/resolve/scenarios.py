"""What-if scenarios: a worked example the reader can recompute with another model or accelerator.

An author declares the choices in a calc cell of the original::

    decode_model = choose("decode", "model", ["qwen3-8b", "llama-3.1-8b", "qwen3-32b"])
    decode_hw = choose("decode", "accelerator", ["h100", "a100", "mi300x"])
    exclude("decode", model="qwen3-32b", accelerator="a100")      # optional

(`choose` returns the book's value, the first option unless `default=` says otherwise) and marks
the example's extent in every edition with a Pandoc fenced div::

    ::: {.whatif #wi-decode}
    … prose, tables and equations binding {{ names }} …
    :::

The build runs the chapter's cells once per combination, up to the end of the region (cells
after it cannot change what it shows), keeps the bound values that differ from the book's, and
renders per edition, at build time, every bound number and formula of the region for each
combination. The page ships them as `<slug>.whatif.js`, loaded when the reader first uses the
control (a script, not `fetch`: it works from `file://`).

Data flow: `Declarations` (in the cell worker) -> `Scenario` (in `CellResults.scenarios`) ->
`run_variants` (forked, cached) -> `Scenario.variants` -> `chapter_data` (per edition, after
KaTeX) -> the data file.
"""
from __future__ import annotations

import gzip
import hashlib
import html
import itertools
import json
import re
import sys
from dataclasses import dataclass, field, replace

from ..markdown import DIV_RE, div_name  # noqa: F401 - the dialect's what-if div
from ..model import BoundValue, BuildError

NAME_RE = re.compile(r"^[a-z][a-z0-9-]*$")
KEY_RE = re.compile(r"^[a-z][a-z0-9_]*$")
#: `{.whatif #wi-name}` in either order (Pandoc's fenced-div attribute syntax).
MAX_VARIANTS = 64          # per scenario: the product of its choices, minus exclusions
BUDGET_GZ = 30 * 1024      # a chapter's what-if data, gzipped, per edition
#: Choice keys whose options are registry ids (labelled with the registry's display name).
REGISTRIES = {"model": "models", "accelerator": "hardware"}


@dataclass(frozen=True)
class Choice:
    key: str                        # "model", "accelerator", "context", "batch", "precision"…
    options: tuple                  # ids or numbers, the book's value among them
    default: object
    labels: tuple                   # display name per option, or None: formatted per edition
    line: int                       # where `choose` was called


@dataclass
class Scenario:
    name: str
    path: str
    line: int
    choices: tuple = ()
    excluded: tuple = ()            # tuples of (key, value) pairs, each a partial combination
    variants: dict = field(default_factory=dict)   # combination -> {name: BoundValue} changed
    digest: str = ""                                 # of `variants`, for the render memo

    @property
    def keys(self) -> tuple:
        return tuple(c.key for c in self.choices)

    @property
    def book(self) -> tuple:
        return tuple(c.default for c in self.choices)

    def combinations(self) -> list[tuple]:
        out = []
        for combo in itertools.product(*(c.options for c in self.choices)):
            chosen = dict(zip(self.keys, combo))
            if any(all(chosen.get(k) == v for k, v in ex) for ex in self.excluded):
                continue
            out.append(combo)
        return out

    def describe(self, combo: tuple) -> str:
        return ", ".join(f"{k}={v}" for k, v in zip(self.keys, combo))


class Declarations:
    """`choose` and `exclude`, put into a chapter's cell namespace.

    In the book's run `choose` returns the default and records the choice; in a variant run it
    returns the variant's value (`assignment`)."""

    def __init__(self, path: str, assignment: dict | None = None) -> None:
        self.path = path
        self.assignment = assignment or {}
        self.scenarios: dict[str, Scenario] = {}

    def install(self, namespace: dict) -> None:
        namespace["choose"] = self.choose
        namespace["exclude"] = self.exclude

    def _line(self) -> int:
        frame = sys._getframe(2)
        while frame is not None and frame.f_code.co_filename != self.path:
            frame = frame.f_back
        return frame.f_lineno if frame is not None else 0

    def choose(self, scenario: str, key: str, options, default=None):
        if not isinstance(scenario, str) or not NAME_RE.match(scenario):
            raise ValueError(f"scenario name {scenario!r}: use lower-case letters, digits and "
                             "`-` (it is the region's id without `wi-`)")
        if not isinstance(key, str) or not KEY_RE.match(key):
            raise ValueError(f"choice key {key!r}: use a lower-case word such as "
                             "model, accelerator, context, batch, precision")
        options = tuple(options)
        if not options or any(isinstance(o, bool) or not isinstance(o, (str, int, float))
                              for o in options):
            raise ValueError(f"choose({scenario!r}, {key!r}, …): options must be a non-empty "
                             "list of ids or numbers")
        if any(isinstance(o, str) and not re.match(r"^[A-Za-z0-9_.-]+$", o) for o in options):
            raise ValueError(f"choose({scenario!r}, {key!r}, …): an id option may hold letters, "
                             "digits, `.`, `_` and `-` only (it goes into the page's URL)")
        if len(set(options)) != len(options):
            raise ValueError(f"choose({scenario!r}, {key!r}, …): an option is listed twice")
        default = options[0] if default is None else default
        if default not in options:
            raise ValueError(f"choose({scenario!r}, {key!r}, …): default {default!r} is not "
                             "one of the options")
        sc = self.scenarios.setdefault(scenario, Scenario(scenario, self.path, self._line()))
        if key in sc.keys:
            raise ValueError(f"scenario {scenario!r} already has a choice {key!r}")
        sc.choices += (Choice(key, options, default, _labels(key, options), self._line()),)
        return self.assignment.get(scenario, {}).get(key, default)

    def exclude(self, scenario: str, **chosen) -> None:
        sc = self.scenarios.get(scenario)
        if sc is None:
            raise ValueError(f"exclude({scenario!r}, …) before any choose({scenario!r}, …)")
        for k, v in chosen.items():
            choice = next((c for c in sc.choices if c.key == k), None)
            if choice is None or v not in choice.options:
                raise ValueError(f"exclude({scenario!r}, {k}={v!r}): not a declared option")
        sc.excluded += (tuple(sorted(chosen.items())),)


def _labels(key: str, options: tuple) -> tuple:
    module = REGISTRIES.get(key)
    if module is None:
        return tuple(None for _ in options)
    import importlib
    registry = importlib.import_module(f"calculations.{module}")
    return tuple(registry.get(o).name for o in options)    # an unknown id fails with its hint


# -- regions in the Markdown ------------------------------------------------------------------

@dataclass(frozen=True)
class Region:
    name: str
    start: int       # 0-based line of the opening `:::`
    end: int         # 0-based line of the closing `:::`


def regions(tokens, path, text: str | None = None) -> list[Region]:
    found, seen = [], {}
    lines = text.splitlines() if text is not None else None
    for tok in tokens:
        if tok.type == "container_whatif_open":
            if lines is not None and (tok.map[1] >= len(lines)
                                      or not lines[tok.map[1]].strip().startswith(":::")):
                raise BuildError(path, tok.map[0] + 1,
                                 "this what-if region is never closed: it runs to the end of "
                                 "the file", "end it with a line holding only :::")
            name = div_name(tok.info)
            if not name or not NAME_RE.match(name):
                raise BuildError(path, tok.map[0] + 1,
                                 "a what-if region needs the scenario as its id",
                                 "write ::: {.whatif #wi-NAME} with NAME as in choose(\"NAME\", …)")
            if name in seen:
                raise BuildError(path, tok.map[0] + 1, f"what-if region #wi-{name} appears twice",
                                 f"the first one is at line {seen[name]}")
            seen[name] = tok.map[0] + 1
            found.append(Region(name, tok.map[0], tok.map[1]))   # the map ends on the closing `:::`
    return found


def region_tokens(tokens):
    """(scenario name, token) for every token inside a region, inline children included."""
    current = None
    for tok in tokens:
        if tok.type == "container_whatif_open":
            current = div_name(tok.info)
            continue
        if tok.type == "container_whatif_close":
            current = None
            continue
        if current:
            yield current, tok
            for child in tok.children or []:
                yield current, child


def bound_names(tokens) -> dict[str, set]:
    """The names each region binds (in prose and in math)."""
    from ..markdown import BOUND_RE
    out: dict[str, set] = {}
    for name, tok in region_tokens(tokens):
        if tok.type == "bound_value" and tok.meta.get("name"):
            out.setdefault(name, set()).add(tok.meta["name"])
        elif tok.type.startswith("math_"):
            out.setdefault(name, set()).update(m.group(1) for m in BOUND_RE.finditer(tok.content))
    return out


# -- running the variants (forked worker) ----------------------------------------------------

def run_variants(path: str, cells: list, root: str, scenario: Scenario,
                 combos: list[tuple], wanted: list[str]):
    """Worker body: run the cells once per combination; keep what differs from the book's run.

    The cells before the one that declares the scenario are the same for every combination:
    they run once, and each combination runs the rest in a forked child (a copy of that
    namespace, so no combination sees another's objects)."""
    import os
    from ..cache import FileHasher
    from ..workers import DependencyRecorder, JobResult
    from .cells import run_namespace
    if root not in sys.path:
        sys.path.insert(0, root)
    os.chdir(root)
    recorder = DependencyRecorder(root, ignore=(os.path.join(root, "build"),
                                                os.path.join(root, ".cache")))
    wanted_set = set(wanted)
    first = max([i for i, (line, _code) in enumerate(cells) if line <= scenario.line] or [0])
    namespace: dict = {"__name__": "__chapter__"}
    Declarations(path).install(namespace)
    shared, error = run_namespace(path, cells[:first], namespace, provenance_for=wanted_set)
    runs, error_combo = {}, None
    for combo in [scenario.book] + [c for c in combos if c != scenario.book]:
        values, error, files = _in_child(path, cells[first:], namespace, wanted_set, recorder,
                                         {scenario.name: dict(zip(scenario.keys, combo))})
        recorder.files |= files
        if error:
            error_combo = combo
            break
        merged = {n: v for n, v in shared.items() if n in wanted_set}
        merged.update((n, v) for n, v in values.items() if n in wanted_set)
        runs[combo] = merged
    if error:
        first_part, _, rest = error.partition(": calc cell failed: ")
        return JobResult(ok=False, error=(
            f"{first_part}: what-if scenario `{scenario.name}`, variant "
            f"{scenario.describe(error_combo)}: calc cell failed: {rest}\n    (fix the cell, or "
            f"leave this combination out with exclude({scenario.name!r}, "
            + ", ".join(f"{k}={v!r}" for k, v in zip(scenario.keys, error_combo)) + "))"))
    book = runs[scenario.book]
    diffs = {}
    for combo, values in runs.items():
        if combo == scenario.book:
            continue
        diffs[combo] = {n: v for n, v in values.items()
                        if n not in book or (book[n].value, book[n].provenance())
                        != (v.value, v.provenance())}
    return JobResult(ok=True, value=(diffs, book), deps=recorder.collect(FileHasher()))


def _in_child(path, cells, namespace, wanted, recorder, assignment):
    """Run `cells` for one combination in a forked copy of this process:
    (values, error, files read). Why by hand: multiprocessing would pickle the namespace
    (modules, open configs), and a fork copies it for free."""
    import os
    import pickle
    from .cells import run_namespace
    from ..processes import check_stopped, die_with_parent
    check_stopped()
    parent = os.getpid()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:                                  # child
        code = 0
        try:
            die_with_parent(parent)               # a worker killed at its time limit takes it along
            os.close(read)
            recorder.files = set()
            Declarations(path, assignment).install(namespace)
            values, error = run_namespace(path, cells, namespace, provenance_for=wanted)
            data = pickle.dumps((values, error, recorder.files), pickle.HIGHEST_PROTOCOL)
        except BaseException as exc:              # noqa: BLE001 - reported to the parent
            data = pickle.dumps(({}, f"{path}: calc cell failed: {type(exc).__name__}: {exc}",
                                 set()))
            code = 1
        with os.fdopen(write, "wb") as out:
            out.write(data)
        os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as inp:
        data = inp.read()
    os.waitpid(pid, 0)
    if not data:
        return {}, f"{path}: calc cell failed: the variant's process died", set()
    return pickle.loads(data)


def check_declared(path, scenarios: dict, found: list[Region]) -> None:
    names = {r.name for r in found}
    for sc in scenarios.values():
        if sc.name not in names:
            raise BuildError(path, sc.line, f"scenario `{sc.name}` has no region in the prose",
                             f"mark the example with ::: {{.whatif #wi-{sc.name}}} … :::")
        combos = sc.combinations()
        if sc.book not in combos:
            raise BuildError(path, sc.line, f"scenario `{sc.name}` excludes the book's own values",
                             "an exclude() matches the defaults; narrow it")
        if len(combos) > MAX_VARIANTS:
            raise BuildError(path, sc.line,
                             f"scenario `{sc.name}` has {len(combos)} combinations (at most "
                             f"{MAX_VARIANTS})", "offer fewer options or exclude some")
    for region in found:
        if region.name not in scenarios:
            raise BuildError(path, region.start + 1,
                             f"what-if region #wi-{region.name} has no choose({region.name!r}, …) "
                             "in the chapter's calc cells", "declare its choices in a calc cell")


def check_not_reassigned(path, scenario: Scenario, region: Region, names: set,
                         book_values: dict, region_values: dict) -> None:
    """A name shown in the region but assigned again after it would show its later value in
    the book and the region's value in the variants: refuse it."""
    for name in sorted(names):
        full, partial = book_values.get(name), region_values.get(name)
        if full is not None and partial is not None and full.line != partial.line:
            raise BuildError(path, full.line,
                             f"`{name}` is shown in what-if scenario `{scenario.name}` "
                             f"(lines {region.start + 1}-{region.end + 1}) but assigned again "
                             "after it", "give the later value its own name")


# -- rendering per edition ---------------------------------------------------------------------

def variant_values(values: dict, scenario: Scenario, combo: tuple) -> dict:
    merged = dict(values)
    merged.update(scenario.variants.get(combo, {}))
    return merged


def option_label(choice: Choice, i: int, lang: str) -> str:
    from ..locale.numbers import format_value, parse_spec
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


# The data file's digest is known only after KaTeX ran; the page leaves a slot for it.
DATA_VERSION_SLOT = "\x00whatif\x00"


@dataclass
class Slot:
    kind: str            # "num" or "math"
    tok: object
    name: str = ""
    spec: str = ""
    display: bool = False
    tag: str | None = None


def chapter_data(ctx, math: dict) -> tuple[bytes | None, int]:
    """The chapter's what-if data file for this edition (None without scenarios) and its
    gzipped size. Each variant lists only the slots whose text differs from the book's."""
    from ..render.html import bound_text, math_source
    scenarios = ctx.whatif or {}
    if not ctx.whatif_slots:
        return None, 0
    strings: list[str] = []
    index: dict[str, int] = {}

    def sid(text: str) -> int:
        if text not in index:
            index[text] = len(strings)
            strings.append(text)
        return index[text]

    out = {}
    for name, slots in sorted(ctx.whatif_slots.items()):
        sc = scenarios.get(name)
        if sc is None:
            continue
        variants = {}
        book = [_book_slot(ctx, slot) for slot in slots]   # the page's own text, once
        formatted: dict = {}
        for combo in sc.combinations():
            if combo == sc.book:
                continue
            changed = sc.variants.get(combo, {})
            vctx = replace(ctx, values=variant_values(ctx.values, sc, combo), errors=[])
            nums, maths = [], []
            for i, slot in enumerate(slots):
                if not changed.keys() & book[i][0]:
                    continue
                if slot.kind == "num":
                    bound = vctx.values.get(slot.name)
                    if bound is None:
                        continue
                    # Formatting is most of the cost, and many variants share a value.
                    memo_key = (i, type(bound.value), bound.value)
                    text = formatted.get(memo_key)
                    if text is None:
                        text = formatted[memo_key] = bound_text(vctx, slot.name, slot.spec,
                                                                slot.tok)[0]
                    if (text, bound.provenance()) == book[i][1]:
                        continue
                    prov = f"{ctx.edition.strings['computed_as']} {bound.provenance()}"
                    nums.append([i, sid(text), sid(prov)])
                else:
                    tex = math_source(vctx, slot.tok, slot.tag)
                    if tex == book[i][1]:
                        continue
                    rendered = math.get((tex, slot.display))
                    if rendered is None or isinstance(rendered, Exception):
                        ctx.fail(slot.tok, f"what-if `{name}`, variant {sc.describe(combo)}: "
                                           f"math does not render: {rendered}")
                        continue
                    maths.append([i, sid(rendered)])
            for err in vctx.errors:
                ctx.errors.append(BuildError(err.path, err.line, f"what-if `{name}`, variant "
                                             f"{sc.describe(combo)}: {err.message}", err.hint))
            entry = {}
            if nums:
                entry["n"] = nums
            if maths:
                entry["m"] = maths
            variants[",".join(str(v) for v in combo)] = entry
        out[name] = {"keys": list(sc.keys), "variants": variants}
    payload = json.dumps({"strings": strings, "scenarios": out}, ensure_ascii=False,
                         separators=(",", ":"), sort_keys=True)
    data = (f"(window.BOOK_WHATIF=window.BOOK_WHATIF||{{}})[{json.dumps(ctx.chapter.slug)}]="
            f"{payload};\n").encode()
    size = len(gzip.compress(data, mtime=0))
    if size > BUDGET_GZ:
        ctx.fail(None, f"what-if data of this chapter is {size / 1024:.1f} KB gzipped "
                       f"(budget {BUDGET_GZ // 1024} KB)",
                 "offer fewer options, exclude combinations or keep formulas out of the region")
    return data, size


def _book_slot(ctx, slot: Slot) -> tuple[set, object]:
    """(names the slot shows, its book text: (text, provenance) or the formula's TeX)."""
    from ..markdown import BOUND_RE
    from ..render.html import bound_text, math_source
    if slot.kind == "num":
        text, bound = bound_text(ctx, slot.name, slot.spec, slot.tok)
        return {slot.name}, (text, bound.provenance() if bound is not None else None)
    names = {m.group(1) for m in BOUND_RE.finditer(slot.tok.content)}
    return names, math_source(ctx, slot.tok, slot.tag)


def digest(scenarios: dict | None) -> str:
    """What a chapter's rendering takes from its scenarios (for the in-memory render memo)."""
    return hashlib.sha256(repr(sorted((n, s.digest) for n, s in (scenarios or {}).items()))
                          .encode()).hexdigest()


def fill_version(body: str, data: bytes | None) -> str:
    if DATA_VERSION_SLOT not in body:
        return body
    return body.replace(DATA_VERSION_SLOT, hashlib.sha256(data or b"").hexdigest()[:8])


def variant_math(tokens, ctx) -> set:
    """The formulas of every variant (submitted to KaTeX with the book's)."""
    from ..markdown import BOUND_RE
    from ..render.html import math_source
    scenarios = ctx.whatif or {}
    out: set = set()
    if not scenarios:
        return out
    for name, tok in region_tokens(tokens):
        sc = scenarios.get(name)
        if sc is None or not tok.type.startswith("math_") or "{{" not in tok.content:
            continue
        display = tok.type != "math_inline"
        tag = tok.meta.get("number") if tok.type == "math_block_label" else None
        names = {m.group(1) for m in BOUND_RE.finditer(tok.content)}
        for combo in sc.combinations():
            if combo != sc.book and sc.variants.get(combo, {}).keys() & names:
                vctx = replace(ctx, values=variant_values(ctx.values, sc, combo), errors=[])
                out.add((math_source(vctx, tok, tag), display))
    return out


def export_note(tok, strings: dict) -> list[str]:
    """PDF and EPUB: the region's opening line becomes one line saying that the web edition
    can recompute the example (the numbers are the book's); the closing line is dropped."""
    note = strings.get("whatif_note")
    if not note:
        raise BuildError(None, tok.map[0] + 1 if tok.map else None,
                         "missing interface string `whatif_note` in the edition's edition.yml",
                         "copy it from manuscripts/edition.yml and translate")
    return [f"*{note}*", ""]


def resolve_variants(chapters, results: dict, root, cache, workers: int, timeout: float,
                     parsed, versions) -> None:
    """Run (or take from the cache) every scenario's variants; fill `Scenario.variants`."""
    from ..cache import key_of, library_versions
    from ..markdown import parse
    from ..workers import run_jobs
    from .cells import extract_cells
    jobs, pending = [], {}
    for chapter in chapters:
        declared = results[chapter.number].scenarios
        tokens = parsed.get(chapter.path) if parsed else None
        if not declared and (tokens is None or not any(
                t.type == "container_whatif_open" for t in tokens)):
            continue
        tokens = tokens if tokens is not None else parse(chapter.text)[0]
        found = regions(tokens, chapter.path, chapter.text)
        check_declared(chapter.path, declared, found)
        names = bound_names(tokens)
        cells = extract_cells(chapter, tokens)
        rel = str(chapter.path.relative_to(root))
        for region in found:
            sc = declared[region.name]
            # Cells after the region cannot change what it shows.
            payload = [(c.line, c.code) for c in cells if c.line - 1 < region.end]
            wanted = sorted(names.get(region.name, ()))
            versions = versions or library_versions()
            key = key_of("whatif", rel, payload, versions, sc.name,
                         [(c.key, list(c.options), c.default) for c in sc.choices],
                         [list(map(list, e)) for e in sc.excluded], wanted)
            deps: dict = {}
            hit = cache.get("whatif", key, deps)
            if hit is None:
                # A large scenario is split so that both cores share it; each part runs the
                # book's combination too (the reference its differences are taken against).
                others = [c for c in sc.combinations() if c != sc.book]
                size = max(8, -(-len(others) // max(1, workers)))
                parts = [others[i:i + size] for i in range(0, len(others), size)] or [[]]
                pending[(chapter.number, sc.name)] = (chapter, sc, region, key, wanted,
                                                      len(parts))
                for i, part in enumerate(parts):
                    jobs.append((f"{chapter.number:03d}:{sc.name}:{i:03d}", run_variants,
                                 (str(chapter.path), payload, str(root), sc, part, wanted)))
                continue
            _accept(chapter, results, sc, region, hit, wanted)
    if not jobs:
        return
    done = run_jobs(jobs, workers=workers, timeout=timeout)
    errors, merged = [], {}
    for job, result in sorted(done.items()):
        number, name, _part = job.split(":")
        chapter, sc, region, key, wanted, parts = pending[(int(number), name)]
        if (int(number), name) in merged and merged[(int(number), name)] is None:
            continue                                 # one error per scenario is enough
        if not result.ok:
            merged[(int(number), name)] = None
            errors.append(result.error if result.error.startswith(str(root)) else
                          f"{chapter.path}: what-if scenario `{sc.name}`: "
                          f"{result.error.strip().splitlines()[-1]}")
            continue
        diffs, book = result.value
        acc = merged.setdefault((int(number), name), ({}, book, {}))
        acc[0].update(diffs)
        acc[2].update(result.deps or {})
    for (number, name), acc in sorted(merged.items()):
        if acc is None:
            continue
        chapter, sc, region, key, wanted, parts = pending[(number, name)]
        value = (dict(sorted(acc[0].items(), key=lambda kv: sc.combinations().index(kv[0]))),
                 acc[1])
        cache.put("whatif", key, value, acc[2])
        _accept(chapter, results, sc, region, value, wanted)
    if errors:
        raise BuildError(None, None, "\n".join(errors))


def _accept(chapter, results, sc: Scenario, region: Region, value, wanted) -> None:
    diffs, region_book = value
    check_not_reassigned(chapter.path, sc, region, set(wanted), results[chapter.number].values,
                         region_book)
    sc.variants = diffs
    sc.digest = hashlib.sha256(repr(sorted(diffs.items())).encode()).hexdigest()
