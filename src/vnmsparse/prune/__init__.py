"""Pruning to V:N:M (and the baseline patterns): scores, second-order OBS, one-shot and gradual.

Hand-off contract: every pruner returns / leaves a dense weight with zeros, same shape and dtype,
whose nonzeros satisfy the pattern (``vnmsparse.check_vnm`` for a ``VNMConfig``).

* :func:`prune_weight` one layer: ``"magnitude"``, ``"wanda"`` (needs ``act_norm``) or ``"obs"``
  (SparseGPT-VNM, needs ``hessian`` = X X^T).
* :func:`oneshot` a whole model, layer-sequentially, with a per-layer error report.
* :func:`gradual_prune` + :class:`GradualConfig`: the paper's gradual second-order pruning
  (block Fisher inverse, keep-pair OBS) with fine-tuning and distillation between steps.
"""

from .fisher import BlockFisherInverse, fisher_obs_prune
from .gradual import GradualConfig, GradualReport, default_schedule, finetune, gradual_prune, kd_loss
from .obs import keep_pair_costs, relative_error, sequential_obs
from .layerwise import METHODS, PruneReport, oneshot, prunable_layers, prune_weight, prune_with_mask
from .patterns import DENSE, NM, Stacked, Unstructured, as_pattern, check_pattern, density, pattern_mask

__all__ = [
    "prune_weight",
    "prune_with_mask",
    "oneshot",
    "PruneReport",
    "prunable_layers",
    "METHODS",
    "gradual_prune",
    "GradualConfig",
    "GradualReport",
    "default_schedule",
    "finetune",
    "kd_loss",
    "BlockFisherInverse",
    "fisher_obs_prune",
    "sequential_obs",
    "keep_pair_costs",
    "relative_error",
    "as_pattern",
    "pattern_mask",
    "check_pattern",
    "density",
    "NM",
    "Unstructured",
    "Stacked",
    "DENSE",
]
