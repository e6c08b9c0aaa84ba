"""Models with V:N:M weights: the ``VNMLinear`` module, ``sparsify_`` and sparse checkpoints.

The split is the one of gpt-fast and torchao: pruning leaves dense weights with zeros (the hand-off
contract of :mod:`vnmsparse.prune`); :func:`sparsify_` packs them and swaps each ``nn.Linear`` (or
HF ``Conv1D``) for a :class:`VNMLinear`, whose ``forward`` is one call of the ``vnmsparse::spmm``
op. :func:`save_model` / :func:`load_model` write and read such a model with
:func:`vnmsparse.save` / :func:`vnmsparse.load` (safetensors, validated).

::

    import vnmsparse as vs
    vs.prune.oneshot(model, calibration_batches, "64:2:8")        # or sparsify_(..., prune="magnitude")
    report = vs.sparsify_(model, "64:2:8")                       # Linear -> VNMLinear, in place
    print(report)                                                # what was converted, what was skipped
    vs.save_model(model, "model.safetensors")
    fresh = Model(config); vs.load_model(fresh, "model.safetensors")
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Callable, Optional, Union

import torch
from torch import nn

from . import ops
from .config import VNMConfig
from .format import PACKABLE_DTYPES, VNMWeight, _as_config, _human, cat_rows, check_vnm, pack, validate_parts, vnm_mask
from .serialization import load, read_metadata, save

__all__ = ["VNMLinear", "SparsifyReport", "sparsify_", "save_model", "load_model", "is_conv1d"]

# The parts of a VNMWeight as buffers of a VNMLinear (state_dict keys ``<layer>.weight_values`` ...).
_PARTS = ("values", "positions", "columns")
_BUFFERS = tuple(f"weight_{p}" for p in _PARTS)
# Kernel layout of the packed weight for the device it sits on: non-persistent buffers, rebuilt
# whenever the module is moved or converted, so that forward is a single traceable op call.
_KERNEL_BUFFERS = ("_kernel_values", "_kernel_meta", "_kernel_columns")


def is_conv1d(module: nn.Module) -> bool:
    """HF ``transformers.pytorch_utils.Conv1D`` (GPT-2): a linear layer with its weight stored [in, out]."""
    return type(module).__name__ == "Conv1D" and hasattr(module, "nf") and isinstance(getattr(module, "weight", None), torch.Tensor)


def _weight_matrix(module: nn.Module) -> torch.Tensor:
    """The [out, in] weight of an nn.Linear or Conv1D (a view for Conv1D)."""
    w = module.weight
    return w.t() if is_conv1d(module) else w


class VNMLinear(nn.Module):
    """``y = x @ W.T + b`` with W stored packed in V:N:M format (a drop-in for ``nn.Linear``).

    Build one with :meth:`from_linear` (a Linear / HF Conv1D whose weight is already V:N:M),
    :meth:`from_vnm` (a :class:`~vnmsparse.VNMWeight`), or the constructor (an all-zero weight
    to load a state dict into). The packed parts are buffers (``weight_values``,
    ``weight_positions``, ``weight_columns``), so ``.to()``, ``.cuda()``, ``.half()``,
    ``state_dict()`` and ``load_state_dict()`` work as for any module; the weight is frozen, the
    bias is a trainable parameter (gradients reach the input and the bias).

    ``forward`` is one call of ``torch.ops.vnmsparse.spmm`` on tensors prepared when the module
    last moved (the Sparse Tensor Core layout on a supported GPU, the canonical parts elsewhere),
    so ``torch.compile(fullgraph=True)`` and CUDA-graph capture see nothing but the op.
    ``x`` must have the weight's dtype (float64 ``x`` is also accepted on CPU).

    ``feature_major_out = True`` (an attribute, off by default) makes the output's memory hold Y^T
    (``vnmsparse.spmm(..., feature_major_out=True)``): set it on Linears whose output reaches the
    next V:2:M Linear through elementwise ops only (an MLP's gate and up projections), which then
    reads it with no transpose. It takes effect from ``ops.FEATURE_MAJOR_MIN_TOKENS`` tokens (at
    decode sizes the copy into Y^T costs more than the transpose it saves). Plain 2:4 reads a
    feature-major X by TMA too, but at +8..+10% against a row-major one (v140-v142).
    """

    def __init__(self, in_features: int, out_features: int, cfg, bias: bool = True, *, device=None, dtype=None):
        super().__init__()
        cfg = _as_config(cfg)
        in_features, out_features = int(in_features), int(out_features)
        if in_features < 0 or out_features < 0:
            raise ValueError(f"VNMLinear: features must be >= 0, got in={in_features}, out={out_features}")
        dtype = dtype or torch.get_default_dtype()
        if dtype not in PACKABLE_DTYPES:
            raise TypeError(f"VNMLinear: dtype must be one of {PACKABLE_DTYPES}, got {dtype}")
        # A valid all-zero weight: codes (0, 1) everywhere, columns 0..3 in every block.
        r, k = out_features, in_features
        g = cfg.groups(k)
        values = torch.zeros(r, g, 2, dtype=dtype, device=device)
        positions = torch.full((r, -(-g // 2)), 0x44, dtype=torch.uint8, device=device)
        if g % 2 and positions.numel():
            positions[:, -1] = 0x04
        columns = None
        if not cfg.is_2to4:
            from .format import columns_dtype

            columns = torch.arange(4, device=device).to(columns_dtype(cfg.m)).expand(cfg.row_blocks(r), g, 4).contiguous()
        self._init(VNMWeight._trusted(values, positions, columns, (r, k), cfg),
                   torch.zeros(r, dtype=dtype, device=device) if bias else None)

    def _init(self, vw: VNMWeight, bias: Optional[torch.Tensor]) -> None:
        self.in_features, self.out_features = vw.in_features, vw.out_features
        self.cfg = vw.cfg
        for name, part in zip(_BUFFERS, (vw.values, vw.positions, vw.columns)):
            self.register_buffer(name, part)
        self.register_parameter("bias", None if bias is None else nn.Parameter(bias))
        for name in _KERNEL_BUFFERS:
            self.register_buffer(name, None, persistent=False)
        self._kernel_layout = "canonical"
        self._kernel_impl: Optional[Callable] = None  # the layout's CUDA implementation (eager fast path)
        self.feature_major_out = False
        self._vw: Optional[VNMWeight] = None
        self._refresh()

    # ---------------------------------------------------------------------------------------
    # construction

    @classmethod
    def from_vnm(cls, weight: VNMWeight, bias: Optional[torch.Tensor] = None) -> "VNMLinear":
        """Wrap a packed weight (and an optional bias [out_features] of the same device and dtype)."""
        if not isinstance(weight, VNMWeight):
            raise TypeError(f"VNMLinear.from_vnm expects a VNMWeight, got {type(weight).__name__}")
        if bias is not None:
            if not isinstance(bias, torch.Tensor) or tuple(bias.shape) != (weight.out_features,):
                raise ValueError(f"VNMLinear.from_vnm: bias must be a tensor of shape ({weight.out_features},), "
                                 f"got {getattr(bias, 'shape', type(bias).__name__)}")
            bias = bias.detach().to(device=weight.device, dtype=weight.dtype).clone()
        return cls._wrap(weight, bias)

    @classmethod
    def _wrap(cls, weight: VNMWeight, bias: Optional[torch.Tensor]) -> "VNMLinear":
        """from_vnm on a checked bias that the module may own (no copy)."""
        self = cls.__new__(cls)
        nn.Module.__init__(self)
        self._init(weight, bias)
        return self

    @classmethod
    def from_linear(cls, linear: nn.Module, cfg, *, name: Optional[str] = None) -> "VNMLinear":
        """Pack an ``nn.Linear`` (or HF ``Conv1D``, weight [in, out]) whose weight is already V:N:M.

        The result has the layer's device and dtype (float32 weights are packed on the CPU and
        moved back). Raises ValueError naming the layer (``name``, or its repr) when the weight
        breaks the pattern (prune it first: :func:`vnmsparse.prune.oneshot`, or
        ``sparsify_(..., prune="magnitude")``), TypeError for a module or dtype it cannot take.
        """
        cfg = _as_config(cfg)
        label = name or repr(linear)
        if not (isinstance(linear, nn.Linear) or is_conv1d(linear)):
            raise TypeError(f"VNMLinear.from_linear: {label} is a {type(linear).__name__}, not an nn.Linear or HF Conv1D")
        w = _weight_matrix(linear).detach()
        if w.dtype not in PACKABLE_DTYPES:
            raise TypeError(f"VNMLinear.from_linear: {label} has weight dtype {w.dtype}; "
                            f"V:N:M weights are {', '.join(str(d).replace('torch.', '') for d in PACKABLE_DTYPES)}")
        if w.is_meta:
            raise ValueError(f"VNMLinear.from_linear: {label} has its weight on the meta device (no values to pack)")
        try:
            check_vnm(w, cfg)
        except ValueError as e:
            raise ValueError(f"VNMLinear.from_linear: layer {label} is not {cfg}-sparse ({e}); prune it first "
                             "(vnmsparse.prune.oneshot, or vnmsparse.sparsify_(..., prune='magnitude'))") from None
        vw = _pack_anywhere(w, cfg)
        bias = getattr(linear, "bias", None)
        return cls.from_vnm(vw, None if bias is None else bias.detach())

    @classmethod
    def cat(cls, layers) -> "VNMLinear":
        """One layer computing the outputs of ``layers`` side by side (:func:`vnmsparse.cat_rows`):
        siblings reading the same input, such as attention's q / k / v or an MLP's gate / up, run as
        one call; ``.split([l.out_features for l in layers], -1)`` of its output gives theirs.
        Biases are concatenated (zeros for a layer without one, if another has one)."""
        layers = list(layers)
        if not layers or not all(isinstance(layer, VNMLinear) for layer in layers):
            raise TypeError("VNMLinear.cat expects a non-empty sequence of VNMLinear")
        weight = cat_rows([layer.weight for layer in layers])
        biases = [layer.bias for layer in layers]
        bias = None
        if any(b is not None for b in biases):
            bias = torch.cat([b.detach() if b is not None else
                              torch.zeros(layer.out_features, dtype=weight.dtype, device=weight.device)
                              for b, layer in zip(biases, layers)]).to(device=weight.device, dtype=weight.dtype)
        return cls._wrap(weight, bias)  # (the concatenation is a new tensor already)

    # ---------------------------------------------------------------------------------------
    # the packed weight and its kernel layout

    @property
    def weight(self) -> VNMWeight:
        """The packed weight as a :class:`~vnmsparse.VNMWeight` sharing this module's buffers
        (its kernel layout cache is the module's, so ``vnmsparse.spmm(x, layer.weight)`` is cheap)."""
        return self._vw

    def _refresh(self) -> None:
        """Rebuild the VNMWeight view and the kernel operands for the current device/dtype."""
        values, positions, columns = (getattr(self, n) for n in _BUFFERS)
        vw = VNMWeight._trusted(values, positions, columns, (self.out_features, self.in_features), self.cfg)
        layout, operands = "canonical", (values, positions, columns)
        if values.device.type == "cuda":
            # The compact kernel layout that serves every token count (compiled graphs keep it),
            # built ahead of the first call; eager calls, autograd included, choose theirs by
            # token count in forward, from the same cache.
            layout, operands = ops.select_operands(None, vw)
        self._vw = vw
        self._kernel_layout = layout
        self._kernel_impl = ops.CUDA_LAYOUTS.get(layout) if values.device.type == "cuda" else None
        for name, t in zip(_KERNEL_BUFFERS, operands):
            setattr(self, name, t)

    def _apply(self, fn, recurse=True):
        # The kernel operands are derived: drop them so they are not converted too, rebuild after.
        for name in _KERNEL_BUFFERS:
            setattr(self, name, None)
        try:
            return super()._apply(fn, recurse)
        finally:
            self._refresh()

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        parts = [state_dict.get(prefix + n) for n in _BUFFERS]
        if parts[0] is not None and parts[1] is not None:
            try:  # the same checks as vnmsparse.load: no index may point outside the weight
                validate_parts(parts[0], parts[1], parts[2], (self.out_features, self.in_features), self.cfg)
            except (TypeError, ValueError) as e:
                error_msgs.append(f"{prefix or 'VNMLinear'}: packed weight is not a valid {self.cfg} "
                                  f"{self.out_features}x{self.in_features} weight: {e}")
                return
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        self._refresh()

    # ---------------------------------------------------------------------------------------

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[-1] != self.in_features:
            raise ValueError(f"VNMLinear: input's last dimension is {x.shape[-1]}, expected in_features={self.in_features}")
        if x.dtype != self.weight_values.dtype and not (x.dtype == torch.float64 and x.device.type == "cpu"):
            raise TypeError(f"VNMLinear: input dtype {x.dtype} differs from the weight's {self.weight_values.dtype} "
                            "(cast the model with .to(dtype) or the input)")
        bias = self.bias
        layout, operands = self._kernel_layout, (self._kernel_values, self._kernel_meta, self._kernel_columns)
        if self._kernel_impl is not None and not torch.compiler.is_compiling():
            # As vnmsparse.spmm: the kernel (and for V:2:8 prefill the as-2:4 image) by token count.
            # A compiled graph keeps the layout made at load time (no layout built while tracing).
            layout, operands = ops.select_operands(x, self._vw, bias)
        feature_major = self.feature_major_out and x.numel() >= ops.FEATURE_MAJOR_MIN_TOKENS * self.in_features
        return ops.spmm_with(x, layout, operands, bias, self.out_features, self.in_features, self.cfg.v, self.cfg.m,
                             feature_major)

    @property
    def nbytes(self) -> int:
        """Bytes of the packed weight (canonical storage, as saved) plus the bias."""
        return self._vw.nbytes + (0 if self.bias is None else self.bias.numel() * self.bias.element_size())

    def extra_repr(self) -> str:
        vw = self._vw
        return (f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}, "
                f"vnm={self.cfg}, dtype={str(vw.dtype).replace('torch.', '')}, "
                f"packed={_human(vw.nbytes)} ({vw.nbytes / max(1, vw.dense_nbytes):.3f} of dense)"
                + (", feature_major_out=True" if self.feature_major_out else ""))


def _pack_anywhere(w: torch.Tensor, cfg: VNMConfig) -> VNMWeight:
    """pack() that also takes float32 weights on a GPU (packed on the CPU, moved back)."""
    if w.dtype == torch.float32 and w.device.type != "cpu":
        return pack(w.cpu(), cfg).to(w.device)
    return pack(w, cfg)


# ============================================================================================
# sparsify_


@dataclasses.dataclass
class SparsifyReport:
    """What :func:`sparsify_` did: converted layers ({name: (out, in)}), skipped layers ({name:
    reason}), and the bytes of the converted weights before (dense) and after (packed)."""

    cfg: str
    converted: dict = dataclasses.field(default_factory=dict)
    skipped: dict = dataclasses.field(default_factory=dict)
    dense_bytes: int = 0
    packed_bytes: int = 0
    pruned: Optional[str] = None

    @property
    def ratio(self) -> float:
        return self.packed_bytes / self.dense_bytes if self.dense_bytes else float("nan")

    def __str__(self) -> str:
        how = f", pruned by {self.pruned} first" if self.pruned else ""
        lines = [f"sparsify_ {self.cfg}{how}: {len(self.converted)} layers converted to VNMLinear, {len(self.skipped)} skipped; "
                 f"weights {_human(self.dense_bytes)} dense -> {_human(self.packed_bytes)} packed ({self.ratio:.3f}x)"]
        lines += [f"  skipped {name}: {reason}" for name, reason in self.skipped.items()]
        return "\n".join(lines)


def _shared_weights(model: nn.Module) -> set:
    uses: dict = {}
    for _, p in model.named_parameters(remove_duplicate=False):
        uses[id(p)] = uses.get(id(p), 0) + 1
    return {i for i, n in uses.items() if n > 1}


def _why_not(name: str, module: nn.Module, parent: nn.Module, shared: set) -> Optional[str]:
    """Why a Linear/Conv1D cannot be swapped (None if it can)."""
    if type(module) is not nn.Linear and not is_conv1d(module):
        return f"{type(module).__name__} is a subclass of nn.Linear; its forward may not be x @ W.T + b"
    if isinstance(parent, nn.MultiheadAttention):
        return "nn.MultiheadAttention reads this layer's weight directly"
    w = module.weight
    if id(w) in shared:
        return "weight is shared with another module (tied)"
    if w.dtype not in PACKABLE_DTYPES:
        return f"weight dtype {w.dtype} is not one of float16, bfloat16, float32"
    if w.is_meta:
        return "weight is on the meta device"
    if min(w.shape) == 0:
        return "empty weight"
    if getattr(module, "bias", None) is not None and module.bias.dtype != w.dtype:
        return f"bias dtype {module.bias.dtype} differs from the weight's {w.dtype}"
    if hasattr(module, "parametrizations"):
        return "has parametrizations (torch.nn.utils.parametrize)"
    if module._forward_hooks or module._forward_pre_hooks or module._backward_hooks or getattr(module, "_hf_hook", None):
        return "has hooks registered (they would be lost by the swap)"
    return None


def sparsify_(model: nn.Module, cfg, filter_fn: Optional[Callable[[nn.Module, str], bool]] = None, *,
              prune: Optional[str] = None) -> SparsifyReport:
    """Swap every matching ``nn.Linear`` / HF ``Conv1D`` of ``model`` for a :class:`VNMLinear`, in place.

    Args:
        model: any module (HF BERT, GPT-2, LLaMA, ...), on any device; layers keep their device
            and dtype (use float16/bfloat16 for the GPU kernels).
        cfg: ``VNMConfig`` or ``"v:n:m"`` string.
        filter_fn: ``filter_fn(module, name) -> bool`` selects layers (torchao's convention);
            layers it rejects are left alone and not reported.
        prune: None (weights must already be V:N:M: prune with :mod:`vnmsparse.prune`, e.g.
            ``oneshot(model, batches, cfg, "obs")``), or ``"magnitude"`` to keep the largest |w|
            of each layer under the pattern first (no calibration data needed; much less accurate
            than second-order pruning).
    Returns:
        a :class:`SparsifyReport`. Layers that cannot be converted (weight not V:N:M, tied to
        another module, a Linear subclass, unsupported dtype, hooks...) are skipped and listed with
        the reason. Every new module is built before any is swapped in, so an error leaves the
        model untouched, and a layer is never half-converted.
    """
    cfg = _as_config(cfg)
    if prune not in (None, "magnitude"):
        raise ValueError(f"sparsify_: prune must be None or 'magnitude', got {prune!r}; for second-order pruning "
                         "run vnmsparse.prune.oneshot(model, calibration_batches, cfg, method='obs') first")
    if not isinstance(model, nn.Module):
        raise TypeError(f"sparsify_ expects an nn.Module, got {type(model).__name__}")
    report = SparsifyReport(str(cfg), pruned=prune)
    shared = _shared_weights(model)
    modules = dict(model.named_modules())
    plan = []
    with torch.no_grad():
        for name, module in model.named_modules():
            if not (isinstance(module, nn.Linear) or is_conv1d(module)) or not name:
                continue
            if filter_fn is not None and not filter_fn(module, name):
                continue
            parent_name, _, attr = name.rpartition(".")
            parent = modules[parent_name]
            reason = _why_not(name, module, parent, shared)
            if reason is None:
                w = _weight_matrix(module).detach()
                if prune == "magnitude":
                    w = w * vnm_mask(w.abs(), cfg)
                try:
                    check_vnm(w, cfg)
                except ValueError as e:
                    reason = f"weight is {e} (prune it first, or pass prune='magnitude')"
                else:
                    bias = getattr(module, "bias", None)
                    new = VNMLinear.from_vnm(_pack_anywhere(w, cfg), None if bias is None else bias.detach())
                    plan.append((parent, attr, name, new, module))
            if reason is not None:
                report.skipped[name] = reason
    for parent, attr, name, new, old in plan:
        new.train(old.training)
        setattr(parent, attr, new)
        report.converted[name] = (new.out_features, new.in_features)
        report.dense_bytes += new._vw.dense_nbytes
        report.packed_bytes += new._vw.nbytes
    return report


# The Linears whose output reaches the next Linear through elementwise ops only (an MLP's up path):
# LLaMA's gate/up (HF module names, or both as one VNMLinear.cat layer, "gate_up"), GPT-2's c_fc, BERT's
# intermediate.
FEATURE_MAJOR_MLP = ("gate_proj", "up_proj", "mlp.gate_up", "mlp.c_fc", "intermediate.dense")


def feature_major_mlp_(model: nn.Module) -> list[str]:
    """Sets ``feature_major_out`` on each MLP's up-path VNMLinears (``FEATURE_MAJOR_MLP`` names) whose
    pattern gathers columns (M > 4), so that the down projection reads its input with no transpose;
    returns their names. Plain 2:4 reads a row-major X by TMA, faster (LLaMA-7B-shaped prefill at
    T = 2048 on the H200, v139: 2:4 6.28 -> 6.63 ms with it, 128:2:32 3.93 -> 3.83)."""
    names = [name for name, m in model.named_modules()
             if isinstance(m, VNMLinear) and name.endswith(FEATURE_MAJOR_MLP) and m.cfg.m > 4]
    for name in names:
        model.get_submodule(name).feature_major_out = True
    return names


# ============================================================================================
# sparse checkpoints

MODEL_FORMAT = "vnmsparse-model/1"
_MODEL_META = "vnmsparse.model"


def _sparse_state(model: nn.Module) -> tuple[dict, dict, list]:
    """({name: tensor or VNMWeight} to save, {alias: saved name} for tied tensors, sparse layer names)."""
    sparse = {n: m for n, m in model.named_modules() if isinstance(m, VNMLinear)}
    skip = {f"{n}.{b}" if n else b for n in sparse for b in _BUFFERS}
    out: dict = {}
    for n, m in sparse.items():
        prefix = f"{n}." if n else ""
        out[prefix + "weight"] = m.weight
        if m.bias is not None:
            out[prefix + "bias"] = m.bias.detach()
    aliases: dict = {}
    seen: dict = {}
    for k, t in model.state_dict(keep_vars=False).items():
        if k in skip or k in out:
            continue
        t = t.detach()
        key = (t.untyped_storage().data_ptr(), t.storage_offset(), tuple(t.shape), t.stride(), t.dtype) if t.numel() else None
        if key is not None and key in seen:
            aliases[k] = seen[key]  # a tied tensor (e.g. LM head = embedding): stored once
            continue
        if key is not None:
            seen[key] = k
        out[k] = t
    # Other partial overlaps (views of one storage) cannot be written by safetensors: copy those.
    by_storage: dict = {}
    for k, t in out.items():
        if isinstance(t, torch.Tensor) and t.numel():
            by_storage.setdefault(t.untyped_storage().data_ptr(), []).append(k)
    for ks in by_storage.values():
        for k in ks[1:]:
            out[k] = out[k].clone()
    return out, aliases, list(sparse)


def save_model(model: nn.Module, path: Union[str, os.PathLike], metadata: Optional[dict] = None) -> None:
    """Write a (partly) sparsified model to one safetensors file with :func:`vnmsparse.save`.

    Every :class:`VNMLinear` ``name`` is stored as the VNMWeight ``name.weight`` (canonical packed
    parts, validated again on load) and the tensor ``name.bias``; every other state-dict entry as
    is; tied tensors once. ``metadata`` (str -> str) is stored alongside. Read it back with
    :func:`load_model` into a model of the same architecture, dense or sparse.
    """
    tensors, aliases, sparse = _sparse_state(model)
    meta = {str(k): str(v) for k, v in (metadata or {}).items()}
    if _MODEL_META in meta:
        raise ValueError(f"save_model: metadata key {_MODEL_META!r} is reserved")
    meta[_MODEL_META] = json.dumps({"format": MODEL_FORMAT, "model": type(model).__name__, "sparse_layers": sparse, "aliases": aliases})
    save(path, tensors, metadata=meta)


def _fmt_names(names, limit=8) -> str:
    names = sorted(names)
    more = f" ... and {len(names) - limit} more" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


def load_model(model: nn.Module, path: Union[str, os.PathLike], *, strict: bool = True) -> nn.Module:
    """Load a file written by :func:`save_model` into ``model`` (in place; also returned).

    ``model`` has the architecture of the saved one: dense (e.g. freshly built from its config)
    or already sparsified. The layers that are sparse in the file are swapped for
    :class:`VNMLinear` (with the device and dtype of the layer they replace, as
    ``load_state_dict`` would convert), then every other tensor is loaded. Everything is checked
    before the model is touched: a missing layer, a shape mismatch, a layer that is not a
    Linear/Conv1D, or (with ``strict``) missing or unexpected keys raise ValueError naming them.
    """
    path = os.fspath(path)
    meta = read_metadata(path)
    info = meta.get(_MODEL_META)
    if info is None:
        raise ValueError(f"load_model: {path!r} was not written by vnmsparse.save_model (no {_MODEL_META!r} metadata); "
                         "use vnmsparse.load for plain tensor files")
    try:
        info = json.loads(info)
    except json.JSONDecodeError as e:
        raise ValueError(f"load_model: {path!r} has corrupt model metadata: {e}") from None
    if info.get("format") != MODEL_FORMAT:
        raise ValueError(f"load_model: {path!r} has format {info.get('format')!r}, expected {MODEL_FORMAT!r}")
    data = load(path)
    aliases = info.get("aliases", {})
    for alias, source in aliases.items():
        if source not in data:
            raise ValueError(f"load_model: {path!r}: tied tensor {alias!r} refers to missing {source!r}")
        data[alias] = data[source]
    modules = dict(model.named_modules())
    sparse_names = list(info.get("sparse_layers", []))
    problems = []
    swaps = {}
    for name in sparse_names:
        prefix = f"{name}." if name else ""
        vw = data.get(prefix + "weight")
        if not isinstance(vw, VNMWeight):
            problems.append(f"file lists sparse layer {name!r} but has no VNMWeight {prefix}weight")
            continue
        if not name:
            problems.append("the file's model is a single VNMLinear; load it with VNMLinear.from_vnm(vnmsparse.load(path)['weight'])")
            continue
        module = modules.get(name)
        if module is None:
            problems.append(f"sparse layer {name!r} ({vw.out_features}x{vw.in_features}, {vw.cfg}) has no module in this model")
            continue
        if isinstance(module, VNMLinear):
            shape, dev, dtype, has_bias = (module.out_features, module.in_features), module.weight_values.device, module.weight_values.dtype, module.bias is not None
        elif isinstance(module, nn.Linear) or is_conv1d(module):
            w = _weight_matrix(module)
            shape, dev, dtype, has_bias = tuple(w.shape), w.device, w.dtype, getattr(module, "bias", None) is not None
        else:
            problems.append(f"layer {name!r} is a {type(module).__name__} in this model, not an nn.Linear/Conv1D/VNMLinear")
            continue
        if shape != tuple(vw.shape):
            problems.append(f"layer {name!r}: the file's weight is {vw.shape[0]}x{vw.shape[1]} (out x in), the model's {shape[0]}x{shape[1]}")
            continue
        bias = data.get(prefix + "bias")
        if has_bias != (bias is not None):
            problems.append(f"layer {name!r}: bias {'missing from the file' if has_bias else 'in the file but not in the model'}")
            continue
        if dev.type == "meta":
            dev, dtype = torch.device("cpu"), vw.dtype
        if dtype not in PACKABLE_DTYPES:
            problems.append(f"layer {name!r} has dtype {dtype}; V:N:M weights are float16, bfloat16 or float32")
            continue
        swaps[name] = (vw, bias, dev, dtype, module)
    for name, module in modules.items():
        if isinstance(module, VNMLinear) and name not in sparse_names:
            problems.append(f"layer {name!r} is a VNMLinear in this model but dense in the file (load into a dense model, "
                            "then sparsify_)")
    # The dense rest: compare against what the model will expect after the swaps.
    expected = {}
    for k, t in model.state_dict().items():
        owner = k.rpartition(".")[0]
        if owner in swaps:
            continue
        expected[k] = t
    for name in swaps:
        prefix = f"{name}." if name else ""
        expected[prefix + "weight"] = None  # provided by the sparse layer
        if swaps[name][1] is not None:
            expected[prefix + "bias"] = None
    dense = {k: v for k, v in data.items() if not isinstance(v, VNMWeight)}
    file_keys = set(dense) | {k for k, v in data.items() if isinstance(v, VNMWeight)}
    missing = [k for k in expected if k not in file_keys]
    unexpected = [k for k in file_keys if k not in expected]
    for k, t in dense.items():
        if k in expected and expected[k] is not None and tuple(expected[k].shape) != tuple(t.shape):
            problems.append(f"{k!r}: shape {tuple(t.shape)} in the file, {tuple(expected[k].shape)} in the model")
    if strict and missing:
        problems.append(f"missing from the file: {_fmt_names(missing)}")
    if strict and unexpected:
        problems.append(f"in the file but not in the model: {_fmt_names(unexpected)}")
    if problems:
        raise ValueError(f"load_model: {path!r} does not match this {type(model).__name__} "
                         f"(saved from a {info.get('model', '?')}):\n  " + "\n  ".join(problems))
    with torch.no_grad():
        for name, (vw, bias, dev, dtype, module) in swaps.items():
            new = VNMLinear.from_vnm(vw.to(dev, dtype), None if bias is None else bias.to(dev, dtype))
            new.train(module.training)
            parent_name, _, attr = name.rpartition(".")
            setattr(modules[parent_name], attr, new)
        rest = {k: v for k, v in dense.items() if k in expected and expected[k] is not None}
        result = model.load_state_dict(rest, strict=False)
    leftover = [k for k in result.missing_keys if k in expected and expected[k] is not None and k not in rest]
    if strict and leftover:  # cannot happen after the checks above; kept as a guard
        raise ValueError(f"load_model: keys left unloaded: {_fmt_names(leftover)}")
    return model
