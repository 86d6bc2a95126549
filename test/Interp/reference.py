#!/usr/bin/env python3
"""Checks a tilec-run result of an example against a plain Python reference.

usage: reference.py [--require] EXAMPLE[@VARIANT] RESULT.txt

RESULT.txt is tilec-run's output (every parameter after the run, inputs
unchanged). The reference recomputes the example's outputs from its inputs
with the formula in the example's header comment, in double precision, and
fails (exit 1) on an element off by more than 2e-2 * |expected| + 1e-2 *
the mean |expected| of that output (integer outputs must be exact).
Examples without a reference here exit 0 with a note (1 with --require,
for examples that have no CUDA-core lowering to be checked against); they
are still checked against the other targets and the CUDA-core lowering.
"""
import math
import sys


def read(path, dtypes=None):
    """The parameters' values; DTYPES, when given, receives their dtypes."""
    params, name, values = {}, None, None
    with open(path) as f:
        for line in f:
            if line.startswith("param "):
                name = line.split()[1]
                values = params.setdefault(name, [])
                if dtypes is not None:
                    dtypes[name] = line.split()[2]
            else:
                values.append(float(line))
    return params


def matmul(a, b, m, n, k, trans_b=False, trans_a=False):
    out = [0.0] * (m * n)
    for i in range(m):
        row = a[i::m] if trans_a else a[i * k:(i + 1) * k]
        for j in range(n):
            if trans_b:
                col = b[j * k:(j + 1) * k]
            else:
                col = b[j::n]
            out[i * n + j] = sum(x * y for x, y in zip(row, col))
    return out


def gemm(p):
    m = 128
    k = len(p["A"]) // m
    n = len(p["C"]) // m
    return {"C": matmul(p["A"], p["B"], m, n, k)}


def gemm_nt(p):
    m = 128
    k = len(p["A"]) // m
    n = len(p["C"]) // m
    return {"C": matmul(p["A"], p["B"], m, n, k, trans_b=True)}


def gemm_tn(p):
    m = 128
    k = len(p["A"]) // m
    n = len(p["C"]) // m
    return {"C": matmul(p["A"], p["B"], m, n, k, trans_a=True)}


def gemm_tt(p):
    m = 128
    k = len(p["A"]) // m
    n = len(p["C"]) // m
    return {"C": matmul(p["A"], p["B"], m, n, k, trans_b=True, trans_a=True)}


def gemm_epilogue(p):
    m, n = 128, len(p["Bias"])
    k = len(p["A"]) // m
    c = matmul(p["A"], p["B"], m, n, k)
    return {"D": [max(c[i] + p["Bias"][i % n], 0.0) for i in range(m * n)]}


def elementwise_add(p):
    return {"C": [a + b for a, b in zip(p["A"], p["B"])]}


def rows(x, n):
    return [x[i:i + n] for i in range(0, len(x), n)]


def reduce(p):
    n = len(p["A"]) // len(p["Out"])
    return {"Out": [sum(r) for r in rows(p["A"], n)]}


def softmax(p):
    out = []
    for r in rows(p["X"], 256):
        mx = max(r)
        e = [math.exp(x - mx) for x in r]
        out += [x / sum(e) for x in e]
    return {"Y": out}


def rmsnorm(p):
    n = len(p["W"])
    out = []
    for r in rows(p["X"], n):
        s = 1.0 / math.sqrt(sum(x * x for x in r) / n + 1e-6)
        out += [x * s * w for x, w in zip(r, p["W"])]
    return {"Y": out}


def layernorm(p):
    n = len(p["gamma"])
    out = []
    for r in rows(p["X"], n):
        mean = sum(r) / n
        var = sum((x - mean) ** 2 for x in r) / n
        s = 1.0 / math.sqrt(var + 1e-5)
        out += [(x - mean) * s * g + b
                for x, g, b in zip(r, p["gamma"], p["beta"])]
    return {"Y": out}


def gemv(p):
    k = len(p["A"])
    return {"C": [sum(a * b for a, b in zip(p["A"], r))
                  for r in rows(p["B"], k)]}


def minmax(p):
    a = p["A"]
    # Stats starts at zero (tilec-run zero-fills outputs).
    return {"Stats": [max(0.0, max(a)), min(0.0, min(a)),
                      max(0.0, max(abs(x) for x in a))]}


def attend(q, keys, values, scale):
    """softmax(q . keys / scale) @ values for one query row; no keys: zeros."""
    if not keys:
        return [0.0] * len(q)
    s = [scale * sum(a * b for a, b in zip(q, k)) for k in keys]
    mx = max(s)
    e = [math.exp(x - mx) for x in s]
    total = sum(e)
    return [sum(w * v[d] for w, v in zip(e, values)) / total
            for d in range(len(values[0]))]


def tensor(flat, *shape):
    """Nested lists of the row-major FLAT with SHAPE."""
    for n in reversed(shape[1:]):
        flat = rows(flat, n)
    return flat


# The attention references hard-code the shapes.txt sizes they run at.
def gqa_attention(p):
    s, h, hkv, d = 100, 4, 2, 64  # causal
    q = tensor(p["Q"], s, h, d)
    k, v = (tensor(p[n], s, hkv, d) for n in ("K", "V"))
    out = []
    for i in range(s):
        for j in range(h):
            g = j // (h // hkv)
            out += attend(q[i][j], [k[t][g] for t in range(i + 1)],
                          [v[t][g] for t in range(i + 1)], 1 / math.sqrt(d))
    return {"Output": out}


def varlen_attention(p):
    h, hkv, d = 2, 1, 64  # causal, aligned to the bottom right
    cq, ck = [int(x) for x in p["cu_seqlens_q"]], [int(x) for x in p["cu_seqlens_k"]]
    q = tensor(p["Q"], cq[-1], h, d)
    k, v = (tensor(p[n], ck[-1], hkv, d) for n in ("K", "V"))
    out = [0.0] * len(p["Output"])
    for b in range(len(cq) - 1):
        lq, lk = cq[b + 1] - cq[b], ck[b + 1] - ck[b]
        for i in range(lq):
            seen = range(ck[b], ck[b] + max(0, min(lk, i + 1 + lk - lq)))
            for j in range(h):
                g = j // (h // hkv)
                row = (cq[b] + i) * h + j
                out[row * d:(row + 1) * d] = attend(
                    q[cq[b] + i][j], [k[t][g] for t in seen], [v[t][g] for t in seen],
                    1 / math.sqrt(d))
    return {"Output": out}


def flash_decoding(p):
    h, hkv, s, d = 4, 2, 200, 64
    lens = [int(x) for x in p["cache_seqlens"]]
    q = tensor(p["Q"], len(lens), h, d)
    k, v = (tensor(p[n], len(lens), s, hkv, d) for n in ("K", "V"))
    out = []
    for b, n in enumerate(lens):
        for j in range(h):
            g = j // (h // hkv)
            out += attend(q[b][j], [k[b][t][g] for t in range(n)],
                          [v[b][t][g] for t in range(n)], 1 / math.sqrt(d))
    return {"Output": out}


def flash_attention_bwd(p):
    """The backward's formulas on the given O and lse (random here, so not
    those of a forward): P = 2^(S log2(e) - lse), Delta = rowsum(dO * O)."""
    s, h, d = 100, 2, 64  # causal
    q, k, v, o, do = (tensor(p[n], s, h, d) for n in ("Q", "K", "V", "O", "dO"))
    lse = tensor(p["lse"], h, s)
    scale = 1 / math.sqrt(d)
    grads = {n: [0.0] * (s * h * d) for n in ("dQ", "dK", "dV")}

    def add(name, i, j, row, w):
        base = (i * h + j) * d
        for c in range(d):
            grads[name][base + c] += w * row[c]

    def dot(a, b):
        return sum(x * y for x, y in zip(a, b))

    for j in range(h):
        for i in range(s):
            delta = dot(do[i][j], o[i][j])
            for t in range(i + 1):
                pr = 2 ** (dot(q[i][j], k[t][j]) * scale / math.log(2) - lse[j][i])
                ds = pr * (dot(do[i][j], v[t][j]) - delta) * scale
                add("dV", t, j, do[i][j], pr)
                add("dK", t, j, q[i][j], ds)
                add("dQ", i, j, k[t][j], ds)
    return grads


def flash_attention(p):
    h, d = 1, 64  # not causal; 128 positions (256 in flash_attention@ws)
    s = len(p["Q"]) // (h * d)
    q, k, v = (tensor(p[n], s, h, d) for n in ("Q", "K", "V"))
    out = []
    for i in range(s):
        for j in range(h):
            out += attend(q[i][j], [k[t][j] for t in range(s)],
                          [v[t][j] for t in range(s)], 1 / math.sqrt(d))
    return {"Output": out}


def mla_attend(q, q_pe, kv, k_pe, scale):
    """MLA for one query head: scores q . kv[t] + q_pe . k_pe[t] (the rows
    kv, k_pe of the valid positions), and the softmax-weighted sum of the
    latent rows kv[t] (K is also V)."""
    keys = [a + b for a, b in zip(kv, k_pe)]
    return attend(q + q_pe, keys, kv, scale)


def flashmla_decode_pipelined(p):
    b, h, s, d, pe = 1, 16, 128, 64, 32
    q, kv = tensor(p["Q"], b, h, d), tensor(p["KV"], b, s, d)
    q_pe, k_pe = tensor(p["Q_pe"], b, h, pe), tensor(p["K_pe"], b, s, pe)
    out = []
    for i in range(b):
        for j in range(h):
            out += mla_attend(q[i][j], q_pe[i][j], kv[i], k_pe[i],
                              1 / math.sqrt(d + pe))
    return {"Output": out}


def flashmla_decode(p):
    """Paged: position t of batch entry i is row t % page of page
    block_table[i][t // page]; cache_seqlens[i] positions are valid."""
    h, d, pe, page = 64, 128, 64, 64
    lens = [int(x) for x in p["cache_seqlens"]]
    table = rows([int(x) for x in p["block_table"]], len(p["block_table"]) // len(lens))
    q, q_pe = tensor(p["Q"], len(lens), h, d), tensor(p["Q_pe"], len(lens), h, pe)
    kv = tensor(p["KV"], len(p["KV"]) // (page * d), page, d)
    k_pe = tensor(p["K_pe"], len(p["K_pe"]) // (page * pe), page, pe)
    out = []
    for i, n in enumerate(lens):
        where = [(table[i][t // page], t % page) for t in range(n)]
        keys = [kv[g][r] for g, r in where]
        keys_pe = [k_pe[g][r] for g, r in where]
        for j in range(h):
            out += mla_attend(q[i][j], q_pe[i][j], keys, keys_pe,
                              1 / math.sqrt(d + pe))
    return {"Output": out}


def cumsum(p):
    s, h, chunk = 128, 8, 64  # prefix sums inside chunks of 64 positions
    g = tensor(p["G"], len(p["G"]) // (s * h), s, h)
    out = []
    for batch in g:
        for t in range(s):
            start = t - t % chunk
            out += [sum(batch[u][j] for u in range(start, t + 1)) for j in range(h)]
    return {"G_new": out}


def bucketize(p):
    b = p["Boundaries"]
    return {"Out": [sum(1 for x in b if x < v) for v in p["Values"]]}


def topk(p):
    k = len(p["Values"]) // (len(p["Logits"]) // 128)
    values, indices = [], []
    for r in rows(p["Logits"], 128):
        # The largest first; the lowest column wins ties.
        best = sorted(range(len(r)), key=lambda j: (-r[j], j))[:k]
        values += [r[j] for j in best]
        indices += best
    return {"Values": values, "Indices": indices}


def fp4_e2m1(code):
    """float4_e2m1 as dequant_gemm decodes it: sign, exponent (bias 1),
    mantissa; exponent 0 is subnormal."""
    e, m = (code >> 1) & 3, code & 1
    mag = m * 0.5 if e == 0 else (1 + m / 2) * 2.0 ** (e - 1)
    return -mag if code & 8 else mag


def dequant_gemm(p):
    m = n = 128  # fp4 weights, two per byte along k (the low nibble first)
    k = len(p["A"]) // m
    w = []
    for byte in (int(x) for x in p["B"]):
        w += [fp4_e2m1(byte & 15), fp4_e2m1(byte >> 4)]
    c = matmul(w, p["A"], n, m, k, trans_b=True)
    return {"Ct": c}


def custom_layout(p):
    m = math.isqrt(len(p["A"]))
    a = rows(p["A"], m)
    return {"B": [a[j][i] * 2 + 1 for i in range(m) for j in range(m)]}


REFERENCES = {
    "flash_attention": flash_attention,
    "flash_attention_schedule": flash_attention,
    "flashmla_decode": flashmla_decode,
    "flashmla_decode_pipelined": flashmla_decode_pipelined,
    "cumsum": cumsum,
    "bucketize": bucketize,
    "topk": topk,
    "dequant_gemm": dequant_gemm,
    "custom_layout": custom_layout,
    "gqa_attention": gqa_attention,
    "varlen_attention": varlen_attention,
    "flash_decoding": flash_decoding,
    "flash_decoding@one_block": flash_decoding,
    "flash_decoding@many_slots": flash_decoding,
    "flash_attention_bwd": flash_attention_bwd,
    # The shape that puts the key blocks first (b2 h4 s300) is past what the
    # pure-Python reference above (b1 h2 s100) does in reasonable time.
    "flash_attention_bwd@kbf": None,
    "elementwise_add": elementwise_add,
    "gemm": gemm,
    "gemm_dynamic": gemm_nt,
    "gemm_rs": gemm,
    "gemm_transpose": gemm,
    "gemm_transpose@k_pack_tt": gemm_tt,
    "gemm_transpose@tn_fullrow": gemm_tn,
    "gemm_transpose@nt_fullcol": gemm_nt,
    "gemm_rs@rr_nt": gemm_nt,
    "gemm_transpose@k_pack_nt": gemm_nt,
    "splitk_gemm": gemm,
    "gemm_int8": gemm_nt,
    "gemm_int4": gemm_nt,
    "gemm_fp8": gemm_nt,
    "gemm_epilogue": gemm_epilogue,
    "reduce": reduce,
    "softmax": softmax,
    "rmsnorm": rmsnorm,
    "layernorm": layernorm,
    "gemv": gemv,
    "minmax": minmax,
}


def main():
    args = sys.argv[1:]
    require = args[0] == "--require"
    example, path = args[require:]
    # NAME@VARIANT (shapes.txt) has the reference of NAME unless it has one
    # of its own.
    ref = REFERENCES.get(example, REFERENCES.get(example.split("@")[0]))
    if ref is None:
        print(f"{example}: no Python reference (cross-target check only)")
        return 1 if require else 0
    dtypes = {}
    p = read(path, dtypes)
    ok = True
    for name, want in ref(p).items():
        got = p[name]
        # Integer outputs (sums of small integers, indices) must be exact;
        # floats within 2e-2 of each element plus 1e-2 of the output's mean
        # magnitude (a fixed absolute tolerance would pass a softmax of 256
        # columns, whose elements are about 4e-3, if it wrote zeros).
        scale = sum(abs(w) for w in want) / max(len(want), 1)
        atol, rtol = (0, 0) if dtypes[name][0] in "iu" else (1e-2 * scale, 2e-2)
        bad = [i for i, (g, w) in enumerate(zip(got, want))
               if not abs(g - w) <= atol + rtol * abs(w)]
        if len(got) != len(want) or bad:
            i = bad[0] if bad else 0
            print(f"{example}: {name}: {len(bad)} of {len(want)} elements "
                  f"differ from the reference (element {i}: got "
                  f"{got[i]}, expected {want[i]})")
            ok = False
    if ok:
        print(f"{example}: matches the reference")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
