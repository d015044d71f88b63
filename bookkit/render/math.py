"""Build-time math: every formula is rendered by KaTeX once, so readers run no math JavaScript.

KaTeX is the only renderer that gets `aligned` and friends right in HTML (latex2mathml emits
ill-formed XML for `aligned`; see toolchain.md). Results are cached per formula.
"""
from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

from ..cache import Cache, key_of

SCRIPT = Path(__file__).with_name("katex_render.js")


class MathError(Exception):
    pass


def katex_version(root: Path) -> str:
    package = root / "website" / "node_modules" / "katex" / "package.json"
    try:
        return json.loads(package.read_text())["version"]
    except (OSError, ValueError, KeyError):
        raise MathError(f"{package}: KaTeX is not installed (run `make setup`, which runs npm ci)")


class KatexProcess:
    """A Node process with KaTeX loaded, waiting for the formulas on stdin.

    Why start it before the formulas are known: Node's start-up and `require("katex")` take
    ~70 ms, which then overlap with Python parsing the chapters.
    """

    def __init__(self, root: Path) -> None:
        # Files, not pipes, for the output: Node never blocks on a full pipe buffer while
        # the build does other work.
        self.outputs = (tempfile.TemporaryFile("w+", encoding="utf-8"),
                        tempfile.TemporaryFile("w+", encoding="utf-8"))
        self.proc = subprocess.Popen(
            ["node", str(SCRIPT)], stdin=subprocess.PIPE, stdout=self.outputs[0],
            stderr=self.outputs[1], text=True, encoding="utf-8",
            env={"NODE_PATH": str(root / "website" / "node_modules"), "PATH": _path()})

    @classmethod
    def try_start(cls, root: Path) -> "KatexProcess | None":
        """Started, or None if Node cannot start (`start_render` then reports why)."""
        try:
            return cls(root)
        except OSError:
            return None

    def send(self, formulas: list[tuple[str, bool]]) -> None:
        try:
            self.proc.stdin.write(json.dumps([list(item) for item in formulas]))
            self.proc.stdin.close()
        except BrokenPipeError:   # Node died; `finish` reports its stderr
            pass

    def finish(self) -> str:
        """Wait for Node; its stdout, or MathError with its stderr."""
        self.proc.wait()
        out, err = (_read_and_close(fh) for fh in self.outputs)
        if self.proc.returncode != 0:
            raise MathError(f"KaTeX failed: {err.strip()[-500:]}")
        return out

    def discard(self) -> None:
        """Stop Node if it still runs (nothing to render, or the build failed)."""
        if self.proc.returncode is not None and self.outputs[0].closed:
            return
        self.proc.kill()
        self.proc.wait()
        for fh in self.outputs:
            fh.close()
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass


class MathJob:
    """KaTeX rendering in the background: `start_render` returns at once, `result` waits."""

    def __init__(self, results: dict, todo: list, process: KatexProcess | None,
                 cache: Cache) -> None:
        self._results, self._todo, self._process, self._cache = results, todo, process, cache

    def result(self) -> dict:
        """{(tex, display): html or MathError}; raises MathError if KaTeX itself failed."""
        if self._process is None:
            return self._results
        process, self._process = self._process, None
        out = process.finish()
        for (item, key), rendered in zip(self._todo, json.loads(out)):
            if "error" in rendered:
                self._results[item] = MathError(rendered["error"])
            else:
                self._cache.put("math", key, rendered["html"])
                self._results[item] = rendered["html"]
        return self._results


def start_render(formulas: set[tuple[str, bool]], root: Path, cache: Cache,
                 process: KatexProcess | None = None) -> MathJob:
    """Start rendering the formulas the cache does not hold; see `MathJob.result`.

    `process` is a KatexProcess started earlier; it is used, or discarded if nothing is to do.
    """
    try:
        version = katex_version(root)
    except MathError:
        if process is not None:
            process.discard()
        raise
    results, todo = {}, []
    for item in sorted(formulas):
        key = key_of("katex", version, item[0], item[1])
        hit = cache.get("math", key)
        if hit is not None:
            results[item] = hit
        else:
            todo.append((item, key))
    if not todo:
        if process is not None:
            process.discard()
        return MathJob(results, [], None, cache)
    if process is None:
        try:
            process = KatexProcess(root)
        except OSError as exc:
            raise MathError(f"cannot run Node for KaTeX: {exc} (run `make setup`)")
    process.send([item for item, _ in todo])
    return MathJob(results, todo, process, cache)


def render_all(formulas: set[tuple[str, bool]], root: Path, cache: Cache) -> dict:
    """{(tex, display): html}; a formula KaTeX rejects maps to its MathError."""
    return start_render(formulas, root, cache).result()


def _read_and_close(fh) -> str:
    fh.seek(0)
    with fh:
        return fh.read()


def _path() -> str:
    import os
    return os.environ.get("PATH", "/usr/bin:/bin")
