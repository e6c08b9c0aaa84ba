"""Tests of vnmsparse.spmm and the torch.library op ``vnmsparse::spmm``.

The oracle is a plain dense matmul in float64 of the unpacked weight.
"""

import numpy as np
import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st
from torch.library import opcheck

import vnmsparse as vs
from vnmsparse import VNMConfig

EXAMPLES = settings().max_examples
# torch's own opcheck/compile machinery still calls torch.jit.script_method
pytestmark = pytest.mark.filterwarnings("ignore:.*torch.jit.script_method.*:DeprecationWarning")
EPS = {torch.float16: 2.0**-11, torch.bfloat16: 2.0**-8, torch.float32: 2.0**-24}


def random_weight(r, k, spec, dtype=torch.float32, seed=0) -> vs.VNMWeight:
    """A packed weight keeping the largest |w| of a random dense one (no -0.0 anywhere)."""
    g = torch.Generator().manual_seed(seed)
    d = torch.randn(r, k, generator=g)
    return vs.pack(torch.where(vs.vnm_mask(d.abs(), spec), d, 0.0).to(dtype), spec)


def dense_reference(x, vw, bias=None):
    """float64 x @ W.T (+ bias)."""
    y = x.double() @ vs.unpack(vw).double().t()
    return y if bias is None else y + bias.double()


def assert_close_to_float64(y, x, vw, bias=None):
    """|y - ref| <= (2 eps(out) + (K + 2) eps(float32)) (|x| @ |W|.T + |b|), elementwise: one
    rounding of the output plus a float32 accumulation over K terms (the standard bound), so
    that cancellation can neither hide nor fake an error."""
    ref = dense_reference(x, vw, bias)
    scale = x.double().abs() @ vs.unpack(vw).double().abs().t()
    if bias is not None:
        scale = scale + bias.double().abs()
    err = (y.double() - ref).abs()
    bound = (2 * EPS[y.dtype] + (x.shape[-1] + 2) * EPS[torch.float32]) * scale + 1e-30
    ratio = err / bound
    assert (ratio <= 1).all(), f"error {ratio.max().item():.3g}x the bound at {divmod(int(ratio.argmax()), max(1, y.shape[-1]))}"


SPECS = ["2:4", "16:2:8", "32:2:5", "64:2:16", "16:2:21", "128:2:130"]


@st.composite
def spmm_cases(draw):
    spec = draw(st.sampled_from(SPECS))
    cfg = VNMConfig.parse(spec)
    r = draw(st.integers(1, 2 * cfg.v + 3))
    k = draw(st.one_of(st.integers(1, 9), st.integers(1, 3 * cfg.m + 3)))
    batch = draw(st.sampled_from([(), (1,), (5,), (2, 3), (1, 1, 4)]))
    bias = draw(st.booleans())
    return spec, r, k, batch, bias


@settings(max_examples=2 * EXAMPLES)
@given(case=spmm_cases(), seed=st.integers(0, 2**31 - 1))
@example(case=("16:2:8", 1, 1, (1,), True), seed=0)
@example(case=("2:4", 33, 7, (), False), seed=1)
def test_spmm_float64_x_against_dense(case, seed):
    """float64 x with a float32 weight on CPU: equal to the float64 dense product."""
    spec, r, k, batch, with_bias = case
    vw = random_weight(r, k, spec, torch.float32, seed)
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(*batch, k, dtype=torch.float64, generator=g)
    bias = torch.randn(r, dtype=torch.float64, generator=g) if with_bias else None
    y = vs.spmm(x, vw, bias)
    assert y.shape == (*batch, r) and y.dtype == torch.float64
    torch.testing.assert_close(y, dense_reference(x, vw, bias), rtol=1e-12, atol=1e-12)


@settings(max_examples=2 * EXAMPLES)
@given(case=spmm_cases(), dtype=st.sampled_from([torch.float16, torch.bfloat16, torch.float32]), seed=st.integers(0, 2**31 - 1))
@example(case=("64:2:16", 130, 33, (1,), True), dtype=torch.bfloat16, seed=0)
def test_spmm_half_against_float64(case, dtype, seed):
    spec, r, k, batch, with_bias = case
    vw = random_weight(r, k, spec, dtype, seed)
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(*batch, k, generator=g).to(dtype)
    bias = torch.randn(r, generator=g).to(dtype) if with_bias else None
    y = vs.spmm(x, vw, bias)
    assert y.shape == (*batch, r) and y.dtype == dtype
    assert_close_to_float64(y, x, vw, bias)


@pytest.mark.parametrize("spec", ["2:4", "16:2:8", "64:2:16", "32:2:7"])
@pytest.mark.parametrize("k", [1, 3, 27, 129])
@pytest.mark.parametrize("xshape", [(1,), ()])  # T = 1, and a single vector
@pytest.mark.parametrize("dtype", [torch.float64, torch.bfloat16, torch.float16])
def test_spmm_single_token_odd_k(spec, k, xshape, dtype):
    wdtype = torch.float32 if dtype == torch.float64 else dtype
    vw = random_weight(70, k, spec, wdtype, seed=k)
    x = torch.randn(*xshape, k).to(dtype)
    bias = torch.randn(70).to(dtype)
    y = vs.spmm(x, vw, bias)
    assert y.shape == (*xshape, 70) and y.dtype == dtype
    if dtype == torch.float64:
        torch.testing.assert_close(y, dense_reference(x, vw, bias), rtol=1e-12, atol=1e-12)
    else:
        assert_close_to_float64(y, x, vw, bias)


@pytest.mark.parametrize("spec", ["2:4", "16:2:8", "64:2:19"])
@pytest.mark.parametrize("shape", [(0, 10), (10, 0), (0, 0)])
@pytest.mark.parametrize("with_bias", [False, True])
def test_spmm_empty_weight(spec, shape, with_bias):
    r, k = shape
    vw = vs.pack(torch.zeros(shape, dtype=torch.float16), spec)
    x = torch.randn(3, k, dtype=torch.float16)
    bias = torch.randn(r, dtype=torch.float16) if with_bias else None
    y = vs.spmm(x, vw, bias)
    assert y.shape == (3, r) and y.dtype == torch.float16
    expected = torch.zeros(3, r, dtype=torch.float16) if bias is None else bias.expand(3, r)
    assert torch.equal(y, expected)


@pytest.mark.parametrize("batch", [(0,), (2, 0), (0, 3)])
def test_spmm_empty_batch(batch):
    vw = random_weight(20, 13, "16:2:8", torch.bfloat16)
    y = vs.spmm(torch.randn(*batch, 13).bfloat16(), vw, torch.zeros(20).bfloat16())
    assert y.shape == (*batch, 20)


def test_spmm_non_contiguous_x():
    vw = random_weight(24, 40, "16:2:8")
    x = torch.randn(40, 6, dtype=torch.float64).t()
    assert not x.is_contiguous()
    torch.testing.assert_close(vs.spmm(x, vw), dense_reference(x, vw), rtol=1e-12, atol=1e-12)


def test_spmm_inference_mode():
    vw = random_weight(24, 40, "16:2:8")
    x = torch.randn(3, 40, dtype=torch.float64)
    with torch.inference_mode():
        y = vs.spmm(x, vw)
    torch.testing.assert_close(y, dense_reference(x, vw), rtol=1e-12, atol=1e-12)


# ----------------------------------------------------------------------------------- bad input


def test_spmm_bad_inputs():
    vw = random_weight(20, 13, "16:2:8", torch.bfloat16)
    x = torch.randn(4, 13).bfloat16()
    with pytest.raises(TypeError, match="x must be a torch.Tensor"):
        vs.spmm(x.tolist(), vw)
    with pytest.raises(TypeError, match="weight must be a VNMWeight"):
        vs.spmm(x, vs.unpack(vw))
    with pytest.raises(ValueError, match="at least 1 dimension"):
        vs.spmm(torch.tensor(1.0).bfloat16(), vw)
    with pytest.raises(ValueError, match="last dimension 12 must equal the weight's K = 13"):
        vs.spmm(x[:, :12], vw)
    with pytest.raises(ValueError, match="last dimension 20"):
        vs.spmm(torch.randn(13, 20).bfloat16(), vw)  # x transposed
    with pytest.raises(TypeError, match="floating point"):
        vs.spmm(torch.ones(4, 13, dtype=torch.int32), vw)
    with pytest.raises(TypeError, match="differs from the weight's"):
        vs.spmm(x.half(), vw)
    with pytest.raises(TypeError, match="differs from the weight's"):
        vs.spmm(x.float(), vw)
    with pytest.raises(TypeError, match="bias must be a tensor"):
        vs.spmm(x, vw, 1.0)
    with pytest.raises(ValueError, match=r"bias must have shape \(20,\)"):
        vs.spmm(x, vw, torch.zeros(13).bfloat16())
    with pytest.raises(ValueError, match=r"bias must have shape \(20,\)"):
        vs.spmm(x, vw, torch.zeros(1, 20).bfloat16())
    with pytest.raises(TypeError, match="bias dtype"):
        vs.spmm(x, vw, torch.zeros(20))
    with pytest.raises(TypeError, match="bias dtype"):  # float64 x wants a float64 bias
        vs.spmm(x.double(), vw, torch.zeros(20).bfloat16())


# ------------------------------------------------------------------------------ the torch op


OPCHECK_CASES = [
    # (shape, spec, x shape, bias, x dtype)
    ((20, 13), "16:2:8", (3, 13), True, torch.float32),
    ((33, 9), "2:4", (2, 4, 9), False, torch.float32),  # columns None, bias None
    ((33, 12), "2:4", (5, 12), True, torch.float64),
    ((16, 40), "32:2:20", (1, 40), False, torch.float32),
    ((70, 31), "64:2:8", (31,), True, torch.float32),  # 1-D x
]


@pytest.mark.parametrize("shape, spec, xshape, with_bias, xdtype", OPCHECK_CASES)
def test_opcheck(shape, spec, xshape, with_bias, xdtype):
    vw = random_weight(*shape, spec)
    assert (vw.columns is None) == (spec == "2:4")
    x = torch.randn(*xshape, dtype=xdtype, requires_grad=True)
    bias = torch.randn(shape[0], dtype=xdtype, requires_grad=True) if with_bias else None
    args = (x, vw.values, vw.positions, vw.columns, bias, *shape, vw.cfg.v, vw.cfg.m, "canonical")
    opcheck(
        torch.ops.vnmsparse.spmm.default,
        args,
        test_utils=("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic"),
    )


def test_op_rejects_unknown_layout_on_cpu():
    vw = random_weight(20, 13, "16:2:8")
    with pytest.raises(Exception, match="layout 'nope'"):
        torch.ops.vnmsparse.spmm(torch.randn(2, 13), vw.values, vw.positions, vw.columns, None, 20, 13, 16, 8, "nope")


@pytest.mark.parametrize("spec", ["2:4", "16:2:8", "16:2:23"])
@pytest.mark.parametrize("xshape", [(3, 19), (2, 1, 19), (19,)])
def test_gradcheck_x_and_bias(spec, xshape):
    vw = random_weight(21, 19, spec)
    x = torch.randn(*xshape, dtype=torch.float64, requires_grad=True)
    bias = torch.randn(21, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda x, b: vs.spmm(x, vw, b), (x, bias))
    assert torch.autograd.gradcheck(lambda x: vs.spmm(x, vw), (x,))
    # and the gradients equal those of the dense product
    gy = torch.randn(*xshape[:-1], 21, dtype=torch.float64)
    gx, gb = torch.autograd.grad(vs.spmm(x, vw, bias), (x, bias), gy)
    w = vs.unpack(vw).double()
    xd, bd = x.detach().requires_grad_(), bias.detach().requires_grad_()
    gx_ref, gb_ref = torch.autograd.grad(torch.nn.functional.linear(xd, w, bd), (xd, bd), gy)
    torch.testing.assert_close(gx, gx_ref, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(gb, gb_ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
def test_backward_low_precision(dtype):
    vw = random_weight(24, 40, "16:2:8", dtype)
    x = torch.randn(5, 40).to(dtype).requires_grad_()
    bias = torch.randn(24).to(dtype).requires_grad_()
    gy = torch.randn(5, 24).to(dtype)
    vs.spmm(x, vw, bias).backward(gy)
    assert x.grad.dtype == dtype and bias.grad.dtype == dtype
    w = vs.unpack(vw).double()
    torch.testing.assert_close(x.grad.double(), gy.double() @ w, rtol=4 * EPS[dtype], atol=40 * 4 * EPS[dtype])
    torch.testing.assert_close(bias.grad.double(), gy.double().sum(0), rtol=4 * EPS[dtype], atol=5 * 4 * EPS[dtype])


def test_backward_empty_weight_without_bias():
    vw = vs.pack(torch.zeros(0, 10), "16:2:8")
    x = torch.randn(3, 10, requires_grad=True)
    vs.spmm(x, vw).sum().backward()
    assert torch.equal(x.grad, torch.zeros(3, 10))


def test_backward_empty_weight_with_bias():
    vw = vs.pack(torch.zeros(0, 10), "16:2:8")
    x = torch.randn(3, 10, requires_grad=True)
    bias = torch.zeros(0, requires_grad=True)
    vs.spmm(x, vw, bias).sum().backward()
    assert bias.grad.shape == (0,) and torch.equal(x.grad, torch.zeros(3, 10))


def test_weight_gets_no_gradient():
    """The packed weight is frozen: a values tensor that requires grad does not break spmm."""
    d = torch.randn(16, 8)
    w = torch.where(vs.vnm_mask(d.abs(), "16:2:8"), d, 0.0).requires_grad_()
    vw = vs.pack(w, "16:2:8")
    x = torch.randn(2, 8, requires_grad=True)
    vs.spmm(x, vw).sum().backward()
    assert x.grad is not None and w.grad is None


class SparseLinear(torch.nn.Module):
    def __init__(self, vw, bias):
        super().__init__()
        self.vw = vw
        self.bias = torch.nn.Parameter(bias)

    def forward(self, x):
        return torch.nn.functional.gelu(vs.spmm(x, self.vw, self.bias)) * 2 + 1


@pytest.mark.parametrize("batch", [(1,), (6,), (2, 3)])
def test_spmm_feature_major_out(batch):
    """Same values; the memory holds Y^T (the tokens of each output feature contiguous), so that a
    next call can read it as a feature-major x; elementwise ops keep that layout."""
    vw, bias = random_weight(40, 27, "16:2:8"), torch.randn(40)
    x = torch.randn(*batch, 27)
    y = vs.spmm(x, vw, bias, feature_major_out=True)
    torch.testing.assert_close(y, vs.spmm(x, vw, bias))
    tokens = x.numel() // 27
    y2 = y.reshape(tokens, 40)
    assert y2.data_ptr() == y.data_ptr() and (tokens == 1 or y2.stride() == (1, tokens))
    z = torch.nn.functional.silu(y) * y
    assert tokens == 1 or z.reshape(tokens, 40).stride() == (1, tokens)
    torch.testing.assert_close(vs.spmm(z, random_weight(8, 40, "16:2:8")), vs.spmm(z.contiguous(), random_weight(8, 40, "16:2:8")))


def test_torch_compile_fullgraph_matches_eager():
    torch._dynamo.reset()
    vw = random_weight(40, 27, "16:2:8")
    module = SparseLinear(vw, torch.randn(40))
    compiled = torch.compile(module, fullgraph=True)
    for shape in [(5, 27), (2, 3, 27), (1, 27)]:
        x = torch.randn(*shape)
        torch.testing.assert_close(compiled(x), module(x))
    # and through autograd
    x = torch.randn(4, 27, requires_grad=True)
    compiled(x).sum().backward()
    gx, gb = x.grad.clone(), module.bias.grad.clone()
    x.grad, module.bias.grad = None, None
    module(x).sum().backward()
    torch.testing.assert_close(gx, x.grad)
    torch.testing.assert_close(gb, module.bias.grad)


# ---------------------------------------------------------------------------------------- GPU


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("spec", ["2:4", "64:2:8", "64:2:16", "128:2:10"])
@pytest.mark.parametrize("shape, batch", [((256, 512), (7,)), ((200, 333), (2, 3)), ((64, 96), (1,))])
def test_gpu_spmm_against_float64(dtype, spec, shape, batch):
    vw = random_weight(*shape, spec, dtype).cuda()
    x = torch.randn(*batch, shape[1], device="cuda").to(dtype)
    bias = torch.randn(shape[0], device="cuda").to(dtype)
    y = vs.spmm(x, vw, bias)
    assert y.is_cuda and y.dtype == dtype and y.shape == (*batch, shape[0])
    assert_close_to_float64(y.cpu(), x.cpu(), vw.cpu(), bias.cpu())


@pytest.mark.gpu
@pytest.mark.parametrize("spec", ["2:4", "128:2:8", "64:2:8", "128:2:32"])
@pytest.mark.parametrize("ntok", [1, 5, 40, 300, 2048])
def test_gpu_spmm_feature_major_out(spec, ntok):
    """Y^T written by the wgmma.sp epilogue (or copied, where a call splits K or runs the decode
    kernel): the same result as the row-major call, token-contiguous memory."""
    vw = random_weight(512, 768, spec, torch.bfloat16).cuda()
    bias = torch.randn(512, device="cuda").bfloat16()
    x = torch.randn(ntok, 768, device="cuda").bfloat16()
    y = vs.spmm(x, vw, bias, feature_major_out=True)
    assert ntok == 1 or y.stride() == (1, ntok)
    assert_close_to_float64(y.cpu(), x.cpu(), vw.cpu(), bias.cpu())


@pytest.mark.gpu
@pytest.mark.parametrize("spec", ["2:4", "128:2:8"])
@pytest.mark.parametrize("ntok", [1, 8, 40, 300])
@pytest.mark.parametrize("graph", [False, True])
def test_gpu_dependent_calls_see_their_inputs(spec, ntok, graph):
    """A chain of calls, each reading what the one before wrote (eager and as a CUDA graph): with
    programmatic dependent launch a kernel starts while its predecessor runs, so a read of X (or a
    write of Y) before its grid_dependency_wait would show here as a wrong link."""
    # weights / 32 (exact) keep the values in range link after link with no kernel in between
    vws = [vs.pack(vs.unpack(random_weight(1024, 1024, spec, seed=i)) / 32, spec).to(torch.bfloat16).cuda()
           for i in range(4)]
    bias = torch.randn(1024, device="cuda").bfloat16()
    x0 = torch.randn(ntok, 1024, device="cuda").bfloat16()

    def chain():
        xs = [x0]
        for vw in vws:
            xs.append(vs.spmm(xs[-1], vw, bias))
        return xs

    if graph:
        chain()  # layouts built and kernels loaded outside the capture
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            xs = chain()
        for x in xs[1:]:
            x.fill_(float("nan"))
        g.replay()
    else:
        xs = chain()
    torch.cuda.synchronize()
    for x, vw, y in zip(xs, vws, xs[1:]):
        assert_close_to_float64(y.cpu(), x.cpu(), vw.cpu(), bias.cpu())


@pytest.mark.gpu
@pytest.mark.parametrize("spec", ["2:4", "128:2:8"])
def test_gpu_compile_fullgraph_spmm_matches_eager(spec):
    """vnmsparse.spmm inside torch.compile(fullgraph=True) on CUDA, compiled before any eager
    call (the layout is built while tracing) and at decode sizes, where eager picks by T."""
    torch._dynamo.reset()
    vw = random_weight(256, 512, spec, torch.bfloat16).cuda()
    module = SparseLinear(vw, torch.randn(256, device="cuda").bfloat16())
    compiled = torch.compile(module, fullgraph=True)
    for ntok in (4, 1, 40, 300):
        x = torch.randn(ntok, 512, device="cuda").bfloat16()
        torch.testing.assert_close(compiled(x), module(x), rtol=2e-2, atol=2e-2)


@pytest.mark.gpu
def test_gpu_spmm_device_mismatch():
    vw = random_weight(20, 13, "16:2:8", torch.float16)
    with pytest.raises(ValueError, match="move one with"):
        vs.spmm(torch.randn(2, 13, device="cuda").half(), vw)
    with pytest.raises(ValueError, match="bias is on"):
        vs.spmm(torch.randn(2, 13).half(), vw, torch.zeros(20, device="cuda").half())


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_gpu_backward_matches_dense(dtype):
    """x and bias gradients on CUDA, whichever layout (kernel or canonical) the forward used."""
    vw = random_weight(128, 96, "64:2:8", dtype).cuda()
    x = torch.randn(5, 96, device="cuda").to(dtype).requires_grad_()
    bias = torch.randn(128, device="cuda").to(dtype).requires_grad_()
    gy = torch.randn(5, 128, device="cuda").to(dtype)
    vs.spmm(x, vw, bias).backward(gy)
    w = vs.unpack(vw).double()
    torch.testing.assert_close(x.grad.double(), gy.double() @ w, rtol=4 * EPS[dtype], atol=96 * 4 * EPS[dtype])
    torch.testing.assert_close(bias.grad.double(), gy.double().sum(0), rtol=4 * EPS[dtype], atol=5 * 4 * EPS[dtype])
