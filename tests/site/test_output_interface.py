"""Each site output's `write` (the `Output` interface, no scheduling) makes exactly the files
the build writes, where `Builder.build` drives the same outputs stage by stage on two cores."""

from __future__ import annotations

from pathlib import Path

from bookkit.pipeline.build import resolve_book, site_config
from bookkit.util.cache import Cache
from bookkit.render import outputs

ROOT = Path(__file__).resolve().parents[2]


def test_every_site_output_writes_what_the_build_wrote(built_site):
    resolved = resolve_book(ROOT, figures=outputs.figure_formats(
        [outputs.output_class(n) for n in outputs.names("site")]))
    cache = Cache(ROOT / ".cache" / "bookkit", base=ROOT)
    context = outputs.OutputContext(ROOT, cache, site=site_config(resolved.book))
    written: dict[str, bytes] = {}
    for name in outputs.names("site"):
        report = outputs.make(name, ROOT, cache).write(resolved, context)
        assert report.name == name and report.files, name
        assert not written.keys() & report.files.keys(), name     # no two write one file
        written.update(report.files)
    built = {p.relative_to(built_site).as_posix(): p for p in built_site.rglob("*")
             if p.is_file() and p.name != ".manifest.json"}
    assert set(written) == set(built)
    different = [path for path, data in written.items() if built[path].read_bytes() != data]
    assert different == []
