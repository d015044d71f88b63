"""Where HBM bandwidth comes from (@sec-accelerators-hbm-pins): the H100 SXM package with the GPU
die between six HBM stack sites, five of them active; each stack is a 1024-bit interface, and
bus width x pin rate is the card's bandwidth. The pin rate is the chapter's `hbm_pin_rate`,
derived from the registry's bandwidth, not a separate figure."""
from bookkit.diagrams.draw import fill_of, text_on
from calculations import hardware

SIZE = (6.4, 3.4)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ("hbm_sites", "hbm_stacks_h100", "hbm_stack_bits", "hbm_bus_bits", "hbm_pin_rate",
         "hbm_stack_bw", "hbm_stack_cap", "h100_bw")
SITES, ACTIVE, STACK_BITS = 6, 5, 1024      # the chapter's hbm_sites, hbm_stacks_h100, hbm_stack_bits


def numbers(t):
    h100 = hardware.get("h100")
    bw, cap = h100.hbm_bandwidth, h100.hbm_bytes
    bus = ACTIVE * STACK_BITS
    return {"sites": t.num(SITES, "int", name="hbm_sites"),
            "active": t.num(ACTIVE, "int", name="hbm_stacks_h100"),
            "bits": t.num(STACK_BITS, "int", name="hbm_stack_bits"),
            "bus": t.num(bus, "int", name="hbm_bus_bits"),
            "pin": t.num(bw * 8 / bus, "si unit=Gbps digits=2", name="hbm_pin_rate"),
            "stack_bw": t.num(bw / ACTIVE, "si unit=GB/s digits=0", name="hbm_stack_bw"),
            "stack_cap": t.num(cap / ACTIVE, "si unit=GiB digits=0", name="hbm_stack_cap"),
            "bw": t.num(bw, "si unit=TB/s digits=2", name="h100_bw")}


def draw(fig, t):
    from matplotlib.patches import Rectangle
    v = numbers(t)
    ax = fig.add_subplot()
    ax.set_axis_off()
    ax.set_aspect("equal")
    die_fill, die_hatch = fill_of("gpu")
    ax.add_patch(Rectangle((3.2, 0.2), 3.6, 5.6, facecolor=die_fill, hatch=die_hatch,
                           edgecolor="#333333", lw=0.8))
    text_on(ax, 5.0, 3.0, t["die"].format(**v), die_fill, ha="center", va="center", fontsize=7.5)
    stack_fill, stack_hatch = fill_of(2)
    # three sites on each long side of the die; the last one is the disabled site
    sites = [(0.2, y) for y in (4.0, 2.1, 0.2)] + [(7.4, y) for y in (4.0, 2.1, 0.2)]
    for i, (x, y) in enumerate(sites):
        if i < ACTIVE:
            ax.add_patch(Rectangle((x, y), 2.4, 1.6, facecolor=stack_fill, hatch=stack_hatch,
                                   edgecolor="#333333", lw=0.6))
            text_on(ax, x + 1.2, y + 0.8, t["stack"].format(**v), stack_fill, ha="center",
                    va="center", fontsize=6)
            # the 1024-bit interface: a short bus between the stack and the die's edge
            bx = (x + 2.4, 3.2) if x < 3 else (6.8, x)
            ax.plot(bx, (y + 0.8, y + 0.8), color="#555555", lw=2.2)
        else:
            ax.add_patch(Rectangle((x, y), 2.4, 1.6, facecolor="none", edgecolor="#777777",
                                   lw=0.6, ls="--"))
            ax.text(x + 1.2, y + 0.8, t["disabled"].format(**v), ha="center", va="center", fontsize=6)
    ax.text(5.0, -0.35, t["sum"].format(**v), ha="center", va="top", fontsize=7.5)
    ax.set_xlim(-0.1, 10.1)
    ax.set_ylim(-1.0, 6.1)
    ax.set_title(t["title"].format(**v), fontsize=9)


def describe(t):
    return t["alt"].format(**numbers(t))
