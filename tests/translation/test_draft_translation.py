"""scripts/draft_translation.py: an OpenCC (s2twp) zh-tw draft that converts the prose and keeps
link targets, code, URLs, IDs, bound references, cross-references and math byte-identical."""
import subprocess
import sys
from pathlib import Path

from bookkit.tools.draft import draft_zh_tw

ROOT = Path(__file__).resolve().parents[2]

ORIGINAL = """---
title: 后端内存
---
# 后端与内存 {#sec-backend}

这段软件说明里的数据见[数据表](../数据/内存表.csv)和[网页](https://例子.cn/后端/内存)，
也见 <https://例子.cn/软件> 与 https://例子.cn/数据 两处。<a id="显存预算"></a>

行内代码 `后端 = 内存()` 与公式 $\\text{显存} = 2 \\cdot L$ 不变，{{ kv_total | si unit=GiB }}
与 @sec-backend 也不变[^脚注]。

$$
\\text{内存带宽} = \\frac{\\text{数据量}}{\\text{时间}}
$$ {#eq-mem-bw}

![内存布局](images/内存布局.svg){#fig-layout}

```python
# 这是代码里的注释：后端
数据 = "内存"
```

[参考]: https://例子.cn/参考/数据

[^脚注]: 脚注里的软件与数据要转换。
"""

KEPT = [
    "{#sec-backend}", "](../数据/内存表.csv)", "](https://例子.cn/后端/内存)", "<https://例子.cn/软件>",
    "https://例子.cn/数据", '<a id="显存预算"></a>', "`后端 = 内存()`", "$\\text{显存} = 2 \\cdot L$",
    "{{ kv_total | si unit=GiB }}", "@sec-backend", "[^脚注]",
    "\\text{内存带宽} = \\frac{\\text{数据量}}{\\text{时间}}", "$$ {#eq-mem-bw}",
    "](images/内存布局.svg){#fig-layout}", '# 这是代码里的注释：后端\n数据 = "内存"',
    "[参考]: https://例子.cn/参考/数据", "title: 后端内存",
]


def test_draft_keeps_protected_spans_and_converts_prose():
    draft = draft_zh_tw(ORIGINAL)
    for span in KEPT:
        assert span in draft, span
    assert draft.count("\n") == ORIGINAL.count("\n")
    # the prose is converted with Taiwan phrases (s2twp): 软件 -> 軟體, 数据 -> 資料
    assert "# 後端與記憶體" in draft
    assert "這段軟體說明裡的資料見[資料表]" in draft
    assert "[^脚注]: 腳註裡的軟體與資料要轉換。" in draft
    assert "![記憶體佈局]" in draft


def test_cli_writes_a_draft_and_keeps_an_existing_file(tmp_path):
    src = tmp_path / "03-x.md"
    src.write_text(ORIGINAL, encoding="utf-8")
    out = tmp_path / "zh-tw" / "03-x.md"
    out.parent.mkdir()
    script = [sys.executable, str(ROOT / "scripts" / "draft_translation.py"), "--to", "zh-tw"]
    res = subprocess.run([*script, str(src), "--out", str(out)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert out.read_text(encoding="utf-8") == draft_zh_tw(ORIGINAL)
    out.write_text("hand edits", encoding="utf-8")
    res = subprocess.run([*script, str(src), "--out", str(out)], capture_output=True, text=True)
    assert res.returncode == 2 and "--force" in res.stderr
    assert out.read_text(encoding="utf-8") == "hand edits"
