"""Importance scores, larger = keep. Each returns a tensor shaped like the weight, nothing else;
turning a score into a mask is :func:`vnmsparse.prune.patterns.pattern_mask`'s job."""

from __future__ import annotations

import torch


def magnitude(weight: torch.Tensor) -> torch.Tensor:
    """|w|. Signed values would rank large negative weights as unimportant (VENOM's kernel-side
    generator does that); magnitude pruning means absolute values."""
    return weight.abs()


def wanda(weight: torch.Tensor, act_norm: torch.Tensor) -> torch.Tensor:
    """|w_ij| * ||x_j||_2 (Wanda): a weight matters as much as the input it multiplies."""
    return weight.abs() * act_norm.to(weight.dtype).unsqueeze(0)


def obs_saliency(weight: torch.Tensor, hinv_diag: torch.Tensor) -> torch.Tensor:
    """w^2 / [H^-1]_qq: the OBS loss increase of removing one weight alone (up to a factor 1/2).

    ``hinv_diag`` broadcasts against the weight: a [K] vector for a layer Hessian shared by all
    rows (SparseGPT passes the squared Cholesky diagonal), or per-element for a Fisher block."""
    return weight.square() / hinv_diag
