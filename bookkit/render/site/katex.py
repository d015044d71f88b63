"""Build-time math: every formula is rendered by KaTeX once, so readers run no math JavaScript.

KaTeX is the only renderer that gets `aligned` and friends right in HTML (latex2mathml emits
ill-formed XML for `aligned`). Results are cached per formula.
"""
from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

from bookkit.util.cache import Cache, key_of

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
    """A Node process with KaTeX loaded, rendering batches of formulas sent on stdin.

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
        """Started, or None if Node cannot start (`MathRenderer` then reports why)."""
        try:
            return cls(root)
        except OSError:
            return None

    def send(self, formulas: list[tuple[str, bool]]) -> None:
        """One batch; Node starts on it at once (it reads line by line)."""
        try:
            self.proc.stdin.write(json.dumps([list(item) for item in formulas]) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:   # Node died; `finish` reports its stderr
            pass

    def finish(self) -> list[list[dict]]:
        """Tell Node to end, wait; one result list per batch, or MathError."""
        try:
            self.proc.stdin.write("end\n")
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        self.proc.wait()
        out, err = (_read_and_close(fh) for fh in self.outputs)
        if self.proc.returncode != 0:
            raise MathError(f"KaTeX failed: {err.strip()[-500:]}")
        return [json.loads(line) for line in out.splitlines() if line.strip()]

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


class MathRenderer:
    """Formulas go in as they are found (`submit`); `result` returns every one's HTML.

    Cached formulas are answered from the cache, the others are sent to one KaTeX process in
    batches, so rendering overlaps with the rest of the build.
    """

    def __init__(self, root: Path, cache: Cache, process: KatexProcess | None = None,
                 known: dict | None = None) -> None:
        self.root, self.cache, self._process = root, cache, process
        self._results: dict = {}
        # (KaTeX version, tex, display) -> html, kept by the caller across builds: a --serve
        # rebuild looked every formula of the book up in the disk cache again (0.1 s).
        self._known = known if known is not None else {}
        self._batches: list[list[tuple[tuple[str, bool], str]]] = []
        self._version: str | None = None

    def submit(self, formulas) -> None:
        if self._version is None:
            self._version = katex_version(self.root)
        todo = []
        for item in sorted(set(formulas) - self._results.keys()):
            known = self._known.get((self._version, *item))
            if known is not None:
                self._results[item] = known
                continue
            key = key_of("katex", self._version, item[0], item[1])
            hit = self.cache.get("math", key)
            self._results[item] = hit   # None until rendered
            if hit is not None:
                self._known[(self._version, *item)] = hit
            if hit is None:
                todo.append((item, key))
        if not todo:
            return
        if self._process is None:
            try:
                self._process = KatexProcess(self.root)
            except OSError as exc:
                raise MathError(f"cannot run Node for KaTeX: {exc} (run `make setup`)")
        self._process.send([item for item, _ in todo])
        self._batches.append(todo)

    def result(self) -> dict:
        """{(tex, display): html or MathError}; raises MathError if KaTeX itself failed."""
        if self._process is not None:
            process, self._process = self._process, None
            if not self._batches:
                process.discard()
            else:
                for batch, rendered in zip(self._batches, process.finish()):
                    for (item, key), out in zip(batch, rendered):
                        if "error" in out:
                            self._results[item] = MathError(out["error"])
                        else:
                            self.cache.put("math", key, out["html"])
                            self._results[item] = out["html"]
                            self._known[(self._version, *item)] = out["html"]
                self._batches = []
        return self._results

    def discard(self) -> None:
        if self._process is not None:
            self._process.discard()
            self._process = None


def render_all(formulas: set[tuple[str, bool]], root: Path, cache: Cache) -> dict:
    """{(tex, display): html}; a formula KaTeX rejects maps to its MathError."""
    renderer = MathRenderer(root, cache)
    renderer.submit(formulas)
    return renderer.result()


def _read_and_close(fh) -> str:
    fh.seek(0)
    with fh:
        return fh.read()


def _path() -> str:
    import os
    return os.environ.get("PATH", "/usr/bin:/bin")
