"""One-shot, layer-wise pruning: one weight (:func:`prune_weight`) or a whole model (:func:`oneshot`).

A model is pruned layer-sequentially (SparseGPT): the inputs of each layer are collected with
hooks while the earlier layers are already pruned, so every layer compensates for the error
upstream of it, and only one group of layers' statistics (K x K each) is held at a time.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Mapping
from typing import Callable, Optional

import torch
from torch import nn
from tqdm.auto import tqdm

from .obs import relative_error, sequential_obs
from .patterns import as_pattern, pattern_mask
from .scores import magnitude, wanda

METHODS = ("magnitude", "wanda", "obs")


# --------------------------------------------------------------------------------------------
# one weight


def _check_finite(name: str, t: torch.Tensor) -> None:
    if not torch.isfinite(t).all():
        raise ValueError(f"{name} contains NaN or inf")


def _check_inputs(weight, method, hessian, act_norm):
    if not isinstance(weight, torch.Tensor):
        raise TypeError(f"weight must be a torch.Tensor, got {type(weight).__name__}")
    if weight.dim() != 2:
        raise ValueError(f"weight must be 2-D [out_features, in_features], got shape {tuple(weight.shape)}")
    if not weight.is_floating_point():
        raise TypeError(f"weight must be floating point, got {weight.dtype}")
    if method not in METHODS:
        raise ValueError(f"unknown pruning method {method!r}; choose one of {METHODS}")
    _check_finite("weight", weight)
    k = weight.shape[1]
    if method == "wanda":
        if act_norm is None:
            raise ValueError("method 'wanda' needs act_norm=[in_features] (the L2 norm of each input feature)")
        if not isinstance(act_norm, torch.Tensor):
            raise TypeError(f"act_norm must be a torch.Tensor, got {type(act_norm).__name__}")
        if tuple(act_norm.shape) != (k,):
            raise ValueError(f"act_norm must have shape [{k}] to match weight {tuple(weight.shape)}, got {tuple(act_norm.shape)}")
        _check_finite("act_norm", act_norm)
    if method == "obs":
        if hessian is None:
            raise ValueError("method 'obs' needs hessian=[in_features, in_features] (X X^T of the layer inputs)")
        if not isinstance(hessian, torch.Tensor):
            raise TypeError(f"hessian must be a torch.Tensor, got {type(hessian).__name__}")
        if tuple(hessian.shape) != (k, k):
            raise ValueError(f"hessian must have shape [{k}, {k}] to match weight {tuple(weight.shape)}, got {tuple(hessian.shape)}")
        _check_finite("hessian", hessian)


def prune_with_mask(weight, cfg, method, *, hessian=None, act_norm=None, blocksize=128, damp=0.01):
    """Like :func:`prune_weight` but returns (pruned weight, keep mask)."""
    _check_inputs(weight, method, hessian, act_norm)
    pattern = as_pattern(cfg)
    w = weight.detach()
    if method == "magnitude":
        mask = pattern_mask(magnitude(w.float()), pattern)
        return w * mask, mask
    if method == "wanda":
        mask = pattern_mask(wanda(w.float(), act_norm.to(w.device).float()), pattern)
        return w * mask, mask
    new, mask = sequential_obs(w, hessian.to(w.device), pattern, blocksize=blocksize, damp=damp)
    return new.to(w.dtype), mask


def prune_weight(weight, cfg, method, *, hessian=None, act_norm=None, blocksize=128, damp=0.01) -> torch.Tensor:
    """Prune one weight [out, in] to a pattern; returns a new weight (same shape, dtype, device)
    with zeros.

    Args:
        weight: [R, K] floating tensor (``nn.Linear.weight`` layout).
        cfg: ``VNMConfig`` / ``"64:2:8"`` (the kernel format), or a baseline pattern
            (``"2:8"`` plain N:M, ``"75%"`` unstructured; see :func:`as_pattern`).
        method: ``"magnitude"`` (|w|, needs nothing), ``"wanda"`` (|w| ||x_j||, needs
            ``act_norm`` [K]) or ``"obs"`` (SparseGPT-style second-order pruning with weight
            updates, needs ``hessian`` [K, K] = X X^T; ``blocksize`` lazy-update columns and
            ``damp`` x mean(diag H) damping).
    Raises:
        TypeError / ValueError for a bad weight, a missing or mis-shaped hessian/act_norm,
        NaN/inf inputs or an unknown method.
    """
    return prune_with_mask(weight, cfg, method, hessian=hessian, act_norm=act_norm, blocksize=blocksize, damp=damp)[0]


# --------------------------------------------------------------------------------------------
# model walking (shared with gradual pruning)


def is_conv1d(module: nn.Module) -> bool:
    """HF ``Conv1D`` (GPT-2 style): a linear layer whose weight is stored [in, out]."""
    return type(module).__name__ == "Conv1D" and hasattr(module, "nf") and getattr(module, "weight", None) is not None


def weight_matrix(module: nn.Module) -> torch.Tensor:
    """The layer's weight as a [out, in] view of its parameter (writes go through)."""
    w = module.weight.data
    return w.t() if is_conv1d(module) else w


def prunable_layers(model: nn.Module, filter_fn: Optional[Callable] = None):
    """(layers, skipped): ``nn.Linear`` and HF ``Conv1D`` modules by name, in registration order,
    and {name: reason} for those that cannot be pruned in place.

    ``filter_fn(module, name) -> bool`` selects layers (torchao's convention); those it rejects
    are left out silently. A weight shared with another module (a tied LM head) is skipped:
    pruning it would prune the embedding too.
    """
    uses = {}
    for _, p in model.named_parameters(remove_duplicate=False):
        uses[id(p)] = uses.get(id(p), 0) + 1
    layers, skipped = {}, {}
    for name, module in model.named_modules():
        if not (isinstance(module, nn.Linear) or is_conv1d(module)):
            continue
        if filter_fn is not None and not filter_fn(module, name):
            continue
        w = module.weight
        if uses.get(id(w), 0) > 1:
            skipped[name] = "weight is shared with another module (tied)"
        elif not w.is_floating_point():
            skipped[name] = f"weight dtype {w.dtype} is not floating point"
        elif min(weight_matrix(module).shape) == 0:
            skipped[name] = "empty weight"
        else:
            layers[name] = module
    return layers, skipped


def call_model(model: nn.Module, batch, forward_fn: Optional[Callable] = None):
    """Run the model on one batch: ``forward_fn(model, batch)`` if given; else a mapping is
    passed as keyword arguments (minus ``labels``), a tuple/list positionally, anything else as
    the single argument."""
    if forward_fn is not None:
        return forward_fn(model, batch)
    if isinstance(batch, Mapping):
        return model(**{k: v for k, v in batch.items() if k != "labels"})
    if isinstance(batch, (tuple, list)):
        return model(*batch)
    return model(batch)


# --------------------------------------------------------------------------------------------
# reports


@dataclasses.dataclass
class LayerReport:
    name: str
    shape: tuple  # [out, in]
    status: str  # "pruned" or "skipped"
    rel_error: Optional[float] = None  # tr(dW H dW^T) / tr(W H W^T); None without calibration
    seconds: float = 0.0
    reason: str = ""


@dataclasses.dataclass
class PruneReport:
    pattern: str
    method: str
    layers: list = dataclasses.field(default_factory=list)
    seconds: float = 0.0

    @property
    def pruned(self):
        return [layer for layer in self.layers if layer.status == "pruned"]

    @property
    def skipped(self):
        return [layer for layer in self.layers if layer.status == "skipped"]

    def mean_error(self) -> float:
        errs = [layer.rel_error for layer in self.pruned if layer.rel_error is not None]
        return sum(errs) / len(errs) if errs else math.nan

    def to_markdown(self) -> str:
        lines = [
            f"pattern {self.pattern}, method {self.method}: {len(self.pruned)} pruned, "
            f"{len(self.skipped)} skipped, {self.seconds:.1f} s, mean relative error {self.mean_error():.4f}",
            "",
            "| layer | shape | status | rel. error | s | note |",
            "|---|---|---|---|---|---|",
        ]
        for x in self.layers:
            err = "" if x.rel_error is None else f"{x.rel_error:.4f}"
            lines.append(f"| {x.name} | {x.shape[0]}x{x.shape[1]} | {x.status} | {err} | {x.seconds:.2f} | {x.reason} |")
        return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# whole model


class _Stop(Exception):
    """Raised from a hook to end a forward pass once the needed inputs are captured."""


def _first_input(args, kwargs) -> torch.Tensor:
    return args[0] if args else next(iter(kwargs.values()))


def _layer_groups(model, batch, layers, forward_fn):
    """The layers in forward order, grouped: consecutive calls on the very same input tensor
    (q/k/v, gate/up) form one group, pruned together since none feeds another. One forward pass
    on one batch; the graph does not change when weights are pruned, so neither do the groups.
    Layers called again later (shared modules) keep their first place."""
    groups, key, held = [], None, None
    seen = set()

    def hook(name):
        def fn(module, args, kwargs):
            nonlocal key, held
            if name in seen:
                return
            seen.add(name)
            x = _first_input(args, kwargs)
            k = (x.data_ptr(), tuple(x.shape), x.stride())
            if k != key:
                groups.append([])
                # Holding the group's input keeps its address from being reused by a later tensor.
                key, held = k, x
            groups[-1].append(name)

        return fn

    handles = [m.register_forward_pre_hook(hook(n), with_kwargs=True) for n, m in layers.items()]
    try:
        call_model(model, batch, forward_fn)
    finally:
        for h in handles:
            h.remove()
    return groups


def _collect_hessians(model, batches, modules, forward_fn):
    """H = X X^T / n per layer over all batches, stopping each forward after the last layer."""
    hess = {n: None for n in modules}
    count = {n: 0 for n in modules}
    last = list(modules)[-1]

    def hook(name):
        def fn(module, args, kwargs):
            x = _first_input(args, kwargs).detach()
            x = x.reshape(-1, x.shape[-1]).float()
            h = x.t() @ x
            hess[name] = h if hess[name] is None else hess[name].add_(h)
            count[name] += x.shape[0]
            if name == last:
                raise _Stop

        return fn

    handles = [m.register_forward_pre_hook(hook(n), with_kwargs=True) for n, m in modules.items()]
    try:
        for batch in batches:
            try:
                call_model(model, batch, forward_fn)
            except _Stop:
                pass
    finally:
        for h in handles:
            h.remove()
    return {n: hess[n] / max(count[n], 1) for n in modules if hess[n] is not None}


def oneshot(
    model: nn.Module,
    calibration_batches,
    cfg,
    method: str = "obs",
    filter_fn: Optional[Callable] = None,
    *,
    forward_fn: Optional[Callable] = None,
    blocksize: int = 128,
    damp: float = 0.01,
    progress: bool = True,
) -> PruneReport:
    """Prune a model's ``nn.Linear`` / HF ``Conv1D`` layers in place, layer-sequentially.

    Args:
        model: any ``nn.Module``; layers are found with :func:`prunable_layers` (``filter_fn``).
        calibration_batches: an iterable of model inputs (see :func:`call_model`), iterated
            once per layer group. May be None for ``method="magnitude"`` (no error report).
        cfg: the target pattern (``VNMConfig``, ``"64:2:8"``, ``"2:8"``, ``"75%"``, ...).
        method: ``"obs"`` (SparseGPT-VNM), ``"wanda"`` or ``"magnitude"``.
    Returns:
        a :class:`PruneReport` with the relative reconstruction error of every pruned layer
        (against its sequential calibration inputs), the time, and why layers were skipped.
    """
    if method not in METHODS:
        raise ValueError(f"unknown pruning method {method!r}; choose one of {METHODS}")
    pattern = as_pattern(cfg)
    t0 = time.perf_counter()
    report = PruneReport(str(pattern), method)
    layers, skipped = prunable_layers(model, filter_fn)
    for name, reason in skipped.items():
        module = dict(model.named_modules())[name]
        report.layers.append(LayerReport(name, tuple(weight_matrix(module).shape), "skipped", reason=reason))
    batches = None if calibration_batches is None else list(calibration_batches)
    if not batches and method != "magnitude":
        raise ValueError(f"method {method!r} needs calibration batches")

    def prune_layer(name, module, h):
        t = time.perf_counter()
        w = weight_matrix(module)
        act = None if h is None else torch.diagonal(h).clamp_min(0).sqrt()
        new, _ = prune_with_mask(w, pattern, method, hessian=h, act_norm=act, blocksize=blocksize, damp=damp)
        err = None if h is None else relative_error(w, new, h)
        w.copy_(new)
        report.layers.append(LayerReport(name, tuple(w.shape), "pruned", err, time.perf_counter() - t))

    was_training = model.training
    model.eval()
    bar = tqdm(total=len(layers), desc=f"oneshot {method} {pattern}", disable=not progress, leave=False)
    try:
        with torch.no_grad():
            if not batches:
                for name, module in layers.items():
                    prune_layer(name, module, None)
                    bar.update()
            groups = _layer_groups(model, batches[0], layers, forward_fn) if batches else []
            for name in set(layers) - {n for g in groups for n in g}:
                report.layers.append(LayerReport(name, tuple(weight_matrix(layers[name]).shape), "skipped", reason="not called during calibration"))
            for group in groups:
                hess = _collect_hessians(model, batches, {n: layers[n] for n in group}, forward_fn)
                for name in group:
                    if name in hess:
                        prune_layer(name, layers[name], hess[name])
                    else:  # reached on the first batch only: a data-dependent path
                        report.layers.append(LayerReport(name, tuple(weight_matrix(layers[name]).shape), "skipped", reason="no calibration inputs"))
                    bar.update()
                del hess
    finally:
        bar.close()
        model.train(was_training)
    report.seconds = time.perf_counter() - t0
    return report
