"""Block-diagonal empirical Fisher inverse (WoodFisher / oBERT) and OBS pruning with it.

F = lambda*I + (1/m) sum_i g_i g_i^T over m gradients, block-diagonal over ``block`` consecutive
weights of a row (the block is the pattern's group width, so a V:N:M group is one block or part
of one). The inverse is built directly by Woodbury updates, never by inverting F: chunks of c
gradients at a time, F^-1 <- F^-1 - U (m I + G^T U)^-1 U^T with U = F^-1 G, which is exactly c
Sherman-Morrison steps F^-1 <- F^-1 - (F^-1 g)(F^-1 g)^T / (m + g^T F^-1 g).
"""

from __future__ import annotations

import warnings

import torch

from ..config import VNMConfig
from .obs import group_obs_update, keep_pair_costs
from ..format import exact_pair_search, vnm_pair_mask
from .patterns import NM, as_pattern, group_width, pattern_mask
from .scores import obs_saliency


class BlockFisherInverse:
    """Inverse of the damped empirical Fisher of one [R, K] weight, in blocks of ``block`` columns.

    Args:
        shape: (R, K) of the weight (PyTorch [out, in]).
        block: weights per block along a row; K is zero-padded to a multiple of it.
        num_grads: m, the number of gradients the Fisher averages over (the Woodbury denominator).
        damp: lambda relative to the mean squared gradient entry. Relative because gradient
            scales differ by orders of magnitude between models and layers: an absolute 1e-7
            (SparseML) is negligible for some and dominates the scores of small blocks for others.
            The scale is measured on the first chunk added (the inverse must start from
            lambda^-1 I before any gradient is folded in).
    """

    def __init__(self, shape, block: int, num_grads: int, damp: float = 1e-4, *, device=None, dtype=torch.float64):
        r, k = (int(s) for s in shape)
        if block < 1 or num_grads < 1 or not damp > 0:
            raise ValueError(f"BlockFisherInverse needs block >= 1, num_grads >= 1, damp > 0; got {block}, {num_grads}, {damp}")
        if num_grads < 2 * block:
            # Directions no gradient spans cost only lambda, so OBS would move weights along them
            # freely: with a tiny relative damping the updates get large and the model breaks.
            warnings.warn(f"BlockFisherInverse: {num_grads} gradients for blocks of {block} leave the Fisher "
                          "(nearly) rank-deficient; use more gradients, a smaller block or more damping", stacklevel=2)
        self.shape, self.block, self.num_grads, self.damp = (r, k), block, num_grads, damp
        self.nblocks = -(-k // block)
        self.device, self.dtype = device, dtype
        self.finv = None  # [R * nblocks, B, B] once the first gradients arrive
        self.lam = None
        self.count = 0

    def _blocks(self, t: torch.Tensor) -> torch.Tensor:
        """[..., R, K] -> [..., R * nblocks, B] (zero padding at the end of each row)."""
        r, k = self.shape
        pad = self.nblocks * self.block - k
        if pad:
            t = torch.nn.functional.pad(t, (0, pad))
        return t.reshape(*t.shape[:-2], r * self.nblocks, self.block)

    def add_grads(self, grads: torch.Tensor) -> None:
        """Fold in gradients [c, R, K] (or one [R, K])."""
        if grads.dim() == 2:
            grads = grads.unsqueeze(0)
        if tuple(grads.shape[1:]) != self.shape:
            raise ValueError(f"gradient shape {tuple(grads.shape[1:])} does not match the weight {self.shape}")
        grads = grads.to(device=self.device or grads.device, dtype=self.dtype)
        g = self._blocks(grads).permute(1, 2, 0)  # [N, B, c]
        if self.finv is None:
            scale = float(grads.square().mean())  # over real entries, not the padding
            self.lam = self.damp * (scale if scale > 0 else 1.0)
            eye = torch.eye(self.block, dtype=self.dtype, device=g.device)
            self.finv = (eye / self.lam).expand(g.shape[0], -1, -1).contiguous()
        u = self.finv @ g  # [N, B, c]
        s = g.transpose(1, 2) @ u  # [N, c, c]
        s.diagonal(dim1=1, dim2=2).add_(self.num_grads)
        self.finv -= u @ torch.linalg.solve(s, u.transpose(1, 2))
        self.count += grads.shape[0]

    def blocks_view(self) -> torch.Tensor:
        """F^-1 as [R, nblocks, B, B]."""
        if self.finv is None:
            raise RuntimeError("BlockFisherInverse has no gradients yet")
        return self.finv.view(self.shape[0], self.nblocks, self.block, self.block)


def default_block(pattern) -> int:
    """Fisher block size for a pattern: the smallest multiple of its group width m that is >= 32
    (32 for unstructured).

    VENOM uses the block = m. A wider block lets the OBS update move weight into neighbouring
    groups; one-shot 64:2:8 on fine-tuned MiniLM (128 gradients, test accuracy from 81.2% dense)
    gave 63.2% at block 8, 67.4% at 32 and 62.4% at 64 (too few gradients for 64-wide blocks),
    against 64.9% for SparseGPT-VNM."""
    m = group_width(pattern)
    return 32 if m is None else m * -(-32 // m)


def _uses_pairs(p, block: int) -> bool:
    """Exact keep-pair selection applies to patterns keeping 2 per group whose group is a
    sub-block of the Fisher block."""
    m = group_width(p)
    two = isinstance(p, VNMConfig) or (isinstance(p, NM) and p.n == 2)
    return two and block % m == 0 and exact_pair_search(m)


def fisher_obs_prune(weight: torch.Tensor, fisher: BlockFisherInverse, pattern):
    """OBS-prune one weight [R, K] to ``pattern`` with its block Fisher inverse.

    Selection: for 2-per-group patterns (V:N:M, 2:4, plain 2:m) the exact group-OBS cost of
    every keep-pair of every row group (keep-set identity, 2x2 solves), then the best 4-column
    set per v x m block (:func:`vnm_pair_mask`). Other patterns (intermediate steps,
    unstructured) rank single-weight saliencies w^2 / [F^-1]_qq. Update: group OBS of the
    pruned set inside each Fisher block. Returns (pruned weight in weight's dtype, keep mask).
    """
    p = as_pattern(pattern)
    r, k = fisher.shape
    if tuple(weight.shape) != (r, k):
        raise ValueError(f"weight shape {tuple(weight.shape)} does not match the Fisher's {fisher.shape}")
    b, nb = fisher.block, fisher.nblocks
    finv = fisher.blocks_view()
    w = fisher._blocks(weight.detach().to(finv.dtype))  # [R * nb, B]
    if _uses_pairs(p, b):
        m = group_width(p)
        per = b // m
        # Diagonal m x m sub-blocks of each B x B block: [R, nb * per, m, m].
        sub = finv.view(r, nb, per, m, per, m).diagonal(dim1=2, dim2=4).permute(0, 1, 4, 2, 3)
        g = torch.linalg.inv(sub.reshape(r, nb * per, m, m))
        costs = keep_pair_costs(w.view(r, nb * per, m), g)
        v = p.v if isinstance(p, VNMConfig) else 1
        # Padded columns carry zero weight and a decoupled Fisher entry, so keeping one costs the
        # same as keeping nothing there: the search treats a ragged tail group like a full one.
        keep = vnm_pair_mask(-costs, v, m).view(r, nb * b)[:, :k]
    else:
        hdiag = finv.diagonal(dim1=-2, dim2=-1).reshape(r, nb * b)[:, :k]
        keep = pattern_mask(obs_saliency(weight.detach().to(finv.dtype), hdiag), p)
    prune = ~torch.nn.functional.pad(keep, (0, nb * b - k), value=False)
    new = group_obs_update(w, fisher.finv, prune.view(r * nb, b)).view(r, nb * b)[:, :k]
    return new.to(weight.dtype), keep


def fisher_memory_bytes(numel: int, block: int, dtype=torch.float64) -> int:
    """Bytes of the Fisher inverse for ``numel`` weights (to size runs before allocating)."""
    return numel * block * torch.empty((), dtype=dtype).element_size()

