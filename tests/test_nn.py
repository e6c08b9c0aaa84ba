"""Tests of vnmsparse.nn: VNMLinear, sparsify_, save_model / load_model, compile and CUDA graphs.

HF models are built from tiny configs with random weights (no downloads), with dimensions that
are not multiples of v or m (hidden 52 or 56, FFN 83 or 90), so every layer has a short last
row block and most a narrow last column group. "Masked dense" = the same model with each
converted layer's weight multiplied by its V:N:M mask, run with nn.Linear / Conv1D.
"""

import copy

import pytest
import torch
from torch import nn

import vnmsparse as vs
from vnmsparse.nn import SparsifyReport, VNMLinear, is_conv1d, load_model, save_model, sparsify_
from vnmsparse import ops

transformers = pytest.importorskip("transformers")
from transformers.pytorch_utils import Conv1D  # noqa: E402

CFGS = ["2:4", "16:2:8", "64:2:8", "32:2:16"]


# --------------------------------------------------------------------------------------------
# helpers


def masked_linear(r, k, cfg, *, bias=True, dtype=torch.float32, seed=0):
    torch.manual_seed(seed)
    lin = nn.Linear(k, r, bias=bias)
    with torch.no_grad():
        lin.weight.mul_(vs.vnm_mask(lin.weight.abs(), cfg))
        if bias:
            lin.bias.normal_()
    return lin.to(dtype)


def _quiet():
    transformers.logging.set_verbosity_error()


def tiny_bert():
    _quiet()
    cfg = transformers.BertConfig(vocab_size=97, hidden_size=52, num_hidden_layers=2, num_attention_heads=4,
                                  intermediate_size=83, max_position_embeddings=32, type_vocab_size=2)
    torch.manual_seed(0)
    return transformers.BertModel(cfg).eval()


def tiny_gpt2():
    _quiet()
    cfg = transformers.GPT2Config(vocab_size=97, n_embd=52, n_layer=2, n_head=4, n_inner=83, n_positions=32,
                                  bos_token_id=0, eos_token_id=0)
    torch.manual_seed(0)
    return transformers.GPT2LMHeadModel(cfg).eval()


def tiny_llama():
    _quiet()
    cfg = transformers.LlamaConfig(vocab_size=97, hidden_size=56, intermediate_size=90, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                                   tie_word_embeddings=False, bos_token_id=0, eos_token_id=0, pad_token_id=0)
    torch.manual_seed(0)
    return transformers.LlamaForCausalLM(cfg).eval()


MODELS = {"bert": tiny_bert, "gpt2": tiny_gpt2, "llama": tiny_llama}


def inputs(seed=1, batch=2, seq=11):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(1, 97, (batch, seq), generator=g)


def out_of(model, ids):
    out = model(input_ids=ids)
    return out.logits if hasattr(out, "logits") else out.last_hidden_state


def mask_layers(model, cfg):
    """Magnitude-prune every untied Linear/Conv1D in place (the masked dense reference)."""
    shared = {id(p) for _, p in model.named_parameters(remove_duplicate=False)
              if sum(q is p for _, q in model.named_parameters(remove_duplicate=False)) > 1}
    with torch.no_grad():
        for _, m in model.named_modules():
            if (type(m) is nn.Linear or is_conv1d(m)) and id(m.weight) not in shared:
                w = m.weight.t() if is_conv1d(m) else m.weight
                w.mul_(vs.vnm_mask(w.abs(), cfg))
    return model


def linear_names(model):
    return [n for n, m in model.named_modules() if isinstance(m, nn.Linear) or is_conv1d(m)]


# --------------------------------------------------------------------------------------------
# VNMLinear


@pytest.mark.parametrize("cfg", CFGS)
@pytest.mark.parametrize("shape", [(70, 100), (16, 8), (33, 21), (130, 3)])
@pytest.mark.parametrize("bias", [True, False])
def test_from_linear_matches_linear(cfg, shape, bias):
    lin = masked_linear(*shape, cfg, bias=bias)
    m = VNMLinear.from_linear(lin, cfg)
    assert (m.in_features, m.out_features) == (shape[1], shape[0])
    assert isinstance(m.weight, vs.VNMWeight) and m.weight.cfg == vs.VNMConfig.parse(cfg)
    assert torch.equal(vs.unpack(m.weight), lin.weight.detach())
    x = torch.randn(3, 5, shape[1])
    torch.testing.assert_close(m(x), lin(x), rtol=1e-5, atol=1e-5)
    assert (m.bias is None) == (not bias)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_from_linear_half_precision(dtype):
    lin = masked_linear(48, 40, "16:2:8", dtype=dtype)
    m = VNMLinear.from_linear(lin, "16:2:8")
    assert m.weight_values.dtype == dtype and m.bias.dtype == dtype
    x = torch.randn(4, 40, dtype=dtype)
    ref = (x.float() @ lin.weight.float().t() + lin.bias.float()).to(dtype)
    torch.testing.assert_close(m(x), ref, rtol=1e-2, atol=1e-2)


def test_from_linear_conv1d_transposes():
    cfg = "16:2:8"
    conv = Conv1D(nf=37, nx=29)  # weight [in=29, out=37]
    with torch.no_grad():
        conv.weight.normal_()
        conv.bias.normal_()
        wt = conv.weight.t()
        wt.mul_(vs.vnm_mask(wt.abs(), cfg))
    m = VNMLinear.from_linear(conv, cfg)
    assert (m.in_features, m.out_features) == (29, 37)
    assert torch.equal(vs.unpack(m.weight), conv.weight.detach().t())
    x = torch.randn(2, 3, 29)
    torch.testing.assert_close(m(x), conv(x), rtol=1e-5, atol=1e-5)


def test_from_linear_errors_name_the_layer():
    dense = nn.Linear(40, 48)
    with pytest.raises(ValueError, match=r"layer encoder\.q is not 64:2:8-sparse .*row block 0"):
        VNMLinear.from_linear(dense, "64:2:8", name="encoder.q")
    with pytest.raises(ValueError, match="prune it first"):
        VNMLinear.from_linear(dense, "64:2:8")
    with pytest.raises(TypeError, match="not an nn.Linear"):
        VNMLinear.from_linear(nn.Conv2d(3, 3, 1), "64:2:8", name="conv")
    with pytest.raises(TypeError, match="float64"):
        VNMLinear.from_linear(masked_linear(16, 16, "2:4").double(), "2:4", name="d")
    with pytest.raises(ValueError, match="v is a positive multiple of 16"):
        VNMLinear.from_linear(masked_linear(16, 16, "2:4"), "8:2:8")


def test_feature_major_out_chain():
    """gate/up with feature_major_out, act * up in between, down reading that: as with row-major."""
    gen = torch.Generator().manual_seed(3)
    lins = [nn.Linear(32, 48), nn.Linear(32, 48), nn.Linear(48, 32)]
    vnm = []
    for lin in lins:
        with torch.no_grad():
            lin.weight.mul_(vs.vnm_mask(lin.weight.abs(), "16:2:8"))
        vnm.append(VNMLinear.from_linear(lin, "16:2:8"))
    x = torch.randn(2, 5, 32, generator=gen)
    ref = vnm[2](torch.nn.functional.silu(vnm[0](x)) * vnm[1](x))
    vnm[0].feature_major_out = vnm[1].feature_major_out = True
    gate, up = vnm[0](x), vnm[1](x)
    assert gate.reshape(10, 48).stride() == (1, 10) and "feature_major_out=True" in repr(vnm[0])
    torch.testing.assert_close(vnm[2](torch.nn.functional.silu(gate) * up), ref)
    few = x[:1, :ops.FEATURE_MAJOR_MIN_TOKENS - 1]  # decode sizes: rows, as the decode kernels write them
    assert vnm[0](few).is_contiguous()


def test_feature_major_mlp_marks_gathered_up_paths():
    """feature_major_mlp_: an MLP's up path (HF names) on gathered patterns only; others untouched."""
    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.gate_proj, self.up_proj, self.down_proj = nn.Linear(32, 48), nn.Linear(32, 48), nn.Linear(48, 32)

    model = nn.ModuleDict({"gathered": MLP(), "plain": MLP()})
    sparsify_(model, "16:2:8", lambda m, name: name.startswith("gathered"), prune="magnitude")
    sparsify_(model, "2:4", lambda m, name: name.startswith("plain"), prune="magnitude")
    assert vs.feature_major_mlp_(model) == ["gathered.gate_proj", "gathered.up_proj"]
    assert not model["gathered"].down_proj.feature_major_out and not model["plain"].gate_proj.feature_major_out


def test_forward_errors():
    m = VNMLinear.from_linear(masked_linear(16, 24, "16:2:8"), "16:2:8")
    with pytest.raises(ValueError, match="in_features=24"):
        m(torch.randn(2, 23))
    with pytest.raises(TypeError, match="dtype"):
        m(torch.randn(2, 24, dtype=torch.bfloat16))
    y64 = m(torch.randn(2, 24, dtype=torch.float64))  # float64 input is allowed on CPU
    assert y64.dtype == torch.float64


def test_repr_and_nbytes():
    m = VNMLinear.from_linear(masked_linear(128, 256, "64:2:8", dtype=torch.bfloat16), "64:2:8")
    text = repr(m)
    assert "in_features=256, out_features=128, bias=True, vnm=64:2:8, dtype=bfloat16" in text
    assert "0.285 of dense" in text
    assert m.nbytes == m.weight.nbytes + 128 * 2


def test_empty_module_loads_state_dict():
    src = VNMLinear.from_linear(masked_linear(33, 21, "16:2:8"), "16:2:8")
    dst = VNMLinear(21, 33, "16:2:8")
    assert torch.count_nonzero(vs.unpack(dst.weight)) == 0
    x = torch.randn(4, 21)
    assert torch.equal(dst(x), torch.zeros(4, 33))
    dst.load_state_dict(src.state_dict())
    assert torch.equal(dst(x), src(x))
    assert set(src.state_dict()) == {"weight_values", "weight_positions", "weight_columns", "bias"}
    two4 = VNMLinear(21, 33, "2:4", bias=False)
    assert set(two4.state_dict()) == {"weight_values", "weight_positions"}


def test_load_state_dict_validates_parts():
    src = VNMLinear.from_linear(masked_linear(32, 24, "16:2:8"), "16:2:8")
    sd = {k: v.clone() for k, v in src.state_dict().items()}
    sd["weight_positions"][0, 0] = 0xFF  # code 15: p0 = p1 = 3, not a 2:4 code
    dst = VNMLinear(24, 32, "16:2:8")
    with pytest.raises(RuntimeError, match="invalid 2:4 code"):
        dst.load_state_dict(sd)
    sd = {k: v.clone() for k, v in src.state_dict().items()}
    sd["weight_columns"][0, 0] = torch.tensor([0, 1, 2, 9], dtype=torch.uint8)  # column 9 of an 8-wide group
    with pytest.raises(RuntimeError, match="out of range"):
        dst.load_state_dict(sd)


def test_dtype_conversion_moves_packed_parts():
    m = VNMLinear.from_linear(masked_linear(40, 64, "16:2:8"), "16:2:8")
    ref = m.weight
    h = copy.deepcopy(m).half()
    assert h.weight_values.dtype == torch.float16 and h.bias.dtype == torch.float16
    assert h.weight.dtype == torch.float16 and h._kernel_values.dtype == torch.float16
    assert h.weight_positions.dtype == torch.uint8 and h.weight_columns.dtype == torch.uint8
    assert torch.equal(vs.unpack(h.weight).float(), vs.unpack(ref).half().float())
    b = copy.deepcopy(m).to(torch.bfloat16)
    x = torch.randn(3, 64, dtype=torch.bfloat16)
    torch.testing.assert_close(b(x).float(), m(x.float()), rtol=2e-2, atol=2e-2)
    # kernel operands are derived, never saved
    assert not any(k.startswith("_kernel") for k in h.state_dict())


def test_gradients_reach_input_and_bias():
    lin = masked_linear(24, 40, "16:2:8")
    m = VNMLinear.from_linear(lin, "16:2:8")
    x = torch.randn(5, 40, requires_grad=True)
    x2 = x.detach().clone().requires_grad_()
    m(x).square().sum().backward()
    lin(x2).square().sum().backward()
    torch.testing.assert_close(x.grad, x2.grad, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(m.bias.grad, lin.bias.grad, rtol=1e-5, atol=1e-5)
    assert not m.weight_values.requires_grad


# --------------------------------------------------------------------------------------------
# sparsify_ on HF models


@pytest.mark.parametrize("cfg", CFGS)
@pytest.mark.parametrize("arch", list(MODELS))
def test_sparsify_matches_masked_dense(arch, cfg):
    ref = mask_layers(MODELS[arch](), cfg)
    model = copy.deepcopy(ref)
    report = sparsify_(model, cfg)
    assert isinstance(report, SparsifyReport)
    names = linear_names(ref)
    expected_skips = {"lm_head"} if arch == "gpt2" else set()  # GPT-2 ties lm_head to wte
    assert set(report.skipped) == expected_skips
    assert set(report.converted) == set(names) - expected_skips
    for name in report.converted:
        assert isinstance(model.get_submodule(name), VNMLinear)
    if arch == "gpt2":
        assert "tied" in report.skipped["lm_head"]
        assert model.lm_head.weight is model.transformer.wte.weight
    ids = inputs()
    with torch.no_grad():
        torch.testing.assert_close(out_of(model, ids), out_of(ref, ids), rtol=1e-5, atol=1e-5)
    assert 0 < report.packed_bytes < report.dense_bytes


@pytest.mark.parametrize("arch", list(MODELS))
def test_sparsify_prune_magnitude_in_one_call(arch):
    cfg = "16:2:8"
    dense = MODELS[arch]()
    ref = mask_layers(copy.deepcopy(dense), cfg)
    report = sparsify_(dense, cfg, prune="magnitude")
    assert report.pruned == "magnitude" and report.converted
    ids = inputs(seed=3)
    with torch.no_grad():
        torch.testing.assert_close(out_of(dense, ids), out_of(ref, ids), rtol=1e-5, atol=1e-5)
    assert "pruned by magnitude" in str(report)


def test_sparsify_skips_dense_layers_with_reason():
    model = tiny_bert()
    before = copy.deepcopy(model)
    report = sparsify_(model, "64:2:8")  # nothing pruned: every layer is skipped, model untouched
    assert not report.converted
    assert set(report.skipped) == set(linear_names(model))
    reason = report.skipped["encoder.layer.0.attention.self.query"]
    assert "not V:N:M 64:2:8" in reason and "prune it first" in reason
    for (n1, p1), (n2, p2) in zip(model.state_dict().items(), before.state_dict().items()):
        assert n1 == n2 and torch.equal(p1, p2)
    assert "0 layers converted" in str(report) and "skipped encoder.layer.0.attention.self.query" in str(report)


def test_sparsify_filter_and_unsupported_layers():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(40, 48)
            self.b = nn.Linear(48, 40).double()
            self.mha = nn.MultiheadAttention(32, 4)  # out_proj: a Linear subclass read directly
            self.c = nn.Linear(40, 40)
            self.d = nn.Linear(40, 40)
            self.d.register_forward_hook(lambda *a: None)
            self.e = nn.Linear(40, 40)
            self.e.weight = self.c.weight  # tied

    net = Net()
    report = sparsify_(net, "16:2:8", prune="magnitude")
    assert set(report.converted) == {"a"}
    assert "float64" in report.skipped["b"]
    assert "subclass" in report.skipped["mha.out_proj"]
    assert "tied" in report.skipped["c"] and "tied" in report.skipped["e"]
    assert "hooks" in report.skipped["d"]
    assert isinstance(net.a, VNMLinear) and type(net.c) is nn.Linear
    # filter_fn: rejected layers are neither converted nor reported
    net2 = Net()
    report2 = sparsify_(net2, "16:2:8", lambda m, name: name == "b", prune="magnitude")
    assert not report2.converted and set(report2.skipped) == {"b"}


def test_sparsify_is_all_or_nothing_on_error():
    model = mask_layers(tiny_llama(), "16:2:8")
    calls = []

    def bad_filter(module, name):
        calls.append(name)
        if len(calls) == 5:
            raise RuntimeError("boom")
        return True

    with pytest.raises(RuntimeError, match="boom"):
        sparsify_(model, "16:2:8", bad_filter)
    assert not any(isinstance(m, VNMLinear) for m in model.modules())


def test_sparsify_rejects_unknown_prune_method():
    with pytest.raises(ValueError, match="oneshot"):
        sparsify_(tiny_bert(), "64:2:8", prune="obs")


def test_sparsify_after_oneshot_obs():
    """The intended flow: second-order pruning with calibration data, then sparsify_."""
    from vnmsparse.prune import oneshot

    model = tiny_llama()
    calib = [inputs(seed=s, seq=16) for s in range(4)]
    oneshot(model, calib, "16:2:8", "obs", progress=False)
    ids = inputs(seed=9)
    with torch.no_grad():
        ref = out_of(model, ids)
    report = sparsify_(model, "16:2:8")
    assert not report.skipped
    with torch.no_grad():
        torch.testing.assert_close(out_of(model, ids), ref, rtol=1e-5, atol=1e-5)


# --------------------------------------------------------------------------------------------
# checkpoints


@pytest.mark.parametrize("arch", list(MODELS))
def test_checkpoint_round_trip_into_fresh_dense_model(arch, tmp_path):
    model = MODELS[arch]()
    sparsify_(model, "32:2:16", prune="magnitude")
    path = tmp_path / f"{arch}.safetensors"
    save_model(model, path, metadata={"note": "test"})
    assert vs.serialization.read_metadata(path)["note"] == "test"
    torch.manual_seed(123)  # a fresh model: different random weights
    fresh = type(model)(model.config).eval()
    load_model(fresh, path)
    ids = inputs(seed=5)
    with torch.no_grad():
        assert torch.equal(out_of(fresh, ids), out_of(model, ids))
    names = [n for n, m in model.named_modules() if isinstance(m, VNMLinear)]
    assert names == [n for n, m in fresh.named_modules() if isinstance(m, VNMLinear)]
    if arch == "gpt2":
        assert fresh.lm_head.weight is fresh.transformer.wte.weight  # still tied
    # the file is a plain vnmsparse file: the sparse layers are VNMWeights named <layer>.weight
    raw = vs.load(path)
    assert isinstance(raw[names[0] + ".weight"], vs.VNMWeight)
    # loading again into the now-sparse model also works
    load_model(fresh, path)
    with torch.no_grad():
        assert torch.equal(out_of(fresh, ids), out_of(model, ids))


def test_checkpoint_load_follows_model_dtype(tmp_path):
    model = tiny_llama().to(torch.bfloat16)
    sparsify_(model, "16:2:8", prune="magnitude")
    save_model(model, tmp_path / "m.safetensors")
    fresh = tiny_llama().to(torch.bfloat16)
    load_model(fresh, tmp_path / "m.safetensors")
    assert fresh.model.layers[0].mlp.down_proj.weight_values.dtype == torch.bfloat16
    ids = inputs()
    with torch.no_grad():
        assert torch.equal(out_of(fresh, ids), out_of(model, ids))
    fresh32 = tiny_llama()  # float32 model: loaded values are upcast exactly
    load_model(fresh32, tmp_path / "m.safetensors")
    assert fresh32.model.layers[0].mlp.down_proj.weight_values.dtype == torch.float32
    assert torch.equal(vs.unpack(fresh32.model.layers[0].mlp.down_proj.weight),
                       vs.unpack(model.model.layers[0].mlp.down_proj.weight).float())


def test_checkpoint_mismatched_models(tmp_path):
    model = tiny_bert()
    sparsify_(model, "16:2:8", prune="magnitude")
    path = tmp_path / "bert.safetensors"
    save_model(model, path)
    # other widths
    other = transformers.BertModel(transformers.BertConfig(vocab_size=97, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                                                           intermediate_size=83, max_position_embeddings=32))
    snapshot = copy.deepcopy(other.state_dict())
    with pytest.raises(ValueError, match=r"encoder\.layer\.0\.attention\.self\.query.*52x52.*64x64"):
        load_model(other, path)
    assert not any(isinstance(m, VNMLinear) for m in other.modules())  # untouched
    assert all(torch.equal(v, snapshot[k]) for k, v in other.state_dict().items())
    # fewer layers
    short = transformers.BertModel(transformers.BertConfig(vocab_size=97, hidden_size=52, num_hidden_layers=1, num_attention_heads=4,
                                                           intermediate_size=83, max_position_embeddings=32))
    with pytest.raises(ValueError, match=r"encoder\.layer\.1\..* has no module"):
        load_model(short, path)
    # another architecture entirely
    with pytest.raises(ValueError, match="does not match this GPT2LMHeadModel"):
        load_model(tiny_gpt2(), path)
    # a plain vnmsparse file is not a model checkpoint
    vs.save(tmp_path / "plain.safetensors", {"w": torch.zeros(2)})
    with pytest.raises(ValueError, match="not written by vnmsparse.save_model"):
        load_model(tiny_bert(), tmp_path / "plain.safetensors")
    # a sparse model whose layer is dense in the file
    dense_path = tmp_path / "dense.safetensors"
    save_model(tiny_bert(), dense_path)
    with pytest.raises(ValueError, match="VNMLinear in this model but dense in the file"):
        load_model(model, dense_path)


def test_checkpoint_strict_and_extra_keys(tmp_path):
    model = tiny_bert()
    sparsify_(model, "16:2:8", prune="magnitude")
    model.register_buffer("extra", torch.ones(3))
    path = tmp_path / "m.safetensors"
    save_model(model, path)
    fresh = tiny_bert()
    with pytest.raises(ValueError, match="in the file but not in the model: extra"):
        load_model(fresh, path)
    load_model(fresh, path, strict=False)
    ids = inputs()
    with torch.no_grad():
        assert torch.equal(out_of(fresh, ids), out_of(model, ids))


# --------------------------------------------------------------------------------------------
# torch.compile


def test_compile_fullgraph_matches_eager_on_sparsified_hf_model():
    model = tiny_llama()
    sparsify_(model, "16:2:8", prune="magnitude")
    ids = inputs(seq=8)
    torch._dynamo.reset()
    compiled = torch.compile(model, fullgraph=True)
    with torch.no_grad():
        eager = out_of(model, ids)
        got = out_of(compiled, ids)
    torch.testing.assert_close(got, eager, rtol=1e-4, atol=1e-4)


def test_compile_fullgraph_vnmlinear_with_backward():
    m = VNMLinear.from_linear(masked_linear(48, 40, "16:2:8"), "16:2:8")
    torch._dynamo.reset()
    cm = torch.compile(m, fullgraph=True, backend="aot_eager")
    x = torch.randn(3, 40, requires_grad=True)
    cm(x).sum().backward()
    x2 = x.detach().clone().requires_grad_()
    m(x2).sum().backward()
    torch.testing.assert_close(x.grad, x2.grad)


# --------------------------------------------------------------------------------------------
# GPU (run on a machine with CUDA; skipped here otherwise)


def _rel(a, b):
    return float((a.double() - b.double()).norm() / b.double().norm().clamp_min(1e-30))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("cfg", CFGS + ["128:2:32"])
def test_gpu_vnmlinear_uses_kernel_and_matches(dtype, cfg):
    lin = masked_linear(300, 264, cfg, dtype=dtype)
    m = VNMLinear.from_linear(lin, cfg).cuda()
    assert m.weight_values.is_cuda and m._kernel_values.is_cuda
    from vnmsparse.kernels import best_kernel

    if best_kernel(torch.cuda.current_device()):
        assert m._kernel_layout != "canonical"
    for tokens in (1, 7, 64, 300):
        x = torch.randn(tokens, 264, dtype=dtype, device="cuda")
        ref = x.double() @ lin.weight.cuda().double().t() + lin.bias.cuda().double()
        assert _rel(m(x), ref) < 1e-2
    # moving back and forth re-derives the layout
    m.cpu()
    assert m._kernel_layout == "canonical" and not m._kernel_values.is_cuda
    m.to("cuda", torch.float16)
    assert m._kernel_values.dtype == torch.float16


@pytest.mark.gpu
def test_gpu_vnmlinear_picks_the_kernel_per_call(monkeypatch):
    """The layout (kernel) is chosen by each call's token count, as vnmsparse.spmm chooses it: on
    sm_90a a 1-token and a 16-token call take the wgmma.sp layout (at 1 token its launcher runs the
    decode kernel on it) and a 300-token 64:2:8 call the as-2:4 path."""
    from vnmsparse import ops
    from vnmsparse.kernels import best_kernel, spmm_wgmma_sp

    if best_kernel(torch.cuda.current_device()) != 3:
        pytest.skip("needs the sm_90a wgmma.sp kernel")
    used = []
    for name, fn in list(ops.CUDA_LAYOUTS.items()):
        monkeypatch.setitem(ops.CUDA_LAYOUTS, name, lambda *a, _n=name, _f=fn, **k: used.append(_n) or _f(*a, **k))
    lin = masked_linear(512, 1024, "64:2:8", dtype=torch.bfloat16)
    m = VNMLinear.from_linear(lin, "64:2:8").cuda()
    for tokens, want in ((1, spmm_wgmma_sp.LAYOUT), (16, spmm_wgmma_sp.LAYOUT), (300, spmm_wgmma_sp.LAYOUT_AS_2_4)):
        x = torch.randn(tokens, 1024, dtype=torch.bfloat16, device="cuda")
        ref = x.double() @ lin.weight.cuda().double().t() + lin.bias.cuda().double()
        with torch.no_grad():
            assert _rel(m(x), ref) < 1e-2
        assert used[-1] == want, (tokens, used)


@pytest.mark.gpu
def test_gpu_eager_fast_path_equals_op():
    """Inference (no grad) calls the kernel directly; with autograd the registered op runs: same result."""
    m = VNMLinear.from_linear(masked_linear(256, 192, "64:2:8", dtype=torch.bfloat16), "64:2:8").cuda()
    x = torch.randn(2, 9, 192, dtype=torch.bfloat16, device="cuda")
    with torch.no_grad():
        fast = m(x)
    via_op = m(x)  # bias requires grad: the op path
    assert via_op.requires_grad and not fast.requires_grad
    assert torch.equal(fast, via_op.detach())
    via_op.sum().backward()
    assert m.bias.grad is not None


@pytest.mark.gpu
@pytest.mark.parametrize("arch", list(MODELS))
@pytest.mark.parametrize("cfg", ["2:4", "64:2:8"])
def test_gpu_sparsified_hf_model_matches_masked_dense(arch, cfg):
    ref = mask_layers(MODELS[arch](), cfg).cuda().to(torch.bfloat16)
    model = copy.deepcopy(ref)
    sparsify_(model, cfg)
    ids = inputs().cuda()
    with torch.no_grad():
        assert _rel(out_of(model, ids), out_of(ref, ids)) < 2e-2


def _sparse_gpu_model(arch="llama", cfg="64:2:8"):
    model = MODELS[arch]().cuda().to(torch.bfloat16)
    sparsify_(model, cfg, prune="magnitude")
    return model


# HF BERT under capture is not ours to fix: on the H200 its capture raised a torch error when it ran
# first in a fresh process (passed after other tests), and the e2e benchmark's BERT-large replays
# ran 4x slower than eager. Its linears are VNMLinear like those of the two decoders.
_BERT_CAPTURE = pytest.mark.xfail(reason="HF BERT capture: see the comment above", strict=False)


@pytest.mark.gpu
@pytest.mark.parametrize("arch", [pytest.param(a, marks=_BERT_CAPTURE) if a == "bert" else a for a in MODELS])
def test_gpu_cuda_graph_replay_equals_eager(arch):
    model = _sparse_gpu_model(arch)
    ids = inputs().cuda()
    with torch.no_grad():
        eager = out_of(model, ids).clone()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(2):
                out_of(model, ids)
        torch.cuda.current_stream().wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        static_ids = ids.clone()
        with torch.cuda.graph(graph):
            static_out = out_of(model, static_ids)
        graph.replay()
        torch.cuda.synchronize()
        # Our kernels launch the same way in both; cuBLAS and attention may choose other
        # algorithms under capture, which in bf16 moves the logits by ~3e-3 (seen on an H200).
        assert _rel(static_out, eager) < 1e-2
        new_ids = inputs(seed=7).cuda()
        static_ids.copy_(new_ids)
        graph.replay()
        torch.cuda.synchronize()
        assert _rel(static_out, out_of(model, new_ids)) < 1e-2


@pytest.mark.gpu
@pytest.mark.parametrize("mode", [None, "reduce-overhead"])
def test_gpu_compile_fullgraph_matches_eager(mode):
    model = _sparse_gpu_model("llama")
    ids = inputs().cuda()
    torch._dynamo.reset()
    compiled = torch.compile(model, fullgraph=True, mode=mode)
    with torch.no_grad():
        eager = out_of(model, ids)
        for _ in range(3):  # reduce-overhead records the CUDA graph on a later call
            got = out_of(compiled, ids).clone()
    assert _rel(got, eager) < 1e-2


@pytest.mark.gpu
def test_gpu_checkpoint_round_trip(tmp_path):
    model = _sparse_gpu_model("gpt2", "128:2:32")
    save_model(model, tmp_path / "m.safetensors")
    fresh = tiny_gpt2().cuda().to(torch.bfloat16)
    load_model(fresh, tmp_path / "m.safetensors")
    ids = inputs().cuda()
    with torch.no_grad():
        assert torch.equal(out_of(fresh, ids), out_of(model, ids))
    assert fresh.transformer.h[0].attn.c_attn._kernel_values.is_cuda


def test_cat_runs_siblings_as_one_layer():
    """VNMLinear.cat: q / k / v (or gate / up) as one layer whose output splits into theirs; a
    layer without a bias gets zeros beside one that has it."""
    layers = [VNMLinear.from_linear(masked_linear(r, 96, "32:2:8", dtype=torch.bfloat16, bias=b), "32:2:8")
              for r, b in ((64, True), (32, False), (40, True))]
    fused = VNMLinear.cat(layers)
    assert (fused.in_features, fused.out_features) == (96, 136) and fused.bias is not None
    x = torch.randn(5, 96, dtype=torch.bfloat16)
    for part, layer in zip(fused(x).split([64, 32, 40], -1), layers):
        assert torch.equal(part, layer(x))
    no_bias = VNMLinear.cat([VNMLinear.from_linear(masked_linear(32, 96, "32:2:8", dtype=torch.bfloat16, bias=False),
                                                   "32:2:8")] * 2)
    assert no_bias.bias is None
    with pytest.raises(TypeError, match="non-empty sequence of VNMLinear"):
        VNMLinear.cat([layers[0], nn.Linear(96, 8)])


@pytest.mark.gpu
@pytest.mark.parametrize("cfg", ["2:4", "64:2:8", "128:2:32"])
def test_gpu_cat_matches_its_parts(cfg):
    """A VNMLinear.cat layer on the GPU (its own kernel layout, any token count) gives each part's output."""
    rows = (256, 128, 200)
    parts = [VNMLinear.from_linear(masked_linear(r, 512, cfg, dtype=torch.bfloat16, seed=i), cfg).cuda()
             for i, r in enumerate(rows)]
    fused = VNMLinear.cat(parts)
    for tokens in (1, 7, 300):
        x = torch.randn(tokens, 512, dtype=torch.bfloat16, device="cuda")
        with torch.no_grad():
            for got, part in zip(fused(x).split(list(rows), -1), parts):
                assert _rel(got, part(x)) < 1e-2, (cfg, tokens)
