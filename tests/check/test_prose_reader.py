"""The checks that read prose line by line (the zh-tw leftover check, terminology, the source
checks) take the block structure from the parser's token stream, not from a line pattern of
their own: a fence inside a longer fence, a tilde fence, display math and front matter are what
the parser says they are."""
from pathlib import Path

from bookkit.check.script import leftover_simplified, prose_lines
from bookkit.source.markdown import block_tokens, not_prose_lines, parse

ROOT = Path(__file__).resolve().parents[2]

TEXT = """---
title: 这个
---

# 標題 {#sec-x}

````markdown
```
这个 inside a four-backtick fence
```
````

說明文字。

~~~~
数据
~~~

still code: a shorter closing fence does not close it
~~~~

$$
\\text{这个} = 1
$$

最後一行的这个。
"""


def test_prose_lines_follow_the_parsers_blocks():
    lines = {no: prose.strip() for no, _line, prose in prose_lines(TEXT)}
    assert lines[5] == "# 標題" and lines[13] == "說明文字。"
    assert lines[26] == "最後一行的这个。"
    text_lines = TEXT.splitlines()
    hidden = [i + 1 for i in range(len(text_lines)) if i + 1 not in lines]
    # front matter 1-3, the ```` fence 7-11, the ~~~~ fence 15-20, the math block 22-24
    assert hidden == [*range(1, 4), *range(7, 12), *range(15, 21), *range(22, 25)]


def test_leftover_check_reads_only_prose():
    found = [(x.line, x.char) for x in leftover_simplified(TEXT)]
    assert found == [(26, "这"), (26, "个")]


def test_block_reading_equals_the_full_parse():
    for folder in ("manuscripts", "book-en", "book-zh-tw"):
        for path in sorted((ROOT / folder).glob("0[1-3]-*.md")):
            text = path.read_text(encoding="utf-8")
            assert not_prose_lines(block_tokens(text)) == not_prose_lines(parse(text)[0]), path
