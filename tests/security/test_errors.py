"""Issue 27, lesser: errors that name their cause (an unclosed fence at its opening line, a
flood of cell output capped with the cap said, an overflowing calc.py input as a usage error)."""
import subprocess
import sys

import pytest

from conftest import ORIGINAL, ROOT, TRANSLATION, build_site, run


@pytest.mark.parametrize("edition", ["original", "translation"])
def test_an_unclosed_fence_is_named_at_its_opening_line(attacked, edition):
    # The four-backtick fence swallows everything after it, the calc cell too (its ``` does
    # not close ````): without the check, the build failed on the name `n` (an unknown bound
    # name, or a NameError in a later cell) far from the cause.
    lines = (ORIGINAL if edition == "original" else TRANSLATION).split("\n")
    lines.insert(2, "````python\nprint('unclosed')\n")
    root = attacked(**{edition: "\n".join(lines)})
    res = build_site(root)
    where = "manuscripts/01-x.md:3" if edition == "original" else "book-en/01-x.md:3"
    assert res.returncode == 1
    assert f"{where}: this ```` code fence is never closed" in res.stderr, res.stderr
    assert "NameError" not in res.stderr and "Traceback" not in res.stderr


def test_cell_output_is_capped_in_the_build_log(attacked):
    flood = "```calc\nfor _ in range(100):\n    print('x' * 1_000_000)\n```\n\n"
    root = attacked(original=ORIGINAL.replace("```calc\n", flood + "```calc\n", 1))
    res = build_site(root, "--no-cache")
    assert res.returncode == 0, res.stderr[-2000:]
    log = res.stdout + res.stderr
    assert len(log) < 200_000                     # not 100 MB
    assert "output capped at 65,536 characters" in log
    assert "99,934,564 more characters not shown" in log   # 100,000,100 printed, less the cap


@pytest.mark.parametrize("args", [["--context", "1e308"], ["--batch", "1e300"]])
def test_calc_overflow_is_a_usage_error(args):
    res = subprocess.run([sys.executable, str(ROOT / "calculations" / "calc.py"), "decode",
                          "--model", "qwen3-8b", "--hw", "h100", *args],
                         capture_output=True, text=True)
    assert res.returncode == 2
    assert "error: a value is too large to compute with" in res.stderr
    assert args[0] in res.stderr and "Traceback" not in res.stderr


def test_a_broken_edition_yml_stops_the_pdf_build_without_a_traceback(attacked):
    root = attacked()
    settings = root / "book-en" / "edition.yml"
    settings.write_text('title: "bad \\q"\n' + settings.read_text())
    res = run(root, "-m", "bookkit", "pdf", "--edition", "en")
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert "book-en/edition.yml:1: malformed YAML" in res.stderr
