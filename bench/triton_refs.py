"""Triton baselines for bench/refs.py, in the style of the Triton tutorials,
each autotuned over a few tile configurations suited to H100/H200.

Imported only when a Triton baseline runs: bench/refs.py works without
Triton, and a missing Triton shows up as that baseline's error.

matmul(a, b, c) computes c = a @ b for 2-D tensors of any strides (a
transposed operand is a transposed view), fp16/bf16 (tf32 for float32)
inputs, accumulating in float32 and storing in c's dtype: grouped block
order, a K loop, a float32 accumulator.

attention(q, k, v, out, causal) is the FlashAttention-2 forward on
(batch, seq, heads, dim) tensors, the layout of examples/flash_attention.tile:
one block per BLOCK_M query rows of one head, an online base-2 softmax.
"""

import triton
import triton.language as tl


def _configs():
    shapes = [(128, 256, 64, 3, 8), (256, 128, 64, 3, 8), (128, 128, 64, 4, 4),
              (128, 128, 32, 4, 4), (64, 256, 32, 4, 4)]
    return [triton.Config({"BLOCK_M": m, "BLOCK_N": n, "BLOCK_K": k, "GROUP_M": 8},
                          num_stages=s, num_warps=w) for m, n, k, s, w in shapes]


@triton.autotune(configs=_configs(), key=["M", "N", "K"])
@triton.jit
def _matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                   stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                   GROUP_M: tl.constexpr):
    # Blocks are visited in groups of GROUP_M block rows, column by column,
    # so that consecutive blocks share A and B tiles in L2.
    pid = tl.program_id(axis=0)
    blocks_m = tl.cdiv(M, BLOCK_M)
    blocks_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * blocks_n
    first_m = (pid // per_group) * GROUP_M
    group_rows = min(blocks_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_rows
    pid_n = (pid % per_group) // group_rows

    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    # Out-of-range rows and columns wrap around (their results are masked at
    # the store), so only the K tail needs a load mask.
    a_ptrs = a_ptr + (rows % M)[:, None] * stride_am + ks[None, :] * stride_ak
    b_ptrs = b_ptr + ks[:, None] * stride_bk + (cols % N)[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=ks[None, :] < k_left, other=0.0)
        b = tl.load(b_ptrs, mask=ks[:, None] < k_left, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    c_ptrs = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=mask)


def matmul(a, b, c):
    """c = a @ b (a: (M, K), b: (K, N), c: (M, N)); returns c."""
    M, K = a.shape
    N = b.shape[1]
    assert b.shape[0] == K and tuple(c.shape) == (M, N), "matmul: shapes do not match"

    def grid(meta):
        return (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)

    _matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                         b.stride(1), c.stride(0), c.stride(1))
    return c


def _attention_configs():
    shapes = [(128, 64, 3, 8), (128, 64, 3, 4), (64, 64, 3, 4), (128, 32, 4, 4)]
    return [triton.Config({"BLOCK_M": m, "BLOCK_N": n}, num_stages=s, num_warps=w)
            for m, n, s, w in shapes]


@triton.autotune(configs=_attention_configs(), key=["S", "H", "D", "CAUSAL"])
@triton.jit
def _attention_kernel(Q, K, V, O, stride_b, stride_s, stride_h, H, S, scale_log2,
                      D: tl.constexpr, CAUSAL: tl.constexpr,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # One block: BLOCK_M query rows of one (batch, head); keys and values
    # stream through in BLOCK_N steps with an online softmax in base 2.
    start_m = tl.program_id(0)
    bh = tl.program_id(1)
    base = (bh // H) * stride_b + (bh % H) * stride_h
    rows = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, D)
    q = tl.load(Q + base + rows[:, None] * stride_s + dims[None, :],
                mask=rows[:, None] < S, other=0.0)
    row_max = tl.full([BLOCK_M], float("-inf"), tl.float32)
    row_sum = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, D], tl.float32)
    hi = S
    if CAUSAL:
        hi = tl.minimum((start_m + 1) * BLOCK_M, S)
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + tl.arange(0, BLOCK_N)
        kt = tl.load(K + base + cols[None, :] * stride_s + dims[:, None],
                     mask=cols[None, :] < S, other=0.0)
        scores = tl.dot(q, kt) * scale_log2
        valid = cols[None, :] < S
        if CAUSAL:
            valid = valid & (rows[:, None] >= cols[None, :])
        scores = tl.where(valid, scores, float("-inf"))
        new_max = tl.maximum(row_max, tl.max(scores, 1))
        p = tl.math.exp2(scores - new_max[:, None])
        alpha = tl.math.exp2(row_max - new_max)
        row_sum = row_sum * alpha + tl.sum(p, 1)
        v = tl.load(V + base + cols[:, None] * stride_s + dims[None, :],
                    mask=cols[:, None] < S, other=0.0)
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        row_max = new_max
    out = acc / row_sum[:, None]
    tl.store(O + base + rows[:, None] * stride_s + dims[None, :],
             out.to(O.dtype.element_ty), mask=rows[:, None] < S)


def attention(q, k, v, out, causal):
    """FlashAttention forward on contiguous (batch, seq, heads, dim) tensors,
    softmax scale 1/sqrt(dim); writes and returns out."""
    batch, seq, heads, dim = q.shape
    assert q.is_contiguous() and k.is_contiguous() and v.is_contiguous()
    scale_log2 = dim ** -0.5 * 1.44269504

    def grid(meta):
        return (triton.cdiv(seq, meta["BLOCK_M"]), batch * heads)

    _attention_kernel[grid](q, k, v, out, q.stride(0), q.stride(1), q.stride(2), heads, seq,
                            scale_log2, D=dim, CAUSAL=bool(causal))
    return out
