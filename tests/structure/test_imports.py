"""The package's import graph, read from the sources (every import, also those inside
functions): data flows one way. The packages are stages in order (`LAYERS`); a module imports
only from its own layer or the layers below it, there is no cycle, the outputs
(`bookkit.render`) never read the book's configuration again (`bookkit.load`), and the checks
never import a renderer."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "bookkit"

# The stages, bottom up (CONTRIBUTING, "The pipeline"). `base` is what every stage may use and
# that belongs to none: the typed data between stages, the Markdown dialect and what a source
# may hold, languages and number formats, the search index format, infrastructure, and the
# diagram vocabulary figure scripts import.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("base", ("bookkit.model", "bookkit.source", "bookkit.locale", "bookkit.lunr",
              "bookkit.util", "bookkit.diagrams")),
    ("load", ("bookkit.load",)),
    ("resolve", ("bookkit.resolve",)),
    ("render", ("bookkit.render",)),
    ("check", ("bookkit.check",)),
    ("pipeline", ("bookkit.pipeline",)),
    ("tools", ("bookkit.tools",)),
    ("cli", ("bookkit.cli", "bookkit.__main__")),
)

# Known exceptions, to remove (never to add to): none left. An output that needs a helper of
# an earlier stage takes it from `base` or from the types in `bookkit/model.py`; a check that
# needs a stage's result gets it from the command line (`CheckRun.resolve_texts`,
# `CheckRun.output_files`); an output gets the book's configuration from the resolved book.
KNOWN_UPWARD: set[tuple[str, str]] = set()
KNOWN_CHECK_TO_RENDER: set[tuple[str, str]] = set()
KNOWN_RENDER_TO_LOAD: set[tuple[str, str]] = set()


def layer(module: str) -> int:
    for i, (_name, prefixes) in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return i
    raise AssertionError(f"{module} is in no layer of LAYERS: put it in a stage's package")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def checked_graph() -> dict[str, set[str]]:
    """The graph without the known exceptions (each must still exist: a fixed one is removed
    from the list)."""
    graph = import_graph()
    for module, dep in KNOWN_UPWARD | KNOWN_CHECK_TO_RENDER | KNOWN_RENDER_TO_LOAD:
        assert dep in graph[module], f"{module} -> {dep} is gone: remove it from the list"
        graph[module].discard(dep)
    return graph


def import_graph() -> dict[str, set[str]]:
    """{module: the bookkit modules it imports}. `from . import x` counts as importing the
    submodule x when there is one, else the package."""
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[:len(base) - (node.level - 1)]
                    base = ".".join(base + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                           for a in node.names]
            else:
                continue
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name and target.startswith("bookkit"):
                    deps.add(target)
        graph[name] = deps
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    # Packages import their submodules' names only through `from . import x`; a package
    # __init__ is an ordinary node here.
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == 1:
                return stack[stack.index(dep):] + [dep]
            if dep not in state:
                found = visit(dep)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_graph_is_read_correctly():
    graph = import_graph()
    assert "bookkit.model" in graph["bookkit.load.config"]
    assert "bookkit.render.site.renderer" in graph["bookkit.pipeline.build"]
    # a relative import inside a function (how the old cycle hid) is seen too
    assert "bookkit.check.registry" in graph["bookkit.cli.check"]


def stage_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The same graph between stages (the layers of `LAYERS`): `bookkit.render.pandoc.convert`
    counts as `render`; the packages of `base` are one stage."""
    def stage(module: str) -> str:
        return "bookkit" if module == "bookkit" else LAYERS[layer(module)][0]
    out: dict[str, set[str]] = {}
    for module, deps in graph.items():
        out.setdefault(stage(module), set()).update(stage(d) for d in deps
                                                    if stage(d) != stage(module))
    return out


def test_no_import_cycle_between_modules():
    assert find_cycle(checked_graph()) is None


def test_no_import_cycle_between_stages():
    # The old one: render (pandoc's CLI) -> export -> build -> render (html, site, search).
    assert find_cycle(stage_graph(checked_graph())) is None


def test_outputs_do_not_import_the_resolve_stage_or_the_pipeline():
    graph = checked_graph()
    forbidden = ("bookkit.resolve", "bookkit.pipeline.build", "bookkit.pipeline.export", "bookkit.pipeline.serve",
                 "bookkit.check", "bookkit.__main__")
    bad = sorted((module, dep) for module, deps in graph.items()
                 if module.startswith("bookkit.render") for dep in deps
                 if dep.startswith(forbidden))
    assert bad == []


def test_checks_do_not_import_renderers():
    graph = checked_graph()
    bad = sorted((module, dep) for module, deps in graph.items()
                 if module.startswith("bookkit.check") for dep in deps
                 if dep.startswith("bookkit.render"))
    assert bad == []


def test_outputs_do_not_read_the_configuration_again():
    graph = checked_graph()
    bad = sorted((module, dep) for module, deps in graph.items()
                 if module.startswith("bookkit.render") for dep in deps
                 if dep == "bookkit.load.config")
    assert bad == []


def test_only_the_site_imports_the_sites_renderer():
    """What every output needs (bound values, labels, plain titles, the chapter's context) is
    in `bookkit.locale.text`: search, what-if, Pandoc and llms.txt do not import the HTML
    renderer (`render/site/html.py`) or the site's pages (`render/site/renderer.py`)."""
    graph = import_graph()
    site = {"bookkit.render.site.renderer", "bookkit.render.site.html", "bookkit.render.site.output"}
    bad = sorted((module, dep) for module, deps in graph.items()
                 if module.startswith("bookkit.render") and module not in site
                 for dep in deps if dep in ("bookkit.render.site.html", "bookkit.render.site.renderer"))
    assert bad == []
    assert "bookkit.render.site.html" not in graph["bookkit.locale.text"]
