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

Data flow: `Declarations` (in the cell worker) -> `Scenario` (`bookkit.model`, in
`CellResults.scenarios`) -> `run_variants` (forked, cached) -> `Scenario.variants`; then the
render stage: `bookkit.render.whatif_region` (the control, the PDF/EPUB note) and
`bookkit.render.site.whatif_data.chapter_data` (per edition, after KaTeX) -> the data file.
"""
from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass

from bookkit.source.markdown import div_name, region_tokens
# Choice and Scenario are the types this stage hands the renderers; imported here by name too,
# so that cached cell results pickled as `bookkit.resolve.scenarios.Scenario` still load.
from bookkit.model import BuildError, Choice, Scenario  # noqa: F401
from bookkit.resolve.choices import NAME_RE, Declarations

MAX_VARIANTS = 64          # per scenario: the product of its choices, minus exclusions


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


def figure_inputs(tokens, region: Region, folder, read: set | None = None) -> set[str]:
    """The `INPUTS` of the figure scripts drawn inside `region`: a variant must carry those
    values, or the figure's variants are never drawn when only an unbound input changes.
    `read`, if given, receives the scripts' paths."""
    from pathlib import Path
    from bookkit.resolve.figures import script_inputs
    found: set[str] = set()
    for tok in tokens:
        if tok.type != "inline" or not tok.map or not region.start <= tok.map[0] < region.end:
            continue
        for child in tok.children or ():
            src = str(child.attrGet("src") or "") if child.type == "image" else ""
            if src.endswith(".py") and (Path(folder) / src).is_file():
                found.update(script_inputs(Path(folder) / src))
                if read is not None:
                    read.add(str(Path(folder) / src))
    return found


def bound_names(tokens) -> dict[str, set]:
    """The names each region binds (in prose and in math)."""
    from bookkit.source.markdown import BOUND_RE
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
    from bookkit.util.cache import FileHasher
    from bookkit.resolve.workers import DependencyRecorder, JobResult
    from bookkit.resolve.cells import run_namespace
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
    from bookkit.resolve.cells import run_namespace
    from bookkit.util.processes import check_stopped, die_with_parent
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


def resolve_variants(chapters, results: dict, root, cache, workers: int, timeout: float,
                     parsed, versions, deps_out: dict | None = None) -> None:
    """Run (or take from the cache) every scenario's variants; fill `Scenario.variants`.
    `deps_out`, if given, receives what they depend on besides the chapters' text ({path:
    digest}, as the cache records them, and the figure scripts whose `INPUTS` were read)."""
    from bookkit.util.cache import key_of, library_versions
    from bookkit.source.markdown import parse
    from bookkit.resolve.workers import run_jobs
    from bookkit.resolve.cells import extract_cells
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
            # what the region shows: its bound numbers, and the cell values its figures draw
            # (`INPUTS`), which need not be bound anywhere (a model's id picks the model)
            scripts: set = set()
            wanted = sorted(set(names.get(region.name, ()))
                            | figure_inputs(tokens, region, chapter.path.parent, scripts))
            if deps_out is not None:
                deps_out.update((path, cache.hasher(path)) for path in scripts)
            versions = versions or library_versions()
            key = key_of("whatif", rel, payload, versions, sc.name,
                         [(c.key, list(c.options), c.default) for c in sc.choices],
                         [list(map(list, e)) for e in sc.excluded], wanted)
            deps: dict = {}
            hit = cache.get("whatif", key, deps, keep=True)   # read only
            if deps_out is not None:
                deps_out.update(deps)
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
        if deps_out is not None:
            deps_out.update(acc[2])
        _accept(chapter, results, sc, region, value, wanted)
    if errors:
        raise BuildError(None, None, "\n".join(errors))


def _accept(chapter, results, sc: Scenario, region: Region, value, wanted) -> None:
    diffs, region_book = value
    check_not_reassigned(chapter.path, sc, region, set(wanted), results[chapter.number].values,
                         region_book)
    sc.variants = diffs
    sc.digest = hashlib.sha256(repr(sorted(diffs.items())).encode()).hexdigest()
