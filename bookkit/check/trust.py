"""The trust boundary as check findings (`bookkit.source.trust`): what the build refuses in an edition's
chapters (raw HTML but the anchors, raw TeX, figure scripts of its own, symlinked images,
javascript:/data: URLs, unclosed fences), every problem of every chapter as an error, so that a
pull request trying one fails CI with the reason; and the built pages scanned for what no
edition's output may carry (`on*=` attributes, javascript:/vbscript:/data: URLs).
"""
from __future__ import annotations

from pathlib import Path

from bookkit.source import trust
from bookkit.source.markdown import parse
from bookkit.model import ERROR, Finding


def trust_findings(root: Path) -> list[Finding]:
    """`bookkit.source.trust` over every chapter file of every edition."""
    from bookkit.load.config import chapter_plan, load_registry
    root = Path(root).resolve()
    registry = load_registry(root)
    plan = chapter_plan(root)
    original = registry.editions[0]
    parsed: dict[Path, tuple[str, list]] = {}

    def tokens_of(path: Path):
        if path not in parsed:
            text = path.read_text(encoding="utf-8")
            parsed[path] = (text, parse(text)[0])
        return parsed[path]

    originals = {file: tokens_of(root / original.dir / file)[1] for _n, file, _s in plan
                 if (root / original.dir / file).is_file()}
    math = set().union(*map(trust.math_commands, originals.values()))
    out: list[Finding] = []
    for spec in registry:
        for _number, file, _slug in plan:
            path = root / spec.dir / file
            if not path.is_file():
                continue
            text, tokens = tokens_of(path)
            rel = path.relative_to(root).as_posix()
            for p in trust.chapter_problems(tokens, text, spec.trusted, originals.get(file, []),
                                            math, root / original.dir / "figures", root, path,
                                            original.dir):
                out.append(Finding("unsafe-source", f"{rel}:{p.line}" if p.line else rel,
                                   p.message + (f" ({p.hint})" if p.hint else ""), ERROR,
                                   p.line))
    return out


_URL_ATTRS = ("href", "src", "action", "formaction", "xlink:href", "poster", "data", "srcset",
              "background", "cite")


def unsafe_attributes(tag: str, attrs: list[tuple[str, str | None]]) -> list[str]:
    """What in one start tag would run script or load an inline document: `on*=` handlers,
    javascript:/vbscript:/data:/file: URLs. The site check's page parser asks it for every tag
    (`bookkit.check.site_links`), so the pages are parsed once for all the site checks."""
    out = []
    for name, value in attrs:
        # no exception, not even for the templates: the site's Content-Security-Policy forbids
        # inline script, so a handler in a page is always an error
        if name.startswith("on"):
            out.append(f"<{tag} {name}=…>: an event-handler attribute runs script")
        elif name in _URL_ATTRS and value and any(
                trust.UNSAFE_SCHEME_RE.match(part.strip()) for part in
                (value.split(",") if name == "srcset" else [value])):
            out.append(f"<{tag} {name}=\"{value[:40]}\">: javascript:, vbscript:, data: and "
                       "file: URLs are not allowed")
    return out


def unsafe_output_findings(scan) -> list[Finding]:
    """Every built page (parsed once by the site checker, `scan`) and SVG file of every
    edition: no event handlers, no script or inline-document URLs."""
    out = [Finding("unsafe-output", f"{path}:{line}", message, ERROR, line)
           for path, page in sorted(scan.pages.items()) for line, message in page.unsafe]
    for rel in sorted(f for f in scan.files if f.endswith(".svg")):
        text = (Path(scan.site) / rel).read_text(encoding="utf-8", errors="replace")
        out += [Finding("unsafe-output", f"{rel}:{line}", message, ERROR, line)
                for line, message in trust.unsafe_svg(text)]
    return out
