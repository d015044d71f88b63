"""One bound-number grammar (bookkit/source/markdown.py) for the parser that renders the book and the
translation check that reads it: `{{ x | spec }}`, the escaped `{{ x \\| spec }}` of table cells,
and a dotted name, which neither accepts as a reference (the build reports it; the check leaves
it out of the prose instead of reading its digits)."""
import pytest

from bookkit.check.chapter import parse_document
from bookkit.check.script import prose_lines
from bookkit.source.markdown import BOUND_RE, BOUND_SPAN_RE, parse


def bound_tokens(text: str) -> list[dict]:
    tokens, _ = parse(text)
    out = []
    for tok in tokens:
        out += [child.meta for child in tok.children or [] if child.type == "bound_value"]
    return out


def refs(text: str, lang: str = "zh-Hans") -> list[str]:
    return [name for sec in parse_document(text, lang).sections for name, _line in sec.refs]


def nums(text: str, lang: str = "zh-Hans") -> list[str]:
    return [n.text for sec in parse_document(text, lang).sections for n in sec.nums]


@pytest.mark.parametrize("source, name, spec", [
    ("{{ kv }}", "kv", None),
    ("{{kv|int}}", "kv", "int"),
    ("{{ kv | si unit=GB digits=1 }}", "kv", "si unit=GB digits=1"),
    ("{{ kv \\| si unit=GB digits=1 }}", "kv", "si unit=GB digits=1"),
])
def test_one_pattern(source, name, spec):
    m = BOUND_RE.fullmatch(source)
    assert m and m.group(1) == name and (m.group(2) or None) == spec


def test_dotted_name_is_not_a_bound_number():
    assert BOUND_RE.search("{{ m.attr }}") is None
    assert BOUND_SPAN_RE.fullmatch("{{ m.attr }}")


TABLE = ("# 表 {#sec-t}\n\n"
         "| 配置 | 显存 |\n|---|---|\n"
         "| 长上下文 | {{ kv_total \\| si unit=GiB digits=1 }} |\n\n"
         ": 同一个数的写法 {#tbl-kv}\n\n"
         "正文里写作 {{ kv_total | si unit=GiB digits=1 }}。\n")


def test_table_cell_form_in_the_parser_and_the_check():
    metas = bound_tokens(TABLE)
    assert [(m["name"], m["spec"]) for m in metas] == [("kv_total", "si unit=GiB digits=1")] * 2
    # the check sees both references, and reads no number out of either spec (the `1` of
    # `digits=1` was a number to it when the escaped form did not match)
    assert refs(TABLE) == ["kv_total", "kv_total"]
    assert nums(TABLE) == []


def test_dotted_name_in_the_parser_and_the_check():
    text = "# 节 {#sec-x}\n\n模型有 {{ model.layers }} 层，共 {{ m.v2 }} 个参数。\n"
    metas = bound_tokens(text)
    assert [m.get("invalid") for m in metas] == ["{{ model.layers }}", "{{ m.v2 }}"]
    assert refs(text) == []             # not references: the build rejects them
    assert nums(text) == []             # and `2` of `m.v2` is not read as a number


def test_script_check_blanks_both_forms():
    line = "見 {{ x \\| si unit=GB digits=1 }} 与 {{ m.attr }} 这里"
    [(_no, _line, prose)] = list(prose_lines(line))
    assert "{" not in prose and "digits" not in prose and "attr" not in prose
    assert len(prose) == len(line) and prose.endswith("这里")
