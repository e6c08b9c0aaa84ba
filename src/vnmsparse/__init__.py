"""vnmsparse: V:N:M sparse weights for NVIDIA Sparse Tensor Cores (VENOM, SC'23).

Pruning produces a dense weight with zeros; ``pack`` turns it into a ``VNMWeight``; ``spmm``
runs ``x @ W.T`` with it (a Sparse Tensor Core kernel on CUDA, a PyTorch reference elsewhere).
"""

from .config import VNMConfig
from .format import VNMWeight, cat_rows, check_vnm, is_vnm, pack, random_vnm_mask, unpack, vnm_mask
from .ops import spmm
from .serialization import load, save
from . import kernels  # noqa: E402,F401  (registers the CUDA kernels with the op)
from .nn import VNMLinear, feature_major_mlp_, load_model, save_model, sparsify_  # noqa: E402

__version__ = "0.1.0"

__all__ = [
    "VNMConfig",
    "VNMWeight",
    "vnm_mask",
    "random_vnm_mask",
    "is_vnm",
    "check_vnm",
    "pack",
    "unpack",
    "cat_rows",
    "spmm",
    "save",
    "load",
    "VNMLinear",
    "sparsify_",
    "feature_major_mlp_",
    "save_model",
    "load_model",
    "__version__",
]
