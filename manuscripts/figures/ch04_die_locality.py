"""Die locality (@sec-accelerators-die-locality): above, B200's two dies, each with half the HBM,
the die-to-die link between them carrying the remote half of every SM's reads when addresses are
interleaved over all of HBM; below, MI300X's four AIDs (base dies) in a 2x2 mesh, each with two
XCDs and two HBM stacks, so that three quarters of an XCD's reads leave its AID. Bandwidths from
the hardware registry and the chapter's cited 10 TB/s."""
from bookkit.diagrams.draw import draw_flow
from bookkit.diagrams.extra import arrows_both_ways, clear_under_text
from bookkit.diagrams.flow import Arrow, Box, Flow
from calculations import hardware

SIZE = (6.4, 4.4)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("b200_die_bw", "die_cross_each_way", "b200_d2d", "mi_remote_share", "mi_cross_total")
D2D = 10e12
DIES, AIDS, STACKS_PER_AID = 2, 4, 2


def numbers(t):
    b200, mi = hardware.get("b200"), hardware.get("mi300x")
    die_bw = b200.hbm_bandwidth / DIES
    remote = (AIDS * STACKS_PER_AID - STACKS_PER_AID) / (AIDS * STACKS_PER_AID)
    return {"die_bw": t.num(die_bw, "si unit=TB/s digits=0", name="b200_die_bw"),
            "cross": t.num(die_bw * (DIES - 1) / DIES, "si unit=TB/s digits=0",
                           name="die_cross_each_way"),
            "d2d": t.num(D2D, "si unit=TB/s digits=0", name="b200_d2d"),
            "mi_remote": t.num(remote, "pct digits=0", name="mi_remote_share"),
            "mi_cross": t.num(mi.hbm_bandwidth * remote, "si unit=TB/s digits=1",
                              name="mi_cross_total"),
            "xcd": t.num(2, "int"), "hbm": t.num(STACKS_PER_AID, "int"),
            "aids": t.num(AIDS, "int")}


def draw(fig, t):
    v = numbers(t)
    boxes = [Box("hl", 0, 0, 2.2, 1, t["hbm_half"], v["die_bw"]),
             Box("d0", 3.2, 0, 2.4, 1, t["die"].format(i=0), t["die_note"]),
             Box("d1", 7.4, 0, 2.4, 1, t["die"].format(i=1), t["die_note"]),
             Box("hr", 10.8, 0, 2.2, 1, t["hbm_half"], v["die_bw"])]
    mi = [("a0", 2.6, -2.2), ("a1", 7.4, -2.2), ("a2", 2.6, -3.9), ("a3", 7.4, -3.9)]
    for i, (bid, x, y) in enumerate(mi):
        boxes.append(Box(bid, x, y, 3.0, 1, t["aid"].format(i=i), t["aid_note"].format(**v)))
    arrows = [Arrow("hl", "d0", ""), Arrow("hr", "d1", ""), Arrow("a0", "a1", ""),
              Arrow("a2", "a3", ""), Arrow("a0", "a2", ""), Arrow("a1", "a3", "")]
    ax = fig.add_subplot()
    draw_flow(ax, Flow(tuple(boxes), tuple(arrows)), fontsize=7)
    arrows_both_ways(ax, 5.6, 7.4, t["cross"].format(**v), t["cross"].format(**v),
                     y_out=0.72, y_back=0.28, fontsize=6.5)
    ax.text(6.5, 1.45, t["b200"].format(**v), ha="center", va="bottom", fontsize=8)
    ax.text(6.5, -0.75, t["mi300x"].format(**v), ha="center", va="bottom", fontsize=8)
    ax.set_ylim(-4.1, 2.1)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
