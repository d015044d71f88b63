"""Build-time math: every formula is rendered by KaTeX once, so readers run no math JavaScript.

KaTeX is the only renderer that gets `aligned` and friends right in HTML (latex2mathml emits
ill-formed XML for `aligned`; see toolchain.md). Results are cached per formula.
"""
from __future__ import annotations

import json
import subprocess
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


def render_all(formulas: set[tuple[str, bool]], root: Path, cache: Cache) -> dict:
    """{(tex, display): html}; raises MathError naming the first formula KaTeX rejects."""
    version = katex_version(root)
    results, todo = {}, []
    for item in sorted(formulas):
        key = key_of("katex", version, item[0], item[1])
        hit = cache.get("math", key)
        if hit is not None:
            results[item] = hit
        else:
            todo.append((item, key))
    if todo:
        proc = subprocess.run(
            ["node", str(SCRIPT)], input=json.dumps([list(i) for i, _ in todo]),
            capture_output=True, text=True,
            env={"NODE_PATH": str(root / "website" / "node_modules"), "PATH": _path()})
        if proc.returncode != 0:
            raise MathError(f"KaTeX failed: {proc.stderr.strip()[-500:]}")
        errors = {}
        for (item, key), out in zip(todo, json.loads(proc.stdout)):
            if "error" in out:
                errors[item] = out["error"]
                continue
            cache.put("math", key, out["html"])
            results[item] = out["html"]
        if errors:
            return {**results, **{k: MathError(v) for k, v in errors.items()}}
    return results


def _path() -> str:
    import os
    return os.environ.get("PATH", "/usr/bin:/bin")
