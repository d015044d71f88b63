"""The radix tree of a prefix cache (@sec-inference-optimization-prefix): one system prompt, two
tool descriptions, three conversation histories (the chapter's rt_* cells); each box is an edge's
token run and its KV blocks, drawn left (root) to right (leaves); shared beginnings stored once.
Positions are a closed-form layout of the tree (level -> x, leaf order -> y)."""
from bookkit.diagrams.draw import draw_flow
from bookkit.diagrams.extra import clear_under_text
from bookkit.diagrams.flow import Arrow, Box, Flow
from calculations import formulas, models

SIZE = (7.2, 3.0)
CELLS = ("rt_sys", "rt_tool_a", "rt_tool_b", "rt_stored", "rt_unshared", "rt_saving",
         "rt_kv_saved", "rt_match", "rt_new")
SYS, TOOL_A, TOOL_B, CONV, NEW = 1000, 500, 400, (300, 200, 250), 120   # the chapter's cells
W, GAP = 2.5, 1.1


def values():
    paths = (SYS + TOOL_A + CONV[0], SYS + TOOL_A + CONV[1], SYS + TOOL_B + CONV[2])
    stored = SYS + TOOL_A + TOOL_B + sum(CONV)
    unshared = sum(paths)
    kv_tok = formulas.kv_bytes_per_token(models.get("qwen3-8b"), dtype="bf16")
    return {"stored": stored, "unshared": unshared, "saving": 1 - stored / unshared,
            "kv": (unshared - stored) * kv_tok, "match": paths[1]}


def numbers(t):
    v = values()
    return {
        "sys": t.num(SYS, "int", name="rt_sys"), "a": t.num(TOOL_A, "int", name="rt_tool_a"),
        "b": t.num(TOOL_B, "int", name="rt_tool_b"),
        "c1": t.num(CONV[0], "int"), "c2": t.num(CONV[1], "int"), "c3": t.num(CONV[2], "int"),
        "stored": t.num(v["stored"], "int", name="rt_stored"),
        "unshared": t.num(v["unshared"], "int", name="rt_unshared"),
        "saving": t.num(v["saving"], "pct digits=1", name="rt_saving"),
        "kv": t.num(v["kv"], "si unit=MB digits=0", name="rt_kv_saved"),
        "match": t.num(v["match"], "int", name="rt_match"),
        "new": t.num(NEW, "int", name="rt_new"),
    }


def tree(t, v):
    # (id, level, y, label, note); a parent's y is the mean of its children's
    nodes = [("root", 0, 0.0, t["root"], ""),
             ("sys", 1, 0.0, t["sys"], t["tokens"].format(n=v["sys"])),
             ("a", 2, 1.1, t["tool"].format(x="A"), t["tokens"].format(n=v["a"])),
             ("b", 2, -1.6, t["tool"].format(x="B"), t["tokens"].format(n=v["b"])),
             ("c1", 3, 1.8, t["conv"].format(i=1), t["tokens"].format(n=v["c1"])),
             ("c2", 3, 0.4, t["conv"].format(i=2), t["hit"].format(n=v["c2"], new=v["new"])),
             ("c3", 3, -1.6, t["conv"].format(i=3), t["tokens"].format(n=v["c3"]))]
    boxes = tuple(Box(i, lvl * (W + GAP), y - 0.5, W, 1.0, label, note)
                  for i, lvl, y, label, note in nodes)
    arrows = tuple(Arrow(a, b) for a, b in (("root", "sys"), ("sys", "a"), ("sys", "b"),
                                            ("a", "c1"), ("a", "c2"), ("b", "c3")))
    return Flow(boxes, arrows)


def draw(fig, t):
    v = numbers(t)
    ax = fig.add_subplot()
    draw_flow(ax, tree(t, v), fontsize=7.5)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
