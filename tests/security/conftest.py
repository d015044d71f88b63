"""A tiny book for the attacks: the real pipeline, templates and edition settings, one chapter
in the original (zh) and one translation (en), so that each attack costs one small build.

`tiny_book(original=…, translation=…)` writes the chapter texts; `build_site(root)` runs the real
entry point (`scripts/build_site.py`) and returns the finished process.
"""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

FIGURE = "ch05_waves.py"
BOOK_YML = """\
site_url: https://example.org/
repo_url: https://github.com/OWNER/REPO/blob/main/
release_url: https://github.com/OWNER/REPO/releases/latest/download/
editions:
  - {id: zh, dir: manuscripts, lang: zh-Hans, path: "", name: 简体, locale: zh_CN, out: book}
  - {id: en, dir: book-en, lang: en, path: en, locale: en_US}
chapters:
  - {file: 01-x.md, slug: x}
"""
ORIGINAL = f"""\
# 标题 {{#sec-x}}

```calc
n = 8
```

正文有 {{{{ n }}}} 个数，公式 $a \\times b$。

![波](figures/{FIGURE}){{#fig-waves}}
"""
TRANSLATION = f"""\
# Title {{#sec-x}}

The text has {{{{ n }}}} numbers, formula $a \\times b$.

![Waves](figures/{FIGURE}){{#fig-waves}}
"""


def make_tiny_book(dest: Path, original: str = ORIGINAL, translation: str = TRANSLATION) -> Path:
    for name in ("bookkit", "scripts", "calculations", "book"):
        shutil.copytree(ROOT / name, dest / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pdf", "*.epub"))
    (dest / "manuscripts" / "figures").mkdir(parents=True)
    (dest / "book-en").mkdir()
    shutil.copy(ROOT / "manuscripts" / "figures" / FIGURE, dest / "manuscripts" / "figures")
    for name in ("edition.yml", "figures.yml"):
        shutil.copy(ROOT / "manuscripts" / name, dest / "manuscripts")
    for name in ("edition.yml", "glossary.yml", "figures.yml"):
        shutil.copy(ROOT / "book-en" / name, dest / "book-en")
    (dest / "manuscripts" / "book.yml").write_text(BOOK_YML, encoding="utf-8")
    (dest / "manuscripts" / "01-x.md").write_text(original, encoding="utf-8")
    (dest / "book-en" / "01-x.md").write_text(translation, encoding="utf-8")
    (dest / "website").mkdir()
    for name in ("templates", "static"):
        shutil.copytree(ROOT / "website" / name, dest / "website" / name)
    (dest / "website" / "node_modules").symlink_to(ROOT / "website" / "node_modules")
    (dest / ".venv").symlink_to(ROOT / ".venv")
    return dest


@pytest.fixture
def tiny_book(tmp_path):
    def make(original: str = ORIGINAL, translation: str = TRANSLATION) -> Path:
        return make_tiny_book(tmp_path / "book", original, translation)
    return make


def run(root: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([str(ROOT / ".venv" / "bin" / "python"), *args], cwd=root,
                          capture_output=True, text=True, timeout=timeout)


def build_site(root: Path, *args: str) -> subprocess.CompletedProcess:
    return run(root, "scripts/build_site.py", "--quiet", *args)


def site_text(root: Path) -> str:
    """Every text file of the built site, concatenated (to assert an attack left nothing)."""
    site = root / "build" / "site"
    if not site.exists():
        return ""
    return "\n".join(p.read_text(encoding="utf-8", errors="replace")
                     for p in sorted(site.rglob("*")) if p.is_file()
                     and p.suffix in (".html", ".js", ".json", ".svg", ".xml", ".txt"))


@pytest.fixture(scope="module")
def clean_book(tmp_path_factory) -> Path:
    """The tiny book, built once per module: each attack starts from a copy of it (its site and
    cache included), so a refused build must leave that site as it was."""
    root = make_tiny_book(tmp_path_factory.mktemp("clean") / "book")
    res = build_site(root)
    assert res.returncode == 0, res.stderr
    return root


@pytest.fixture
def attacked(clean_book, tmp_path):
    """A copy of the built tiny book with the given chapter texts (None: as built)."""
    def make(translation: str | None = None, original: str | None = None) -> Path:
        root = tmp_path / "book"
        shutil.copytree(clean_book, root, symlinks=True)
        if translation is not None:
            (root / "book-en" / "01-x.md").write_text(translation, encoding="utf-8")
        if original is not None:
            (root / "manuscripts" / "01-x.md").write_text(original, encoding="utf-8")
        return root
    return make


def trust_errors(root: Path) -> list:
    """What check_site.py's trust check reports on the sources (errors only)."""
    from bookkit.check.trust import trust_findings
    return [f for f in trust_findings(root) if f.severity == "error"]


def check_translation(root: Path) -> subprocess.CompletedProcess:
    return run(root, "scripts/check_translation.py", "manuscripts/01-x.md", "book-en/01-x.md",
               "--lang", "en")
