"""Run each original chapter's calculation cells (cached) and keep the values they bind.

Cells are written once, in the original (`manuscripts/`); translations only refer to the names.
Each top-level assignment is executed on its own so that its expression and the values of the
names it used can be kept as the bound value's provenance.
"""
from __future__ import annotations

import ast
import io
import math
import numbers
import os
import traceback
from dataclasses import dataclass
from pathlib import Path

from bookkit.util.cache import Cache, key_of
from bookkit.source.markdown import parse
from bookkit.model import BoundValue, BuildError, CellResults, ChapterSource
from bookkit.resolve.workers import DependencyRecorder, JobResult, run_jobs


@dataclass(frozen=True)
class Cell:
    line: int          # 1-based line of the first code line in the chapter file
    code: str
    show: bool


def extract_cells(chapter: ChapterSource, tokens=None) -> list[Cell]:
    tokens = tokens if tokens is not None else parse(chapter.text)[0]
    cells = []
    lines = None                     # the chapter's lines, split once and only if it has cells
    for tok in tokens:
        if tok.type == "fence":
            words = tok.info.split()
            if words and words[0] == "calc":
                unknown = [w for w in words[1:] if w != "show"]
                if unknown:
                    raise BuildError(chapter.path, tok.map[0] + 1,
                                     f"unknown calc option `{' '.join(unknown)}`",
                                     "write ```calc or ```calc show")
                lines = lines if lines is not None else chapter.text.splitlines()
                if not _fence_closed(lines, tok):
                    raise BuildError(chapter.path, tok.map[0] + 1,
                                     "this ```calc block is never closed: it runs to the end of the "
                                     "file and takes the prose after it as code",
                                     f"end the cell with a line holding only {tok.markup}")
                cells.append(Cell(line=tok.map[0] + 2, code=tok.content, show="show" in words))
    return cells


def _fence_closed(lines: list[str], tok) -> bool:
    """Whether a fence token ends at a closing fence line. CommonMark lets an unclosed fence run
    to the end of the document, which silently turns the rest of the chapter into code."""
    end = tok.map[1]
    if end <= tok.map[0] + 1 or end > len(lines):
        return False
    closing = lines[end - 1].strip()
    return closing.startswith(tok.markup) and set(closing) == {tok.markup[0]}


def _short(value: object) -> str | None:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, numbers.Integral):
        return f"{int(value):,}"
    if isinstance(value, numbers.Real):
        return f"{float(value):.6g}"
    if isinstance(value, str) and len(value) <= 40:
        return repr(value)
    name = getattr(value, "name", None) or getattr(value, "id", None)
    if isinstance(name, str):
        return f"{type(value).__name__}({name})"
    return None


def _exportable(value: object):
    """Values translations can bind to: numbers, booleans and short strings (picklable)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, str):
        return value
    return None


def _input_nodes(expr: ast.AST) -> list[ast.AST]:
    """Names and attribute chains (`m.num_layers`) the expression reads, outermost first."""
    found, seen = [], set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            root = node
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name):
                text = ast.unparse(node)
                if text not in seen:
                    seen.add(text)
                    found.append(node)
                return
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.id not in seen:
                seen.add(node.id)
                found.append(node)
            return
        if isinstance(node, ast.Call):
            # The function itself is not an input; its arguments are.
            for arg in list(node.args) + [k.value for k in node.keywords]:
                visit(arg)
            if isinstance(node.func, ast.Attribute):
                visit(node.func.value)
            return
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(expr)
    return found


def _source_of(lines: list[str], node: ast.AST, shift: int) -> str | None:
    """What `ast.get_source_segment` returns for `node` (numbered `shift` lines after its
    cell's `lines`), from lines split once per cell: that function splits the whole text it
    is given on every call, and with the cell padded to its chapter line, as was done here,
    that was ~40 % of running a chapter's cells (hundreds of values in ~2,000-line chapters)."""
    if getattr(node, "end_lineno", None) is None or getattr(node, "end_col_offset", None) is None:
        return None
    first, last = node.lineno - 1 - shift, node.end_lineno - 1 - shift
    if first == last:
        return lines[first].encode()[node.col_offset:node.end_col_offset].decode()
    return (lines[first].encode()[node.col_offset:].decode() + "".join(lines[first + 1:last])
            + lines[last].encode()[:node.end_col_offset].decode())


def _split_lines(code: str) -> list[str]:
    """`code`'s lines with their ends, split at \\r\\n, \\r or \\n only (as `ast` does: not at
    the form feeds and other breaks `str.splitlines` knows)."""
    return list(io.StringIO(code, newline=""))


class CellValues(dict):
    """A chapter's bound values by name, and the what-if scenarios its cells declared."""
    scenarios: dict = {}


def execute_cells(path: str, cells: list[tuple[int, str]], root: str) -> JobResult:
    """Worker body: run the cells in one namespace, record values, provenance and deps."""
    import sys
    from bookkit.resolve.choices import Declarations
    if root not in sys.path:
        sys.path.insert(0, root)
    os.chdir(root)   # relative paths in cells and figure scripts mean the book root (forked job)
    recorder = DependencyRecorder(root, ignore=(os.path.join(root, "build"),
                                                os.path.join(root, ".cache")))
    namespace: dict = {"__name__": "__chapter__"}
    declarations = Declarations(path)
    declarations.install(namespace)
    values, error = run_namespace(path, cells, namespace)
    if error:
        return JobResult(ok=False, error=error)
    out = CellValues(values)
    out.scenarios = declarations.scenarios
    from bookkit.util.cache import FileHasher
    return JobResult(ok=True, value=out, deps=recorder.collect(FileHasher()))


def run_namespace(path: str, cells: list[tuple[int, str]], namespace: dict,
                  provenance_for: set | None = None) -> tuple[dict[str, BoundValue], str]:
    """Run the cells statement by statement in `namespace`: (values, error message or "").
    `provenance_for`: record inputs only for these names (a what-if variant needs no more)."""
    values: dict[str, BoundValue] = {}
    for first_line, code in cells:
        try:
            tree = ast.parse(code, filename=path)
        except SyntaxError as exc:
            line = first_line + (exc.lineno or 1) - 1
            return values, f"{path}:{line}: syntax error in calc cell: {exc.msg}"
        ast.increment_lineno(tree, first_line - 1)
        cell_lines = _split_lines(code)
        for stmt in tree.body:
            try:
                exec(compile(ast.Module([stmt], []), path, "exec"), namespace)
            except Exception as exc:
                line = stmt.lineno
                for frame in reversed(traceback.extract_tb(exc.__traceback__)):
                    if frame.filename == path:
                        line = frame.lineno
                        break
                at = line - first_line
                text = cell_lines[at].strip() if 0 <= at < len(cell_lines) else ""
                return values, (f"{path}:{line}: calc cell failed: {type(exc).__name__}: {exc}\n"
                                f"    {text}")
            targets = []
            if isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    elts = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
                    targets += [t.id for t in elts if isinstance(t, ast.Name)]
                expr = stmt.value
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                targets, expr = [stmt.target.id], stmt.value
            elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
                targets, expr = [stmt.target.id], stmt.value
            for name in targets:
                value = _exportable(namespace.get(name))
                if value is None or (isinstance(value, float) and not math.isfinite(value)):
                    continue
                inputs = []
                if provenance_for is None or name in provenance_for:
                    for node in _input_nodes(expr):
                        try:
                            shown = _short(eval(compile(ast.Expression(node), path, "eval"),
                                                namespace))
                        except Exception:
                            shown = None
                        if shown is not None:
                            inputs.append((ast.unparse(node), shown))
                values[name] = BoundValue(name=name, value=value,
                                          expression=_source_of(cell_lines, expr, first_line - 1) or
                                          ast.unparse(expr),
                                          inputs=tuple(inputs), path=path, line=stmt.lineno)
    return values, ""


def resolve_cells(chapters: list[ChapterSource], root: Path, cache: Cache, workers: int = 2,
                  timeout: float = 60.0, parsed=None) -> dict[int, CellResults]:
    """Cell results for every original chapter, from the cache where nothing changed."""
    from bookkit.util.cache import library_versions
    versions = None   # looked up only if a chapter has cells (importlib.metadata scans the venv)
    results: dict[int, CellResults] = {}
    jobs, keys = [], {}
    for chapter in chapters:
        tokens = parsed.get(chapter.path) if parsed else None
        cells = extract_cells(chapter, tokens)
        if not cells:
            results[chapter.number] = CellResults(chapter=chapter.number)
            continue
        payload = [(c.line, c.code) for c in cells]
        versions = versions or library_versions()
        key = key_of("cells", str(chapter.path.relative_to(root)), payload, versions)
        deps: dict = {}
        hit = cache.get("cells", key, deps, keep=True)   # read only (the scenarios' variants are reassigned each build)
        if hit is not None:
            results[chapter.number] = CellResults(chapter=chapter.number, values=hit,
                                                  deps=deps, executed=False,
                                                  scenarios=getattr(hit, "scenarios", {}))
            continue
        keys[chapter.number] = key
        jobs.append((str(chapter.number), execute_cells, (str(chapter.path), payload,
                                                            str(root))))
    if jobs:
        done = run_jobs(jobs, workers=workers, timeout=timeout)
        errors = []
        for name, result in sorted(done.items(), key=lambda kv: int(kv[0])):
            number = int(name)
            if not result.ok:
                errors.append(result.error if result.error.startswith(str(root))
                              else f"{_chapter_path(chapters, number)}: calc cells: "
                                   f"{result.error.strip().splitlines()[-1]}")
                continue
            key = keys[number]
            cache.put("cells", key, result.value, result.deps)
            results[number] = CellResults(chapter=number, values=result.value,
                                          deps=result.deps or {},
                                          executed=True, scenarios=result.value.scenarios)
        if errors:
            raise BuildError(None, None, "\n".join(errors))
    return results


def _chapter_path(chapters: list[ChapterSource], number: int) -> str:
    return next((str(c.path) for c in chapters if c.number == number), "?")
