#!/usr/bin/env python3
"""calc.py: recompute the book's numbers for any model and accelerator.

    python3 calculations/calc.py models
    python3 calculations/calc.py forward --model qwen3-8b --tokens 8192 --format md

Python 3.10+ standard library only. See calculations/README.md.
"""
from __future__ import annotations

import os
import sys

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

DTYPES = ("bf16", "fp16", "fp32", "fp8", "int8", "int4", "fp4")
FORMATS = ("text", "md", "csv", "json")
# Modules that add their own subcommands (chapters 5-12), in the book's order.
TOPIC_MODULES = ("kernels", "scaleup", "collectives", "serving", "distributed", "training",
                 "queueing", "device")


from calculations.errors import CalcError  # noqa: E402  (tiny module, no dependencies)


class UsageError(CalcError):
    pass


# ------------------------------------------------------------ argument types
# One definition each, in cliargs; the underscored names are kept for the chapter modules.
from calculations.cliargs import fraction as _fraction  # noqa: E402
from calculations.cliargs import nonneg, positive  # noqa: E402,F401
from calculations.cliargs import positive_number as _number  # noqa: E402


# ------------------------------------------------------------------ helpers
def _model(args):
    from calculations import models
    if getattr(args, "config", None):
        return models.load_config(args.config)
    if not getattr(args, "model", None):
        raise UsageError("give --model ID (see `calc.py models`) or --config PATH to a config.json")
    return models.get(args.model)


def _hw(args, required=True):
    from calculations import hardware
    if getattr(args, "hardware_config", None):
        return hardware.load(args.hardware_config)
    if getattr(args, "hardware", None):
        return hardware.get(args.hardware)
    if required:
        raise UsageError("give --hardware ID (see `calc.py hardware`) or --hardware-config PATH")
    return None


# ----------------------------------------------------------------- commands
def cmd_models(args):
    from calculations import models, tables
    if args.official:
        rows = [r for i in models.ids() for r in models.official_comparison(i)]
        cols = [("model", "model", "str"), ("figure", "figure", "str"), ("stated", "stated", "str"),
                ("field", "compared with", "str"), ("computed", "computed", "int"),
                ("at_precision", "at vendor precision", "str"), ("rounding", "rounding", "str"),
                ("match", "match", "str"), ("why", "note", "str")]
        return tables.render(rows, cols, args.format)
    specs = [models.load_config(args.config)] if args.config else models.all()
    rows = [m.summary() for m in specs]
    cols = [("id", "id", "str"), ("params_total", "params total", "int"), ("params_active", "active", "int"),
            ("params_active_no_embedding", "active w/o input emb", "int"),
            ("params_non_embedding", "non-embedding", "int"), ("num_layers", "layers", "int"),
            ("hidden_size", "hidden", "int"), ("num_heads", "heads", "int"), ("num_kv_heads", "kv heads", "int"),
            ("head_dim", "head_dim", "int"), ("attention", "attention", "str"), ("experts", "experts", "str"),
            ("kv_bytes_per_token", "KV B/token bf16", "int"), ("tied", "tied", "str")]
    if args.format in ("csv", "json"):
        cols.append(("source", "source", "str"))
    return tables.render(rows, cols, args.format)


def cmd_hardware(args):
    from calculations import hardware, tables
    devs = [hardware.load(args.hardware_config)] if args.hardware_config else hardware.all()
    if args.format == "json":
        out = []
        for d in devs:
            s = d.summary()
            s.update(peak_tflops=d.peaks, scaleup_detail=d.scaleup, notes=list(d.notes), derived=d.derived,
                     sources=d.sources)
            out.append(s)
        return tables.dumps(out)
    rows = [d.summary() for d in devs]
    cols = [("id", "id", "str"), ("name", "name", "str"), ("bf16_tflops", "BF16 dense TFLOPS", "float"),
            ("bf16_sparse_tflops", "BF16 sparse", "float"), ("fp8_tflops", "FP8 dense TFLOPS", "float"),
            ("int8_tops", "INT8 TOPS", "float"), ("fp4_tflops", "FP4 TFLOPS", "float"),
            ("memory_gb", "memory GB", "float"), ("memory_tb_s", "TB/s", "float"),
            ("scaleup", "scale-up", "str"), ("link_uni_gb_s", "link GB/s one-way", "float"),
            ("link_bidi_gb_s", "link GB/s both ways", "float"), ("tdp_w", "TDP W", "float"),
            ("ridge_bf16", "ridge BF16 FLOP/B", "float")]
    return tables.render(rows, cols, args.format)


def cmd_forward(args):
    from calculations import formulas, tables
    m = _model(args)
    hw = _hw(args, required=False)
    fw = formulas.forward(m, args.tokens, batch=args.batch, context=args.context, dtype=args.dtype, hw=hw,
                          kv_dtype=args.kv_dtype, all_logits=args.all_logits, attention_impl=args.attention,
                          compute_eff=args.compute_eff, memory_eff=args.memory_eff)
    if args.format == "json":
        return tables.dumps(fw.to_dict())
    rows = [o.to_dict() for o in fw.operators]
    t = fw.totals.to_dict()
    t.update(name="TOTAL", shape="", kind="", kv=t["kv_read_bytes"] + t["kv_write_bytes"])
    for r in rows:
        r["kv"] = r["kv_read_bytes"] + r["kv_write_bytes"]
    rows.append(t)
    cols = [("name", "operator", "str"), ("shape", "shape", "str"), ("flops", "FLOPs", "si"),
            ("weight_bytes", "weights", "bytes"), ("activation_read_bytes", "act read", "bytes"),
            ("activation_write_bytes", "act write", "bytes"), ("kv", "KV r+w", "bytes")]
    if args.format == "csv":
        cols = [("name", "name", "str"), ("kind", "kind", "str"), ("layers", "layers", "int"),
                ("shape", "shape", "str"), ("flops", "flops", "int"), ("weight_bytes", "weight_bytes", "int"),
                ("activation_read_bytes", "activation_read_bytes", "int"),
                ("activation_write_bytes", "activation_write_bytes", "int"),
                ("kv_read_bytes", "kv_read_bytes", "int"), ("kv_write_bytes", "kv_write_bytes", "int")]
    if hw is not None:
        cols += [("intensity", "FLOP/B", "float"), ("time_s", "time", "sec"), ("bound", "bound", "str")]
    title = (f"{m.id}: forward, {args.tokens} new tokens x batch {args.batch} after {args.context} cached, "
             f"weights {fw.dtype}, activations {fw.act_dtype}, KV {fw.kv_dtype}")
    out = tables.render(rows, cols, args.format, title="" if args.format == "csv" else title)
    if args.format != "csv":
        extra = []
        if hw is not None:
            extra.append(f"{hw.id} {fw.precision} dense peak, eff compute {args.compute_eff} memory {args.memory_eff}: "
                         f"whole-pass roofline {tables.fmt_value(t['roofline_time_s'], 'sec')} ({t['bound']}-bound, "
                         f"intensity {t['intensity']:.4g} FLOP/B vs ridge {hw.ridge_point(fw.precision):.4g}); "
                         f"sum of per-operator bounds {tables.fmt_value(t['time_s'], 'sec')}")
        extra += fw.assumptions
        out += ("\n\n" if args.format == "md" else "\n") + "\n".join(
            ("- " if args.format == "md" else "note: ") + e for e in extra)
    return out


def cmd_decode(args):
    from calculations import formulas, tables
    m = _model(args)
    hw = _hw(args)
    d = formulas.decode_step(m, args.batch, args.context, hw, dtype=args.dtype, kv_dtype=args.kv_dtype,
                             compute_eff=args.compute_eff, memory_eff=args.memory_eff, devices=args.devices)
    items = [("model", "model", d.model, "str"), ("hardware", "hardware", f"{d.hardware} x {d.devices}", "str"),
             ("batch", "batch", d.batch, "int"), ("context", "context tokens", d.context, "int"),
             ("precision", "peak precision", d.precision, "str"), ("flops", "FLOPs per step", d.flops, "si"),
             ("bytes", "bytes per step", d.bytes, "bytes"), ("weight_bytes", "  of which weights", d.weight_bytes, "bytes"),
             ("kv_read_bytes", "  of which KV read", d.kv_read_bytes, "bytes"),
             ("intensity", "FLOP/byte", d.intensity, "float"),
             ("compute_time_s", "compute time", d.compute_time_s, "sec"),
             ("memory_time_s", "memory time", d.memory_time_s, "sec"),
             ("comm_time_s", "all-reduce time", d.comm_time_s, "sec"),
             ("time_s", "step time = per-token latency bound", d.time_s, "sec"), ("bound", "bound", d.bound, "str"),
             ("tokens_per_s", "tokens/s (whole batch)", d.tokens_per_s, "float"),
             ("tokens_per_s_per_sequence", "tokens/s per sequence", d.tokens_per_s_per_sequence, "float")]
    return tables.render_kv(items, args.format, raw=d.to_dict(), title=f"{m.id} decode step on {hw.id}")


def cmd_kv(args):
    from calculations import formulas, tables
    m = _model(args)
    dts = [args.kv_dtype] if args.kv_dtype else ["bf16", "fp8", "int4"]
    rows = []
    for dt in dts:
        rows.append({
            "model": m.id, "kv_dtype": dt, "cache": "MLA latent" if m.is_mla else f"K+V, {m.num_kv_heads} kv heads",
            "per_token_layer": formulas.nbytes(formulas.kv_elements_per_token_layer(m), dt),
            "per_token": formulas.kv_bytes_per_token(m, dt),
            "per_token_expanded": formulas.kv_bytes_per_token(m, dt, mla_expanded=True) if m.is_mla else None,
            "tokens": args.tokens, "batch": args.batch,
            "sliding_layers": m.num_sliding_layers, "window": m.sliding_window,
            "cache_bytes": formulas.kv_cache_bytes(m, args.tokens, args.batch, dt),
            "cache_bytes_no_window": args.batch * formulas.kv_bytes_per_token(m, dt) * args.tokens,
        })
    cols = [("model", "model", "str"), ("kv_dtype", "KV dtype", "str"), ("cache", "cached", "str"),
            ("per_token_layer", "B/token/layer", "int"), ("per_token", "B/token (all layers)", "int"),
            ("per_token_expanded", "B/token if MLA expanded", "int"), ("sliding_layers", "sliding layers", "int"),
            ("window", "window", "int"), ("tokens", "context", "int"), ("batch", "batch", "int"),
            ("cache_bytes", "KV cache", "bytes"), ("cache_bytes_no_window", "if no window", "bytes")]
    return tables.render(rows, cols, args.format)


def cmd_memory(args):
    from calculations import formulas, tables
    m = _model(args)
    hw = _hw(args)
    p = formulas.memory_plan(m, hw, devices=args.devices, batch=args.batch, context=args.context, dtype=args.dtype,
                             kv_dtype=args.kv_dtype, chunk=args.chunk, usable_fraction=args.usable)
    items = [("model", "model", p.model, "str"), ("hardware", "devices", f"{p.devices} x {p.hardware}", "str"),
             ("batch", "batch", p.batch, "int"), ("context", "context tokens", p.context, "int"),
             ("dtype", "weights dtype", p.dtype, "str"), ("kv_dtype", "KV dtype", p.kv_dtype, "str"),
             ("weight_bytes", "weights", p.weight_bytes, "bytes"), ("kv_bytes", "KV cache", p.kv_bytes, "bytes"),
             ("activation_bytes", f"activations (chunk {p.chunk})", p.activation_bytes, "bytes"),
             ("total_bytes", "total", p.total_bytes, "bytes"), ("per_device_bytes", "per device (even split)",
                                                                p.per_device_bytes, "bytes"),
             ("capacity_bytes", "capacity (all devices)", p.capacity_bytes, "bytes"),
             ("usable_fraction", "usable fraction", p.usable_fraction, "float"), ("fits", "fits", p.fits, "str"),
             ("max_batch", f"max batch at {p.context} tokens", p.max_batch, "int")]
    return tables.render_kv(items, args.format, raw=p.to_dict(), title=f"{m.id} memory on {p.devices} x {hw.id}")


def cmd_train(args):
    from calculations import formulas, tables
    m = _model(args)
    hw = _hw(args, required=False)
    n = m.params_active
    flops = formulas.train_flops(n, args.tokens)
    out = {"model": m.id, "params_active": n, "train_tokens": args.tokens, "train_flops": flops,
           "devices": args.devices, "mfu": args.mfu, "hardware": hw.id if hw else None, "time_s": None,
           "memory": []}
    if hw is not None:
        out["time_s"] = flops / (args.devices * hw.peak_flops(args.precision) * args.mfu)
        out["precision"] = args.precision
    for z in (0, 1, 2, 3):
        r = formulas.train_memory_per_device(m, args.devices, z, tokens_per_device=args.tokens_per_device,
                                             recompute=args.recompute)
        if hw is not None:
            r["fits"] = r["total_bytes"] <= hw.hbm_bytes
        out["memory"].append(r)
    if args.format == "json":
        return tables.dumps(out)
    cols = [("zero_stage", "ZeRO stage", "int"), ("weights_bytes", "weights", "bytes"),
            ("grads_bytes", "grads", "bytes"), ("optimizer_bytes", "optimizer", "bytes"),
            ("activation_bytes", f"activations ({args.recompute} recompute)", "bytes"),
            ("total_bytes", "total per device", "bytes")]
    if hw is not None:
        cols.append(("fits", f"fits {hw.id}", "str"))
    head = (f"{m.id}: 6ND = 6 x {n:,} x {args.tokens:,} = {flops:.4g} FLOPs"
            + (f"; {tables.fmt_value(out['time_s'], 'sec')} ({out['time_s'] / 86400:.3g} days) on {args.devices} x "
               f"{hw.id} at {args.mfu:.0%} MFU ({args.precision} dense)" if hw else ""))
    if args.format == "csv":
        return tables.render(out["memory"], [(c[0], c[0], c[2]) for c in cols], "csv")
    return tables.render(out["memory"], cols, args.format, title=head)


def cmd_roofline(args):
    from calculations import hardware, tables
    if args.hardware_config:
        devs = [hardware.load(args.hardware_config)]
    elif args.hardware:
        devs = [hardware.get(h) for h in args.hardware]
    else:
        devs = hardware.all()
    rows = []
    for d in devs:
        if d.memory_tb_s is None:
            continue
        for p in d.precisions():
            for sparse in (False, True):
                if d.has_peak(p, sparse):
                    rows.append({"id": d.id, "precision": p, "sparsity": "2:4 sparse" if sparse else "dense",
                                 "peak_tflops": d.peak_tflops(p, sparse), "memory_tb_s": d.memory_tb_s,
                                 "ridge_flop_per_byte": d.ridge_point(p, sparse)})
    cols = [("id", "device", "str"), ("precision", "precision", "str"), ("sparsity", "peak", "str"),
            ("peak_tflops", "TFLOPS", "float"), ("memory_tb_s", "TB/s", "float"),
            ("ridge_flop_per_byte", "ridge FLOP/byte", "float")]
    return tables.render(rows, cols, args.format)


# ------------------------------------------------------------------- parser
def build_parser():
    import argparse
    p = argparse.ArgumentParser(prog="calc.py", description="Recompute LLM inference/training numbers "
                                "(FLOPs, bytes, KV cache, roofline) for any model config and accelerator.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    def common(sp, model=True, hw=False, hw_required=False):
        sp.add_argument("--format", choices=FORMATS, default="text", help="output format (default text)")
        if model:
            sp.add_argument("--model", "-m", help="registered model id (see `models`)")
            sp.add_argument("--config", help="path to a Hugging Face config.json instead of --model")
        if hw:
            sp.add_argument("--hardware", "--hw", help="accelerator id (see `hardware`)" +
                            ("" if hw_required else " (optional)"))
            sp.add_argument("--hardware-config", help="path to a device JSON file (schema in README)")

    def effs(sp):
        sp.add_argument("--compute-eff", type=_fraction, default=1.0, help="achievable fraction of peak FLOPs")
        sp.add_argument("--memory-eff", type=_fraction, default=1.0, help="achievable fraction of bandwidth")

    s = sub.add_parser("models", help="model registry")
    common(s, model=False)
    s.add_argument("--config", help="show one user config.json instead of the registry")
    s.add_argument("--official", action="store_true", help="compare with officially stated parameter counts")
    s.set_defaults(func=cmd_models)

    s = sub.add_parser("hardware", help="accelerator registry")
    common(s, model=False)
    s.add_argument("--hardware-config", help="show one device JSON file instead of the registry")
    s.set_defaults(func=cmd_hardware)

    s = sub.add_parser("forward", help="per-operator FLOPs and bytes of one forward pass")
    common(s, hw=True)
    s.add_argument("--tokens", "-t", type=positive, required=True, help="new tokens per sequence")
    s.add_argument("--batch", "-b", type=positive, default=1)
    s.add_argument("--context", "-c", type=nonneg, default=0, help="tokens already in the KV cache")
    s.add_argument("--dtype", choices=DTYPES, default="bf16", help="weight dtype")
    s.add_argument("--kv-dtype", choices=DTYPES, help="KV cache dtype (default: activation dtype)")
    s.add_argument("--all-logits", action="store_true", help="lm_head at every position (default: last only)")
    s.add_argument("--attention", choices=("flash", "eager"), default="flash")
    effs(s)
    s.set_defaults(func=cmd_forward)

    s = sub.add_parser("decode", help="per-token latency bound and tokens/s")
    common(s, hw=True, hw_required=True)
    s.add_argument("--batch", "-b", type=positive, default=1)
    s.add_argument("--context", "-c", type=nonneg, default=4096)
    s.add_argument("--dtype", choices=DTYPES, default="bf16")
    s.add_argument("--kv-dtype", choices=DTYPES)
    s.add_argument("--devices", "-n", type=positive, default=1, help="tensor-parallel devices")
    effs(s)
    s.set_defaults(func=cmd_decode)

    s = sub.add_parser("kv", help="KV cache per token and per batch/context")
    common(s)
    s.add_argument("--tokens", "--context", "-t", dest="tokens", type=nonneg, default=8192)
    s.add_argument("--batch", "-b", type=positive, default=1)
    s.add_argument("--kv-dtype", choices=DTYPES, help="one dtype (default: bf16, fp8, int4)")
    s.set_defaults(func=cmd_kv)

    s = sub.add_parser("memory", help="weights + KV + activations vs device memory")
    common(s, hw=True, hw_required=True)
    s.add_argument("--devices", "-n", type=positive, default=1)
    s.add_argument("--batch", "-b", type=positive, default=1)
    s.add_argument("--context", "-c", type=nonneg, default=4096)
    s.add_argument("--dtype", choices=DTYPES, default="bf16")
    s.add_argument("--kv-dtype", choices=DTYPES)
    s.add_argument("--chunk", type=positive, default=1, help="tokens per sequence in one pass (1 = decode)")
    s.add_argument("--usable", type=_fraction, default=1.0, help="usable fraction of device memory")
    s.set_defaults(func=cmd_memory)

    s = sub.add_parser("train", help="6ND FLOPs, time at an MFU, memory per device for ZeRO 0-3")
    common(s, hw=True)
    s.add_argument("--tokens", "-t", type=positive, required=True, help="training tokens D")
    s.add_argument("--devices", "-n", type=positive, default=1)
    s.add_argument("--mfu", type=_fraction, default=0.4)
    s.add_argument("--precision", choices=DTYPES, default="bf16", help="peak used for the time estimate")
    s.add_argument("--tokens-per-device", type=nonneg, default=0, help="micro-batch x sequence length")
    s.add_argument("--recompute", choices=("full", "none"), default="full")
    s.set_defaults(func=cmd_train)

    s = sub.add_parser("roofline", help="ridge points per device and precision")
    common(s, model=False)
    s.add_argument("--hardware", "--hw", nargs="*", help="device ids (default: all)")
    s.add_argument("--hardware-config")
    s.set_defaults(func=cmd_roofline)

    # Each later chapter's arithmetic lives in its own module, which registers its own commands.
    import importlib
    for name in TOPIC_MODULES:
        importlib.import_module(f"calculations.{name}").add_commands(sub, common)
    return p


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        out = args.func(args)
    except CalcError as e:
        parser.exit(2, f"calc.py {args.command}: error: {e}\n")
    except OverflowError as e:
        # Inputs are exact integers however large (cliargs), but the formulas work in floats:
        # name the inputs that are out of any real range instead of a traceback.
        big = [f"--{k.replace('_', '-')} {v:.3g}" for k, v in sorted(vars(args).items())
               if isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) > 1e15]
        parser.exit(2, f"calc.py {args.command}: error: a value is too large to compute with "
                       f"({e})" + (f": {', '.join(big)}" if big else "")
                       + "; give sizes a real system has (below 1e15)\n")
    try:
        sys.stdout.write(out + "\n")
    except BrokenPipeError:  # e.g. `calc.py models | head`
        sys.stderr.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
