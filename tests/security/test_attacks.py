"""Issue 27: a translation is a contributor's text. Each attack of the issue, tried on a copy of a
built tiny book: the build refuses it naming file:line and the reason, the previous site stays
and holds nothing of it, and check_site.py's trust check and check_translation.py report it."""
import os

import pytest

from conftest import (ORIGINAL, TRANSLATION, build_site, check_translation, run, site_text,
                      trust_errors)

WHERE = "book-en/01-x.md:7"    # the line each attack is appended at


def refused(root, res, reason: str, payload: str, where: str = WHERE) -> None:
    assert res.returncode != 0, res.stdout + res.stderr
    assert where in res.stderr and reason in res.stderr, res.stderr
    assert "Traceback" not in res.stderr
    site = site_text(root)
    assert "The text has" in site            # the previous site is intact...
    assert payload not in site               # ...and holds nothing of the attack


def reported(root, reason: str, where: str = WHERE) -> None:
    errors = trust_errors(root)
    assert any(f.where.endswith(where) and reason in f.message for f in errors), errors
    res = check_translation(root)
    assert res.returncode == 1 and f"{where}: unsafe [high]" in res.stdout, res.stdout


@pytest.mark.parametrize("payload", [
    "<script>alert('x1')</script>",
    "<svg onload=alert('x2')></svg>",
    "An <img src=\"x\" onerror=\"alert('x3')\"> inline.",
    '<iframe src="https://evil.example/x4"></iframe>',
    '<a href="javascript:alert(\'x5\')">x</a>',
    '<a id="ok" onclick="alert(\'x6\')"></a>',
    '<span id="x7" style="background:url(javascript:alert(1))"></span>',
])
def test_raw_html_in_a_translation_is_refused(attacked, payload):
    root = attacked(translation=TRANSLATION + "\n" + payload + "\n")
    res = build_site(root)
    refused(root, res, "is not allowed in a translation", payload)
    reported(root, "raw HTML")


@pytest.mark.parametrize("payload", ["[x](javascript:alert('y1'))", "<javascript:alert('y2')>",
                                     "[x](data:text/html;base64,PHNjcmlwdD4=)",
                                     "![x](data:image/png;base64,iVBORw0KGgo=)"])
def test_script_and_data_urls_are_refused(attacked, payload):
    root = attacked(translation=TRANSLATION + "\n" + payload + "\n")
    refused(root, build_site(root), "data: or file:", payload.split(":")[1][:12])
    reported(root, "data: or file:")


def test_anchor_forms_stay_allowed(attacked):
    text = (TRANSLATION + '\nSee <a id="here"></a> and <a name="there">there</a> and '
            '<span id="t3"></span>, [back](#here).\n')
    root = attacked(translation=text)
    res = build_site(root)
    assert res.returncode == 0, res.stderr
    assert 'id="here"' in (root / "build/site/en/x.html").read_text(encoding="utf-8")
    assert trust_errors(root) == []


def test_no_output_carries_event_handlers_or_script_urls(attacked):
    """The original's author may write raw HTML (trusted), but check_site still refuses any page
    that carries an on*= attribute or a javascript: URL, whoever wrote it."""
    root = attacked(original=ORIGINAL + '\n<img src="a.png" alt="" onerror="alert(1)">\n\n'
                    '<a href="javascript:void(0)">x</a>\n\n![图](images/a.svg)\n')
    (root / "manuscripts" / "images").mkdir()
    (root / "manuscripts" / "images" / "a.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9">\n<script>1</script></svg>')
    assert build_site(root).returncode == 0
    res = run(root, "scripts/check_site.py", "--no-translations")
    assert res.returncode == 1
    assert "x.html:" in res.stdout and "unsafe-output: <img onerror=" in res.stdout, res.stdout
    assert "unsafe-output: <a href=\"javascript:void(0)\">" in res.stdout
    assert "a.svg:2: unsafe-output: <script> runs script" in res.stdout


def test_check_site_fails_a_pull_request_that_tries_one(attacked):
    root = attacked(translation=TRANSLATION + "\n<script>alert(1)</script>\n")
    res = run(root, "scripts/check_site.py", "--no-translations")
    assert res.returncode == 1
    assert f"{WHERE}: unsafe-source: raw HTML `<script>`" in res.stdout, res.stdout


# ---------------------------------------------------------------- figure scripts (build-time code)

@pytest.mark.parametrize("src", ["{evil}", "../book-en/notes.py", "figures/../../book-en/notes.py"])
def test_a_translation_runs_no_figure_script_of_its_own(attacked, tmp_path, src):
    marker = tmp_path / "ran"
    script = f"import pathlib\npathlib.Path({str(marker)!r}).write_text('x')\nSTRINGS={{}}\n"
    evil = tmp_path / "evil.py"
    evil.write_text(script)
    root = attacked(translation=TRANSLATION + f"\n![x]({src.format(evil=evil)}){{#fig-waves}}\n")
    (root / "book-en" / "notes.py").write_text(script)
    res = build_site(root)
    refused(root, res, "is not the original's figure", "notes.py")
    assert not marker.exists()
    reported(root, "not the original's figure")


def test_a_translation_may_not_point_an_original_figure_id_elsewhere(attacked):
    root = attacked(translation=TRANSLATION.replace("ch05_waves.py", "ch01_memory.py"))
    (root / "manuscripts" / "figures" / "ch01_memory.py").write_text("raise SystemExit(3)\n")
    res = build_site(root)
    refused(root, res, "is not the original's figure", "ch01_memory", "book-en/01-x.md:5")


def test_figure_scripts_only_from_the_originals_figures_folder(attacked, tmp_path):
    (tmp_path / "elsewhere.py").write_text("raise SystemExit(4)\n")
    root = attacked(original=ORIGINAL.replace("figures/ch05_waves.py",
                                              str(tmp_path / "elsewhere.py")))
    res = build_site(root)
    refused(root, res, "only the original's figure scripts run", "elsewhere",
            "manuscripts/01-x.md:9")


# ------------------------------------------------------------------------------ images

def test_a_symlinked_image_is_an_error(attacked, tmp_path):
    secret = tmp_path / "secret.svg"
    secret.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
                      '<text>SECRET-IMAGE-9</text></svg>')
    root = attacked(translation=TRANSLATION + "\n![leak](images/leak.svg)\n")
    (root / "book-en" / "images").mkdir()
    os.symlink(secret, root / "book-en" / "images" / "leak.svg")
    res = build_site(root)
    refused(root, res, "symlink", "SECRET-IMAGE-9")
    reported(root, "symlink")


def test_a_symlinked_image_folder_is_an_error_too(attacked, tmp_path):
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "leak.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><text>LEAK-8</text></svg>')
    root = attacked(translation=TRANSLATION + "\n![leak](images/leak.svg)\n")
    os.symlink(tmp_path / "outside", root / "book-en" / "images")
    refused(root, build_site(root), "symlink", "LEAK-8")


def test_text_that_pandoc_would_read_as_markup_stays_text_in_the_epub(attacked):
    """markdown-it leaves these as text (so the site shows text), but Pandoc would read an HTML
    tag with an event handler and a span with an onclick attribute in them: a translation's text
    reaches Pandoc escaped, so the EPUB (HTML) shows the same text and carries no handler."""
    import zipfile
    line = ("An <img src=x onerror=alert('x3')> inline, [s]{onclick=\"alert(4)\"} and "
            "<!-- a note --> end.")
    root = attacked(translation=TRANSLATION + "\n" + line + "\n")
    assert build_site(root).returncode == 0
    site = (root / "build/site/en/x.html").read_text(encoding="utf-8")
    assert "&lt;img src=x onerror" in site and "<img src=\"x\"" not in site
    res = run(root, "book/build_epub.py", "--edition", "en")
    assert res.returncode == 0, res.stderr
    with zipfile.ZipFile(root / "book-en" / "AI-Infra-Book-EN.epub") as epub:
        pages = "".join(epub.read(n).decode("utf-8") for n in epub.namelist()
                        if n.endswith(".xhtml"))
    assert "&lt;img src=x onerror=alert(" in pages and "[s]{onclick=" in pages
    assert "<img src=\"x\"" not in pages and "onclick=\"" not in pages
    assert "a note" not in pages        # a comment is dropped, not printed


@pytest.mark.parametrize("inside", [
    "<script>alert('s1')</script>",
    "<image href='x.png' onerror=\"alert('s2')\"/>",
    "<a xlink:href=\"javascript:alert('s3')\"><text>x</text></a>",
    "<foreignObject><div>s4</div></foreignObject>",
])
def test_a_translations_svg_image_holds_no_script(attacked, inside):
    """A translation's own SVG image is a file of the site's origin, and an SVG claiming to be a
    figure (class bk-fig) is inlined into the page by app.js: it may hold no script."""
    root = attacked(translation=TRANSLATION + "\n![drawing](images/d.svg)\n")
    (root / "book-en" / "images").mkdir()
    (root / "book-en" / "images" / "d.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        f'class="bk-fig" width="10" height="10">{inside}</svg>')
    refused(root, build_site(root), "SVG image images/d.svg is not allowed", inside)
    reported(root, "SVG image")
