"""CLI via subprocess with plain python3 (standard library only)."""
import csv
import io
import json
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CALC = os.path.join(ROOT, "calculations", "calc.py")
PY = "python3"


def run(*args, cwd="/"):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return subprocess.run([PY, CALC, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=60)


def test_models_json_contract():
    r = run("models", "--format", "json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert isinstance(data, list) and len(data) >= 13
    q = {e["id"]: e for e in data}["qwen3-8b"]
    for k in ("id", "params_total", "params_active", "params_active_no_embedding", "kv_bytes_per_token",
              "num_layers", "hidden_size"):
        assert k in q
    assert q["params_total"] == 8_190_735_360 and q["kv_bytes_per_token"] == 147_456


def test_forward_json_contract():
    r = run("forward", "--model", "qwen3-8b", "--tokens", "8192", "--format", "json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    for o in d["operators"]:
        for k in ("name", "flops", "weight_bytes", "activation_read_bytes", "activation_write_bytes"):
            assert k in o
    assert d["totals"]["flops"] == sum(o["flops"] for o in d["operators"])
    assert sum(o["flops"] for o in d["operators"] if o["kind"] == "attention") == 19_793_625_219_072


def test_forward_md_is_pipe_table():
    r = run("forward", "--model", "qwen3-8b", "--tokens", "8192", "--format", "md", "--hardware", "h100")
    assert r.returncode == 0, r.stderr
    lines = [l for l in r.stdout.splitlines() if l.startswith("|")]
    assert lines[1].startswith("|---") and "x36 layers" in r.stdout and "TOTAL" in r.stdout
    assert len({l.count("|") for l in lines}) == 1


@pytest.mark.parametrize("args", [
    ["hardware"], ["models", "--official"], ["roofline"], ["kv", "--model", "deepseek-v3"],
    ["decode", "--model", "llama-3.1-8b", "--hardware", "h100", "--batch", "8", "--context", "4096"],
    ["memory", "--model", "llama-3.1-70b", "--hardware", "h100", "--devices", "2"],
    ["train", "--model", "llama-3.1-8b", "--tokens", "15e12", "--devices", "1024", "--hardware", "h100"],
    ["forward", "--model", "gpt-oss-20b", "--tokens", "1", "--context", "4096", "--hardware", "mi300x"],
])
@pytest.mark.parametrize("fmt", ["text", "md", "csv", "json"])
def test_commands_all_formats(args, fmt):
    r = run(*args, "--format", fmt)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip()
    if fmt == "json":
        json.loads(r.stdout)
    if fmt == "csv":
        assert len(list(csv.reader(io.StringIO(r.stdout)))) >= 2


def test_user_config_and_hardware(tmp_path):
    cfg = os.path.join(ROOT, "calculations", "data", "configs", "Qwen--Qwen3-8B.json")
    hw = tmp_path / "hw.json"
    hw.write_text(json.dumps({"id": "mine", "peak_tflops": {"bf16": 100}, "memory_gb": 24, "memory_tb_s": 1}))
    r = run("decode", "--config", cfg, "--hardware-config", str(hw), "--format", "json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["bound"] == "memory"


@pytest.mark.parametrize("args,needle", [
    (["forward", "--model", "qwen3-8", "--tokens", "10"], "qwen3-8b"),
    (["decode", "--model", "qwen3-8b", "--hardware", "h10"], "h100"),
    (["forward", "--model", "qwen3-8b", "--tokens", "-5"], "positive integer"),
    (["forward", "--model", "qwen3-8b", "--tokens", "abc"], "positive integer"),
    (["decode", "--model", "qwen3-8b", "--hardware", "h100", "--compute-eff", "2"], "fraction"),
    (["forward", "--config", "/nonexistent/config.json", "--tokens", "1"], "not found"),
    (["decode", "--model", "qwen3-8b", "--hardware", "m3-max"], "peak"),
    (["decode", "--model", "qwen3-8b"], "--hardware"),
])
def test_user_errors_exit_2_without_traceback(args, needle):
    r = run(*args)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert needle in r.stderr


def test_unknown_architecture_cli(tmp_path):
    p = tmp_path / "config.json"
    p.write_text(json.dumps({"model_type": "rwkv", "hidden_size": 64}))
    r = run("models", "--config", str(p))
    assert r.returncode == 2 and "unsupported architecture" in r.stderr and "Traceback" not in r.stderr


def test_runs_from_any_directory(tmp_path):
    r = run("models", cwd=str(tmp_path))
    assert r.returncode == 0 and "qwen3-8b" in r.stdout


def test_models_imports_only_the_standard_library():
    """What keeps the CLI quick and installable anywhere: it loads nothing outside the standard
    library and its own package (its speed is a benchmark's business, not a test's)."""
    import sys
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    # -S: no site-packages .pth hooks (they import third-party modules before the CLI runs).
    r = subprocess.run([PY, "-S", "-X", "importtime", CALC, "models"], capture_output=True, text=True,
                       cwd="/", env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    modules = {line.split("|")[-1].strip() for line in r.stderr.splitlines()
               if line.startswith("import time:") and "|" in line}
    # `org`: the standard library's copy.py probes for Jython's org.python.core (it fails).
    top = {name.split(".")[0] for name in modules} - {"imported package", "org"}
    outside = sorted(name for name in top
                     if name not in sys.stdlib_module_names and name != "calculations"
                     and not name.startswith("_"))
    assert modules and not outside, outside
