"""Three rounds of speculative decoding with k = k0 draft tokens
(@sec-inference-optimization-spec-rejection): the target checks the k guesses in one forward
pass, keeps them up to the first rejection, puts its own token there and throws away the guesses
after it; if all k are kept it adds one more. The rounds keep k, 2 and 0 guesses (the chapter's
spec_demo_out); their mean is set beside E for alpha = a0 (`serving.spec_expected_tokens`)."""
from bookkit.diagrams.extra import clear_under_text, draw_tiles
from calculations import serving

SIZE = (6.4, 2.6)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('k0', 'k0p1', 'a0', 'E0', 'spec_demo_mean')
K, ALPHA = 4, 0.8          # the chapter's k0, a0
KEPT_PER_ROUND = [K, 2, 0]
ACC, FIX, BONUS = 0, 1, 2


def rounds():
    rows = []
    for kept in KEPT_PER_ROUND:
        row = []
        for pos in range(K + 1):
            if pos < kept:
                row.append(ACC)
            elif pos == kept:
                row.append(BONUS if kept == K else FIX)
            else:
                row.append("free")
        rows.append(row)
    return rows


def numbers(t):
    out = [kept + 1 for kept in KEPT_PER_ROUND]
    return {
        "k": t.num(K, "int", name="k0"), "k1": t.num(K + 1, "int", name="k0p1"),
        "a": t.num(ALPHA, "num digits=1", name="a0"),
        "e": t.num(serving.spec_expected_tokens(ALPHA, K), "num digits=2", name="E0"),
        "mean": t.num(sum(out) / len(out), "num digits=1", name="spec_demo_mean"),
        "outs": t["and"].join(t.num(n, "int") for n in out),
    }


def draw(fig, t):
    v = numbers(t)
    cells, kinds, labels = [], [], []
    names = {ACC: t["acc"], FIX: t["fix"], BONUS: t["bonus"], "free": ""}
    for r, row in enumerate(rounds()):
        for pos, kind in enumerate(row):
            cells.append((r * 1.3, pos * 1.1, 1, 1))
            kinds.append(kind)
            labels.append(names[kind] if kind != "free" else (t["void"] if pos < K else ""))
    ax = fig.add_subplot()
    draw_tiles(ax, cells, kinds, {ACC: t["k_acc"], FIX: t["k_fix"], BONUS: t["k_bonus"],
                                  "free": t["k_void"]}, labels=labels, fontsize=7)
    for r, kept in enumerate(KEPT_PER_ROUND):
        y = -r * 1.3 - 0.5
        ax.text(-0.15, y, t["round"].format(i=r + 1), ha="right", va="center", fontsize=8)
        ax.text((K + 1) * 1.1 + 0.1, y, t["out"].format(n=t.num(kept + 1, "int")), ha="left",
                va="center", fontsize=8)
    for pos in range(K + 1):
        ax.text(pos * 1.1 + 0.5, 0.1, t["pos"].format(i=pos + 1), ha="center", va="bottom",
                fontsize=7)
    ax.set_xlim(-1.6, (K + 1) * 1.1 + 2.2)
    ax.set_ylim(-len(KEPT_PER_ROUND) * 1.3, 0.6)
    ax.set_title(t["title"].format(**v), fontsize=8.5)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
