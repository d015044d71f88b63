"""The output registry (`bookkit.render.outputs`): every output implements the one interface,
and the commands ask the registry instead of importing renderers one by one."""

from __future__ import annotations

import ast
from pathlib import Path

from bookkit.util.cache import Cache
from bookkit.render import outputs

PACKAGE = Path(__file__).resolve().parents[2] / "bookkit"


def imported_names(module: str) -> set[str]:
    """Every name a module imports (`from x import a` gives `a` and `x`; also inside functions)."""
    tree = ast.parse((PACKAGE / module).read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names.add(node.module or "")
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


def test_every_registered_output_implements_the_interface(tmp_path):
    cache = Cache(tmp_path / "cache", enabled=False, base=tmp_path)
    root = Path(__file__).resolve().parents[2]
    assert {"site", "search", "pdf", "epub"} <= set(outputs.OUTPUTS)
    for name in outputs.OUTPUTS:
        made = outputs.make(name, root, cache)
        assert isinstance(made, outputs.Output), name
        assert made.name == name
        assert made.target in ("site", "book")
        assert isinstance(made.needs, outputs.Needs)
        assert all(not Path(w).is_absolute() and (root / w).is_dir() for w in made.watch)


def test_what_the_build_draws_and_serve_watches_comes_from_the_registry():
    site = [outputs.output_class(n) for n in outputs.names("site")]
    assert outputs.figure_formats(site) == ("svg",)          # the site draws no PDF figure
    books = [outputs.output_class(n) for n in outputs.names("book")]
    assert outputs.figure_formats(books) == ("svg", "pdf")
    assert set(outputs.names("book")) == {"pdf", "epub"}
    assert "website/templates" in outputs.watched("site")


def test_the_pipeline_and_commands_do_not_pick_renderers_one_by_one():
    build = imported_names("pipeline/build.py")
    assert not build & {"SiteRenderer", "SearchIndexer", "Minifier", "bookkit.render.site.minify"}
    # the export and the checks resolve without the site pipeline (no Builder)
    for module in ("pipeline/export.py", "check/report.py", "pipeline/serve.py"):
        assert not imported_names(module) & {"Builder", "BuildOptions"} - (
            {"Builder"} if module == "pipeline/serve.py" else set()), module
    assert "WATCHED" not in (PACKAGE / "pipeline" / "serve.py").read_text(encoding="utf-8")


def test_resolving_for_the_checks_and_exports_builds_no_part_of_the_site():
    """`resolve_book` (what the translation check, the PDF/EPUB and the release resolve with)
    is the load and resolve stages only: no site renderer, minifier or search indexer made."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    code = (
        "import gc, sys\n"
        f"sys.path.insert(0, {str(root)!r})\n"
        "from bookkit.pipeline.build import resolve_book\n"
        "from bookkit.render.site.minify import Minifier\n"
        "from bookkit.render.search.documents import SearchIndexer\n"
        "from bookkit.render.site.renderer import SiteRenderer\n"
        f"resolved = resolve_book({str(root)!r}, figures=())\n"
        "assert set(resolved.editions) == {'zh', 'en', 'zh-tw'}, resolved.editions\n"
        "assert resolved.figures == {}\n"
        "made = [type(o).__name__ for o in gc.get_objects()\n"
        "        if isinstance(o, (SiteRenderer, Minifier, SearchIndexer))]\n"
        "print(made)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=root, check=True)
    assert result.stdout.strip() == "[]"
