"""Reference implementations, torch baselines and work counts for every example.

bench/run.py looks an example up in SPECS by its file stem (examples/<stem>.tile)
or by the kernel name in its manifest. A Spec says, for one example:

  shapes(p, sym)      name -> (shape tuple, dtype name) of every buffer parameter,
                      a cross-check of the manifest the compiler wrote;
  ref(x, p, sym)      expected outputs: {name: tensor}, computed in float64 from
                      the same inputs the kernel saw (x: name -> tensor, inouts
                      hold their values from before the launch);
  torch(x, p, sym)    a zero-argument callable running the torch equivalent on
                      one input set (None: no baseline for this configuration);
  work(p, sym)        {"flops": ..., "bytes": ..., "bound": "memory"|"compute"};
                      bytes is the fewest device-memory bytes: each input read
                      once, each output written once;
  init(name, t, p, g) fills an input/inout whose values are constrained
                      (sorted boundaries, initial statistics, sequence
                      offsets and lengths); returns True when it handled
                      `name`, False for plain random data;
  derive(x, p, sym)   after every input is filled, overwrites inputs that are
                      functions of the others (a backward kernel's forward
                      output and log-sum-exp), in place;
  exact               outputs compared element by element (no tolerance);
  workspace           outputs that are scratch space: poisoned, never compared;
  baseline            the name of the torch baseline, for the table;
  short               its short name, a column header of the TFLOP/s tables;
  baseline_is_ref     False when the baseline computes a related but different
                      function (it is timed, not compared, by --selftest-refs);
  extras              further baselines, name -> a function like `torch`
                      (Triton kernels, other SDPA backends): timed with the
                      kernel and compared with the reference by --selftest-refs;
  tolerance(p, dt)    the relative-error threshold for an output of dtype dt
                      when it differs from THRESHOLDS' (tf32 inputs), or None.

p is a Params (the factory's defaults with the -D values of the build applied,
attribute access); sym maps the T.dynamic symbols to their run-time values.
All functions work on any torch device (the bench runs them on the GPU).
"""

import math
import random
from dataclasses import dataclass, field
from typing import Callable, Dict, Optional

import torch
import torch.nn.functional as F

TORCH_DTYPES = {
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float32": torch.float32,
    "float64": torch.float64,
    "int8": torch.int8,
    "int16": torch.int16,
    "int32": torch.int32,
    "int64": torch.int64,
    "uint8": torch.uint8,
    "bool": torch.bool,
}
if hasattr(torch, "float8_e4m3fn"):
    TORCH_DTYPES["float8_e4m3"] = torch.float8_e4m3fn
    TORCH_DTYPES["float8_e5m2"] = torch.float8_e5m2

# TileLang spellings that name the same dtype.
DTYPE_ALIASES = {"float": "float32", "half": "float16", "double": "float64",
                 "int": "int32", "float8_e4m3fn": "float8_e4m3"}


def dtype_name(name) -> str:
    name = str(name)
    return DTYPE_ALIASES.get(name, name)


def torch_dtype(name) -> torch.dtype:
    return TORCH_DTYPES[dtype_name(name)]


# 4-bit dtypes are stored two per byte (element 2i in the low nibble of
# byte i, as TileLang's examples pack them): the torch tensor of such a
# buffer holds bytes, its last dim halved.
PACKED_DTYPES = {"int4": torch.int8, "uint4": torch.uint8, "float4_e2m1": torch.uint8}


def storage_of(name, shape):
    """The torch dtype and shape of the memory of a buffer of dtype NAME."""
    name = dtype_name(name)
    if name in PACKED_DTYPES:
        return PACKED_DTYPES[name], tuple(shape[:-1]) + ((shape[-1] + 1) // 2,)
    return torch_dtype(name), tuple(shape)


def itemsize(name) -> int:
    return torch.empty((), dtype=torch_dtype(name)).element_size()


class Params(dict):
    """Factory parameters with attribute access (p.M, p.dtype)."""

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError as e:
            raise AttributeError(key) from e


@dataclass
class Spec:
    shapes: Callable
    ref: Callable
    work: Callable
    torch: Optional[Callable] = None
    init: Optional[Callable] = None
    derive: Optional[Callable] = None
    exact: frozenset = frozenset()
    workspace: frozenset = frozenset()
    baseline: str = ""
    baseline_is_ref: bool = True  # the baseline's result equals the reference
    short: str = ""
    extras: Dict[str, Callable] = field(default_factory=dict)
    tolerance: Optional[Callable] = None


def nbytes(shape, dtype) -> int:
    return math.prod(shape) * itemsize(dtype)


def memory_work(p, sym, spec_shapes, inouts=()):
    """Bytes of every buffer once (inouts twice: read and written)."""
    total = 0
    for name, (shape, dt) in spec_shapes(p, sym).items():
        total += nbytes(shape, dt) * (2 if name in inouts else 1)
    return total


def f64(t):
    return t.to(torch.float64)


# --- elementwise_add ---------------------------------------------------------

def ea_shapes(p, sym):
    return {"A": ((p.M, p.N), p.in_dtype), "B": ((p.M, p.N), p.in_dtype),
            "C": ((p.M, p.N), p.out_dtype)}


def ea_ref(x, p, sym):
    return {"C": f64(x["A"]) + f64(x["B"])}


def ea_torch(x, p, sym):
    a, b, c = x["A"], x["B"], x["C"]
    if a.dtype == c.dtype:
        return lambda: torch.add(a, b, out=c)
    return lambda: torch.add(a.to(c.dtype), b.to(c.dtype), out=c)


# --- gemm, gemm_dynamic, splitk_gemm, dequant_gemm, gemv ---------------------

def gemm_shapes(p, sym):
    return {"A": ((p.M, p.K), p.dtype), "B": ((p.K, p.N), p.dtype),
            "C": ((p.M, p.N), p.dtype)}


def gemm_ref(x, p, sym):
    return {"C": f64(x["A"]) @ f64(x["B"])}


def gemm_torch(x, p, sym):
    a, b, c = x["A"], x["B"], x["C"]
    return lambda: torch.matmul(a, b, out=c)


def gemm_work(p, sym):
    return {"flops": 2 * p.M * p.N * p.K,
            "bytes": memory_work(p, sym, gemm_shapes), "bound": "compute"}


def tf32_tolerance(p, dt):
    """float32 gemm inputs go through tensor cores as tf32 (10-bit mantissa):
    ||error|| / ||ref|| is about 1e-3 for random data, far above float32's."""
    return TF32_THRESHOLD if dtype_name(p.dtype) == "float32" else None


def triton_matmul(a, b, c):
    """A callable running the Triton tutorial-style matmul c = a @ b."""
    from triton_refs import matmul  # only here: refs.py works without Triton
    return lambda: matmul(a, b, c)


def gemm_triton(x, p, sym):
    return triton_matmul(x["A"], x["B"], x["C"])


def op(t, transposed):
    return t.t() if transposed else t


def gt_shapes(p, sym):
    a = (p.K, p.M) if p.trans_A else (p.M, p.K)
    b = (p.N, p.K) if p.trans_B else (p.K, p.N)
    return {"A": (a, p.dtype), "B": (b, p.dtype), "C": ((p.M, p.N), p.dtype)}


def gt_ref(x, p, sym):
    return {"C": op(f64(x["A"]), p.trans_A) @ op(f64(x["B"]), p.trans_B)}


def gt_torch(x, p, sym):
    a, b, c = op(x["A"], p.trans_A), op(x["B"], p.trans_B), x["C"]
    return lambda: torch.matmul(a, b, out=c)


def gt_triton(x, p, sym):
    return triton_matmul(op(x["A"], p.trans_A), op(x["B"], p.trans_B), x["C"])


def gt_work(p, sym):
    return {"flops": 2 * p.M * p.N * p.K,
            "bytes": memory_work(p, sym, gt_shapes), "bound": "compute"}


# C = A B^T with A [M, K] and B [N, K] (the int8 and fp8 GEMMs).
def nt_shapes(p, sym):
    return {"A": ((p.M, p.K), p.dtype), "B": ((p.N, p.K), p.dtype),
            "C": ((p.M, p.N), p.out_dtype)}


def nt_ref(x, p, sym):
    # Exact for int8 (every partial sum is an integer below 2^53) and for
    # fp8 inputs, which float64 holds exactly.
    return {"C": f64(x["A"]) @ f64(x["B"]).T}


def nt_work(p, sym):
    return {"flops": 2 * p.M * p.N * p.K,
            "bytes": memory_work(p, sym, nt_shapes), "bound": "compute"}


def int8_torch(x, p, sym):
    # cuBLASLt's int8 GEMM; B.t() is the column-major (K, N) operand it wants.
    a, bt, c = x["A"], x["B"].t(), x["C"]
    if a.dtype != torch.int8 or p.M <= 16 or p.K % 8 or p.N % 8:
        return None
    try:
        torch._int_mm(a, bt, out=c)
    except TypeError:  # a torch without the out= form
        return lambda: torch._int_mm(a, bt)
    return lambda: torch._int_mm(a, bt, out=c)


def scaled_mm(x, p, fast_accum):
    """torch._scaled_mm (cuBLASLt's fp8 GEMM) on A and B with per-tensor
    scales of 1.0, the unscaled product; B.t() is the column-major (K, N)
    operand it wants. fast_accum: accumulate as wgmma does, without the
    periodic promotion to a float32 sum that its default adds."""
    a, bt, c = x["A"], x["B"].t(), x["C"]
    if not hasattr(torch, "_scaled_mm") or p.K % 16 or p.N % 16:
        return None
    one = torch.ones((), dtype=torch.float32, device=a.device)
    kw = dict(scale_a=one, scale_b=one, out_dtype=c.dtype, use_fast_accum=fast_accum)
    try:
        torch._scaled_mm(a, bt, out=c, **kw)
    except TypeError:  # a torch without the out= form
        return lambda: torch._scaled_mm(a, bt, **kw)
    return lambda: torch._scaled_mm(a, bt, out=c, **kw)


def fp8_torch(x, p, sym):
    return scaled_mm(x, p, True)


def fp8_slow_accum(x, p, sym):
    return scaled_mm(x, p, False)


def epi_shapes(p, sym):
    return {"A": ((p.M, p.K), p.dtype), "B": ((p.K, p.N), p.dtype),
            "Bias": ((p.N,), p.dtype), "D": ((p.M, p.N), p.dtype)}


def epi_ref(x, p, sym):
    d = f64(x["A"]) @ f64(x["B"]) + f64(x["Bias"])
    return {"D": torch.relu(d) if p.with_relu else d}


def epi_torch(x, p, sym):
    # cuBLASLt with the bias (and ReLU) fused into its epilogue.
    a, b, bias, d = x["A"], x["B"], x["Bias"], x["D"]
    if p.with_relu and hasattr(torch, "_addmm_activation"):
        return lambda: torch._addmm_activation(bias, a, b, use_gelu=False)
    if p.with_relu:
        return lambda: torch.relu_(torch.addmm(bias, a, b, out=d))
    return lambda: torch.addmm(bias, a, b, out=d)


def epi_work(p, sym):
    return {"flops": 2 * p.M * p.N * p.K,
            "bytes": memory_work(p, sym, epi_shapes), "bound": "compute"}


def rs_shapes(p, sym):
    b = (p.N, p.K) if p.trans_B else (p.K, p.N)
    return {"A": ((p.M, p.K), p.dtype), "B": (b, p.dtype), "C": ((p.M, p.N), p.dtype)}


def rs_ref(x, p, sym):
    return {"C": f64(x["A"]) @ op(f64(x["B"]), p.trans_B)}


def rs_torch(x, p, sym):
    a, b, c = x["A"], op(x["B"], p.trans_B), x["C"]
    return lambda: torch.matmul(a, b, out=c)


def rs_work(p, sym):
    return {"flops": 2 * p.M * p.N * p.K,
            "bytes": memory_work(p, sym, rs_shapes), "bound": "compute"}


def dyn_dims(p, sym):
    k = sym["K"] if p.dynamic_k else p.K
    return sym["M"], p.N, k


def gemm_dynamic_shapes(p, sym):
    m, n, k = dyn_dims(p, sym)
    return {"A": ((m, k), p.dtype), "B": ((n, k), p.dtype), "C": ((m, n), p.dtype)}


def gemm_dynamic_ref(x, p, sym):
    return {"C": f64(x["A"]) @ f64(x["B"]).T}


def gemm_dynamic_torch(x, p, sym):
    a, b, c = x["A"], x["B"], x["C"]
    return lambda: torch.matmul(a, b.t(), out=c)


def gemm_dynamic_work(p, sym):
    m, n, k = dyn_dims(p, sym)
    return {"flops": 2 * m * n * k,
            "bytes": memory_work(p, sym, gemm_dynamic_shapes), "bound": "compute"}


def splitk_shapes(p, sym):
    return {"A": ((p.M, p.K), p.dtype), "B": ((p.K, p.N), p.dtype),
            "C": ((p.M, p.N), p.out_dtype)}


def splitk_ref(x, p, sym):
    # C is accumulated into: the caller's initial C plus A @ B.
    return {"C": f64(x["C"]) + f64(x["A"]) @ f64(x["B"])}


def splitk_torch(x, p, sym):
    a, b = x["A"], x["B"]
    out = torch.empty((p.M, p.N), dtype=a.dtype, device=a.device)
    return lambda: torch.matmul(a, b, out=out)


def splitk_work(p, sym):
    return {"flops": 2 * p.M * p.N * p.K,
            "bytes": memory_work(p, sym, splitk_shapes, inouts=("C",)),
            "bound": "compute"}


def dequant_shapes(p, sym):
    return {"A": ((p.M, p.K), p.in_dtype), "B": ((p.N, p.K // 2), "uint8"),
            "Ct": ((p.N, p.M), p.out_dtype)}


def decode_4bit(packed, source_format):
    """(N, K/2) uint8, even k in the low nibble -> (N, K) float64 values."""
    codes = torch.stack([packed & 0xF, packed >> 4], dim=-1).flatten(-2).to(torch.int64)
    if source_format == "uint4":
        return codes.to(torch.float64)
    sign = (codes >> 3) & 1
    exponent = (codes >> 1) & 3
    mantissa = (codes & 1).to(torch.float64)
    magnitude = torch.where(exponent == 0, mantissa * 0.5,
                            (2 + mantissa) * torch.pow(2.0, exponent.to(torch.float64)) * 0.25)
    return torch.where(sign == 1, -magnitude, magnitude)


def dequant_ref(x, p, sym):
    w = decode_4bit(x["B"], p.source_format)
    return {"Ct": w @ f64(x["A"]).T}


def dequant_torch(x, p, sym):
    # cuBLAS on weights dequantized ahead of time (the usual fp16 baseline).
    a, ct = x["A"], x["Ct"]
    w = decode_4bit(x["B"], p.source_format).to(a.dtype)
    return lambda: torch.matmul(w, a.t(), out=ct)


def dequant_work(p, sym):
    return {"flops": 2 * p.M * p.N * p.K,
            "bytes": memory_work(p, sym, dequant_shapes), "bound": "compute"}


def gemv_shapes(p, sym):
    return {"A": ((p.K,), p.dtype), "B": ((p.N, p.K), p.dtype), "C": ((p.N,), p.dtype)}


def gemv_ref(x, p, sym):
    return {"C": f64(x["B"]) @ f64(x["A"])}


def gemv_torch(x, p, sym):
    a, b, c = x["A"], x["B"], x["C"]
    return lambda: torch.matmul(b, a, out=c)


def gemv_work(p, sym):
    return {"flops": 2 * p.N * p.K,
            "bytes": memory_work(p, sym, gemv_shapes), "bound": "memory"}


# --- bucketize -----------------------------------------------------------------

def bucketize_shapes(p, sym):
    return {"Values": ((p.num_values,), p.dtype),
            "Boundaries": ((p.num_boundaries,), p.dtype),
            "Out": ((p.num_values,), "int32")}


def bucketize_init(name, t, p, g):
    if name != "Boundaries":
        return False
    vals = torch.randn(t.shape, generator=g, device=t.device, dtype=torch.float32)
    t.copy_(torch.sort(vals.to(t.dtype)).values)
    return True


def bucketize_ref(x, p, sym):
    out = torch.searchsorted(f64(x["Boundaries"]), f64(x["Values"]), right=False)
    return {"Out": out.to(torch.int32)}


def bucketize_torch(x, p, sym):
    v, b, o = x["Values"], x["Boundaries"], x["Out"]
    return lambda: torch.bucketize(v, b, out_int32=True, right=False, out=o)


def bucketize_work(p, sym):
    return {"flops": 0, "bytes": memory_work(p, sym, bucketize_shapes), "bound": "memory"}


# --- cumsum ----------------------------------------------------------------------

def cumsum_shapes(p, sym):
    shape = (p.batch, p.seq_len, p.heads)
    return {"G": (shape, p.input_dtype), "G_new": (shape, p.output_dtype)}


def cumsum_ref(x, p, sym):
    g = f64(x["G"])
    b, s, h = g.shape
    chunks = -(-s // p.block_S)
    padded = torch.zeros((b, chunks * p.block_S, h), dtype=g.dtype, device=g.device)
    padded[:, :s] = g
    view = padded.view(b, chunks, p.block_S, h)
    if p.reverse:
        out = view.flip(2).cumsum(2).flip(2)
    else:
        out = view.cumsum(2)
    return {"G_new": out.reshape(b, chunks * p.block_S, h)[:, :s]}


def cumsum_torch(x, p, sym):
    g, out = x["G"], x["G_new"]
    if p.seq_len % p.block_S:
        return None
    shape = (p.batch, p.seq_len // p.block_S, p.block_S, p.heads)
    return lambda: torch.cumsum(g.view(shape), dim=2, dtype=out.dtype, out=out.view(shape))


def cumsum_work(p, sym):
    return {"flops": 0, "bytes": memory_work(p, sym, cumsum_shapes), "bound": "memory"}


# --- flash_attention ---------------------------------------------------------------

def fa_shapes(p, sym):
    shape = (p.batch, p.seq_len, p.heads, p.dim)
    return {n: (shape, p.dtype) for n in ("Q", "K", "V", "Output")}


def attention_f64(q, k, v, causal, scale):
    """q, k, v: (..., s, d) float64."""
    scores = (q @ k.transpose(-1, -2)) * scale
    if causal:
        sq, sk = scores.shape[-2:]
        mask = torch.ones((sq, sk), dtype=torch.bool, device=q.device).triu(1)
        scores = scores.masked_fill(mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v


def fa_ref(x, p, sym):
    out = torch.empty(x["Q"].shape, dtype=torch.float64, device=x["Q"].device)
    scale = 1.0 / math.sqrt(p.dim)
    heads_per_step = max(1, (1 << 27) // (p.seq_len * p.seq_len))
    for b in range(p.batch):
        for h0 in range(0, p.heads, heads_per_step):
            hs = slice(h0, min(p.heads, h0 + heads_per_step))
            q, k, v = (f64(x[n][b, :, hs]).transpose(0, 1) for n in ("Q", "K", "V"))
            out[b, :, hs] = attention_f64(q, k, v, p.is_causal, scale).transpose(0, 1)
    return {"Output": out}


def fa_torch(x, p, sym):
    q, k, v = (x[n].transpose(1, 2) for n in ("Q", "K", "V"))
    # SDPA wants (b, h, s, d); the transposes are views.
    return lambda: F.scaled_dot_product_attention(q, k, v, is_causal=p.is_causal).transpose(1, 2)


def sdpa_backend(name):
    """A flash_attention baseline: SDPA restricted to one backend (None when
    this torch lacks it; an unsupported shape raises and is recorded)."""
    def make(x, p, sym):
        try:
            from torch.nn.attention import SDPBackend, sdpa_kernel
        except ImportError:
            return None
        backend = getattr(SDPBackend, name, None)
        if backend is None:
            return None
        q, k, v = (x[n].transpose(1, 2) for n in ("Q", "K", "V"))

        def call():
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(
                    q, k, v, is_causal=p.is_causal).transpose(1, 2)
        return call
    return make


def fa_triton(x, p, sym):
    from triton_refs import attention  # only here: refs.py works without Triton
    q, k, v = x["Q"], x["K"], x["V"]
    out = torch.empty_like(q)
    return lambda: attention(q, k, v, out, p.is_causal)


def fa_work(p, sym):
    flops = 4 * p.batch * p.heads * p.seq_len * p.seq_len * p.dim
    if p.is_causal:
        flops //= 2
    return {"flops": flops, "bytes": memory_work(p, sym, fa_shapes), "bound": "compute"}


def sdpa_grads(q, k, v, do, causal, scale=None):
    """dQ, dK, dV of SDPA for the output gradient DO ((b, h, s, d) tensors),
    by autograd in the inputs' dtype."""
    q, k, v = (t.detach().requires_grad_() for t in (q, k, v))
    out = F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)
    return torch.autograd.grad(out, (q, k, v), do)


# --- gqa_attention -------------------------------------------------------------------

def gqa_shapes(p, sym):
    q = (p.batch, p.seq_len, p.heads, p.dim)
    kv = (p.batch, p.seq_len, p.head_kv, p.dim)
    return {"Q": (q, p.dtype), "K": (kv, p.dtype), "V": (kv, p.dtype), "Output": (q, p.dtype)}


def gqa_ref(x, p, sym):
    groups = p.heads // p.head_kv
    out = torch.empty(x["Q"].shape, dtype=torch.float64, device=x["Q"].device)
    scale = 1.0 / math.sqrt(p.dim)
    step = max(groups, (1 << 27) // (p.seq_len * p.seq_len) // groups * groups)
    for b in range(p.batch):
        for h0 in range(0, p.heads, step):
            hs = slice(h0, min(p.heads, h0 + step))
            kvs = slice(h0 // groups, (hs.stop + groups - 1) // groups)
            q = f64(x["Q"][b, :, hs]).transpose(0, 1)
            k, v = (f64(x[n][b, :, kvs]).transpose(0, 1).repeat_interleave(groups, 0)
                    for n in ("K", "V"))
            out[b, :, hs] = attention_f64(q, k, v, p.is_causal, scale).transpose(0, 1)
    return {"Output": out}


def gqa_sdpa(backend=None):
    """SDPA with grouped KV heads (enable_gqa), optionally one backend."""
    def make(x, p, sym):
        q, k, v = (x[n].transpose(1, 2) for n in ("Q", "K", "V"))
        if backend is None:
            return lambda: F.scaled_dot_product_attention(
                q, k, v, is_causal=p.is_causal, enable_gqa=True).transpose(1, 2)
        try:
            from torch.nn.attention import SDPBackend, sdpa_kernel
        except ImportError:
            return None
        chosen = getattr(SDPBackend, backend, None)
        if chosen is None:
            return None

        def call():
            with sdpa_kernel(chosen):
                return F.scaled_dot_product_attention(
                    q, k, v, is_causal=p.is_causal, enable_gqa=True).transpose(1, 2)
        return call
    return make


def gqa_work(p, sym):
    flops = 4 * p.batch * p.heads * p.seq_len * p.seq_len * p.dim
    if p.is_causal:
        flops //= 2
    return {"flops": flops, "bytes": memory_work(p, sym, gqa_shapes), "bound": "compute"}


# --- varlen_attention ----------------------------------------------------------------

def ragged_lengths(total, batch, longest, seed):
    """BATCH sequence lengths in [1, LONGEST] that add up to TOTAL, the first
    one LONGEST (so the grid's bound is reached), the others random but fixed
    by SEED (the work counts need them before any tensor exists)."""
    assert batch <= total <= batch * longest, "no such lengths"
    rng = random.Random(seed)
    lengths = [longest] + [1] * (batch - 1)
    left = total - sum(lengths)
    while left > 0:
        i = rng.randrange(1, batch)
        add = min(left, longest - lengths[i], rng.randint(1, longest))
        lengths[i] += add
        left -= add
    return lengths


def varlen_lengths(p):
    """Query and key lengths of every sequence of a varlen_attention build."""
    lq = ragged_lengths(p.total_q, p.batch, p.max_seqlen_q, 1000 + p.total_q)
    if p.total_kv == p.total_q:
        return lq, lq  # self-attention: as many keys as queries
    longest = min(p.total_kv - p.batch + 1, -(-2 * p.total_kv // p.batch))
    return lq, ragged_lengths(p.total_kv, p.batch, longest, 2000 + p.total_kv)


def offsets(lengths):
    return [0] + [sum(lengths[:i + 1]) for i in range(len(lengths))]


def varlen_init(name, t, p, g):
    if name not in ("cu_seqlens_q", "cu_seqlens_k"):
        return False
    lq, lk = varlen_lengths(p)
    t.copy_(torch.tensor(offsets(lq if name == "cu_seqlens_q" else lk), dtype=t.dtype))
    return True


def varlen_shapes(p, sym):
    q = (p.total_q, p.heads, p.dim)
    kv = (p.total_kv, p.head_kv, p.dim)
    return {"Q": (q, p.dtype), "K": (kv, p.dtype), "V": (kv, p.dtype),
            "cu_seqlens_q": ((p.batch + 1,), "int32"), "cu_seqlens_k": ((p.batch + 1,), "int32"),
            "Output": (q, p.dtype)}


def varlen_attention_f64(q, k, v, causal, scale):
    """(h, lq, d) attention with the bottom-right causal mask; a query that
    sees no key gets zeros."""
    scores = (q @ k.transpose(-1, -2)) * scale
    lq, lk = scores.shape[-2:]
    if causal:
        i = torch.arange(lq, device=q.device).unsqueeze(1)
        j = torch.arange(lk, device=q.device).unsqueeze(0)
        scores = scores.masked_fill(j > i + (lk - lq), float("-inf"))
    probs = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return probs @ v


def varlen_ref(x, p, sym):
    groups = p.heads // p.head_kv
    cq, ck = x["cu_seqlens_q"].tolist(), x["cu_seqlens_k"].tolist()
    out = torch.empty(x["Q"].shape, dtype=torch.float64, device=x["Q"].device)
    scale = 1.0 / math.sqrt(p.dim)
    for b in range(p.batch):
        q = f64(x["Q"][cq[b]:cq[b + 1]]).transpose(0, 1)
        k, v = (f64(x[n][ck[b]:ck[b + 1]]).transpose(0, 1).repeat_interleave(groups, 0)
                for n in ("K", "V"))
        out[cq[b]:cq[b + 1]] = varlen_attention_f64(q, k, v, p.is_causal, scale).transpose(0, 1)
    return {"Output": out}


def varlen_torch(x, p, sym):
    """SDPA per sequence (torch has no packed varlen SDPA): a loop of
    launches, so a slow baseline for many short sequences."""
    lq, lk = varlen_lengths(p)
    if p.is_causal and lq != lk:
        return None  # SDPA's causal mask is top-left aligned
    cq, ck = offsets(lq), offsets(lk)
    views = [tuple(x[n][c[b]:c[b + 1]].transpose(0, 1).unsqueeze(0)
                   for n, c in (("Q", cq), ("K", ck), ("V", ck))) for b in range(p.batch)]

    def call():
        return torch.cat([F.scaled_dot_product_attention(
            q, k, v, is_causal=p.is_causal, enable_gqa=True)[0].transpose(0, 1)
            for q, k, v in views])
    return call


def varlen_work(p, sym):
    lq, lk = varlen_lengths(p)
    pairs = 0
    for a, b in zip(lq, lk):
        # Visible (query, key) pairs, bottom-right causal.
        pairs += sum(max(0, min(b, i + 1 + b - a)) for i in range(a)) if p.is_causal else a * b
    return {"flops": 4 * p.heads * p.dim * pairs,
            "bytes": memory_work(p, sym, varlen_shapes), "bound": "compute"}


# --- flash_decoding --------------------------------------------------------------------

def decode_lengths(p):
    """Cached positions per batch entry: the first full, the others random in
    [1, seqlen_kv], fixed by the shape (the work count needs them)."""
    rng = random.Random(3000 + p.batch * 7 + p.seqlen_kv)
    return [p.seqlen_kv] + [rng.randint(1, p.seqlen_kv) for _ in range(p.batch - 1)]


def decode_init(name, t, p, g):
    if name != "cache_seqlens":
        return False
    t.copy_(torch.tensor(decode_lengths(p), dtype=t.dtype))
    return True


def decode_shapes(p, sym):
    b, h, hkv, s, d = p.batch, p.heads, p.head_kv, p.seqlen_kv, p.dim
    return {"Q": ((b, h, d), p.dtype), "K": ((b, s, hkv, d), p.dtype),
            "V": ((b, s, hkv, d), p.dtype), "cache_seqlens": ((b,), "int32"),
            "glse": ((b, h, p.num_split), p.accum_dtype),
            "Output_partial": ((b, h, p.num_split, d), p.accum_dtype),
            "Output": ((b, h, d), p.dtype)}


def decode_ref(x, p, sym):
    groups = p.heads // p.head_kv
    lengths = x["cache_seqlens"].tolist()
    out = torch.empty(x["Output"].shape, dtype=torch.float64, device=x["Q"].device)
    scale = 1.0 / math.sqrt(p.dim)
    for b, n in enumerate(lengths):
        q = f64(x["Q"][b]).unsqueeze(1)  # (h, 1, d)
        k, v = (f64(x[name][b, :n]).transpose(0, 1).repeat_interleave(groups, 0)
                for name in ("K", "V"))
        out[b] = attention_f64(q, k, v, False, scale).squeeze(1)
    return {"Output": out}


def decode_torch(x, p, sym):
    """SDPA over the whole cache with a boolean mask of the cached positions."""
    lengths = torch.tensor(decode_lengths(p), device=x["Q"].device)
    mask = (torch.arange(p.seqlen_kv, device=x["Q"].device) < lengths[:, None])
    mask = mask[:, None, None, :]  # (b, 1, 1, s)
    q = x["Q"].unsqueeze(2)  # (b, h, 1, d)
    k, v = (x[n].transpose(1, 2) for n in ("K", "V"))
    return lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=mask,
                                                  enable_gqa=True).squeeze(2)


def decode_work(p, sym):
    """The bytes of K and V the cached lengths cover (read once) plus Q and
    the output: the bandwidth the goal compares with the copy bandwidth."""
    cached = sum(decode_lengths(p))
    kv = 2 * cached * p.head_kv * p.dim * itemsize(p.dtype)
    qo = 2 * p.batch * p.heads * p.dim * itemsize(p.dtype)
    return {"flops": 4 * cached * p.heads * p.dim, "bytes": kv + qo, "bound": "memory"}


def decode_copy(kind):
    """A copy that moves the decoding step's byte count (decode_work's bytes:
    half read, half written, the convention of the calibration's copy)
    between two buffers of its own, one pair per input set (rotated as the
    kernel's): the copy bandwidth at this size, next to the calibration's
    2 GiB one. KIND is "memcpy" (copy_) or "kernel" (an elementwise
    negation, as the calibration's kernel copy)."""
    def make(x, p, sym):
        n = decode_work(p, sym)["bytes"] // 2 // itemsize(p.dtype)
        src = torch.zeros(n, dtype=x["K"].dtype, device=x["K"].device)
        dst = torch.empty_like(src)
        if kind == "memcpy":
            return lambda: dst.copy_(src)
        return lambda: torch.neg(src, out=dst)
    return make


# --- flash_attention_bwd -----------------------------------------------------------------

def bwd_shapes(p, sym):
    shape = (p.batch, p.seq_len, p.heads, p.dim)
    stats = (p.batch, p.heads, p.seq_len)
    return {"Q": (shape, p.dtype), "K": (shape, p.dtype), "V": (shape, p.dtype),
            "O": (shape, p.dtype), "dO": (shape, p.dtype), "lse": (stats, p.accum_dtype),
            "Delta": (stats, p.accum_dtype), "dQ_accum": (shape, p.accum_dtype),
            "dQ": (shape, p.dtype), "dK": (shape, p.dtype), "dV": (shape, p.dtype)}


def bwd_derive(x, p, sym):
    """O and lse as the forward computes them from Q, K, V: O rounded to
    dtype, lse the base-2 log-sum-exp of the scaled scores."""
    scale = 1.0 / math.sqrt(p.dim)
    for b in range(p.batch):
        for h in range(p.heads):
            q, k, v = (f64(x[n][b, :, h]) for n in ("Q", "K", "V"))
            scores = (q @ k.t()) * scale
            if p.is_causal:
                scores = scores.masked_fill(
                    torch.ones_like(scores, dtype=torch.bool).triu(1), float("-inf"))
            x["lse"][b, h] = torch.logsumexp(scores, dim=-1) / math.log(2)
            x["O"][b, :, h] = torch.softmax(scores, dim=-1) @ v


def bwd_ref(x, p, sym):
    grads = {n: torch.empty(x[n[1:]].shape, dtype=torch.float64, device=x["Q"].device)
             for n in ("dQ", "dK", "dV")}
    for b in range(p.batch):
        q, k, v, do = (f64(x[n][b]).transpose(0, 1) for n in ("Q", "K", "V", "dO"))
        dq, dk, dv = sdpa_grads(q, k, v, do, p.is_causal)
        for name, t in (("dQ", dq), ("dK", dk), ("dV", dv)):
            grads[name][b] = t.transpose(0, 1)
    return grads


def bwd_torch(backend=None):
    """SDPA's backward alone: the forward runs once when the callable is made."""
    def make(x, p, sym):
        q, k, v, do = (x[n].transpose(1, 2).detach().requires_grad_(n != "dO")
                       for n in ("Q", "K", "V", "dO"))
        ctx = None
        if backend is not None:
            try:
                from torch.nn.attention import SDPBackend, sdpa_kernel
            except ImportError:
                return None
            chosen = getattr(SDPBackend, backend, None)
            if chosen is None:
                return None
            ctx = lambda: sdpa_kernel(chosen)  # noqa: E731
        with ctx() if ctx else torch.enable_grad():
            out = F.scaled_dot_product_attention(q, k, v, is_causal=p.is_causal)
        # The gradients as (b, s, h, d) views, the kernel's layout.
        return lambda: tuple(g.transpose(1, 2) for g in torch.autograd.grad(
            out, (q, k, v), do, retain_graph=True))
    return make


def bwd_work(p, sym):
    # Five matmuls of the forward's size (two recompute S and dP, three
    # give dV, dK, dQ): 2.5x the forward's flops, half when causal.
    flops = 10 * p.batch * p.heads * p.seq_len * p.seq_len * p.dim
    if p.is_causal:
        flops //= 2
    return {"flops": flops, "bytes": memory_work(p, sym, bwd_shapes), "bound": "compute"}


# --- flashmla_decode ------------------------------------------------------------------

def mla_lengths(p):
    """Cached positions per batch entry: every entry seqlen_kv, or, for a
    ragged shape (seqlen_kv not a multiple of block_N), the first full and
    the others random in [1, seqlen_kv], fixed by the shape."""
    if p.seqlen_kv % p.block_N == 0:
        return [p.seqlen_kv] * p.batch
    rng = random.Random(5000 + p.batch * 7 + p.seqlen_kv)
    return [p.seqlen_kv] + [rng.randint(1, p.seqlen_kv) for _ in range(p.batch - 1)]


def mla_pages(p):
    return (p.seqlen_kv + p.page_size - 1) // p.page_size


def mla_init(name, t, p, g):
    """A paged cache: the pages of all batch entries in a random order."""
    if name == "cache_seqlens":
        t.copy_(torch.tensor(mla_lengths(p), dtype=t.dtype))
        return True
    if name == "block_table":
        perm = torch.randperm(t.numel(), generator=g, device=t.device)
        t.copy_(perm.view(t.shape).to(t.dtype))
        return True
    return False


def mla_shapes(p, sym):
    b, h, pages = p.batch, p.heads, mla_pages(p)
    return {"Q": ((b, h, p.dim), p.dtype), "Q_pe": ((b, h, p.pe_dim), p.dtype),
            "KV": ((b * pages, p.page_size, p.dim), p.dtype),
            "K_pe": ((b * pages, p.page_size, p.pe_dim), p.dtype),
            "block_table": ((b, pages), "int32"), "cache_seqlens": ((b,), "int32"),
            "glse": ((b, h, p.num_split), p.accum_dtype),
            "Output_partial": ((b, h, p.num_split, p.dim), p.accum_dtype),
            "Output": ((b, h, p.dim), p.dtype)}


def mla_gather(x, p, b, n):
    """Positions [0, n) of batch entry b, read through the block table."""
    pos = torch.arange(n, device=x["KV"].device)
    page = x["block_table"][b].long()[pos // p.page_size]
    row = pos % p.page_size
    return x["KV"][page, row], x["K_pe"][page, row]


def mla_ref(x, p, sym):
    scale = 1.0 / math.sqrt(p.dim + p.pe_dim)
    out = torch.empty(x["Output"].shape, dtype=torch.float64, device=x["Q"].device)
    for b, n in enumerate(x["cache_seqlens"].tolist()):
        kv, kpe = (f64(t) for t in mla_gather(x, p, b, n))
        scores = f64(x["Q"][b]) @ kv.t() + f64(x["Q_pe"][b]) @ kpe.t()
        out[b] = torch.softmax(scores * scale, dim=-1) @ kv
    return {"Output": out}


def mla_torch(x, p, sym):
    """SDPA with the heads as queries against the latent keys and the rope
    keys concatenated, gathered from the pages once (outside the timing),
    with a mask of the cached positions."""
    s = p.seqlen_kv
    lengths = torch.tensor(mla_lengths(p), device=x["Q"].device)
    k = torch.zeros((p.batch, s, p.dim + p.pe_dim), dtype=x["Q"].dtype, device=x["Q"].device)
    for b, n in enumerate(lengths.tolist()):
        kv, kpe = mla_gather(x, p, b, n)
        k[b, :n] = torch.cat([kv, kpe], dim=-1)
    q = torch.cat([x["Q"], x["Q_pe"]], dim=-1).unsqueeze(1)  # (b, 1, h, d)
    k, v = k.unsqueeze(1), k[..., :p.dim].unsqueeze(1)
    mask = (torch.arange(s, device=q.device) < lengths[:, None])[:, None, None, :]
    scale = 1.0 / math.sqrt(p.dim + p.pe_dim)
    return lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=mask,
                                                  scale=scale).squeeze(1)


def mla_work(p, sym):
    """FlashMLA's count: Q K^T over dim + pe_dim and P V over dim for every
    cached position; bytes: the cached rows, Q and the output."""
    cached = sum(mla_lengths(p))
    flops = 2 * p.heads * cached * (2 * p.dim + p.pe_dim)
    size = itemsize(p.dtype)
    moved = (cached * (p.dim + p.pe_dim) + 2 * p.batch * p.heads * p.dim
             + p.batch * p.heads * p.pe_dim) * size
    return {"flops": flops, "bytes": moved, "bound": "compute"}


# --- flashmla_decode_pipelined -----------------------------------------------------------

def mla_contig_shapes(p, sym):
    b, h, s = p.batch, p.heads, p.seqlen_kv
    return {"Q": ((b, h, p.dim), p.dtype), "Q_pe": ((b, h, p.pe_dim), p.dtype),
            "KV": ((b, s, p.kv_head_num, p.dim), p.dtype),
            "K_pe": ((b, s, p.kv_head_num, p.pe_dim), p.dtype),
            "glse": ((b, h, p.num_split), p.accum_dtype),
            "Output_partial": ((b, h, p.num_split, p.dim), p.accum_dtype),
            "Output": ((b, h, p.dim), p.dtype)}


def mla_contig_ref(x, p, sym):
    scale = 1.0 / math.sqrt(p.dim + p.pe_dim)
    out = torch.empty(x["Output"].shape, dtype=torch.float64, device=x["Q"].device)
    step = max(1, (1 << 26) // (p.heads * p.seqlen_kv))
    for b0 in range(0, p.batch, step):
        bs = slice(b0, min(p.batch, b0 + step))
        kv = f64(x["KV"][bs, :, 0])
        scores = f64(x["Q"][bs]) @ kv.transpose(1, 2)
        scores += f64(x["Q_pe"][bs]) @ f64(x["K_pe"][bs, :, 0]).transpose(1, 2)
        out[bs] = torch.softmax(scores * scale, dim=-1) @ kv
    return {"Output": out}


def mla_contig_torch(x, p, sym):
    # One SDPA "head" whose queries are the heads: (b, 1, h, dim + pe_dim)
    # against the concatenated latent keys (built once, outside the timing).
    q = torch.cat([x["Q"], x["Q_pe"]], dim=-1).unsqueeze(1)
    k = torch.cat([x["KV"][:, :, 0], x["K_pe"][:, :, 0]], dim=-1).unsqueeze(1)
    v = x["KV"][:, :, 0].unsqueeze(1)
    scale = 1.0 / math.sqrt(p.dim + p.pe_dim)
    return lambda: F.scaled_dot_product_attention(q, k, v, scale=scale).squeeze(1)


def mla_contig_work(p, sym):
    flops = 2 * p.batch * p.heads * p.seqlen_kv * (2 * p.dim + p.pe_dim)
    size = itemsize(p.dtype)
    moved = (p.batch * p.seqlen_kv * (p.dim + p.pe_dim) + 2 * p.batch * p.heads * p.dim
             + p.batch * p.heads * p.pe_dim) * size
    return {"flops": flops, "bytes": moved, "bound": "compute"}


# --- layernorm, rmsnorm, softmax ----------------------------------------------------------

def ln_shapes(p, sym):
    return {"X": ((p.M, p.N), p.dtype), "gamma": ((p.N,), p.dtype),
            "beta": ((p.N,), p.dtype), "Y": ((p.M, p.N), p.dtype)}


def ln_ref(x, p, sym):
    v = f64(x["X"])
    mean = v.mean(dim=1, keepdim=True)
    var = ((v - mean) ** 2).mean(dim=1, keepdim=True)
    y = (v - mean) / torch.sqrt(var + p.eps) * f64(x["gamma"]) + f64(x["beta"])
    return {"Y": y}


def ln_torch(x, p, sym):
    X, g, b = x["X"], x["gamma"], x["beta"]
    return lambda: F.layer_norm(X, (p.N,), g, b, p.eps)


def ln_work(p, sym):
    return {"flops": 0, "bytes": memory_work(p, sym, ln_shapes), "bound": "memory"}


def rms_shapes(p, sym):
    return {"X": ((p.M, p.N), p.dtype), "W": ((p.N,), p.dtype), "Y": ((p.M, p.N), p.dtype)}


def rms_ref(x, p, sym):
    v = f64(x["X"])
    y = v * torch.rsqrt((v * v).mean(dim=1, keepdim=True) + p.eps)
    if p.has_weight:
        y = y * f64(x["W"])
    return {"Y": y}


def rms_torch(x, p, sym):
    X = x["X"]
    W = x["W"] if p.has_weight else None
    return lambda: F.rms_norm(X, (p.N,), W, p.eps)


def rms_work(p, sym):
    moved = memory_work(p, sym, rms_shapes)
    if not p.has_weight:
        moved -= nbytes((p.N,), p.dtype)
    return {"flops": 0, "bytes": moved, "bound": "memory"}


def softmax_shapes(p, sym):
    return {"X": ((p.M, p.N), p.dtype), "Y": ((p.M, p.N), p.dtype)}


def softmax_ref(x, p, sym):
    v = f64(x["X"])
    return {"Y": torch.log_softmax(v, dim=1) if p.log_softmax else torch.softmax(v, dim=1)}


def softmax_torch(x, p, sym):
    X = x["X"]
    fn = torch.log_softmax if p.log_softmax else torch.softmax
    return lambda: fn(X, dim=-1)


def softmax_work(p, sym):
    return {"flops": 0, "bytes": memory_work(p, sym, softmax_shapes), "bound": "memory"}


# --- minmax, reduce, topk ---------------------------------------------------------------------

def minmax_shapes(p, sym):
    return {"A": ((p.M, p.N), p.dtype), "Stats": ((3,), p.accum_dtype)}


def minmax_init(name, t, p, g):
    if name != "Stats":
        return False
    t.copy_(torch.tensor([float("-inf"), float("inf"), 0.0], dtype=t.dtype))
    return True


def minmax_ref(x, p, sym):
    a = f64(x["A"])
    return {"Stats": torch.stack([a.max(), a.min(), a.abs().max()])}


def minmax_torch(x, p, sym):
    a = x["A"]
    return lambda: torch.aminmax(a)


def minmax_work(p, sym):
    return {"flops": 0, "bytes": nbytes((p.M, p.N), p.dtype), "bound": "memory"}


def reduce_out_len(p):
    return p.M if p.dim == 1 else p.N


def reduce_shapes(p, sym):
    return {"A": ((p.M, p.N), p.dtype), "Out": ((reduce_out_len(p),), p.accum_dtype)}


def reduce_apply(a, op, dim, out_dtype=None):
    if op in ("absmax", "abssum"):
        a = a.abs()
    if op in ("sum", "abssum"):
        return torch.sum(a, dim=dim, dtype=out_dtype)
    if op in ("max", "absmax"):
        return torch.amax(a, dim=dim)
    return torch.amin(a, dim=dim)


def reduce_ref(x, p, sym):
    return {"Out": reduce_apply(f64(x["A"]), p.op, p.dim)}


def reduce_torch(x, p, sym):
    a, out_dtype = x["A"], torch_dtype(p.accum_dtype)
    return lambda: reduce_apply(a, p.op, p.dim, out_dtype)


def reduce_work(p, sym):
    return {"flops": 0, "bytes": memory_work(p, sym, reduce_shapes), "bound": "memory"}


def topk_shapes(p, sym):
    return {"Logits": ((p.M, p.N), p.dtype), "Values": ((p.M, p.k), p.dtype),
            "Indices": ((p.M, p.k), "int32")}


def topk_init(name, t, p, g):
    # Distinct values per row (a shuffled ramp, exact in float16 for N <= 4096
    # and in bfloat16 for N <= 512): ties would make the indices ambiguous.
    if name != "Logits":
        return False
    keys = torch.rand(t.shape, generator=g, device=t.device)
    ramp = torch.argsort(keys, dim=1).to(torch.float32)
    t.copy_(((ramp - t.shape[1] / 2) * 0.25).to(t.dtype))
    return True


def topk_ref(x, p, sym):
    values, indices = torch.topk(f64(x["Logits"]), p.k, dim=1, largest=True, sorted=True)
    return {"Values": values, "Indices": indices.to(torch.int32)}


def topk_torch(x, p, sym):
    logits = x["Logits"]
    return lambda: torch.topk(logits, p.k, dim=1)


def topk_work(p, sym):
    return {"flops": 0, "bytes": memory_work(p, sym, topk_shapes), "bound": "memory"}


SPECS: Dict[str, Spec] = {
    "elementwise_add": Spec(ea_shapes, ea_ref,
                            lambda p, s: {"flops": p.M * p.N,
                                          "bytes": memory_work(p, s, ea_shapes),
                                          "bound": "memory"},
                            torch=ea_torch, baseline="torch.add"),
    "gemm": Spec(gemm_shapes, gemm_ref, gemm_work, torch=gemm_torch,
                 baseline="torch.matmul (cuBLAS)", short="cuBLAS",
                 extras={"Triton": gemm_triton}, tolerance=tf32_tolerance),
    "gemm_transpose": Spec(gt_shapes, gt_ref, gt_work, torch=gt_torch,
                           baseline="torch.matmul on op(A), op(B) views (cuBLAS)",
                           short="cuBLAS", extras={"Triton": gt_triton},
                           tolerance=tf32_tolerance),
    "gemm_int8": Spec(nt_shapes, nt_ref, nt_work, torch=int8_torch,
                      exact=frozenset({"C"}), baseline="torch._int_mm (cuBLASLt int8)",
                      short="_int_mm"),
    "gemm_fp8": Spec(nt_shapes, nt_ref, nt_work, torch=fp8_torch,
                     baseline="torch._scaled_mm (cuBLASLt fp8, scales 1.0, fast accumulation)",
                     short="_scaled_mm", extras={"_scaled_mm-f32acc": fp8_slow_accum}),
    "gemm_epilogue": Spec(epi_shapes, epi_ref, epi_work, torch=epi_torch,
                          baseline="torch._addmm_activation (cuBLASLt bias+ReLU epilogue)",
                          short="cuBLASLt"),
    "gemm_rs": Spec(rs_shapes, rs_ref, rs_work, torch=rs_torch,
                    baseline="torch.matmul (cuBLAS)", short="cuBLAS"),
    "gemm_dynamic": Spec(gemm_dynamic_shapes, gemm_dynamic_ref, gemm_dynamic_work,
                         torch=gemm_dynamic_torch, baseline="torch.matmul(A, B.t()) (cuBLAS)",
                         short="cuBLAS"),
    "splitk_gemm": Spec(splitk_shapes, splitk_ref, splitk_work, torch=splitk_torch,
                        baseline="torch.matmul fp16 (cuBLAS, no accumulate)",
                        baseline_is_ref=False, short="cuBLAS"),
    "dequant_gemm": Spec(dequant_shapes, dequant_ref, dequant_work, torch=dequant_torch,
                         baseline="cuBLAS fp16 on pre-dequantized W", short="cuBLAS-f16"),
    "gemv": Spec(gemv_shapes, gemv_ref, gemv_work, torch=gemv_torch,
                 baseline="torch.matmul (cuBLAS gemv)"),
    "bucketize": Spec(bucketize_shapes, bucketize_ref, bucketize_work,
                      torch=bucketize_torch, init=bucketize_init,
                      exact=frozenset({"Out"}), baseline="torch.bucketize"),
    "cumsum": Spec(cumsum_shapes, cumsum_ref, cumsum_work, torch=cumsum_torch,
                   baseline="torch.cumsum on the chunk view"),
    "flash_attention": Spec(fa_shapes, fa_ref, fa_work, torch=fa_torch,
                            baseline="F.scaled_dot_product_attention (its default backend)",
                            short="SDPA",
                            extras={"SDPA-flash": sdpa_backend("FLASH_ATTENTION"),
                                    "SDPA-cuDNN": sdpa_backend("CUDNN_ATTENTION"),
                                    "Triton": fa_triton}),
    "flash_attention_schedule": Spec(fa_shapes, fa_ref, fa_work, torch=fa_torch,
                                     baseline="F.scaled_dot_product_attention "
                                              "(its default backend)",
                                     short="SDPA"),
    "gqa_attention": Spec(gqa_shapes, gqa_ref, gqa_work, torch=gqa_sdpa(),
                          baseline="F.scaled_dot_product_attention(enable_gqa=True)",
                          short="SDPA",
                          extras={"SDPA-flash": gqa_sdpa("FLASH_ATTENTION"),
                                  "SDPA-cuDNN": gqa_sdpa("CUDNN_ATTENTION")}),
    "varlen_attention": Spec(varlen_shapes, varlen_ref, varlen_work, torch=varlen_torch,
                             init=varlen_init,
                             baseline="SDPA(enable_gqa=True) per sequence", short="SDPA"),
    "flash_decoding": Spec(decode_shapes, decode_ref, decode_work, torch=decode_torch,
                           init=decode_init, workspace=frozenset({"glse", "Output_partial"}),
                           baseline="SDPA(enable_gqa=True) with a length mask",
                           extras={"copy-same-bytes": decode_copy("memcpy"),
                                   "neg-same-bytes": decode_copy("kernel")}),
    "flash_attention_bwd": Spec(bwd_shapes, bwd_ref, bwd_work, torch=bwd_torch(),
                                derive=bwd_derive,
                                workspace=frozenset({"Delta", "dQ_accum"}),
                                baseline="SDPA backward (autograd.grad, its default backend)",
                                short="SDPA",
                                extras={"SDPA-flash": bwd_torch("FLASH_ATTENTION"),
                                        "SDPA-cuDNN": bwd_torch("CUDNN_ATTENTION")}),
    "flashmla_decode": Spec(mla_shapes, mla_ref, mla_work, torch=mla_torch, init=mla_init,
                            workspace=frozenset({"glse", "Output_partial"}),
                            baseline="SDPA over concatenated latent K (gathered pages)"),
    "flashmla_decode_pipelined": Spec(mla_contig_shapes, mla_contig_ref, mla_contig_work,
                                      torch=mla_contig_torch,
                                      workspace=frozenset({"glse", "Output_partial"}),
                                      baseline="SDPA over concatenated latent K"),
    "layernorm": Spec(ln_shapes, ln_ref, ln_work, torch=ln_torch, baseline="F.layer_norm"),
    "rmsnorm": Spec(rms_shapes, rms_ref, rms_work, torch=rms_torch, baseline="F.rms_norm"),
    "softmax": Spec(softmax_shapes, softmax_ref, softmax_work, torch=softmax_torch,
                    baseline="torch.softmax / log_softmax"),
    "minmax": Spec(minmax_shapes, minmax_ref, minmax_work, torch=minmax_torch,
                   init=minmax_init, exact=frozenset({"Stats"}), baseline="torch.aminmax"),
    "reduce": Spec(reduce_shapes, reduce_ref, reduce_work, torch=reduce_torch,
                   baseline="torch.sum/amax/amin"),
    "topk": Spec(topk_shapes, topk_ref, topk_work, torch=topk_torch, init=topk_init,
                 exact=frozenset({"Values", "Indices"}), baseline="torch.topk"),
}

# Manifest kernel names (the factory names) that differ from the file stems.
SPECS["matmul"] = SPECS["gemm"]
SPECS["matmul_transpose"] = SPECS["gemm_transpose"]
SPECS["matmul_int8"] = SPECS["gemm_int8"]
SPECS["matmul_fp8"] = SPECS["gemm_fp8"]
SPECS["matmul_bias_relu"] = SPECS["gemm_epilogue"]
SPECS["matmul_rs"] = SPECS["gemm_rs"]
SPECS["matmul_dynamic_m"] = SPECS["gemm_dynamic"]
SPECS["matmul_fp16_fp4"] = SPECS["dequant_gemm"]
SPECS["chunk_cumsum"] = SPECS["cumsum"]
SPECS["layer_norm"] = SPECS["layernorm"]
SPECS["rms_norm"] = SPECS["rmsnorm"]

# Relative-error thresholds ||out - ref|| / ||ref|| by output dtype: the
# output's own rounding (fp16 ~3e-4, bf16 ~2e-3 RMS) with headroom; float32
# outputs come from float32 arithmetic on exact inputs (METHOD.md: far under
# 1e-3).
TF32_THRESHOLD = 1e-2
THRESHOLDS = {"float64": 1e-12, "float32": 1e-4, "float16": 2e-3, "bfloat16": 1e-2,
              "float8_e4m3": 1e-1, "float8_e5m2": 2e-1}
