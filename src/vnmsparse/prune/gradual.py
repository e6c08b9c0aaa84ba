"""Gradual pruning with fine-tuning and knowledge distillation (VENOM / oBERT style).

A schedule of patterns of decreasing density ends at the target. At each step the model is
pruned to the next pattern, then fine-tuned with the masks fixed (pruned weights are zeroed
after every optimizer step) and distilled from the dense teacher. The learning rate is re-warmed
at every step and decays linearly inside it.

Pruning method per step (``GradualConfig.method``):

* ``"fisher"`` (ours, the paper's method): block-diagonal empirical Fisher inverse from fresh
  gradients (Woodbury), exact group-OBS keep-pair selection for V:N:M, OBS weight update;
* ``"magnitude"``, ``"wanda"``, ``"obs"`` (SparseGPT-VNM): :func:`oneshot` at each step, so the
  baselines get the same schedule, fine-tuning and distillation.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Mapping
from typing import Callable, Optional

import torch
import torch.nn.functional as F
from torch import nn
from tqdm.auto import tqdm

from ..config import VNMConfig
from .fisher import BlockFisherInverse, default_block, fisher_obs_prune
from .layerwise import METHODS, call_model, is_conv1d, oneshot, prunable_layers, weight_matrix
from .patterns import NM, Stacked, Unstructured, as_pattern, check_pattern

GRADUAL_METHODS = ("fisher",) + METHODS


@dataclasses.dataclass
class GradualConfig:
    """Everything a gradual run needs besides the model and data.

    Schedule: ``schedule`` lists the patterns in order (the last is the target); left None it is
    :func:`default_schedule` ``(target, steps)``. Between steps ``finetune_steps`` optimizer
    steps, after the last one ``final_steps``.
    Fisher (method "fisher"): ``fisher_grads`` gradients (one batch each) of the task loss,
    blocks of ``fisher_block`` weights (None: :func:`~vnmsparse.prune.fisher.default_block`, a
    multiple of m >= 32), damping ``fisher_damp`` relative to the mean squared gradient (on
    fine-tuned MiniLM the mean g^2 is ~6e-6; one-shot accuracy was flat within noise from 1e-4 to
    1e-2), folded in ``fisher_chunk`` at a time.
    Distillation: loss = hardness * T^2 KL(teacher || student at temperature T)
    + (1 - hardness) * task loss.
    """

    target: object = "64:2:8"
    method: str = "fisher"
    schedule: Optional[tuple] = None
    steps: Optional[int] = None
    finetune_steps: int = 100
    final_steps: int = 200
    lr: float = 5e-5
    lr_min_ratio: float = 0.1
    weight_decay: float = 0.0
    max_grad_norm: float = 1.0
    kd_temperature: float = 2.0
    kd_hardness: float = 1.0
    fisher_grads: int = 256
    fisher_block: Optional[int] = None
    fisher_damp: float = 1e-4
    fisher_chunk: int = 16
    calib_batches: int = 16
    obs_blocksize: int = 128
    obs_damp: float = 0.01
    amp: bool = True  # bf16 autocast on CUDA (never on CPU)
    seed: int = 0
    progress: bool = True

    def __post_init__(self):
        if self.method not in GRADUAL_METHODS:
            raise ValueError(f"GradualConfig.method must be one of {GRADUAL_METHODS}, got {self.method!r}")
        if not 0.0 <= self.kd_hardness <= 1.0:
            raise ValueError(f"kd_hardness must be in [0, 1], got {self.kd_hardness}")
        if self.kd_temperature <= 0:
            raise ValueError(f"kd_temperature must be > 0, got {self.kd_temperature}")
        for name in ("finetune_steps", "final_steps", "fisher_grads", "fisher_chunk", "calib_batches"):
            if getattr(self, name) < 0 or (name in ("fisher_grads", "fisher_chunk") and getattr(self, name) == 0):
                raise ValueError(f"GradualConfig.{name} must be positive, got {getattr(self, name)}")
        self.target = as_pattern(self.target)

    def patterns(self) -> list:
        if self.schedule is None:
            return default_schedule(self.target, self.steps)
        plan = [as_pattern(p) for p in self.schedule]
        if not plan or plan[-1] != self.target:
            raise ValueError(f"GradualConfig.schedule must end with the target {self.target}, got {[str(p) for p in plan]}")
        return plan


def default_schedule(target, steps: Optional[int] = None) -> list:
    """Patterns of decreasing density ending at ``target``; step i of s keeps 2(s - i + 1) per
    m-group (m = 2 / density for unstructured), i.e. densities (2s, ..., 4, 2) / m:

    * ``v:2:m``   -> ``j x v:2:m`` for j = s .. 1 (4j shared columns per block, 2j per row);
    * ``2:m``     -> ``2j:m``;
    * unstructured d -> density j * d.

    s defaults to min(3, m // 4): 2:4 in one step, m=8 in two (50% -> 25%), m=16 in three
    (37.5% -> 25% -> 12.5%, VENOM's exhaustive 2:16 recipe starts at 31.25%).
    """
    p = as_pattern(target)
    if isinstance(p, Stacked):
        raise ValueError("a Stacked pattern is an intermediate step, not a target")
    if isinstance(p, Unstructured) and p.density == 1.0:
        return [p]
    n = p.n if isinstance(p, (VNMConfig, NM)) else None
    m = p.m if isinstance(p, (VNMConfig, NM)) else max(4, round(2 / p.density))
    if n is not None and n != 2:
        return [p]  # an N:M target other than 2:m has no 2j:m ladder; prune in one step
    limit = max(1, m // 4)
    s = min(3, limit) if steps is None else steps
    if not 1 <= s <= limit:
        raise ValueError(f"steps for {p} must be in [1, {limit}], got {s}")
    plan = []
    for j in range(s, 0, -1):
        if j == 1:
            plan.append(p)
        elif isinstance(p, VNMConfig):
            plan.append(Stacked(p, j))
        elif isinstance(p, NM):
            plan.append(NM(2 * j, m))
        else:
            plan.append(Unstructured(min(1.0, j * p.density)))
    return plan


# --------------------------------------------------------------------------------------------
# losses and the model call


def logits_of(output) -> torch.Tensor:
    """The logits of a model output: a tensor, an object with ``.logits`` (HF), or the first item."""
    if isinstance(output, torch.Tensor):
        return output
    if hasattr(output, "logits"):
        return output.logits
    if isinstance(output, Mapping):
        return output["logits"]
    return output[0]


def task_loss(logits: torch.Tensor, batch) -> torch.Tensor:
    """Default task loss: cross-entropy against ``batch["labels"]`` (any leading dims)."""
    if not (isinstance(batch, Mapping) and "labels" in batch):
        raise ValueError("the default task loss needs mapping batches with 'labels'; pass loss_fn otherwise")
    return F.cross_entropy(logits.flatten(0, -2).float(), batch["labels"].flatten())


def kd_loss(student: torch.Tensor, teacher: torch.Tensor, temperature: float) -> torch.Tensor:
    """T^2 KL(softmax(teacher/T) || softmax(student/T)), averaged over positions (Hinton et al.):
    the T^2 keeps gradient size independent of T."""
    s = F.log_softmax(student.flatten(0, -2).float() / temperature, -1)
    t = F.log_softmax(teacher.flatten(0, -2).float() / temperature, -1)
    return F.kl_div(s, t, log_target=True, reduction="batchmean") * temperature**2


def _autocast(device: torch.device, enabled: bool):
    if enabled and device.type == "cuda":
        return torch.autocast("cuda", dtype=torch.bfloat16)
    return contextlib.nullcontext()


def _forever(batches):
    """Cycle through a re-iterable (list, DataLoader) without caching it."""
    while True:
        empty = True
        for batch in batches:
            empty = False
            yield batch
        if empty:
            raise ValueError("no training batches")


def _grad_matrix(module: nn.Module) -> Optional[torch.Tensor]:
    g = module.weight.grad
    return g.t() if g is not None and is_conv1d(module) else g


# --------------------------------------------------------------------------------------------
# the building blocks


def finetune(model, teacher, batches, steps: int, masks: dict, config: GradualConfig, *, optimizer=None,
             loss_fn: Optional[Callable] = None, forward_fn: Optional[Callable] = None, desc: str = "finetune") -> float:
    """``steps`` optimizer steps of KD (+ task loss) with fixed masks; returns the mean loss of
    the last quarter of the steps. ``batches`` may be an iterator (consumed) or a re-iterable.
    ``masks``: {module: bool [out, in]} applied after every step."""
    if steps == 0:
        return float("nan")
    loss_fn = loss_fn or task_loss
    device = next(model.parameters()).device
    stream = batches if hasattr(batches, "__next__") else _forever(batches)
    if optimizer is None:
        optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=config.lr, weight_decay=config.weight_decay)
    use_kd = teacher is not None and config.kd_hardness > 0
    model.train()
    tail = []
    for step in tqdm(range(steps), desc=desc, disable=not config.progress, leave=False):
        lr = config.lr * (1.0 - (1.0 - config.lr_min_ratio) * step / max(1, steps - 1))
        for group in optimizer.param_groups:
            group["lr"] = lr
        batch = next(stream)
        with _autocast(device, config.amp):
            student = logits_of(call_model(model, batch, forward_fn))
            if use_kd:
                with torch.no_grad():
                    target = logits_of(call_model(teacher, batch, forward_fn))
        loss = 0.0
        if use_kd:
            loss = config.kd_hardness * kd_loss(student, target, config.kd_temperature)
        if config.kd_hardness < 1.0 or not use_kd:
            loss = loss + (1.0 - config.kd_hardness if use_kd else 1.0) * loss_fn(student, batch)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if config.max_grad_norm:
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.max_grad_norm)
        optimizer.step()
        with torch.no_grad():
            for module, mask in masks.items():
                weight_matrix(module).mul_(mask)
        if step >= steps - max(1, steps // 4):
            tail.append(loss.item())
    return sum(tail) / len(tail)


def collect_fisher(model, layers: dict, batches, pattern, config: GradualConfig, masks: dict, *,
                   loss_fn: Optional[Callable] = None, forward_fn: Optional[Callable] = None) -> dict:
    """{name: BlockFisherInverse} from ``config.fisher_grads`` task-loss gradients (one batch each).

    The task loss, not the KD loss: at the first step the student equals the teacher, where the
    KD gradient is exactly zero and its Fisher would be all damping. Gradients are multiplied by
    the current masks (as VENOM does) so pruned weights stay decoupled."""
    loss_fn = loss_fn or task_loss
    device = next(model.parameters()).device
    stream = batches if hasattr(batches, "__next__") else _forever(batches)
    block = config.fisher_block or default_block(pattern)
    fishers = {n: BlockFisherInverse(weight_matrix(m).shape, block, config.fisher_grads, config.fisher_damp, device=device)
               for n, m in layers.items()}
    buffers = {n: [] for n in layers}
    was_training = model.training
    model.eval()  # no dropout noise in the curvature estimate
    try:
        for i in tqdm(range(config.fisher_grads), desc=f"fisher {pattern}", disable=not config.progress, leave=False):
            batch = next(stream)
            model.zero_grad(set_to_none=True)
            with _autocast(device, config.amp):
                logits = logits_of(call_model(model, batch, forward_fn))
            loss_fn(logits, batch).backward()
            for n, module in layers.items():
                g = _grad_matrix(module)
                g = torch.zeros_like(weight_matrix(module)) if g is None else g.detach().float()
                mask = masks.get(module)
                buffers[n].append(g * mask if mask is not None else g.clone())
            if len(buffers[next(iter(layers))]) == config.fisher_chunk or i == config.fisher_grads - 1:
                for n in layers:
                    fishers[n].add_grads(torch.stack(buffers[n]))
                    buffers[n].clear()
    finally:
        model.zero_grad(set_to_none=True)
        model.train(was_training)
    return fishers


@dataclasses.dataclass
class StepReport:
    pattern: str
    density: float  # measured over the pruned layers
    prune_seconds: float
    finetune_seconds: float
    loss: float  # mean training loss over the last quarter of the fine-tuning
    metrics: Optional[dict] = None  # eval_fn(model) after the fine-tuning


@dataclasses.dataclass
class GradualReport:
    target: str
    method: str
    steps: list = dataclasses.field(default_factory=list)
    seconds: float = 0.0
    skipped: dict = dataclasses.field(default_factory=dict)  # layer name -> reason


def gradual_prune(model: nn.Module, teacher: Optional[nn.Module], train_batches, config: GradualConfig, *,
                  loss_fn: Optional[Callable] = None, forward_fn: Optional[Callable] = None,
                  filter_fn: Optional[Callable] = None, fisher_batches=None, calib_batches=None,
                  eval_fn: Optional[Callable] = None) -> GradualReport:
    """Gradually prune ``model`` in place to ``config.target``.

    Args:
        model: the student, modified in place (typically a copy of the teacher).
        teacher: frozen dense model for distillation, or None (task loss only).
        train_batches: re-iterable of batches for fine-tuning (cycled); also the source of
            Fisher gradients and calibration inputs unless those are given.
        loss_fn(logits, batch): task loss; default cross-entropy on ``batch["labels"]``.
        forward_fn(model, batch): model call; default :func:`call_model` (mapping -> kwargs
            without ``labels``). The logits are taken with :func:`logits_of`.
        filter_fn(module, name): which Linear/Conv1D layers to prune (default all).
        fisher_batches: batches for Fisher gradients (VENOM uses small ones, e.g. 8 examples).
        calib_batches: calibration inputs for the "wanda"/"obs" methods (first
            ``config.calib_batches`` are used).
        eval_fn(model) -> dict: evaluated after each step, stored in the report.
    """
    torch.manual_seed(config.seed)
    t0 = time.perf_counter()
    plan = config.patterns()
    layers, skipped = prunable_layers(model, filter_fn)
    report = GradualReport(str(config.target), config.method, skipped=skipped)
    if teacher is not None:
        teacher.eval()  # its forward runs under no_grad; its parameters are left as they are
    stream = _forever(train_batches)
    fisher_stream = stream if fisher_batches is None else _forever(fisher_batches)
    calib = []
    if config.method in ("wanda", "obs"):
        for batch in calib_batches if calib_batches is not None else train_batches:
            if len(calib) == config.calib_batches:
                break
            calib.append(batch)
    masks = {}
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=config.lr, weight_decay=config.weight_decay)
    for i, pattern in enumerate(plan):
        t = time.perf_counter()
        if config.method == "fisher":
            fishers = collect_fisher(model, layers, fisher_stream, pattern, config, masks, loss_fn=loss_fn, forward_fn=forward_fn)
            with torch.no_grad():
                for name, module in layers.items():
                    w = weight_matrix(module)
                    new, _ = fisher_obs_prune(w, fishers.pop(name), pattern)
                    w.copy_(new)
        else:
            oneshot(model, calib or None, pattern, config.method, lambda m, n: n in layers, forward_fn=forward_fn,
                    blocksize=config.obs_blocksize, damp=config.obs_damp, progress=config.progress)
        with torch.no_grad():
            masks = {module: weight_matrix(module) != 0 for module in layers.values()}
        prune_s = time.perf_counter() - t
        t = time.perf_counter()
        last = i == len(plan) - 1
        loss = finetune(model, teacher, stream, config.final_steps if last else config.finetune_steps, masks, config,
                        optimizer=optimizer, loss_fn=loss_fn, forward_fn=forward_fn, desc=f"finetune {pattern}")
        kept = sum(int(m.sum()) for m in masks.values())
        total = sum(m.numel() for m in masks.values())
        metrics = eval_fn(model) if eval_fn is not None else None
        report.steps.append(StepReport(str(pattern), kept / max(total, 1), prune_s, time.perf_counter() - t, loss, metrics))
    for name, module in layers.items():
        check_pattern(weight_matrix(module), config.target)  # the masks guarantee it; a bug if not
    report.seconds = time.perf_counter() - t0
    return report

