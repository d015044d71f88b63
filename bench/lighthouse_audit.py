"""Lighthouse in the bench (issue 30): the reader on a phone, ours against MkDocs Material.

Lighthouse (the pinned npm package of ``bench/lighthouse/package.json``, installed from its lock
file with install scripts off, by the bench only: ``make test`` and ``make serve`` never install
it) audits, with its default mobile preset (an emulated phone, simulated 4x CPU slowdown and slow
4G), the chapter page of:

* the full book, zh and en (our real pages);
* the synthetic book built by ours and by MkDocs Material (``ch07``, zh and en: the same-shaped
  page, like with like).

Chromium is ``/usr/bin/chromium`` (``CHROME_PATH``) with the flags of ``tests/conftest.py``.
Each page is served by a local static server, audited ``RUNS`` times, and the median run (by
performance score) is kept. The rows go to ``bench/results.md`` between two markers (the rest of
the report is left as it is), the raw reports to ``WORK/lighthouse/``.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
LH_DIR = HERE / "lighthouse"
LH_CLI = LH_DIR / "node_modules" / "lighthouse" / "cli" / "index.js"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
BEGIN, END = "<!-- lighthouse -->", "<!-- /lighthouse -->"
GOALS = {"performance": 95, "accessibility": 100, "best-practices": 100, "seo": 100,
         "tbt_ms": 50, "tbt_ratio": 0.5, "cls": 0.02}


class NotInstalled(Exception):
    pass


def install() -> str:
    """`npm ci` from the lock file (install scripts off: Lighthouse needs none), once."""
    if LH_CLI.is_file():
        return "installed"
    res = subprocess.run(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=LH_DIR,
                         capture_output=True, text=True, timeout=900)
    if res.returncode != 0 or not LH_CLI.is_file():
        raise NotInstalled(f"npm ci in {LH_DIR} failed: {res.stderr[-800:]}")
    return "npm ci"


def version() -> str:
    return json.loads((LH_DIR / "package.json").read_text())["dependencies"]["lighthouse"]


def audit(url: str, out: Path, chromium: str, chromium_args: list[str]) -> dict:
    """One Lighthouse run (mobile preset: its default) -> the numbers of the report."""
    out.parent.mkdir(parents=True, exist_ok=True)
    flags = " ".join(["--headless=new", *chromium_args])
    cmd = ["node", str(LH_CLI), url, "--output=json", f"--output-path={out}", "--quiet",
           f"--only-categories={','.join(CATEGORIES)}", f"--chrome-flags={flags}"]
    env = {**os.environ, "CHROME_PATH": chromium}
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    if res.returncode != 0 or not out.is_file():
        raise RuntimeError(f"lighthouse {url}: exit {res.returncode}: {res.stderr[-800:]}")
    return numbers(json.loads(out.read_text(encoding="utf-8")))


def numbers(report: dict) -> dict:
    cats, audits = report["categories"], report["audits"]
    failed = sorted(
        f"{cat}: {ref['id']}" for cat in CATEGORIES for ref in cats[cat]["auditRefs"]
        if ref.get("weight", 0) > 0 and audits[ref["id"]].get("score") is not None
        and audits[ref["id"]]["score"] < 1 and audits[ref["id"]]["scoreDisplayMode"] == "binary")
    if report.get("runtimeError"):
        failed.insert(0, f"runtime error: {report['runtimeError'].get('code')}")
    return {
        "performance": _score(cats["performance"]), "accessibility": _score(cats["accessibility"]),
        "best-practices": _score(cats["best-practices"]), "seo": _score(cats["seo"]),
        "lcp_ms": audits["largest-contentful-paint"].get("numericValue"),
        "tbt_ms": audits["total-blocking-time"].get("numericValue"),
        "cls": audits["cumulative-layout-shift"].get("numericValue"),
        "failed": failed, "url": report.get("finalDisplayedUrl") or report.get("finalUrl"),
        "version": report.get("lighthouseVersion"),
    }


def _score(cat: dict):
    return None if cat.get("score") is None else round(cat["score"] * 100)


def median_run(runs: list[dict]) -> dict:
    """The run with the median performance score (its numbers belong together)."""
    ranked = sorted(runs, key=lambda r: (r["performance"] or 0, -(r["tbt_ms"] or 0)))
    best = dict(ranked[len(ranked) // 2])
    best["runs"] = [r["performance"] for r in runs]
    best["tbt_runs"] = [round(r["tbt_ms"] or 0) for r in runs]
    return best


def measure(pages: list[tuple[str, str]], work: Path, runs: int, chromium: str,
            chromium_args: list[str], log=print) -> dict:
    """{label: median run} for [(label, url)]."""
    out = {}
    for label, url in pages:
        samples = []
        for i in range(runs):
            log(f"lighthouse: {label} run {i + 1}/{runs}")
            samples.append(audit(url, work / "lighthouse" / f"{_file(label)}-{i + 1}.json",
                                 chromium, chromium_args))
        out[label] = median_run(samples)
    return out


def _file(label: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in label).strip("-").lower()


def _fmt(v, unit=""):
    if v is None:
        return "—"
    if unit == "ms":
        return f"{v:.0f} ms"
    if unit == "s":
        return f"{v / 1000:.2f} s"
    if unit == "cls":
        return f"{v:.3f}"
    return str(v)


def report(R: dict) -> list[str]:
    """The Markdown section (between the markers) for {"pages": {label: run}, ...}."""
    pages = R.get("pages") or {}
    L = [BEGIN, "## Lighthouse: the reader on a phone (mobile preset)", ""]
    if R.get("error"):
        return L + [f"Not measured: {R['error']}", "", END]
    L += [f"Lighthouse {R.get('version')} (pinned in `bench/lighthouse/package.json`), its default "
          "mobile preset: an emulated phone, simulated 4× CPU slowdown and slow 4G; "
          f"Chromium `{R.get('chromium')}` with the flags of `tests/conftest.py`; "
          f"{R.get('runs')} runs per page, the median run's numbers (by performance score; all "
          "runs' scores in the last column). Pages served by a local static server. "
          f"Run {R.get('started')} → {R.get('finished')}, load average {R.get('load')}.", "",
          "| page | performance | LCP | TBT | CLS | accessibility | best practices | SEO | runs' perf. (TBT ms) |",
          "|---|---|---|---|---|---|---|---|---|"]
    for label, r in pages.items():
        L.append(f"| {label} | {_fmt(r['performance'])} | {_fmt(r['lcp_ms'], 's')} | "
                 f"{_fmt(r['tbt_ms'], 'ms')} | {_fmt(r['cls'], 'cls')} | {_fmt(r['accessibility'])} | "
                 f"{_fmt(r['best-practices'])} | {_fmt(r['seo'])} | "
                 f"{', '.join(map(str, r['runs']))} ({', '.join(map(str, r['tbt_runs']))}) |")
    L += ["", "Goals (issue 30), for our pages: " + "; ".join(goal_lines(pages)) + ".", ""]
    failed = [(label, r["failed"]) for label, r in pages.items() if r["failed"]]
    if failed:
        L.append("Audits that did not pass (median run):")
        L += [f"- {label}: {', '.join(f)}" for label, f in failed]
        L.append("")
    L += [f"- {n}" for n in R.get("notes", [])]
    return L + ["", END]


def goal_lines(pages: dict) -> list[str]:
    ours = {k: v for k, v in pages.items() if k.startswith("ours")}
    mk = {k: v for k, v in pages.items() if k.startswith("MkDocs")}
    mk_tbt = max((v["tbt_ms"] or 0 for v in mk.values()), default=None)
    out = []
    for label, r in ours.items():
        misses = [f"{c} {r[c]} < {GOALS[c]}" for c in CATEGORIES if (r[c] or 0) < GOALS[c]]
        tbt = r["tbt_ms"] or 0
        if tbt > GOALS["tbt_ms"]:
            misses.append(f"TBT {tbt:.0f} ms > {GOALS['tbt_ms']} ms")
        if mk_tbt and tbt > GOALS["tbt_ratio"] * mk_tbt:
            misses.append(f"TBT {tbt:.0f} ms > 0.5 × MkDocs' {mk_tbt:.0f} ms")
        if (r["cls"] or 0) > GOALS["cls"]:
            misses.append(f"CLS {r['cls']:.3f} > {GOALS['cls']}")
        out.append(f"{label}: {'all met' if not misses else 'missed: ' + ', '.join(misses)}")
    return out


def write_section(results: Path, lines: list[str]) -> None:
    """Replace (or append) the Lighthouse section of results.md, leaving the rest as it is."""
    text = results.read_text(encoding="utf-8") if results.is_file() else ""
    block = "\n".join(lines) + "\n"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1].lstrip("\n")
        text = head + block + ("\n" + tail if tail else "")
    elif "\n## Notes" in text:     # beside the other comparisons, before the notes
        head, tail = text.split("\n## Notes", 1)
        text = head.rstrip("\n") + "\n\n" + block + "\n## Notes" + tail
    else:
        text = text.rstrip("\n") + "\n\n" + block
    results.write_text(text, encoding="utf-8")


def median(xs):
    return statistics.median(xs) if xs else None
