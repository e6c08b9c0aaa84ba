"""vnmsparse.prune: masks, second-order math, one-shot and gradual pruning (CPU, fast)."""

import copy
import itertools

import pytest
import torch
from torch import nn

from vnmsparse import VNMConfig, is_vnm, vnm_mask
from vnmsparse.prune import (
    BlockFisherInverse,
    GradualConfig,
    NM,
    Stacked,
    Unstructured,
    as_pattern,
    check_pattern,
    default_schedule,
    density,
    fisher_obs_prune,
    gradual_prune,
    keep_pair_costs,
    oneshot,
    prune_weight,
    prune_with_mask,
    relative_error,
)
from vnmsparse.prune.obs import group_obs_update
from vnmsparse.format import pair_table, vnm_pair_mask


def correlated_layer(r=128, k=96, n=2048, seed=0):
    """A weight and X X^T / n of inputs with correlated features of very different scales:
    the regime where activation-aware and second-order pruning differ from magnitude."""
    g = torch.Generator().manual_seed(seed)
    mix = torch.eye(k) + 0.5 * torch.randn(k, k, generator=g) / k**0.5
    x = (torch.randn(n, k, generator=g) @ mix) * torch.rand(k, generator=g).mul(4).add(0.1)
    w = torch.randn(r, k, generator=g)
    return w, x.t() @ x / n


# --------------------------------------------------------------------------------------------
# patterns and masks


@pytest.mark.parametrize("method", ["magnitude", "wanda", "obs"])
@pytest.mark.parametrize(
    "shape,cfg",
    [((128, 64), "64:2:8"), ((100, 44), "64:2:8"), ((70, 37), "32:2:16"), ((50, 30), "2:4"), ((40, 23), "16:2:5")],
)
def test_masks_valid_for_every_method_and_ragged_shapes(method, shape, cfg):
    w, h = correlated_layer(*shape, n=512)
    for dtype in (torch.float32, torch.bfloat16):
        out = prune_weight(w.to(dtype), cfg, method, hessian=h, act_norm=h.diagonal().sqrt())
        assert out.shape == w.shape and out.dtype == dtype
        assert is_vnm(out, cfg)
        r, k = shape
        m = VNMConfig.parse(cfg).m
        full = (k // m) * m  # full groups keep exactly 2 per row (pruned weights are never revived)
        assert int((out[:, :full] != 0).sum()) == r * 2 * (k // m)


@pytest.mark.parametrize("spec", ["2:8", "4:8", "75%", "87.5%", "2x32:2:8", "3x16:2:16"])
def test_baseline_and_intermediate_patterns(spec):
    w, h = correlated_layer(96, 80, n=512)
    p = as_pattern(spec)
    for method in ("magnitude", "obs"):
        out, mask = prune_with_mask(w, p, method, hessian=h)
        check_pattern(out, p)
        assert abs(mask.float().mean().item() - density(p)) < 0.02


def test_pattern_parsing():
    assert as_pattern("64:2:8") == VNMConfig(64, 2, 8)
    assert as_pattern("2:4") == VNMConfig(64, 2, 4)
    assert as_pattern("2:8") == NM(2, 8)
    assert as_pattern("75%") == Unstructured(0.25)
    assert as_pattern("3x64:2:16") == Stacked(VNMConfig(64, 2, 16), 3)
    assert str(as_pattern("87.5%")) == "87.5%" and str(as_pattern("2x64:2:8")) == "2x64:2:8"
    with pytest.raises(ValueError):
        as_pattern("5x64:2:16")  # 5 disjoint quads do not fit in 16 columns
    with pytest.raises(ValueError):
        as_pattern("a:b")
    with pytest.raises(TypeError):
        as_pattern(3)


@pytest.mark.parametrize("r,w,v", [(130, 8, 64), (64, 16, 16), (48, 6, 16), (20, 4, 16), (33, 8, 1)])
def test_pair_mask_is_vnm_mask_on_additive_scores(r, w, v):
    """vnm_pair_mask applies vnm_mask's rule to pair scores: on s_a + s_b they must agree."""
    g = torch.Generator().manual_seed(r + w)
    s = torch.rand(r, 3, w, generator=g, dtype=torch.float64)
    pairs = pair_table(w)
    mine = vnm_pair_mask(s[..., pairs[:, 0]] + s[..., pairs[:, 1]], v, w).view(r, 3 * w)
    if v == 1:  # no column sharing: each row keeps its top 2 of every group
        ref = torch.zeros(r, 3, w, dtype=torch.bool).scatter_(-1, s.topk(2, -1).indices, True).view(r, 3 * w)
    else:
        ref = vnm_mask(s.view(r, 3 * w), VNMConfig(v, 2, w))
    assert torch.equal(mine, ref)


# --------------------------------------------------------------------------------------------
# second-order math


def test_keep_set_identity_matches_direct_solve():
    g = torch.Generator().manual_seed(0)
    m = 8
    w = torch.randn(6, m, generator=g, dtype=torch.float64)
    a = torch.randn(6, m, 3 * m, generator=g, dtype=torch.float64)
    finv = torch.linalg.inv(a @ a.transpose(1, 2) + 0.1 * torch.eye(m, dtype=torch.float64))
    costs = keep_pair_costs(w, torch.linalg.inv(finv))
    for i, (p, q) in enumerate(itertools.combinations(range(m), 2)):
        pruned = [j for j in range(m) if j not in (p, q)]
        sub = finv[:, pruned][:, :, pruned]
        direct = 0.5 * (w[:, pruned] * torch.linalg.solve(sub, w[:, pruned])).sum(-1)  # 1/2 w_P^T ([F^-1]_PP)^-1 w_P
        torch.testing.assert_close(costs[:, i], direct, rtol=1e-9, atol=1e-12)


def test_group_obs_update_is_the_constrained_optimum():
    """min (w'-w)^T F (w'-w) subject to w'_P = 0, solved directly on the kept coordinates."""
    g = torch.Generator().manual_seed(1)
    b = 8
    a = torch.randn(4, b, 2 * b, generator=g, dtype=torch.float64)
    f = a @ a.transpose(1, 2) + 0.05 * torch.eye(b, dtype=torch.float64)
    w = torch.randn(4, b, generator=g, dtype=torch.float64)
    prune = torch.rand(4, b, generator=g) < 0.6
    out = group_obs_update(w, torch.linalg.inv(f), prune)
    for i in range(4):
        kept, pruned = ~prune[i], prune[i]
        fk = f[i][kept][:, kept]
        fkp = f[i][kept][:, pruned]
        expected = w[i].clone()
        expected[kept] = w[i][kept] + torch.linalg.solve(fk, fkp @ w[i][pruned])
        expected[pruned] = 0
        torch.testing.assert_close(out[i], expected, rtol=1e-8, atol=1e-10)


def test_fisher_warns_when_rank_deficient():
    with pytest.warns(UserWarning, match="rank-deficient"):
        BlockFisherInverse((4, 64), 32, 16)


def test_fisher_inverse_matches_linalg_inv():
    g = torch.Generator().manual_seed(2)
    r, k, b, m = 3, 20, 8, 16  # K not a multiple of the block: zero padding
    grads = torch.randn(m, r, k, generator=g) * 1e-3
    fisher = BlockFisherInverse((r, k), b, m, damp=1e-2)
    fisher.add_grads(grads[0])  # one Sherman-Morrison step, then Woodbury chunks
    fisher.add_grads(grads[1:6])
    fisher.add_grads(grads[6:])
    padded = torch.nn.functional.pad(grads, (0, 24 - k)).double().view(m, r, 3, b)
    got = fisher.blocks_view()
    for i in range(r):
        for j in range(3):
            gi = padded[:, i, j]
            expected = torch.linalg.inv(fisher.lam * torch.eye(b, dtype=torch.float64) + gi.t() @ gi / m)
            torch.testing.assert_close(got[i, j], expected, rtol=1e-7, atol=1e-7 * float(expected.abs().max()))
    assert fisher.lam == pytest.approx(1e-2 * float(grads[:1].double().square().mean()))


@pytest.mark.parametrize("spec", ["16:2:8", "2:8", "2:4", "2x16:2:8", "75%"])
def test_fisher_obs_prune_beats_mask_only_under_the_fisher_quadratic(spec):
    g = torch.Generator().manual_seed(3)
    r, k, b = 32, 40, 8
    w = torch.randn(r, k, generator=g)
    grads = torch.randn(64, r, k, generator=g) * torch.linspace(0.1, 2, k)  # per-column curvature
    fisher = BlockFisherInverse((r, k), b, 64, damp=1e-3)
    fisher.add_grads(grads)
    new, keep = fisher_obs_prune(w, fisher, spec)
    check_pattern(new, spec)
    f = torch.linalg.inv(fisher.blocks_view())  # [R, nb, B, B]

    def loss(x):
        d = (x - w).double().view(r, k // b, b)
        return float(torch.einsum("rni,rnij,rnj->", d, f, d))

    assert loss(new) < loss(w * keep)  # the OBS update helps
    assert loss(new) < loss(prune_weight(w, spec, "magnitude"))


# --------------------------------------------------------------------------------------------
# layer-wise quality and errors


@pytest.mark.parametrize("cfg", ["64:2:8", "128:2:16", "2:4"])
def test_obs_beats_wanda_beats_magnitude_on_correlated_layer(cfg):
    w, h = correlated_layer(256, 128)
    err = {m: relative_error(w, prune_weight(w, cfg, m, hessian=h, act_norm=h.diagonal().sqrt()), h) for m in ("obs", "wanda", "magnitude")}
    assert err["obs"] < err["wanda"] < err["magnitude"], err


def test_bad_inputs_raise_clear_errors():
    w, h = correlated_layer(64, 32, n=256)
    with pytest.raises(ValueError, match="unknown pruning method"):
        prune_weight(w, "16:2:8", "random")
    with pytest.raises(ValueError, match="needs hessian"):
        prune_weight(w, "16:2:8", "obs")
    with pytest.raises(ValueError, match="needs act_norm"):
        prune_weight(w, "16:2:8", "wanda")
    with pytest.raises(ValueError, match=r"hessian must have shape \[32, 32\]"):
        prune_weight(w, "16:2:8", "obs", hessian=h[:16, :16])
    with pytest.raises(ValueError, match=r"act_norm must have shape \[32\]"):
        prune_weight(w, "16:2:8", "wanda", act_norm=torch.ones(31))
    with pytest.raises(ValueError, match="NaN"):
        prune_weight(w.clone().index_fill_(0, torch.tensor([3]), float("nan")), "16:2:8", "magnitude")
    with pytest.raises(ValueError, match="NaN"):
        prune_weight(w, "16:2:8", "obs", hessian=h.clone().fill_diagonal_(float("nan")))
    with pytest.raises(ValueError, match="2-D"):
        prune_weight(w[0], "16:2:8", "magnitude")
    with pytest.raises(TypeError):
        prune_weight(w.numpy(), "16:2:8", "magnitude")
    with pytest.raises(TypeError):
        prune_weight(w.long(), "16:2:8", "magnitude")
    with pytest.raises(TypeError):
        prune_weight(w, 8, "magnitude")
    with pytest.raises(ValueError):
        prune_weight(w, "64:3:8", "magnitude")  # VNMConfig's own rule: n == 2
    with pytest.raises(ValueError, match="positive definite"):
        prune_weight(w, "16:2:8", "obs", hessian=-torch.eye(32))
    with pytest.raises(ValueError, match="method"):
        GradualConfig(method="sparsegpt")
    with pytest.raises(ValueError, match="end with the target"):
        GradualConfig(target="64:2:8", schedule=("2x64:2:8",)).patterns()


# --------------------------------------------------------------------------------------------
# whole models


class MLP(nn.Module):
    def __init__(self, d=32, h=64, classes=2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, classes))

    def forward(self, x):
        return self.net(x)


def toy_task(seed=0, n=512, d=32, batch=32):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d, generator=g) @ (torch.eye(d) + 0.3 * torch.randn(d, d, generator=g))
    y = (x[:, :4].sum(1) > 0).long()
    return [{"x": x[i : i + batch], "labels": y[i : i + batch]} for i in range(0, n, batch)]


def trained_mlp(seed=0):
    torch.manual_seed(seed)
    model = MLP()
    data = toy_task(seed)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for _ in range(3):
        for b in data:
            opt.zero_grad()
            nn.functional.cross_entropy(model(b["x"]), b["labels"]).backward()
            opt.step()
    return model, data


def hidden_layers(module, name):
    return name in ("net.2", "net.4")  # the 64x64 layers (v = 16 divides 64)


def test_oneshot_is_sequential_and_reports_errors():
    model, data = trained_mlp()
    original = copy.deepcopy(model)
    calib = [b["x"] for b in data[:4]]
    report = oneshot(model, calib, "16:2:8", "obs", progress=False)
    assert [x.name for x in report.pruned] == ["net.0", "net.2", "net.4", "net.6"]
    for layer in (model.net[0], model.net[2], model.net[4]):
        assert is_vnm(layer.weight, "16:2:8")
    # net.2's reported error uses its inputs in the model whose net.0 is already pruned.
    seen = []
    handle = model.net[2].register_forward_pre_hook(lambda m, a: seen.append(a[0]))
    with torch.no_grad():
        for x in calib:
            model(x)
    handle.remove()
    x = torch.cat(seen)
    h = x.t() @ x / x.shape[0]
    expected = relative_error(original.net[2].weight.detach(), model.net[2].weight.detach(), h)
    assert report.layers[1].rel_error == pytest.approx(expected, rel=1e-4)


def test_oneshot_groups_layers_sharing_an_input(monkeypatch):
    import vnmsparse.prune.layerwise as mod

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.q, self.k, self.v, self.o = (nn.Linear(32, 32) for _ in range(4))

        def forward(self, x):
            return self.o(self.q(x) * self.k(x) + self.v(x))

    groups = []
    real = mod._collect_hessians
    monkeypatch.setattr(mod, "_collect_hessians", lambda m, b, modules, f: groups.append(list(modules)) or real(m, b, modules, f))
    oneshot(Block(), [torch.randn(8, 32) for _ in range(2)], "16:2:8", "wanda", progress=False)
    assert groups == [["q", "k", "v"], ["o"]]


def test_oneshot_hf_bert_llama_gpt2():
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    bert = transformers.BertModel(transformers.BertConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                                                          intermediate_size=128, vocab_size=100))
    ids = [torch.randint(0, 100, (4, 12)) for _ in range(2)]
    rep = oneshot(bert, [{"input_ids": i, "attention_mask": torch.ones_like(i)} for i in ids], "32:2:8", "obs", progress=False)
    assert len(rep.pruned) == 13 and all(x.rel_error < 1 for x in rep.pruned)  # 12 encoder linears + pooler
    assert all(is_vnm(m.weight, "32:2:8") for m in bert.modules() if isinstance(m, nn.Linear))

    llama = transformers.LlamaForCausalLM(transformers.LlamaConfig(hidden_size=64, intermediate_size=96, num_hidden_layers=2,
                                                                   num_attention_heads=4, num_key_value_heads=2,
                                                                   vocab_size=100, tie_word_embeddings=True))
    rep = oneshot(llama, ids, "16:2:8", "obs", progress=False)
    assert [x.name for x in rep.skipped] == ["lm_head"] and "tied" in rep.skipped[0].reason
    assert len(rep.pruned) == 14
    assert all(is_vnm(llama.get_submodule(x.name).weight, "16:2:8") for x in rep.pruned)

    gpt2 = transformers.GPT2LMHeadModel(transformers.GPT2Config(n_embd=64, n_layer=1, n_head=2, vocab_size=100, n_positions=16))
    rep = oneshot(gpt2, ids, "16:2:8", "wanda", progress=False)
    assert {x.name for x in rep.pruned} == {"transformer.h.0.attn.c_attn", "transformer.h.0.attn.c_proj",
                                            "transformer.h.0.mlp.c_fc", "transformer.h.0.mlp.c_proj"}
    for x in rep.pruned:  # Conv1D stores [in, out]: the [out, in] view is the V:N:M one
        weight = gpt2.get_submodule(x.name).weight
        assert x.shape == (weight.shape[1], weight.shape[0]) and is_vnm(weight.t(), "16:2:8")


# --------------------------------------------------------------------------------------------
# gradual pruning


def test_default_schedules():
    assert [str(p) for p in default_schedule("64:2:16")] == ["3x64:2:16", "2x64:2:16", "64:2:16"]
    assert [str(p) for p in default_schedule("128:2:8")] == ["2x128:2:8", "128:2:8"]
    assert [str(p) for p in default_schedule("2:4")] == ["64:2:4"]
    assert [str(p) for p in default_schedule("2:16")] == ["6:16", "4:16", "2:16"]
    assert [str(p) for p in default_schedule("87.5%")] == ["62.5%", "75%", "87.5%"]
    assert [density(p) for p in default_schedule("64:2:16", steps=4)] == [0.5, 0.375, 0.25, 0.125]


@pytest.mark.parametrize("method", ["fisher", "magnitude", "wanda", "obs"])
def test_gradual_reaches_target_and_is_deterministic(method):
    teacher, data = trained_mlp()
    cfg = GradualConfig(target="16:2:16", method=method, finetune_steps=3, final_steps=4, fisher_grads=32, fisher_chunk=8,
                        fisher_block=16, calib_batches=2, lr=1e-3, progress=False, seed=7)
    fwd = lambda model, b: model(b["x"])  # noqa: E731
    runs = []
    for _ in range(2):
        student = copy.deepcopy(teacher)
        report = gradual_prune(student, teacher, data, cfg, forward_fn=fwd, filter_fn=hidden_layers)
        runs.append((student, report))
    (a, rep), (b, _) = runs
    assert [s.pattern for s in rep.steps] == ["3x16:2:16", "2x16:2:16", "16:2:16"]
    assert rep.steps[0].density > rep.steps[1].density > rep.steps[2].density
    for name in ("net.2", "net.4"):
        assert is_vnm(a.get_submodule(name).weight, "16:2:16")
        torch.testing.assert_close(a.get_submodule(name).weight, b.get_submodule(name).weight, rtol=0, atol=0)
    torch.testing.assert_close(a.net[0].weight, b.net[0].weight, rtol=0, atol=0)
    assert not torch.equal(a.net[0].weight, teacher.net[0].weight)  # unpruned layers were fine-tuned
