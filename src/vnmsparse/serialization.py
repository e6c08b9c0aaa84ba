"""save / load of tensors and VNMWeights in safetensors files (never pickle).

A VNMWeight named ``name`` is stored as the tensors ``name.values``, ``name.positions`` and (unless
plain 2:4) ``name.columns``; the file's metadata holds a JSON entry describing it. ``load`` checks
everything (format version, parts present, shapes, dtypes, index ranges, codes) before returning
anything, so a damaged or hostile file cannot make a kernel read out of bounds.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Mapping, Union

import torch

from .config import VNMConfig
from .format import VNMWeight, validate_parts

FORMAT = "vnmsparse/1"
_META_KEY = "vnmsparse"
_PART_NAMES = ("values", "positions", "columns")


def save(path: Union[str, os.PathLike], tensors: Mapping[str, Union[torch.Tensor, VNMWeight]], metadata: Mapping[str, str] | None = None) -> None:
    """Write a dict of tensors and VNMWeights to ``path`` (safetensors).

    The file is written to a temporary file beside ``path`` and renamed over it, so an existing file
    is never left half-written. ``metadata`` (str -> str) is stored alongside.
    """
    from safetensors.torch import save_file

    if not isinstance(tensors, Mapping):
        raise TypeError(f"save: expected a dict of name -> tensor/VNMWeight, got {type(tensors).__name__}")
    flat: dict[str, torch.Tensor] = {}
    described: dict[str, dict] = {}
    for name, item in tensors.items():
        if not isinstance(name, str) or not name:
            raise TypeError(f"save: keys must be non-empty strings, got {name!r}")
        if isinstance(item, VNMWeight):
            described[name] = {"cfg": str(item.cfg), "shape": list(item.shape), "dtype": str(item.dtype).replace("torch.", "")}
            for part, t in item.parts().items():
                flat[f"{name}.{part}"] = t.detach().to("cpu").contiguous()
        elif isinstance(item, torch.Tensor):
            flat[name] = item.detach().to("cpu").contiguous()
        else:
            raise TypeError(f"save: {name!r} is a {type(item).__name__}; only tensors and VNMWeights can be saved")
    for name in described:
        for part in _PART_NAMES:
            if f"{name}.{part}" in tensors:
                raise ValueError(f"save: key {name}.{part!r} collides with the parts of VNMWeight {name!r}")
    meta = {str(k): str(v) for k, v in (metadata or {}).items()}
    if _META_KEY in meta:
        raise ValueError(f"save: metadata key {_META_KEY!r} is reserved")
    meta[_META_KEY] = json.dumps({"format": FORMAT, "weights": described})
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    os.close(fd)
    try:
        save_file(flat, tmp, metadata=meta)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_metadata(path: Union[str, os.PathLike]) -> dict:
    """The user metadata of a file written by :func:`save` (without vnmsparse's own entry)."""
    meta, _ = _open(path)
    return meta


def _open(path):
    from safetensors import safe_open

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"load: no such file {str(path)!r}")
    try:
        with safe_open(str(path), framework="pt") as f:
            meta = dict(f.metadata() or {})
            keys = list(f.keys())
    except Exception as e:  # safetensors raises its own error types for damaged headers
        raise ValueError(f"load: {str(path)!r} is not a readable safetensors file: {e}") from e
    info = meta.pop(_META_KEY, None)
    if info is None:
        raise ValueError(f"load: {str(path)!r} was not written by vnmsparse.save (no {_META_KEY!r} metadata)")
    try:
        info = json.loads(info)
    except json.JSONDecodeError as e:
        raise ValueError(f"load: {str(path)!r} has corrupt vnmsparse metadata: {e}") from e
    if not isinstance(info, dict) or info.get("format") != FORMAT:
        raise ValueError(f"load: {str(path)!r} has format {info.get('format') if isinstance(info, dict) else info!r}, expected {FORMAT!r}")
    return meta, (info, keys)


def load(path: Union[str, os.PathLike], device: Union[str, torch.device] = "cpu") -> dict:
    """Read a file written by :func:`save`: a dict of name -> tensor or VNMWeight, all validated."""
    from safetensors import safe_open

    _, (info, keys) = _open(path)
    weights = info.get("weights")
    if not isinstance(weights, dict):
        raise ValueError(f"load: {str(path)!r}: vnmsparse metadata has no 'weights' table")
    try:
        with safe_open(str(path), framework="pt") as f:
            raw = {k: f.get_tensor(k) for k in keys}
    except Exception as e:  # a truncated or inconsistent data section
        raise ValueError(f"load: {str(path)!r}: cannot read tensor data (truncated or damaged file?): {e}") from e
    out: dict = {}
    for name, desc in weights.items():
        if name in raw:
            raise ValueError(f"load: {str(path)!r}: {name!r} is both a plain tensor and a VNMWeight")
        try:
            cfg = VNMConfig.parse(desc["cfg"])
            shape = tuple(int(d) for d in desc["shape"])
            values = raw.pop(f"{name}.values")
            positions = raw.pop(f"{name}.positions")
            columns = raw.pop(f"{name}.columns", None)
        except KeyError as e:
            raise ValueError(f"load: VNMWeight {name!r} is missing {e.args[0]!r}") from None
        except (TypeError, ValueError) as e:
            raise ValueError(f"load: VNMWeight {name!r} has a bad description {desc!r}: {e}") from None
        if str(values.dtype).replace("torch.", "") != desc.get("dtype"):
            raise ValueError(f"load: VNMWeight {name!r}: values dtype {values.dtype} differs from the recorded {desc.get('dtype')!r}")
        try:
            validate_parts(values, positions, columns, shape, cfg)
        except (TypeError, ValueError) as e:
            raise ValueError(f"load: VNMWeight {name!r} is invalid: {e}") from None
        out[name] = VNMWeight._trusted(values, positions, columns, shape, cfg)
    out.update(raw)
    return {k: v.to(device) for k, v in out.items()} if torch.device(device).type != "cpu" else out
