"""One step of a computer-use agent (@sec-device-edge-cloud-computer-use) as a flow: the device
takes a screenshot and uploads it, the cloud H100 prefills its visual tokens on top of the
task's context and decodes an action, the action comes back and runs, and the screen settles
before the next screenshot. Each arrow carries its bytes and time, computed with the chapter's
inputs (a test holds them equal to its cells)."""
from bookkit.diagrams import stack_flow
from bookkit.diagrams.draw import draw_flow
from bookkit.diagrams.extra import clear_under_text
from calculations import device, formulas, hardware, models, transport
from calculations.edge_example import RTT, UPLINK

SIZE = (6.4, 2.8)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('cua_tok', 'cua_jpeg', 'cua_up', 'cua_pre', 'cua_dec', 'cua_settle', 'cua_step',
         'cua_act', 'rtt')
W, H, JPEG, CTX, ACT, SETTLE = 1280, 720, 150_000, 8000, 30, 0.5   # the chapter's cua_*


def step():
    m, h100 = models.get("qwen3-8b"), hardware.get("h100")
    tok = transport.image_tokens(W, H)
    up = device.upload_time_s(JPEG, UPLINK)
    pre = formulas.forward(m, tok, context=CTX, hw=h100, dtype="bf16").totals.roofline_time_s
    dec = ACT * formulas.decode_step(m, 1, CTX + tok, h100, dtype="bf16").time_s
    return tok, up, pre, dec, RTT + up + pre + dec + SETTLE


def numbers(t):
    tok, up, pre, dec, total = step()
    ms = "si unit=ms digits=0"
    return {
        "tok": t.num(tok, "int", name="cua_tok"),
        "jpeg": t.num(JPEG, "si unit=kB digits=0", name="cua_jpeg"),
        "up": t.num(up, ms, name="cua_up"), "pre": t.num(pre, ms, name="cua_pre"),
        "dec": t.num(dec, ms, name="cua_dec"), "settle": t.num(SETTLE, ms, name="cua_settle"),
        "step": t.num(total, "si unit=s digits=2", name="cua_step"),
        "act": t.num(ACT, "int", name="cua_act"), "rtt": t.num(RTT, ms, name="rtt"),
    }


def draw(fig, t):
    v = numbers(t)
    items = [("shot", t["shot"], t["shot_note"].format(**v)),
             ("model", t["model"], t["model_note"].format(**v)),
             ("act", t["act"], t["act_note"].format(**v))]
    arrows = [("shot", "model", ""), ("model", "act", "")]
    w, gap = 3.1, 1.5
    ax = fig.add_subplot()
    draw_flow(ax, stack_flow(items, arrows, horizontal=True, gap=gap, width=w), fontsize=7)
    # two-line labels above the arrows (taller than the vocabulary's one-line arrow label)
    ax.text(w + gap / 2, 1.1, t["up"].format(**v), ha="center", va="bottom", fontsize=7)
    ax.text(2 * w + 1.5 * gap, 1.1, t["down"].format(**v), ha="center", va="bottom", fontsize=7)
    # the loop back: the next screenshot after the screen settles
    right, left = 3 * w + 2 * gap, 0
    ax.annotate("", xy=(left + w / 2, -0.05), xytext=(right - w / 2, -0.05),
                arrowprops=dict(arrowstyle="-|>", color="#333333", lw=1.0,
                                connectionstyle="bar,fraction=-0.08"))
    ax.text(right / 2, -0.8, t["loop"].format(**v), ha="center", va="top", fontsize=7.5)
    ax.set_xlim(-0.2, right + 0.2)
    ax.set_ylim(-1.3, 1.8)
    ax.set_title(t["title"].format(**v), fontsize=9)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
