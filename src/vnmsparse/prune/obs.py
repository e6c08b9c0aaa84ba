"""Optimal Brain Surgeon, the second-order core shared by the layer-wise and the gradual pruner.

Two forms of the same quadratic model ``dL = 1/2 dw^T H dw``:

* :func:`sequential_obs`: the layer-wise problem min ||(W - W')X||^2 with H = X X^T shared by all
  rows (SparseGPT): columns are eliminated left to right through the Cholesky factor of H^-1,
  and the mask of each m-column group is chosen from the *already updated* weights.
* :func:`keep_pair_costs` / :func:`group_obs_update`: OBS for a set of weights inside one block
  of an inverse Hessian (Fisher) block, used by gradual pruning.

Keep-set identity: for a group g = P + K (P pruned, K kept) and G = ([H^-1]_gg)^-1,
``([H^-1]_PP)^-1 = G_PP - G_PK G_KK^-1 G_KP``. Keeping 2 of m therefore costs one 2x2 solve
per candidate pair instead of an (m-2)x(m-2) solve.
"""

from __future__ import annotations

import torch

from ..format import pair_table
from .patterns import as_pattern, group_width, pattern_mask
from .scores import obs_saliency


def hinv_cholesky(hessian: torch.Tensor, damp: float = 0.01, tries: int = 5) -> torch.Tensor:
    """Upper Cholesky factor U of (H + damp*mean(diag H)*I)^-1, so that H^-1 = U^T U.

    Float64: the factor feeds every later column update, and K is at most a few thousand.
    The damping grows 10x per failed try, for Hessians that are singular beyond rounding."""
    h = hessian.double()
    eye = torch.eye(h.shape[0], dtype=h.dtype, device=h.device)
    scale = torch.diag(h).mean().clamp_min(1e-12)
    for attempt in range(tries):
        chol, info = torch.linalg.cholesky_ex(h + (damp * 10**attempt) * scale * eye)
        if int(info) == 0:
            chol, info = torch.linalg.cholesky_ex(torch.cholesky_inverse(chol), upper=True)
            if int(info) == 0:
                return chol
    raise ValueError(f"hessian is not positive definite even with damping {damp * 10 ** (tries - 1):g} x mean(diag)")


def sequential_obs(weight: torch.Tensor, hessian: torch.Tensor, pattern, *, blocksize: int = 128, damp: float = 0.01):
    """SparseGPT-style OBS to ``pattern``; returns (pruned float32 weight, keep mask).

    Lazy blocks of ``blocksize`` columns (rounded to whole groups) are updated in place; the
    rest of the matrix gets the block's accumulated error in one matmul. At the first column of
    each group the group's mask is chosen with score w^2 / d^2 (d = Cholesky diagonal, i.e. the
    OBS saliency given the columns still to come), then each column is pruned and its error
    spread over the later columns.
    """
    p = as_pattern(pattern)
    w = weight.detach().float().clone()
    r, k = w.shape
    h = hessian.detach().double().clone()
    dead = torch.diag(h) == 0  # inputs that were always zero: any weight there is free to drop
    h[dead, dead] = 1.0
    w[:, dead] = 0.0
    u = hinv_cholesky(h, damp).float()
    g = group_width(p) or blocksize
    bs = max(g, (blocksize // g) * g)
    mask = torch.zeros(r, k, dtype=torch.bool, device=w.device)
    for i1 in range(0, k, bs):
        i2 = min(i1 + bs, k)
        w1, u1 = w[:, i1:i2].clone(), u[i1:i2, i1:i2]
        d = torch.diag(u1)
        err = torch.zeros_like(w1)
        for j0 in range(0, i2 - i1, g):
            j2 = min(j0 + g, i2 - i1)
            keep = pattern_mask(obs_saliency(w1[:, j0:j2], d[j0:j2].square()), p)
            mask[:, i1 + j0 : i1 + j2] = keep
            drop = (~keep).to(w1.dtype) / d[j0:j2]  # e_j = w_j * drop_j: the pruned part over d_j
            for j in range(j0, j2):  # few kernels per column: this loop is the pruner's hot path
                e = err[:, j]
                torch.mul(w1[:, j], drop[:, j - j0], out=e)
                w1[:, j:].addr_(e, u1[j, j:], alpha=-1.0)
            w1[:, j0:j2] *= keep  # exact zeros (the update leaves rounding residue there)
        w[:, i1:i2] = w1
        w[:, i2:] -= err @ u[i1:i2, i2:]
    return w, mask


def keep_pair_costs(w: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    """OBS cost of pruning every weight of a group except each pair K, via the keep-set identity.

    w: [..., m] group weights; g: [..., m, m] = ([F^-1]_gg)^-1 (symmetric positive definite).
    Returns [..., C(m, 2)] costs 1/2 (w_P^T G_PP w_P - t^T G_KK^-1 t) with t = G_KP w_P, pairs in
    :func:`~vnmsparse.prune.patterns.pair_table` order. Computed in float64: the two terms are
    close when the kept pair carries most of the group.
    """
    w, g = w.double(), g.double()
    pairs = pair_table(w.shape[-1], w.device)
    a, b = pairs[:, 0], pairs[:, 1]
    s = (g @ w.unsqueeze(-1)).squeeze(-1)  # G w
    total = (w * s).sum(-1, keepdim=True)  # w^T G w
    gaa, gbb, gab = g[..., a, a], g[..., b, b], g[..., a, b]
    wa, wb, sa, sb = w[..., a], w[..., b], s[..., a], s[..., b]
    gkk_w_a, gkk_w_b = gaa * wa + gab * wb, gab * wa + gbb * wb  # G_KK w_K
    pruned_quad = total - 2 * (wa * sa + wb * sb) + (wa * gkk_w_a + wb * gkk_w_b)  # w_P^T G_PP w_P
    ta, tb = sa - gkk_w_a, sb - gkk_w_b  # t = G_KP w_P = (G w)_K - G_KK w_K
    det = gaa * gbb - gab * gab
    kept_quad = (gbb * ta * ta - 2 * gab * ta * tb + gaa * tb * tb) / det
    return 0.5 * (pruned_quad - kept_quad)


def group_obs_update(w: torch.Tensor, finv: torch.Tensor, prune: torch.Tensor) -> torch.Tensor:
    """Prune ``prune`` in each block and move the rest optimally: w - F^-1[:, P] ([F^-1]_PP)^-1 w_P.

    w: [N, B]; finv: [N, B, B] block inverse Hessians; prune: bool [N, B] (any number per block).
    The restricted inverse is solved as one batched B x B system with identity rows/columns on the
    kept entries, so blocks with different pruned sets batch together.
    """
    dtype = finv.dtype
    p = prune.to(dtype)
    a = finv * p.unsqueeze(-1) * p.unsqueeze(-2) + torch.diag_embed(1.0 - p)
    x = torch.linalg.solve(a, (w.to(dtype) * p).unsqueeze(-1))  # x_P = ([F^-1]_PP)^-1 w_P, x_K = 0
    out = w.to(dtype) - (finv @ x).squeeze(-1)
    return out.masked_fill(prune, 0.0)


def relative_error(weight: torch.Tensor, pruned: torch.Tensor, hessian: torch.Tensor) -> float:
    """tr((W - W') H (W - W')^T) / tr(W H W^T): the layer's output error relative to its output."""
    h = hessian.double()
    w = weight.double()
    dw = w - pruned.double()
    return float(((dw @ h) * dw).sum() / ((w @ h) * w).sum().clamp_min(1e-300))

