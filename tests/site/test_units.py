"""Unit tests on tiny in-memory chapters: parsing, numbering, IDs, cross-references, math."""
from pathlib import Path

import pytest

from bookkit.source.markdown import parse
from bookkit.model import BuildError, ChapterSource
from bookkit.model import label_text
from bookkit.resolve.numbering import number_chapter

STRINGS = {"chapter": "第 {n} 章", "section": "{n} 节", "figure": "图 {n}", "table": "表 {n}",
           "equation": "式 ({n})", "preface": "前言"}


def chapter(text: str, number: int = 3, slug: str = "workloads") -> ChapterSource:
    return ChapterSource(edition="zh", number=number, slug=slug, path=Path(f"{slug}.md"), text=text)


def number(text: str, number_: int = 3):
    labels = {}
    ch = chapter(text, number_)
    tokens, _ = parse(ch.text)
    outline = number_chapter(ch, tokens, labels)
    return labels, outline, tokens


def test_sections_figures_tables_equations_are_numbered_in_order():
    labels, outline, _ = number("""# 负载 {#sec-workloads}

## 阶段 {#sec-phases}

### 预填充 {#sec-prefill}

![图注](figures/a.py){#fig-a}

| a |
|---|
| 1 |

: 表注 {#tbl-a}

$$
x = 1
$$ {#eq-a}

## 到达 {#sec-arrivals}

![图注二](figures/b.py){#fig-b}
""")
    assert [(l.id, l.kind, l.number) for l in labels.values()] == [
        ("sec-workloads", "chapter", "3"), ("sec-phases", "section", "3.1"),
        ("sec-prefill", "section", "3.1.1"), ("fig-a", "figure", "3-1"),
        ("tbl-a", "table", "3-1"), ("eq-a", "equation", "3.1"),
        ("sec-arrivals", "section", "3.2"), ("fig-b", "figure", "3-2")]
    assert [f[0] for f in outline.figures] == ["fig-a", "fig-b"]
    assert label_text(labels["fig-b"], STRINGS) == "图 3-2"
    assert label_text(labels["sec-prefill"], STRINGS) == "3.1.1 节"
    assert label_text(labels["sec-workloads"], STRINGS) == "第 3 章"
    assert label_text(labels["eq-a"], STRINGS) == "式 (3.1)"


def test_headings_without_ids_get_positional_ids_and_heading_text_loses_attrs():
    labels, outline, tokens = number("# 标题\n\n## 甲\n\n## 乙 {#sec-b .x}\n")
    assert list(labels) == ["sec-workloads", "sec-workloads-1", "sec-b"]
    assert outline.sections[1][3] == "乙"


@pytest.mark.parametrize("text,message", [
    ("## 没有章标题\n", "must start with a level-1 heading"),
    ("# 甲\n\n# 乙\n", "a second level-1 heading"),
    ("# 甲\n\n## 一 {#sec-x}\n\n## 二 {#sec-x}\n", "duplicate label `sec-x`"),
    ("# 甲\n\n![图](figures/a.py)\n", "an executable figure needs an ID"),
])
def test_structural_errors_name_the_line(text, message):
    with pytest.raises(BuildError) as err:
        number(text)
    assert message in err.value.render() and "workloads.md:" in err.value.render()


def test_inline_rules_bound_values_and_xrefs():
    tokens, _ = parse("见 @fig-a，共 {{ n | count sig=3 }} 个；邮件 a@fig-b.com；{{ 1 / x }}\n")
    kids = [(c.type, c.meta) for c in tokens[1].children if c.type != "text"]
    assert kids == [("xref", {"id": "fig-a"}),
                    ("bound_value", {"name": "n", "spec": "count sig=3"}),
                    ("bound_value", {"name": "", "spec": "", "invalid": "{{ 1 / x }}"})]


def test_table_cell_bound_value_with_escaped_pipe():
    tokens, _ = parse("| a |\n|---|\n| {{ v \\| int }} |\n")
    metas = [c.meta for t in tokens for c in (t.children or []) if c.type == "bound_value"]
    assert metas == [{"name": "v", "spec": "int"}]


def test_inline_children_carry_line_numbers():
    tokens, _ = parse("# T\n\nfirst line\nsecond @fig-x line\n")
    ref = next(c for c in tokens[4].children if c.type == "xref")
    assert ref.map[0] + 1 == 4


def test_katex_renders_aligned_at_build_time(tmp_path):
    from bookkit.util.cache import Cache
    from bookkit.render.site.katex import render_all
    root = Path(__file__).resolve().parents[2]
    tex = r"\begin{aligned} a &= b + c \\ d &= e \end{aligned}"
    out = render_all({(tex, True)}, root, Cache(tmp_path))
    html = out[(tex, True)]
    assert "<mtable" in html and 'class="katex-display"' in html
    bad = render_all({(r"\foo{x}", False)}, root, Cache(tmp_path))
    assert isinstance(bad[(r"\foo{x}", False)], Exception)


@pytest.mark.parametrize("text,closed", [
    ("# 甲\n\n```calc\nx = 1\n```\n\n正文 {{ x }}。\n", True),
    ("# 甲\n\n````calc show\nx = 1\n````\n", True),
    ("# 甲\n\n```calc\nx = 1\n\n正文 {{ x }}。\n", False),
    ("# 甲\n\n```calc\nx = 1\n", False),
    ("# 甲\n\n````calc\nx = 1\n```\n正文\n", False),     # a shorter fence does not close it
])
def test_an_unclosed_calc_fence_is_an_error_at_its_line(text, closed):
    from bookkit.resolve.cells import extract_cells
    if closed:
        assert [c.code for c in extract_cells(chapter(text))] == ["x = 1\n"]
        return
    with pytest.raises(BuildError) as err:
        extract_cells(chapter(text))
    assert "workloads.md:3:" in err.value.render() and "never closed" in err.value.render()


@pytest.mark.parametrize("text, kind", [
    ("![cap](figures/x.py){#fig-x}", "script"),
    ("  ![cap](img/a.png)  ", "static"),
    ("![cap](figures/x.py){#fig-x} and a word", None),
    ("A word, then ![cap](figures/x.py){#fig-x}", None),
    ("![a](img/a.png) ![b](img/b.png)", None),
    ("![cap](https://example.org/a.png)", None),
    ("Plain text only.", None),
])
def test_a_figure_paragraph_holds_one_image_and_nothing_else(text, kind):
    from bookkit.resolve.numbering import is_figure_paragraph
    from bookkit.source.images import is_static_figure, lone_image
    from bookkit.source.markdown import parse
    tokens, _env = parse(text + "\n")
    assert (lone_image(tokens, 0) is not None) == (kind is not None or "https" in text)
    assert is_figure_paragraph(tokens, 0) == (kind == "script")
    assert is_static_figure(tokens, 0) == (kind == "static")


def test_image_sizes_match_pillow_and_a_symlinked_image_is_refused(tmp_path):
    """A PNG's size is read from its header (no Pillow import); a JPEG's through Pillow; both
    as Pillow reads them. An image reached through a symlinked folder inside the book is
    refused, the same file reached directly is not."""
    from pathlib import Path

    from PIL import Image

    from bookkit.source.images import UnsafeImage, image_size, source_path
    book = tmp_path / "book"
    (book / "manuscripts" / "images").mkdir(parents=True)
    for name, size in (("wide.png", (321, 17)), ("tall.jpg", (9, 250)), ("grey.png", (5, 7))):
        Image.new("L" if name == "grey.png" else "RGB", size).save(
            book / "manuscripts" / "images" / name)
        assert image_size(book / "manuscripts" / "images" / name) == size
    (book / "manuscripts" / "images" / "broken.png").write_bytes(b"not a png at all" * 3)
    try:
        image_size(book / "manuscripts" / "images" / "broken.png")
    except Exception as exc:   # Pillow's error, as before the header fast path
        assert "cannot identify" in str(exc)
    chapter = book / "manuscripts" / "ch.md"
    assert source_path(chapter, "images/wide.png", "manuscripts") == Path(
        book / "manuscripts" / "images" / "wide.png")
    (book / "manuscripts" / "linked").symlink_to(book / "manuscripts" / "images")
    try:
        source_path(chapter, "linked/wide.png", "manuscripts")
    except UnsafeImage as exc:
        assert "symlink" in str(exc)
    else:
        raise AssertionError("an image through a symlinked folder was accepted")
    # `linked/..` is the book's folder only as text: the file opened is outside it
    from bookkit.source.images import _inside_book
    outside = tmp_path / "outside"
    outside.mkdir()
    (book / "manuscripts" / "far").symlink_to(outside)
    (tmp_path / "images").mkdir()
    (tmp_path / "images" / "wide.png").write_bytes(b"not the book's")
    through = Path("manuscripts/far/../images/wide.png")
    try:
        _inside_book(book, book / through, through)
    except UnsafeImage as exc:
        assert "symlink" in str(exc)
    else:
        raise AssertionError("a path through a link and `..` was accepted")


def test_cell_expressions_and_errors_are_cut_from_the_cells_own_lines():
    """A value's shown expression is its source text, as `ast.get_source_segment` gives it for
    the chapter (byte columns: a CJK string before it on the line), and a failing statement is
    named by its chapter line and quoted."""
    import ast
    from bookkit.resolve.cells import run_namespace
    code = ('label = "每秒词元"; rate = 3 * (\n'
            '    4 + 5)\n'
            'flat = rate / 2\r\n'
            'broken = rate / (flat - flat)\n')
    first = 40
    values, error = run_namespace("ch.md", [(first, code)], {})
    padded = "\n" * (first - 1) + code
    tree = ast.parse(padded)
    expected = {t.id: ast.get_source_segment(padded, stmt.value)
                for stmt in tree.body for t in stmt.targets}
    assert {k: v.expression for k, v in values.items()} == {
        k: expected[k] for k in ("label", "rate", "flat")}
    assert values["rate"].expression == "3 * (\n    4 + 5)"
    assert values["flat"].line == first + 2
    assert error.startswith(f"ch.md:{first + 3}: calc cell failed: ZeroDivisionError")
    assert error.endswith("    broken = rate / (flat - flat)")
