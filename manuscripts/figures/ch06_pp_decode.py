"""Pipeline-parallel decode of Llama-3.1-70B over pp_n H100s (@sec-supernodes-other-parallel;
the book's pp_n = 4, the what-if wi-ppdecode redraws it for 2 and 8 stages): each stage reads its quarter of the weights
(`pp_stage_time`), a micro-batch moves to the next stage with one token's hidden state per
sequence (`pp_act_time`, too short to see); four micro-batches in flight keep every stage busy
once the pipeline has filled, but each token still walks all four stages."""
from bookkit.diagrams.draw import draw_timeline
from bookkit.diagrams.extra import clear_under_text, timeline
from calculations import formulas, models, scaleup

SIZE = (6.4, 2.8)
# the chapter's cells this diagram draws (tests/site/test_diagrams_chapters.py checks each)
CELLS = ('pp_n', 'pp_stage_time', 'pp_act_time', 'pp_token_latency', 'pp_rate_gain')
INPUTS = ("pp_n",)  # the reader's choice of stages redraws it
BOOK_N = 4          # the chapter's pp_n when drawn alone
CONTEXT = 4096      # the chapter's dec_ctx
ROUNDS = 2          # tokens drawn per micro-batch


def step(N):
    llama = models.get("llama-3.1-70b")
    one = formulas.decode_step(llama, batch=1, context=CONTEXT, hw="h100").time_s
    stage = one / N
    act = llama.hidden_size * 2 / scaleup.link("nvlink4").unidirectional
    latency = N * stage + (N - 1) * act
    bars = []
    ms = 1e3
    for r in range(ROUNDS):
        for mb in range(N):
            for s in range(N):
                slot = r * N + mb + s
                start = slot * (stage + act)
                bars.append((s, start * ms, (start + stage) * ms, mb, str(mb + 1)))
    return timeline(N, bars), {"one": one, "stage": stage, "act": act, "latency": latency,
                               "gain": N * one / latency}


def numbers(t):
    N = t.inputs.get("pp_n", BOOK_N)
    _, d = step(N)
    return {
        "n": t.num(N, "int", name="pp_n"),
        "stage": t.num(d["stage"], "si unit=ms digits=1", name="pp_stage_time"),
        "act": t.num(d["act"], "si unit=ns digits=0", name="pp_act_time"),
        "latency": t.num(d["latency"], "si unit=ms digits=1", name="pp_token_latency"),
        "gain": t.num(d["gain"], "num digits=2", name="pp_rate_gain"),
    }


def draw(fig, t):
    N = t.inputs.get("pp_n", BOOK_N)
    tl, _ = step(N)
    v = numbers(t)
    ax = fig.add_subplot()
    draw_timeline(ax, tl, [t["stage"].format(i=i + 1) for i in range(N)],
                  {k: t["mb"].format(i=k + 1) for k in range(N)}, t["time_axis"],
                  bar_height=0.6, fontsize=7)
    ax.set_title(t["title"].format(**v), fontsize=8.5)
    clear_under_text(ax)


def describe(t):
    return t["alt"].format(**numbers(t))
