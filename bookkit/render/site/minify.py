"""The site's own scripts and style sheets, minified by esbuild (pinned in website/package.json).

The sources in `website/static/` stay readable; the site ships their minified form: a reader's
search download is ~4 KB (gzip) smaller for the scripts alone, and every page's critical bytes
shrink too. Libraries shipped from node_modules (lunr.min.js, KaTeX) are already minified and
are not touched.

Why esbuild rather than terser: a cold build runs it, and esbuild, one native process for
every file, takes ~20 ms where terser (a Node program) takes ~0.5 s; terser's output is only
~1 % smaller after gzip. Results are cached by content and esbuild's version, so a warm build
or a `--serve` rebuild starts no process unless a script or style sheet changed.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from bookkit.util.cache import Cache, key_of
from bookkit.model import BuildError

#: the files minified: ours, in website/static/ (site path prefix "static/")
SUFFIXES = (".js", ".css")


def esbuild_path(root: Path) -> Path:
    """The native esbuild binary of this platform's package (`@esbuild/linux-x64`, …).

    npm runs no install scripts here (website/.npmrc), so `esbuild/bin/esbuild` stays the
    package's Node.js shim, which would start Node before the binary on every build and wrap
    its errors in a Node stack trace; the platform package ships the binary itself."""
    import platform
    modules = root / "website" / "node_modules"
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64"}.get(platform.machine().lower(),
                                                                      platform.machine().lower())
    native = modules / "@esbuild" / f"{sys.platform}-{arch}" / "bin" / "esbuild"
    return native if native.is_file() else modules / "esbuild" / "bin" / "esbuild"


def esbuild_version(root: Path) -> str:
    package = root / "website" / "node_modules" / "esbuild" / "package.json"
    try:
        return json.loads(package.read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError):
        raise BuildError(package, None, "esbuild (the minifier) is not installed",
                         "run `make setup` (npm ci in website/)") from None


class Minifier:
    """Minified bytes of each of our static files, memoised in memory and in the cache."""

    def __init__(self, root: Path, cache: Cache) -> None:
        self.root = root
        self.cache = cache
        self._memo: dict[tuple[str, bytes], bytes] = {}

    def __call__(self, sources: dict[str, tuple[Path, bytes]]) -> dict[str, bytes]:
        """{site path: (source file, its bytes)} -> {site path: minified bytes}."""
        out: dict[str, bytes] = {}
        todo: dict[str, tuple[Path, bytes, str]] = {}
        version = None
        for name, (path, data) in sources.items():
            hit = self._memo.get((name, data))
            if hit is None:
                version = version or esbuild_version(self.root)
                key = key_of("minify", version, name, data)
                hit = self.cache.get("minify", key)
                if hit is None:
                    todo[name] = (path, data, key)
                    continue
                self._memo[(name, data)] = hit
            out[name] = hit
        if todo:
            for name, data in self._run({n: (p, d) for n, (p, d, _k) in todo.items()}).items():
                path, source, key = todo[name]
                self.cache.put("minify", key, data)
                self._memo[(name, source)] = out[name] = data
        return out

    def _run(self, sources: dict[str, tuple[Path, bytes]]) -> dict[str, bytes]:
        """One esbuild process for all the files (each transformed alone: no bundling)."""
        exe = esbuild_path(self.root)
        if not exe.is_file():
            raise BuildError(exe, None, "esbuild (the minifier) is not installed",
                             "run `make setup` (npm ci in website/)")
        with tempfile.TemporaryDirectory(prefix="bookkit-minify-") as tmp:
            src, dst = Path(tmp) / "in", Path(tmp) / "out"
            src.mkdir()
            names = {}
            for name, (_path, data) in sources.items():
                flat = name.replace("/", "__")   # static/katex/x.css -> one folder
                (src / flat).write_bytes(data)
                names[flat] = name
            # Relative names, run in the folder: esbuild's messages then say `app.js:4:15:`,
            # which `_explain` turns into the source file's path.
            run = subprocess.run(
                [str(exe), *sorted(names), "--minify", f"--outdir={dst}", "--log-level=error",
                 "--charset=utf8"],
                cwd=src, capture_output=True, text=True)
            if run.returncode != 0:
                raise BuildError(None, None, _explain(run.stderr, sources, names))
            return {name: (dst / flat).read_bytes() for flat, name in names.items()}


def _explain(stderr: str, sources: dict, names: dict) -> str:
    """esbuild's message with each file's location (`app.js:4:15:`) naming the source file."""
    message = stderr.strip() or "esbuild failed without a message"
    for flat, name in names.items():
        message = re.sub(r"(?m)^(\s*)" + re.escape(flat) + r"(?=:\d+:\d+:)",
                         lambda m: m.group(1) + str(sources[name][0]), message)
    return ("minifying the site's scripts and style sheets failed (fix the file at the line "
            "named below):\n" + message)
